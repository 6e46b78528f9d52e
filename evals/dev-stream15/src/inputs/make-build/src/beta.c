int beta_init(void) { return 0; }
