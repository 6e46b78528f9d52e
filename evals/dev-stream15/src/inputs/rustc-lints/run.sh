#!/bin/sh
# rustc warnings for unused functions and variables
cd "$(dirname "$0")" && rustc --edition 2021 units.rs -o /tmp/bs15-units 2>&1
