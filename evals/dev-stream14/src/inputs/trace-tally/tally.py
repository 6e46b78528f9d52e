readings = [3, 7, 2, 9, 4, 6, 8, 1, 5, 7, 3, 6]
total = 0
for r in readings:
    total += r
print("total", total)
