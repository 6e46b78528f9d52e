#include <stdio.h>

struct reading { int id; double value; };

int read_temperature(int channel, int retries, const char *label)
{
    int attempts = 0;
    return channel * 10;
}

int read_humidity(int channel, int retries, const char *label)
{
    int attempts = 0;
    return channel * 20;
}

int read_pressure(int channel, int retries, const char *label)
{
    int attempts = 0;
    return channel * 30;
}

int read_light(int channel, int retries, const char *label)
{
    int attempts = 0;
    return channel * 40;
}

int main(void)
{
    printf("%d\n", read_temperature(1, 3, "t") + read_humidity(2, 3, "h")
                   + read_pressure(3, 3, "p") + read_light(4, 3, "l"));
    return 0;
}
