#!/bin/sh
# sqlite3 box-mode listing of a three-week rota
cd "$(dirname "$0")" && rm -f /tmp/bs15-rota.db && sqlite3 /tmp/bs15-rota.db < make_db.sql && sqlite3 -box /tmp/bs15-rota.db "SELECT week, day, volunteer, shift FROM rota ORDER BY week, rowid;"
