#!/usr/bin/env python3
"""branch-sample.py AUGUR SOURCES MACHINE [NAMES...]: each development program of bench/real
(part dev, or the names given) analyzed twice, one after the other: with every branch event
simulated (AUGUR_BRANCH_SAMPLE=all) and sampled (the default); prints the analyses' wall times,
the profiles' mispredictions (conditions, loop exits) and the predictions on MACHINE."""
import json, os, subprocess, sys, time, tempfile, shutil
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
from manifests import dev_manifests, analyze_cmd

augur, sources, machine = sys.argv[1], sys.argv[2], sys.argv[3]
names = sys.argv[4:]
print('%-22s %8s %8s  %12s %12s  %10s %10s  %10s %10s %7s' % ('program', 'all s', 'sampled', 'mispr all', 'sampled', 'exits all', 'sampled', 'pred all', 'sampled', 'diff'))
for m, root in dev_manifests(names, sources):
    tmp = tempfile.mkdtemp(prefix='bs-')
    row = [m['name']]
    res = {}
    for mode in ('all', 'sampled'):
        out = os.path.join(tmp, mode + '.json')
        acmd = analyze_cmd(m, augur, out)
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
