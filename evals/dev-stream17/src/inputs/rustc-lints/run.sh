#!/bin/sh
# rustc on an inventory module whose three restock functions each leave the same two variables unused
cd "$(dirname "$0")" && rustc --edition 2021 --crate-type lib -o /tmp/bs17-inventory.rlib inventory.rs 2>&1
