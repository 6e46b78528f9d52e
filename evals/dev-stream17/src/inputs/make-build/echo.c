int echo_value(void) { return 4; }
