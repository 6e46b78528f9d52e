#!/bin/sh
cd "$(dirname "$0")" && python3 -m pycodestyle settings_table.py
