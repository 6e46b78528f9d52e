int mu_value(void) { return 2; }
