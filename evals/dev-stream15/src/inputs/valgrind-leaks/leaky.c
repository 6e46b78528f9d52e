#include <stdlib.h>
#include <string.h>

static char *copy_name(const char *s)  { char *p = malloc(16); strcpy(p, s); return p; }
static char *copy_city(const char *s)  { char *p = malloc(24); strcpy(p, s); return p; }
static char *copy_email(const char *s) { char *p = malloc(32); strcpy(p, s); return p; }
static char *copy_phone(const char *s) { char *p = malloc(20); strcpy(p, s); return p; }
static char *copy_notes(const char *s) { char *p = malloc(40); strcpy(p, s); return p; }

int main(void)
{
    copy_name("Ingrid");
    copy_city("Tromso");
    copy_email("ingrid@example.org");
    copy_phone("+47 555 01 234");
    copy_notes("prefers email");
    return 0;
}
