#!/bin/sh
cd "$(dirname "$0")" && sqlite3 -box :memory: < query.sql
