#!/bin/sh
# verbose pytest run without cache or bytecode; the header names this machine's Python and pytest, the last line its run time
cd "$(dirname "$0")" && PYTHONDONTWRITEBYTECODE=1 python3 -m pytest -v -p no:cacheprovider test_vat.py 2>&1
