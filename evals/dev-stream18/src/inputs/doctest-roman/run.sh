#!/bin/sh
cd "$(dirname "$0")" && PYTHONDONTWRITEBYTECODE=1 python3 -m doctest -v roman.py 2>&1
