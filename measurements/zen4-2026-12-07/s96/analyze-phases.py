#!/usr/bin/env python3
"""analyze-phases.py AUGUR SOURCES NAMES...: `augur analyze` of each development program once,
its wall, and from the profile written the counting run's wall (`run.wall_seconds`) and the
locality analysis's (`locality.seconds`); the rest is the front end, the builds and the
branch run."""
import json, os, subprocess, sys, time, tomllib, tempfile, shutil
augur, sources, names = sys.argv[1], sys.argv[2], sys.argv[3:]
for name in names:
    m = tomllib.load(open(f'bench/real/{name}.toml', 'rb'))
    root = os.path.join(sources, name)
    for k, v in m.get('inputs', {}).items():
        open(os.path.join(root, k), 'w').write(v)
    tmp = tempfile.mkdtemp(prefix='aph-')
    flags = ['-O2'] + m.get('fflags', [])
    acmd = [augur, 'analyze'] + m['files'] + ['--fflags=' + ' '.join(flags), '-o', os.path.join(tmp, 'p.json')]
    if m.get('form') in ('fixed', 'free'): acmd += ['--form', m['form']]
    if m.get('cpp'): acmd += ['--cpp']
    acmd += sum((['-D', d] for d in m.get('defines', [])), []) + sum((['-I', i] for i in m.get('include', [])), [])
    if m.get('args'): acmd += ['--args', ' '.join(m['args'])]
    if m.get('stdin'): acmd += ['--stdin', m['stdin']]
    t0 = time.time(); r = subprocess.run(acmd, cwd=root, capture_output=True); wall = time.time() - t0
    p = json.load(open(os.path.join(tmp, 'p.json')))
    run = p['run']['wall_seconds']; loc = (p.get('locality') or {}).get('seconds', 0.0)
    print(f"{name:22s} analyze {wall:6.2f} s  counting run {run:6.2f} s  locality {loc:6.2f} s  rest {wall-run-loc:6.2f} s", flush=True)
    shutil.rmtree(tmp, ignore_errors=True)
