#include <stddef.h>

struct ctx { int fd; size_t len; };

int handle_open(struct ctx *c, int flags)
{
    int rc = 0;
    int retries;
    (void)c;
    return rc;
}

int handle_close(struct ctx *c, int flags)
{
    int rc = 0;
    int retries;
    (void)c;
    return rc;
}

int handle_read(struct ctx *c, int flags)
{
    int rc = 0;
    int retries;
    (void)c;
    return rc;
}

int handle_write(struct ctx *c, int flags)
{
    int rc = 0;
    int retries;
    (void)c;
    return rc;
}

int handle_seek(struct ctx *c, int flags)
{
    int rc = 0;
    int retries;
    (void)c;
    return rc;
}

int handle_stat(struct ctx *c, int flags)
{
    int rc = 0;
    int retries;
    (void)c;
    return rc;
}

int handle_sync(struct ctx *c, int flags)
{
    int rc = 0;
    int retries;
    (void)c;
    return rc;
}

int handle_flush(struct ctx *c, int flags)
{
    int rc = 0;
    int retries;
    (void)c;
    return rc;
}

int handle_lock(struct ctx *c, int flags)
{
    int rc = 0;
    int retries;
    (void)c;
    return rc;
}

int handle_unlock(struct ctx *c, int flags)
{
    int rc = 0;
    int retries;
    (void)c;
    return rc;
}

int handle_rename(struct ctx *c, int flags)
{
    int rc = 0;
    int retries;
    (void)c;
    return rc;
}

int handle_unlink(struct ctx *c, int flags)
{
    int rc = 0;
    int retries;
    (void)c;
    return rc;
}
