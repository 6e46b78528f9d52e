#!/bin/sh
# gdb in batch mode: run a program that recurses twelve levels and aborts, then print the backtrace
cd "$(dirname "$0")" && gcc -g -O0 walk.c -o /tmp/bs16-walk && gdb -q -batch -ex run -ex bt /tmp/bs16-walk 2>&1
