#include <stddef.h>
int crc32_init(void) { return 0; }
