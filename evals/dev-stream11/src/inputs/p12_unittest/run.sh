#!/bin/sh
# command: cd p12_unittest && python3 test_roman.py
cd "$(dirname "$0")" && python3 test_roman.py
