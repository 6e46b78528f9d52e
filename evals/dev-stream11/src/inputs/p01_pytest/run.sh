#!/bin/sh
# command: cd p01_pytest && python3 -m pytest -v -p no:cacheprovider test_convert.py
cd "$(dirname "$0")" && python3 -m pytest -v -p no:cacheprovider test_convert.py
