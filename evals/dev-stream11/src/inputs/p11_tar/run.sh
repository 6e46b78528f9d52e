#!/bin/sh
# command: cd p11_tar && tar --sort=name --mtime='2024-05-01 12:00:00' --owner=0 --group=0 --numeric-owner -cf /tmp/site.tar site && tar -tvf /tmp/site.tar
cd "$(dirname "$0")" && tar --sort=name --mtime='2024-05-01 12:00:00' --owner=0 --group=0 --numeric-owner -cf /tmp/site.tar site && tar -tvf /tmp/site.tar
