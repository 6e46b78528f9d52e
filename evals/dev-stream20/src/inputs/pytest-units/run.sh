#!/bin/sh
# verbose pytest run of the unit-conversion tests; prints one PASSED line per parametrized case
cd "$(dirname "$0")"
PYTHONDONTWRITEBYTECODE=1 python3 -m pytest -v -p no:cacheprovider test_units.py
