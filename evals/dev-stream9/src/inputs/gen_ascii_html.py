# Prints an HTML table of the ASCII control characters from curses.ascii.controlnames.
from curses.ascii import controlnames
print('<table class="ascii">')
print('  <thead><tr><th>Dec</th><th>Hex</th><th>Name</th></tr></thead>')
print('  <tbody>')
for code, name in enumerate(controlnames):
    print('    <tr><td>%d</td><td>0x%02X</td><td>%s</td></tr>' % (code, code, name))
print('  </tbody>')
print('</table>')
