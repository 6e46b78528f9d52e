#!/bin/sh
# xxd of a small binary frame: a 12-byte header, zero padding, then a ramp
cd "$(dirname "$0")" && python3 make_bin.py && xxd frame.bin
