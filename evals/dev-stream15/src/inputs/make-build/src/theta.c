int theta_init(void) { return 0; }
