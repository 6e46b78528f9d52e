#!/bin/sh
# unified diff between two versions of a host config
cd "$(dirname "$0")" && diff -u --label hosts.old.ini --label hosts.new.ini hosts.old.ini hosts.new.ini
