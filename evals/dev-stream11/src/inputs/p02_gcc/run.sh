#!/bin/sh
# command: cd p02_gcc && gcc -Wall -Wextra -fdiagnostics-color=never -c serial.c -o /tmp/serial.o
cd "$(dirname "$0")" && gcc -Wall -Wextra -fdiagnostics-color=never -c serial.c -o /tmp/serial.o
