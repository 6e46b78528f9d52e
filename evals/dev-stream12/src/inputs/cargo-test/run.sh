#!/bin/sh
# CARGO_TARGET_DIR keeps build products out of the inputs folder
cd "$(dirname "$0")/ringbuf" && CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/tmp/ringbuf-target}" cargo test --offline --color never -- --test-threads 1
