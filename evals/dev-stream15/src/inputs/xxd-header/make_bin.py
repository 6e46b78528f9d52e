import struct
hdr = b'WAVH' + struct.pack('<IHH', 512, 1, 16)
data = hdr + bytes(192) + bytes(range(16)) * 2
open('frame.bin', 'wb').write(data)
