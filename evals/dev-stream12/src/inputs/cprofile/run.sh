#!/bin/sh
cd "$(dirname "$0")" && python3 -m cProfile -s ncalls fib.py
