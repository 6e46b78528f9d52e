#!/bin/sh
cd "$(dirname "$0")" && tar --owner=0 --group=0 --numeric-owner --mtime='2026-11-28 16:40' --sort=name -cf /tmp/bs18-photos.tar photos && tar -tvf /tmp/bs18-photos.tar
