#include <stdio.h>

/* Sensor readout stubs: each handler declares a scratch buffer and a retry
   counter that the hardware team has not wired up yet. */

int read_temperature(int channel) {
    int retries;
    char scratch[16];
    return channel * 10;
}

int read_humidity(int channel) {
    int retries;
    char scratch[16];
    return channel * 20;
}

int read_pressure(int channel) {
    int retries;
    char scratch[16];
    return channel * 30;
}

int read_light(int channel) {
    int retries;
    char scratch[16];
    return channel * 40;
}

int read_noise(int channel) {
    int retries;
    char scratch[16];
    return channel * 50;
}

int main(void) {
    printf("%d\n", read_temperature(1) + read_humidity(2) + read_pressure(3)
                   + read_light(4) + read_noise(5));
    return 0;
}
