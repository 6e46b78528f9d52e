#!/bin/sh
cd "$(dirname "$0")" && python3 -m pytest -v -p no:cacheprovider test_isbn.py
