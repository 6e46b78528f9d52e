#!/bin/sh
# configure step only, in a fresh build directory
cd "$(dirname "$0")" && rm -rf /tmp/bs14-cmake-build && cmake -S . -B /tmp/bs14-cmake-build 2>&1
