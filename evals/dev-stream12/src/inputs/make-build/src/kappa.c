int kappa_value(void) { return 5; }
