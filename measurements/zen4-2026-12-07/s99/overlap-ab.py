#!/usr/bin/env python3
"""overlap-ab.py OLD NEW [NAMES...]: each development program of bench/real (part dev, or the
names given) analyzed by OLD and then NEW, one after the other; prints both walls and whether the
profiles are the same but for the wall and seconds fields (locality section and the rest apart)."""
import json, os, subprocess, sys, time, tomllib, tempfile, shutil

old, new = sys.argv[1], sys.argv[2]
names = sys.argv[3:]
sources = '/work/SOURCES'
def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k not in ('wall_seconds', 'seconds', 'augur_version')}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x
for f in sorted(os.listdir('bench/real')):
    if not f.endswith('.toml'):
        continue
    m = tomllib.load(open(os.path.join('bench/real', f), 'rb'))
    if names and m['name'] not in names or not names and m.get('part') != 'dev':
        continue
    root = os.path.join(sources, m['name'])
    for k, v in m.get('inputs', {}).items():
        open(os.path.join(root, k), 'w').write(v)
    flags = ['-O2'] + m.get('fflags', [])
    tmp = tempfile.mkdtemp(prefix='ov-')
    res = {}
    for tag, b in (('old', old), ('new', new)):
        out = os.path.join(tmp, tag + '.json')
        acmd = [b, 'analyze'] + m['files'] + ['--fflags=' + ' '.join(flags), '-o', out]
        if m.get('form') in ('fixed', 'free'): acmd += ['--form', m['form']]
        if m.get('cpp'): acmd += ['--cpp']
        acmd += sum((['-D', d] for d in m.get('defines', [])), []) + sum((['-I', i] for i in m.get('include', [])), [])
        if m.get('args'): acmd += ['--args', ' '.join(m['args'])]
        if m.get('stdin'): acmd += ['--stdin', m['stdin']]
        t0 = time.time(); r = subprocess.run(acmd, cwd=root, capture_output=True); wall = time.time() - t0
        res[tag] = (wall, json.load(open(out)) if r.returncode == 0 else None)
    a, b = res['old'][1], res['new'][1]
    same_loc = a is not None and b is not None and strip(a.get('locality')) == strip(b.get('locality'))
    a2 = {k: v for k, v in (a or {}).items() if k != 'locality'}
    b2 = {k: v for k, v in (b or {}).items() if k != 'locality'}
    same_rest = strip(a2) == strip(b2)
    print('%-22s old %6.2f s  new %6.2f s  locality %s  rest %s' % (m['name'], res['old'][0], res['new'][0], 'same' if same_loc else 'DIFFERS', 'same' if same_rest else 'DIFFERS'), flush=True)
    shutil.rmtree(tmp, ignore_errors=True)
