int beta_value(void) { return 4; }
