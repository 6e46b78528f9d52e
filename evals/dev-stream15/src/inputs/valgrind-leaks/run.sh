#!/bin/sh
# valgrind memcheck with full leak details on a program that leaks one buffer in each of five small functions
cd "$(dirname "$0")" && gcc -g -O0 leaky.c -o /tmp/bs15-leaky && valgrind --leak-check=full --show-leak-kinds=all /tmp/bs15-leaky 2>&1
