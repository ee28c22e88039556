#!/usr/bin/env python3
"""decided-ab.py OLD NEW MACHINE [NAMES...]: each development program of bench/real (part dev, or
the names given) analyzed by OLD and then NEW, one after the other; prints both walls, the
branches each branch run recorded, both profiles' mispredictions and both predictions on MACHINE
(predicted by NEW), and the change."""
import json, os, subprocess, sys, time, tempfile, shutil
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
from manifests import dev_manifests, analyze_cmd

old, new, machine = sys.argv[1], sys.argv[2], sys.argv[3]
names = sys.argv[4:]
print('%-22s %8s %8s %7s %7s %12s %12s %10s %10s %7s' % ('program', 'old s', 'new s', 'br old', 'br new',
      'mispr old', 'mispr new', 'pred old', 'pred new', 'change'))
for m, root in dev_manifests(names):
    tmp = tempfile.mkdtemp(prefix='dec-')
    res = {}
    for tag, b in (('old', old), ('new', new)):
        out = os.path.join(tmp, tag + '.json')
        t0 = time.time(); r = subprocess.run(analyze_cmd(m, b, out), cwd=root, capture_output=True)
        wall = time.time() - t0
        if r.returncode != 0:
            res[tag] = (wall, 0, 0.0, float('nan')); continue
        prof = json.load(open(out))
        br = prof.get('branches') or {}
        recorded = len(br.get('conditions', []))
        p = subprocess.run([new, 'predict', out, '-m', machine, '--json'], capture_output=True, text=True)
        pr = json.loads(p.stdout)['programs'][0]['predictions'][0]
        res[tag] = (wall, recorded, pr.get('mispredictions', 0.0), pr['total']['seconds'])
    o, n = res['old'], res['new']
    print('%-22s %8.2f %8.2f %7d %7d %12.4g %12.4g %10.4f %10.4f %+6.2f%%' % (
        m['name'], o[0], n[0], o[1], n[1], o[2], n[2], o[3], n[3], 100 * (n[3] / o[3] - 1)), flush=True)
    shutil.rmtree(tmp, ignore_errors=True)
