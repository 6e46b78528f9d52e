int ast_init(void) { return 0; }
