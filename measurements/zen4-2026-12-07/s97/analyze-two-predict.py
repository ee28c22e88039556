#!/usr/bin/env python3
"""analyze-two-predict.py BEFORE AFTER MACHINE SOURCES NAMES...: `augur analyze` of each
development program by two binaries, one after the other: both walls, both counting runs'
walls, whether the profiles are the same but for the run's seconds, the locality's seconds and
the first-touched pages, and the two profiles' predictions on MACHINE (by AFTER)."""
import json, os, subprocess, sys, time, tomllib, tempfile, shutil
before, after, machine, sources, names = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
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
    walls, profs, runs, preds = [], [], [], []
    for i, b in enumerate((before, after)):
        out = os.path.join(tmp, f'p{i}.json')
        acmd = [b, 'analyze'] + m['files'] + ['--fflags=' + ' '.join(flags), '-o', out]
        if m.get('form') in ('fixed', 'free'): acmd += ['--form', m['form']]
        if m.get('cpp'): acmd += ['--cpp']
        acmd += sum((['-D', d] for d in m.get('defines', [])), []) + sum((['-I', i] for i in m.get('include', [])), [])
        if m.get('args'): acmd += ['--args', ' '.join(m['args'])]
        if m.get('stdin'): acmd += ['--stdin', m['stdin']]
        t0 = time.time(); subprocess.run(acmd, cwd=root, capture_output=True); walls.append(time.time() - t0)
        raw = json.load(open(out)); runs.append(raw['run']['wall_seconds'])
        pr = subprocess.run([after, 'predict', out, '-m', machine, '--json'], capture_output=True, text=True)
        preds.append(json.loads(pr.stdout)['programs'][0]['predictions'][0]['total']['seconds'])
        profs.append(strip(raw))
    same = profs[0] == profs[1]
    diff = '' if same else ' differs in: ' + ','.join(k for k in profs[0] if profs[0].get(k) != profs[1].get(k))
    print(f"{name:22s} analyze {walls[0]:6.2f} -> {walls[1]:6.2f} s  counting run {runs[0]:6.2f} -> {runs[1]:6.2f} s  "
          f"prediction {100 * (preds[1] / preds[0] - 1):+6.2f}%  same profile: {same}{diff}", flush=True)
    shutil.rmtree(tmp, ignore_errors=True)
