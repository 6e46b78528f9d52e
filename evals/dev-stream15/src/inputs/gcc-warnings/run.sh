#!/bin/sh
# GCC with -Wall -Wextra on a small sensor-polling file
cd "$(dirname "$0")" && gcc -Wall -Wextra -c sensors.c -o /tmp/bs15-sensors.o 2>&1
