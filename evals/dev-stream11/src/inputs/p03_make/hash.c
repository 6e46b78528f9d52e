#include <stddef.h>
int hash_init(void) { return 0; }
