int iota_init(void) { return 0; }
