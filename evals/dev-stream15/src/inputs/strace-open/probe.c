#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(void)
{
    const char *names[] = { "a", "b", "c", "d", "e", "f", "g", "h" };
    char path[64];
    for (int i = 0; i < 8; i++) {
        snprintf(path, sizeof path, "/tmp/bs15-conf/%s.conf", names[i]);
        int fd = open(path, O_RDONLY);
        if (fd >= 0)
            close(fd);
    }
    return 0;
}
