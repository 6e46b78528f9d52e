#!/bin/sh
# command: cd p03_make && make clean >/dev/null && make -j1
cd "$(dirname "$0")" && make clean >/dev/null && make -j1
