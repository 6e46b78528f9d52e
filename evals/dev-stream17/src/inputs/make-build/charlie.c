int charlie_value(void) { return 7; }
