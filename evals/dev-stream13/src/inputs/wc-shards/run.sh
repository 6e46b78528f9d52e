#!/bin/sh
cd "$(dirname "$0")" && rm -rf shards && python3 make_shards.py && wc -l shards/*.csv
