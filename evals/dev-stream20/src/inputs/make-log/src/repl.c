int repl_init(void) { return 0; }
