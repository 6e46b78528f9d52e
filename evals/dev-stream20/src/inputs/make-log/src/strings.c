int strings_init(void) { return 0; }
