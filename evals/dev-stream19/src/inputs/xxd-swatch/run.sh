#!/bin/sh
# write the swatch bitmap to /tmp and hex-dump it
cd "$(dirname "$0")" && python3 make_swatch.py /tmp/bs19-swatch.bmp && xxd /tmp/bs19-swatch.bmp
