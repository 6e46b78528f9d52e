int builtins_init(void) { return 0; }
