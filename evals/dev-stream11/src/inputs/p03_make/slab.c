#include <stddef.h>
int slab_init(void) { return 0; }
