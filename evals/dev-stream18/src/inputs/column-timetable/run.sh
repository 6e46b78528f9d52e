#!/bin/sh
cd "$(dirname "$0")" && column -t -s "$(printf '\t')" timetable.tsv
