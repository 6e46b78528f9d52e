#!/bin/sh
# run the slug tests verbosely (unittest prints its own timing in the last lines)
cd "$(dirname "$0")" && PYTHONDONTWRITEBYTECODE=1 python3 -m unittest -v test_slug 2>&1
