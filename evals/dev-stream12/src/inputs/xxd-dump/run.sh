#!/bin/sh
cd "$(dirname "$0")" && xxd records.bin
