#!/bin/sh
# node test runner with the TAP reporter on eight cents-formatting cases (an "ok N" entry with the same fields for each)
cd "$(dirname "$0")" && node --test --test-reporter=tap money.test.mjs 2>&1
