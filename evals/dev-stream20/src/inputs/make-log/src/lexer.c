int lexer_init(void) { return 0; }
