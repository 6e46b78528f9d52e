int zeta_init(void) { return 0; }
