#!/bin/sh
# pretty-print every inventory item (sku, bin, qty, unit, reorder flag) in bin order as an indented JSON array
cd "$(dirname "$0")"
jq --indent 2 '[.items[] | {sku, bin, qty, unit, reorder}] | sort_by(.bin, .sku)' inventory.json
