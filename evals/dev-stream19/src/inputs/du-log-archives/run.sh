#!/bin/sh
# twelve monthly folders of rotated logs with fixed sizes (truncate), then their apparent sizes
rm -rf /tmp/bs19-logs && mkdir -p /tmp/bs19-logs && cd /tmp/bs19-logs && for m in 01 02 03 04 05 06 07 08 09 10 11 12; do mkdir -p 2026-$m; for h in app worker; do truncate -s $(( (40 + ${m#0} * 3) * 1048576 )) 2026-$m/$h.log.gz; done; done
cd /tmp && du -ah --apparent-size bs19-logs | LC_ALL=C sort -k2
