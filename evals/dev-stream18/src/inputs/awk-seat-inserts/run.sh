#!/bin/sh
cd "$(dirname "$0")" && awk -F, 'NR > 1 { printf "INSERT INTO seats (row_label, seat_no, zone) VALUES (\x27%s\x27, %d, \x27%s\x27);\n", $1, $2, $3 }' seats.csv
