#!/bin/sh
cd "$(dirname "$0")" && rm -rf archive && python3 make_tree.py && find archive -type f | sort
