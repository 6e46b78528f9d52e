#!/bin/sh
# compile with all warnings; only the diagnostics are kept (no colour, no caret lines)
cd "$(dirname "$0")"
LC_ALL=C.UTF-8 gcc -Wall -Wextra -fdiagnostics-color=never -fno-diagnostics-show-caret -c sensors.c -o /dev/null 2>&1
