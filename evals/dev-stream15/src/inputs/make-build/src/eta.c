int eta_init(void) { return 0; }
