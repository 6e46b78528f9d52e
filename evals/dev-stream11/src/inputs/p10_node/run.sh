#!/bin/sh
# command: cd p10_node && node gen_codes.js
cd "$(dirname "$0")" && node gen_codes.js
