#!/bin/sh
# Node built-in test runner (TAP reporter) on ten slugify cases
cd "$(dirname "$0")" && node --test --test-reporter=tap slug.test.mjs 2>&1
