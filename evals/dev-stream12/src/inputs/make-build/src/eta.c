int eta_value(void) { return 3; }
