int kappa_init(void) { return 0; }
