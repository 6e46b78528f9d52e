#!/bin/sh
# command: cd p09_rustc && rustc --color never --edition 2021 -o /tmp/units units.rs
cd "$(dirname "$0")" && rustc --color never --edition 2021 -o /tmp/units units.rs
