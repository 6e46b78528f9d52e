#!/bin/sh
cd "$(dirname "$0")" && node --test --test-reporter=spec slugify.test.mjs
