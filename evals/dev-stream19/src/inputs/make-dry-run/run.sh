#!/bin/sh
# print, without running them, the commands a clean build would run
cd "$(dirname "$0")" && make -n -B
