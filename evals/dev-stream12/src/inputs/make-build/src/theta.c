int theta_value(void) { return 5; }
