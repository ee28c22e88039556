"""Copy the `beside_add_ns` of each [incore.class.*] entry of one profile into another
(the same CPU's in-core section, measured again with the kernel of session 54).
Usage: python3 splice_beside_add.py FROM.toml INTO.toml OUT.toml"""
import re
import sys

def beside_adds(text):
    vals, cur = {}, None
    for line in text.splitlines():
        m = re.match(r'^\[incore\.class\.(.*)\]$', line)
        if m:
            cur = m.group(1)
            continue
        if line.startswith('['):
            cur = None
        m = re.match(r'^beside_add_ns = (.*)$', line)
        if m and cur:
            vals[cur] = m.group(1)
    return vals

src, dst, out = sys.argv[1:4]
vals = beside_adds(open(src).read())
lines, cur = [], None
for line in open(dst).read().splitlines():
    m = re.match(r'^\[incore\.class\.(.*)\]$', line)
    if m:
        cur = m.group(1)
    elif line.startswith('['):
        cur = None
    if line.startswith('beside_add_ns'):
        continue
    lines.append(line)
    if cur in vals and line.startswith('throughput_ns'):
        lines.append('beside_add_ns = ' + vals[cur])
open(out, 'w').write('\n'.join(lines) + '\n')
print(f"{len(vals)} entries from {src} into {out}")
