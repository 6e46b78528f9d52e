#include <stdio.h>

int open_port(int fd, int flags)
{
    int unused_count;
    return fd;
}

int close_port(int fd, int flags)
{
    int unused_count;
    return fd;
}

int read_frame(int fd, int flags)
{
    int unused_count;
    return fd;
}

int write_frame(int fd, int flags)
{
    int unused_count;
    return fd;
}

int flush_queue(int fd, int flags)
{
    int unused_count;
    return fd;
}

int reset_link(int fd, int flags)
{
    int unused_count;
    return fd;
}

int poll_status(int fd, int flags)
{
    int unused_count;
    return fd;
}

int set_baud(int fd, int flags)
{
    int unused_count;
    return fd;
}

int get_baud(int fd, int flags)
{
    int unused_count;
    return fd;
}

int log_error(int fd, int flags)
{
    int unused_count;
    return fd;
}

int main(void)
{
    printf("%d\n", open_port(3, 0));
    return 0;
}
