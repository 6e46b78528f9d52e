#!/bin/sh
cd "$(dirname "$0")" && grep -rn TODO src | sort -t: -k1,1 -k2,2n
