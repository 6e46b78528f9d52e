#!/bin/sh
# CMake configure step for a project that probes ten headers and six functions
cd "$(dirname "$0")" && rm -rf /tmp/bs16-cmake && cmake -S . -B /tmp/bs16-cmake 2>&1
