#!/bin/sh
cd "$(dirname "$0")" && awk -f amort.awk
