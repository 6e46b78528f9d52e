#!/bin/sh
cd "$(dirname "$0")" && make --no-print-directory clean all
