BEGIN { for (i = 1; i <= 9; i++) { line = ""; for (j = 1; j <= 9; j++) line = line sprintf("%4d", i * j); print line } }
