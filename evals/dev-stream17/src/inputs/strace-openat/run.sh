#!/bin/sh
# strace of a loader that opens ten CSV parts in turn (one openat line per file)
cd "$(dirname "$0")" && mkdir -p /tmp/bs17-parts && for i in 01 02 03 04 05 06 07 08 09 10; do echo "id,value" > /tmp/bs17-parts/part-$i.csv; done && gcc -O0 loader.c -o /tmp/bs17-loader && strace -e trace=openat /tmp/bs17-loader 2>&1
