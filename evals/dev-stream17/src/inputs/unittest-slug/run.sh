#!/bin/sh
# unittest in verbose mode on ten small slugify tests (one "... ok" line each)
cd "$(dirname "$0")" && PYTHONDONTWRITEBYTECODE=1 python3 -m unittest -v test_slug 2>&1
