#!/bin/sh
# command: cd p13_csv && python3 make_csv.py
cd "$(dirname "$0")" && python3 make_csv.py
