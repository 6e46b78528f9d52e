#!/bin/sh
cd "$(dirname "$0")" && jq -c '.[]' sensors.json
