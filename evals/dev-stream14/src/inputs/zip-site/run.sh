#!/bin/sh
# build the site folder, then zip it recursively (zip prints one line per entry)
cd "$(dirname "$0")" && rm -rf site site.zip && python3 make_site.py && zip -r site.zip site
