#!/usr/bin/env python3
"""analyze-two.py BEFORE AFTER SOURCES NAMES...: `augur analyze` of each development program by
two binaries, one after the other: both walls, and whether the profiles are the same but for
the run's seconds, the locality's seconds and the first-touched pages."""
import json, os, subprocess, sys, time, tomllib, tempfile, shutil
before, after, sources, names = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
def strip(p):
    p['run'].pop('wall_seconds', None); p['run'].pop('first_touch_pages', None)
    if p.get('locality'):
        p['locality'].pop('seconds', None)
        (p['locality'].get('address_sampling') or {}).pop('seconds', None)
    p.pop('augur_version', None)
    return p
for name in names:
    m = tomllib.load(open(f'bench/real/{name}.toml', 'rb'))
    root = os.path.join(sources, name)
    for k, v in m.get('inputs', {}).items():
        open(os.path.join(root, k), 'w').write(v)
    tmp = tempfile.mkdtemp(prefix='a2-')
    flags = ['-O2'] + m.get('fflags', [])
    walls, profs = [], []
    for i, b in enumerate((before, after)):
        out = os.path.join(tmp, f'p{i}.json')
        acmd = [b, 'analyze'] + m['files'] + ['--fflags=' + ' '.join(flags), '-o', out]
        if m.get('form') in ('fixed', 'free'): acmd += ['--form', m['form']]
        if m.get('cpp'): acmd += ['--cpp']
        acmd += sum((['-D', d] for d in m.get('defines', [])), []) + sum((['-I', i] for i in m.get('include', [])), [])
        if m.get('args'): acmd += ['--args', ' '.join(m['args'])]
        if m.get('stdin'): acmd += ['--stdin', m['stdin']]
        t0 = time.time(); subprocess.run(acmd, cwd=root, capture_output=True); walls.append(time.time() - t0)
        profs.append(strip(json.load(open(out))))
    same = profs[0] == profs[1]
    diff = '' if same else ' differs in: ' + ','.join(k for k in profs[0] if profs[0].get(k) != profs[1].get(k))
    print(f"{name:22s} before {walls[0]:6.2f} s  after {walls[1]:6.2f} s  same profile: {same}{diff}", flush=True)
    shutil.rmtree(tmp, ignore_errors=True)
