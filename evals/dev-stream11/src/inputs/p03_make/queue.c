#include <stddef.h>
int queue_init(void) { return 0; }
