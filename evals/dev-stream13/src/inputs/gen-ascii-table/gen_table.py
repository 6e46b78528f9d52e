# Prints a Markdown table of the printable ASCII characters 33..64.
print("| Dec | Hex | Oct | Char |")
print("|----:|----:|----:|:----:|")
for code in range(33, 65):
    ch = chr(code)
    shown = "\\|" if ch == "|" else ch
    print(f"| {code} | 0x{code:02X} | 0o{code:03o} | `{shown}` |")
