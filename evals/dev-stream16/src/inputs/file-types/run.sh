#!/bin/sh
# file(1) on eight small PNG icons written by make_icons.py
cd "$(dirname "$0")" && python3 make_icons.py && cd /tmp/bs16-icons && file *.png
