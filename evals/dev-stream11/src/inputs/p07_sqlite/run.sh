#!/bin/sh
# command: cd p07_sqlite && sqlite3 -box :memory: ".read schema.sql" "SELECT day, slot, staff, role FROM shifts ORDER BY rowid;"
cd "$(dirname "$0")" && sqlite3 -box :memory: ".read schema.sql" "SELECT day, slot, staff, role FROM shifts ORDER BY rowid;"
