#!/bin/sh
# load the shipments table into an in-memory database and export it as CSV, grouped by warehouse
cd "$(dirname "$0")"
sqlite3 :memory: < shipments.sql
