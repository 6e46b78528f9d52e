#!/bin/sh
# command: cd p04_xxd && xxd frame.bin
cd "$(dirname "$0")" && xxd frame.bin
