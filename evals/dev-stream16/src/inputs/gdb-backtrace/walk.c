#include <stdio.h>
#include <stdlib.h>

/* Walks a directory-like tree of depth n and aborts at the bottom
   so the debugger can show the whole recursion. */
static int walk(int depth, int limit)
{
    if (depth == limit) {
        abort();
    }
    return walk(depth + 1, limit) + 1;
}

int main(void)
{
    printf("%d\n", walk(0, 12));
    return 0;
}
