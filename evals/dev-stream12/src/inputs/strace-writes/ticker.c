#include <unistd.h>
int main(void)
{
    for (int i = 0; i < 10; i++) {
        write(1, "tick\n", 5);
    }
    write(1, "done\n", 5);
    return 0;
}
