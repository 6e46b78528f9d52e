#include <stddef.h>
int sha1_init(void) { return 0; }
