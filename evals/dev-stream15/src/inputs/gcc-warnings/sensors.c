#include <stdio.h>

struct reading { int id; double value; };

static int read_temp(int channel, int retries) { return 21; }
static int read_humidity(int channel, int retries) { return 40; }
static int read_pressure(int channel, int retries) { return 1013; }
static int read_light(int channel, int retries) { return 300; }
static int read_noise(int channel, int retries) { return 35; }
static int read_co2(int channel, int retries) { return 420; }

int poll_all(struct reading *out, unsigned count)
{
    int i;
    int status;
    for (i = 0; i < count; i++) {
        out[i].id = i;
    }
    return 0;
}

int main(void)
{
    struct reading r[4];
    int unused_total;
    poll_all(r, 4);
    printf("%d\n", read_temp(0, 1));
    return 0;
}
