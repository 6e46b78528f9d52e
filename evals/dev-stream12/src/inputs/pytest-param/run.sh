#!/bin/sh
cd "$(dirname "$0")" && python3 -m pytest -v --no-header -p no:cacheprovider -p no:hypothesispytest -p no:benchmark test_units.py
