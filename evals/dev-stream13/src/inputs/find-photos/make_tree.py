# Creates a small photo-archive tree (empty files) under ./archive.
import os
days = {"2025/06": [3, 14, 21], "2025/07": [2, 19], "2025/08": [8, 9, 30]}
n = 4100
for month, dd in days.items():
    for d in dd:
        path = os.path.join("archive", month, f"{d:02d}")
        os.makedirs(path, exist_ok=True)
        for k in range(3):
            n += 7
            open(os.path.join(path, f"IMG_{n}.JPG"), "w").close()
        open(os.path.join(path, f"IMG_{n}.MOV"), "w").close()
