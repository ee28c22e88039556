#!/usr/bin/env python3
"""swap-sections.py (from the repository root; PROFROOT in the paths below): three programs predicted on
repeatability profile run-1 with each section of run-2 put in its place, one at a time: which
section makes the two profiles predict apart. Needs tomli_w (pip install tomli_w)."""
import tomllib, tomli_w, subprocess, json, sys, copy
a = tomllib.load(open('measurements/zen4-2026-12-07/s97/repeatability-profiles/run-1.toml', 'rb'))
b = tomllib.load(open('measurements/zen4-2026-12-07/s97/repeatability-profiles/run-2.toml', 'rb'))
progs = {'permute77': '/tmp/s94/prf/rc-corpus-O2/permute77.profile.json',
         'collatz': '/tmp/s94/prf/rc-corpus-O2/collatz.profile.json',
         'stream77': '/tmp/s94/prf/rc-corpus-O2/stream77.profile.json'}
def pred(m):
    open('/tmp/swap-profile.toml', 'wb').write(tomli_w.dumps(m).encode())
    out = []
    for n, f in progs.items():
        r = subprocess.run(['target/release/augur', 'predict', f, '-m', '/tmp/swap-profile.toml', '--json'], capture_output=True, text=True)
        out.append(round(json.loads(r.stdout)['programs'][0]['predictions'][0]['total']['seconds'], 3))
    return out
print('run-1', pred(a))
keys = [('memory', k) for k in a['memory']] + [(k,) for k in a if k != 'memory']
for k in keys:
    m = copy.deepcopy(a)
    if len(k) == 2:
        if k[1] not in b['memory']: continue
        m['memory'][k[1]] = b['memory'][k[1]]
    else:
        if k[0] not in b: continue
        m[k[0]] = b[k[0]]
    print('.'.join(k), pred(m))
