# Writes 24 small binary map tiles with deterministic content under ./tiles.
import os
os.makedirs("tiles", exist_ok=True)
for z in (3,):
    for x in range(4):
        for y in range(6):
            data = bytes(((x * 31 + y * 17 + i * 7) % 256) for i in range(512))
            with open(f"tiles/z{z}_x{x}_y{y}.bin", "wb") as f:
                f.write(data)
