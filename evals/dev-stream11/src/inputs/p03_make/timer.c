#include <stddef.h>
int timer_init(void) { return 0; }
