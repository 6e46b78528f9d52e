#!/bin/sh
# pytest in verbose mode on ten parametrised Celsius-to-Fahrenheit cases
cd "$(dirname "$0")" && PYTHONDONTWRITEBYTECODE=1 python3 -m pytest -v -p no:cacheprovider test_temps.py 2>&1
