#!/bin/sh
cd "$(dirname "$0")" && python3 make_log.py && awk '{print $7}' access.log | sort | uniq -c | sort -rn
