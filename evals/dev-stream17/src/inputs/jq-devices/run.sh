#!/bin/sh
# jq printing one compact object per edge host (the same keys, and mostly the same values, on every line)
cd "$(dirname "$0")" && jq -c '.[] | {host, status, region, version}' devices.json
