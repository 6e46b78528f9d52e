import os
import random

random.seed(14)
os.makedirs("site/css", exist_ok=True)
os.makedirs("site/js", exist_ok=True)
os.makedirs("site/talks", exist_ok=True)
os.makedirs("site/img", exist_ok=True)
for name in ("base", "layout", "print", "talks"):
    with open(f"site/css/{name}.css", "w") as f:
        for i in range(40 + random.randint(0, 40)):
            f.write(f".{name}-{i} {{ margin: {i % 7}px; padding: {i % 5}px; }}\n")
for name in ("menu", "search", "schedule"):
    with open(f"site/js/{name}.js", "w") as f:
        for i in range(30 + random.randint(0, 30)):
            f.write(f"export function {name}{i}(x) {{ return x + {i}; }}\n")
for day in range(1, 13):
    with open(f"site/talks/day{day:02d}.html", "w") as f:
        f.write("<html><body>\n")
        for slot in range(6 + random.randint(0, 6)):
            f.write(f"<section><h2>Day {day} slot {slot}</h2><p>Room {slot % 3 + 1}</p></section>\n")
        f.write("</body></html>\n")
for i in range(1, 7):
    with open(f"site/img/speaker{i}.jpg", "wb") as f:
        f.write(random.randbytes(2000 + 500 * i))
with open("site/index.html", "w") as f:
    f.write("<html><body><h1>Conference</h1></body></html>\n")
