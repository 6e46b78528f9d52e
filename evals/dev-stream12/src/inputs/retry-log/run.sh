#!/bin/sh
cd "$(dirname "$0")" && python3 sync_worker.py
