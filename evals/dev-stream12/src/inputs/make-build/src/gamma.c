int gamma_value(void) { return 5; }
