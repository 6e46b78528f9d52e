int epsilon_value(void) { return 7; }
