#!/bin/sh
# strace of open/close calls while a small program probes eight config files
cd "$(dirname "$0")" && rm -rf /tmp/bs15-conf && mkdir -p /tmp/bs15-conf && touch /tmp/bs15-conf/a.conf /tmp/bs15-conf/c.conf /tmp/bs15-conf/f.conf && gcc -O0 probe.c -o /tmp/bs15-probe && strace -e trace=openat,close /tmp/bs15-probe 2>&1
