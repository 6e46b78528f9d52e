#!/bin/sh
# align the bus timetable CSV into fixed-width columns for the printed stop notice
cd "$(dirname "$0")"
column -t -s, timetable.csv
