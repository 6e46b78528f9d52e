#!/bin/sh
# GNU make building ten small modules into a static library
cd "$(dirname "$0")" && rm -rf /tmp/bs15-make && make --no-print-directory 2>&1
