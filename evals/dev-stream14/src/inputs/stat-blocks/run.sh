#!/bin/sh
# stat every log file (inode numbers and times are specific to the run)
cd "$(dirname "$0")" && rm -rf logs && python3 make_logs.py && stat logs/*.log
