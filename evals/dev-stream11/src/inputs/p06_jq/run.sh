#!/bin/sh
# command: cd p06_jq && jq '.' stock.json
cd "$(dirname "$0")" && jq '.' stock.json
