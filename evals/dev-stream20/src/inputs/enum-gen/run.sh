#!/bin/sh
# generate the HTTP status enum module
cd "$(dirname "$0")"
PYTHONDONTWRITEBYTECODE=1 python3 gen_enum.py
