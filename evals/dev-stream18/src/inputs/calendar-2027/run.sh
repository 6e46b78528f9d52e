#!/bin/sh
cd "$(dirname "$0")" && python3 -m calendar 2027
