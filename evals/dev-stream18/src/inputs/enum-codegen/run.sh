#!/bin/sh
cd "$(dirname "$0")" && python3 gen_enum.py statuses.csv
