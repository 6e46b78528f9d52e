#!/bin/sh
# blame the relay config line by line in a repository built with fixed dates
cd "$(dirname "$0")" && ./make_repo.sh && cd /tmp/bs14-blame && git blame --date=iso relay.ini
