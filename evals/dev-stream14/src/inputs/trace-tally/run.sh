#!/bin/sh
# line-by-line execution trace of a twelve-iteration loop
cd "$(dirname "$0")" && python3 -m trace --trace tally.py 2>&1
