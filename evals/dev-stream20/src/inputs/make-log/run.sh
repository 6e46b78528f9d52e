#!/bin/sh
# clean build of the interpreter's static library; make echoes one compile line per source file
cd "$(dirname "$0")"
rm -rf /tmp/bs20-build && LC_ALL=C make --no-print-directory -B
