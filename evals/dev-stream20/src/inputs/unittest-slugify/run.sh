#!/bin/sh
# verbose unittest run of the slugify tests (unittest writes its report to stderr)
cd "$(dirname "$0")"
PYTHONDONTWRITEBYTECODE=1 python3 -m unittest -v test_slugify 2>&1
