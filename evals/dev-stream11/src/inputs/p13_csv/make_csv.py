import csv, sys
w = csv.writer(sys.stdout, lineterminator='\n')
w.writerow(['date', 'station', 'sensor', 'reading', 'unit', 'status'])
days = ['2024-07-0%d' % d for d in range(1, 8)]
for d in days:
    for s in ['north', 'south']:
        for sensor, unit, base in [('temp', 'C', 21.0), ('humidity', '%', 55.0)]:
            val = base + (len(d + s + sensor) % 5) * 0.5 - (1.0 if s == 'south' else 0.0)
            w.writerow([d, s, sensor, f'{val:.1f}', unit, 'ok'])
