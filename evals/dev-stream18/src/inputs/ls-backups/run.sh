#!/bin/sh
# makes the backup folder (fixed sizes and dates), then lists it
rm -rf /tmp/bs18-backups && mkdir -p /tmp/bs18-backups && cd /tmp/bs18-backups && for d in 01 02 03 04 05 06 07 08 09 10 11 12 13 14; do f=orders-db-2026-11-$d.sql.gz; truncate -s $((48200000 + ${d#0} * 13577)) $f; touch -d "2026-11-$d 02:15" $f; done && cd /tmp && ls -l --time-style=long-iso /tmp/bs18-backups
