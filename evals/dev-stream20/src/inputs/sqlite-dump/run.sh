#!/bin/sh
# load the feature-flag table and print the database back as SQL (.dump)
cd "$(dirname "$0")"
sqlite3 :memory: '.read flags.sql' '.dump'
