#!/bin/sh
# sqlite3 box-mode listing of a week of ward shifts (the same nurses and wards every day)
cd "$(dirname "$0")" && sqlite3 -box :memory: < roster.sql 2>&1
