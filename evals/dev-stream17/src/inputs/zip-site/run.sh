#!/bin/sh
# zip packing ten near-identical HTML pages (one "adding:" line per file)
cd "$(dirname "$0")" && rm -f /tmp/bs17-site.zip && zip -r -X /tmp/bs17-site.zip site 2>&1
