#!/bin/sh
# build the March on-call rota in an in-memory database and print it as columns
cd "$(dirname "$0")" && sqlite3 :memory: < rota.sql
