#!/bin/sh
# disassemble a protocol-2 pickle of five station records
cd "$(dirname "$0")" && python3 make_pickle.py && python3 -m pickletools stations.pkl
