#!/bin/sh
# command: cd p05_diff && diff -u --label old.ini --label new.ini old.ini new.ini
cd "$(dirname "$0")" && diff -u --label old.ini --label new.ini old.ini new.ini
