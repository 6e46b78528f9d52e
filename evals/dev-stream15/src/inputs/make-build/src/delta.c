int delta_init(void) { return 0; }
