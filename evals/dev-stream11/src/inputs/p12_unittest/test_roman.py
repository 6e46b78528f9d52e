import unittest

def to_roman(n):
    vals = [(1000, 'M'), (900, 'CM'), (500, 'D'), (400, 'CD'), (100, 'C'), (90, 'XC'),
            (50, 'L'), (40, 'XL'), (10, 'X'), (9, 'IX'), (5, 'V'), (4, 'IV'), (1, 'I')]
    out = ''
    for v, s in vals:
        while n >= v:
            out += s
            n -= v
    return out

def from_roman(s):
    m = {'I': 1, 'V': 5, 'X': 10, 'L': 50, 'C': 100, 'D': 500, 'M': 1000}
    total = 0
    for a, b in zip(s, s[1:] + ' '):
        total += -m[a] if b != ' ' and m[a] < m[b] else m[a]
    return total

class RoundTrip(unittest.TestCase):
    pass

for i in range(1, 121):
    def make(i):
        def t(self):
            self.assertEqual(from_roman(to_roman(i)), i)
        return t
    setattr(RoundTrip, f'test_{i:03d}', make(i))

if __name__ == '__main__':
    unittest.main()
