#!/bin/sh
# unified diff of an upstream pool moved to a new subnet (six near-identical removed and added server lines)
cd "$(dirname "$0")" && diff -u --label upstream.old.conf --label upstream.new.conf upstream.old.conf upstream.new.conf
