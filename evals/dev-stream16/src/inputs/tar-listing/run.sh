#!/bin/sh
# list a backup archive of twelve monthly photo files with tar's verbose listing
cd "$(dirname "$0")" && tar --create --file=/tmp/bs16-backup.tar --owner=0 --group=0 --mtime='2024-01-07 09:30' --sort=name backup && tar -tvf /tmp/bs16-backup.tar
