"""Simulated fetch of three map tiles archives, printing a progress bar per 10 %."""
FILES = [("tiles-z10.tar", 41_943_040), ("tiles-z11.tar", 83_886_080), ("tiles-z12.tar", 167_772_160)]
for name, size in FILES:
    print(f"fetching {name} ({size / 1048576:.0f} MiB)")
    for step in range(0, 11):
        done = size * step // 10
        bar = "#" * (step * 3) + "." * (30 - step * 3)
        print(f"  [{bar}] {step * 10:3d}%  {done / 1048576:6.1f} / {size / 1048576:.1f} MiB")
    print(f"saved {name}")
print("all 3 archives fetched")
