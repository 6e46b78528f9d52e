#!/bin/sh
cd "$(dirname "$0")" && jq '.' orders.json
