"""Write a 16x8 24-bit BMP colour swatch: teal, with one white row."""
import struct
import sys

W, H = 16, 8
TEAL = bytes([0x80, 0x80, 0x00])   # BGR
WHITE = bytes([0xFF, 0xFF, 0xFF])
row_size = (W * 3 + 3) // 4 * 4
pixels = b"".join((WHITE if y == 3 else TEAL) * W + b"\x00" * (row_size - W * 3) for y in range(H))
header = struct.pack("<2sIHHI", b"BM", 54 + len(pixels), 0, 0, 54)
info = struct.pack("<IiiHHIIiiII", 40, W, H, 1, 24, 0, len(pixels), 2835, 2835, 0, 0)
with open(sys.argv[1], "wb") as f:
    f.write(header + info + pixels)
