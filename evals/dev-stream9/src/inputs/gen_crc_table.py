# Prints the CRC-32 (IEEE 802.3, reflected 0xEDB88320) lookup table as C source.
poly = 0xEDB88320
table = []
for n in range(256):
    c = n
    for _ in range(8):
        c = (c >> 1) ^ poly if c & 1 else c >> 1
    table.append(c)
print("#include <stdint.h>")
print()
print("static const uint32_t crc32_table[256] = {")
for i in range(0, 256, 4):
    print("    " + ", ".join("0x%08xU" % v for v in table[i:i + 4]) + ",")
print("};")
