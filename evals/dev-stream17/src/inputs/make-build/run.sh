#!/bin/sh
# make building ten one-function C files into a static library (one compile line per file)
cd "$(dirname "$0")" && rm -rf /tmp/bs17-make && make --no-print-directory BUILD=/tmp/bs17-make 2>&1
