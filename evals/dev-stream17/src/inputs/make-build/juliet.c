int juliet_value(void) { return 6; }
