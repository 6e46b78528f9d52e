int iota_value(void) { return 4; }
