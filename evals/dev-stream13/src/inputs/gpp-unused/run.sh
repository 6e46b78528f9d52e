#!/bin/sh
cd "$(dirname "$0")" && g++ -std=c++17 -Wall -Wextra -fdiagnostics-color=never -c widget.cpp -o /tmp/widget.o 2>&1
