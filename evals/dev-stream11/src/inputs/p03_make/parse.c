#include <stddef.h>
int parse_init(void) { return 0; }
