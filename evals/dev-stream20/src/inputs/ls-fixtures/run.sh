#!/bin/bash
# build a fixture tree of daily export files with fixed sizes and dates under /tmp/bs20-exports, then list it
rm -rf /tmp/bs20-exports && mkdir -p /tmp/bs20-exports
for i in $(seq 1 24); do
  f=$(printf '/tmp/bs20-exports/orders_2024-03-%02d.csv' "$i")
  head -c $((4000 + i * 37)) /dev/zero > "$f"
  chmod 644 "$f"
  TZ=UTC touch -d "2024-03-$(printf %02d "$i") 23:59:00" "$f"
done
cd /tmp/bs20-exports && TZ=UTC LC_ALL=C ls -l --time-style=long-iso
