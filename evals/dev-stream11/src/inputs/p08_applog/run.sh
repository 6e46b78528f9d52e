#!/bin/sh
# command: cd p08_applog && python3 worker.py
cd "$(dirname "$0")" && python3 worker.py
