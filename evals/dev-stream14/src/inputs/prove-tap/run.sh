#!/bin/sh
# Perl's TAP harness in verbose mode on one test file
cd "$(dirname "$0")" && prove -v t/roman.t 2>&1
