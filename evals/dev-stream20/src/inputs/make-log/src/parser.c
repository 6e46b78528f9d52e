int parser_init(void) { return 0; }
