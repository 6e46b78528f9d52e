import struct, sys
# a 16-byte header followed by eight 32-byte records whose payload is mostly zero padding
out = bytearray(b"BS17LOG\x00" + struct.pack("<II", 1, 8))
for i in range(8):
    rec = struct.pack("<HH", 0xA5A5, i) + b"\x00" * 28
    out += rec
open(sys.argv[1], "wb").write(out)
