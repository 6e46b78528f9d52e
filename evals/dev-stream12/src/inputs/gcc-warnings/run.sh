#!/bin/sh
cd "$(dirname "$0")" && gcc -Wall -Wextra -fdiagnostics-color=never -c gen_handlers.c -o /dev/null
