#include <stddef.h>
int ring_init(void) { return 0; }
