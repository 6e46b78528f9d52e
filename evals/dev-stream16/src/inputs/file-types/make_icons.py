"""Writes eight tiny solid-colour PNG icons into /tmp/bs16-icons."""
import os
import struct
import zlib

OUT = "/tmp/bs16-icons"
os.makedirs(OUT, exist_ok=True)


def png(path, size, rgba):
    raw = b"".join(b"\x00" + bytes(rgba) * size for _ in range(size))

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
                + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


icons = {"home": 16, "search": 16, "settings": 16, "user": 16,
         "home@2x": 32, "search@2x": 32, "settings@2x": 32, "user@2x": 32}
for name, size in icons.items():
    png(os.path.join(OUT, f"icon-{name}.png"), size, (40, 120, 200, 255))
