#!/bin/sh
# gcc with -Wall -Wextra on a sensor module whose four reader functions share the same unused parameters and local
cd "$(dirname "$0")" && gcc -Wall -Wextra -c sensors.c -o /tmp/bs17-sensors.o 2>&1
