#include <stdio.h>
int main(void) {
    int a, b, c, d, e, f;
    unsigned u = 3;
    for (int i = 0; i < 3; i++) { if (i < u) {} }
    long x = 1; printf("%d\n", x); printf("%d\n", x); printf("%d\n", x);
    return 0;
}
