int zeta_value(void) { return 4; }
