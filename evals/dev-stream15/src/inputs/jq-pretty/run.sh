#!/bin/sh
# jq pretty-printing a one-line station list, with a field added to each entry
cd "$(dirname "$0")" && jq 'map(. + {country: "NO"})' stations.json
