int india_value(void) { return 5; }
