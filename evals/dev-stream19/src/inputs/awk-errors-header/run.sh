#!/bin/sh
# generate the C error header from the CSV
cd "$(dirname "$0")" && awk -f gen_header.awk errors.csv
