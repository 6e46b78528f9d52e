#!/bin/sh
# doctest in verbose mode on a leap-year function with twelve examples
cd "$(dirname "$0")" && python3 -m doctest -v leap.py 2>&1
