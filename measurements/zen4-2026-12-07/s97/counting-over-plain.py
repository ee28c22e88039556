#!/usr/bin/env python3
"""counting-over-plain.py: each development program's counting run (`run.wall_seconds`, before
and after commit 3319f65, from probe-state-dev.txt) over its plain run's wall (session 96's
analyze-vs-plain.tsv, the same host the morning before). Run from measurements/zen4-2026-12-07."""
import re, statistics
plain = {}
for l in open('s96/analyze-vs-plain.tsv'):
    f = l.split('\t')
    if len(f) >= 3 and f[0] != 'program':
        plain[f[0]] = float(f[2])
rows = []
for l in open('s97/probe-state-dev.txt'):
    m = re.match(r'(\S+)\s+analyze\s+([\d.]+) ->\s+([\d.]+) s\s+counting run\s+([\d.]+) ->\s+([\d.]+)', l)
    if m and m.group(1) in plain:
        p = plain[m.group(1)]
        rows.append((m.group(1), float(m.group(4)) / p, float(m.group(5)) / p))
for r in rows:
    print("%-22s %5.2fx -> %5.2fx" % r)
b = [r[1] for r in rows]
a = [r[2] for r in rows]
print("median %.2fx -> %.2fx; within 1.2x %d -> %d of %d" % (statistics.median(b), statistics.median(a),
      sum(x <= 1.2 for x in b), sum(x <= 1.2 for x in a), len(rows)))
