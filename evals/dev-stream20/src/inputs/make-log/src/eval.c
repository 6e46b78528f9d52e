int eval_init(void) { return 0; }
