#!/bin/sh
# builds the tiny program into /tmp, then traces its write calls
cd "$(dirname "$0")" && cc -O0 -o /tmp/ticker ticker.c && strace -e trace=write /tmp/ticker > /dev/null
