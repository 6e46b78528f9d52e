#!/bin/sh
# Node's console.table over ten room bookings
cd "$(dirname "$0")" && node rooms.mjs
