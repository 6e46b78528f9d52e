int lambda_value(void) { return 6; }
