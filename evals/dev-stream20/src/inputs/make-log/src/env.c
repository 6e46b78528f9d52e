int env_init(void) { return 0; }
