#!/bin/sh
cd "$(dirname "$0")" && python3 gen_status.py
