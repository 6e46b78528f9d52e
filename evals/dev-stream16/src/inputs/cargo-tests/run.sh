#!/bin/sh
# cargo test on a one-file crate with thirteen small tests of a clamping function
cd "$(dirname "$0")" && CARGO_TARGET_DIR=/tmp/bs16-cargo-target cargo test --offline -- --test-threads=1 2>&1
