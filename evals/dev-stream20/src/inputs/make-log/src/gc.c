int gc_init(void) { return 0; }
