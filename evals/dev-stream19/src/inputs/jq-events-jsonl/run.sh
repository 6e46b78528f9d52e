#!/bin/sh
# one compact JSON object per line
cd "$(dirname "$0")" && jq -c ".[]" events.json
