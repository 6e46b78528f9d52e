#!/bin/sh
cd "$(dirname "$0")" && rm -rf tiles && python3 make_tiles.py && md5sum tiles/*.bin
