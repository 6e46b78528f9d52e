#!/bin/sh
# hex dump of a small log file: a header and eight zero-padded 32-byte records
cd "$(dirname "$0")" && python3 make_blob.py /tmp/bs17-blob.bin && xxd /tmp/bs17-blob.bin
