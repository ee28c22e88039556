#!/usr/bin/env python3
"""branch-sample.py AUGUR SOURCES MACHINE [NAMES...]: each development program of bench/real
(part dev, or the names given) analyzed twice, one after the other: with every branch event
simulated (AUGUR_BRANCH_SAMPLE=all) and sampled (the default); prints the analyses' wall times,
the profiles' mispredictions (conditions, loop exits) and the predictions on MACHINE."""
import json, os, subprocess, sys, time, tomllib, tempfile, shutil

augur, sources, machine = sys.argv[1], sys.argv[2], sys.argv[3]
names = sys.argv[4:]
print('%-22s %8s %8s  %12s %12s  %10s %10s  %10s %10s %7s' % ('program', 'all s', 'sampled', 'mispr all', 'sampled', 'exits all', 'sampled', 'pred all', 'sampled', 'diff'))
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
    form = m.get('form')
    tmp = tempfile.mkdtemp(prefix='bs-')
    row = [m['name']]
    res = {}
    for mode in ('all', 'sampled'):
        out = os.path.join(tmp, mode + '.json')
        acmd = [augur, 'analyze'] + m['files'] + ['--fflags=' + ' '.join(flags), '-o', out]
        if form in ('fixed', 'free'): acmd += ['--form', form]
        if m.get('cpp'): acmd += ['--cpp']
        acmd += sum((['-D', d] for d in m.get('defines', [])), []) + sum((['-I', i] for i in m.get('include', [])), [])
        if m.get('args'): acmd += ['--args', ' '.join(m['args'])]
        if m.get('stdin'): acmd += ['--stdin', m['stdin']]
        env = dict(os.environ)
        if mode == 'all': env['AUGUR_BRANCH_SAMPLE'] = 'all'
        t0 = time.time(); r = subprocess.run(acmd, cwd=root, capture_output=True, env=env); wall = time.time() - t0
        if r.returncode:
            print(m['name'], mode, 'failed', r.stderr.decode()[-300:]); break
        p = json.load(open(out))
        br = p.get('branches') or {}
        pr = subprocess.run([augur, 'predict', out, '-m', machine, '--json'], capture_output=True, text=True)
        total = json.loads(pr.stdout)['programs'][0]['predictions'][0]['total']['seconds']
        res[mode] = (wall, br.get('mispredictions', 0), br.get('loop_exit_mispredictions', 0), total)
    if len(res) == 2:
        a, s = res['all'], res['sampled']
        print('%-22s %8.2f %8.2f  %12.0f %12.0f  %10.0f %10.0f  %10.4f %10.4f %+6.2f%%' % (m['name'], a[0], s[0], a[1], s[1], a[2], s[2], a[3], s[3], 100 * (s[3] / a[3] - 1)), flush=True)
    shutil.rmtree(tmp, ignore_errors=True)
