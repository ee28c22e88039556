#!/usr/bin/env python3
"""overlap-ab.py OLD NEW [NAMES...]: each development program of bench/real (part dev, or the
names given) analyzed by OLD and then NEW, one after the other; prints both walls and whether the
profiles are the same but for the wall and seconds fields (locality section and the rest apart)."""
import json, os, subprocess, sys, time, tempfile, shutil
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
from manifests import dev_manifests, analyze_cmd

old, new = sys.argv[1], sys.argv[2]
names = sys.argv[3:]
sources = '/work/SOURCES'
def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k not in ('wall_seconds', 'seconds', 'augur_version')}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x
for m, root in dev_manifests(names):
    tmp = tempfile.mkdtemp(prefix='ov-')
    res = {}
    for tag, b in (('old', old), ('new', new)):
        out = os.path.join(tmp, tag + '.json')
        acmd = analyze_cmd(m, b, out)
        t0 = time.time(); r = subprocess.run(acmd, cwd=root, capture_output=True); wall = time.time() - t0
        res[tag] = (wall, json.load(open(out)) if r.returncode == 0 else None)
    a, b = res['old'][1], res['new'][1]
    same_loc = a is not None and b is not None and strip(a.get('locality')) == strip(b.get('locality'))
    a2 = {k: v for k, v in (a or {}).items() if k != 'locality'}
    b2 = {k: v for k, v in (b or {}).items() if k != 'locality'}
    same_rest = strip(a2) == strip(b2)
    print('%-22s old %6.2f s  new %6.2f s  locality %s  rest %s' % (m['name'], res['old'][0], res['new'][0], 'same' if same_loc else 'DIFFERS', 'same' if same_rest else 'DIFFERS'), flush=True)
    shutil.rmtree(tmp, ignore_errors=True)
