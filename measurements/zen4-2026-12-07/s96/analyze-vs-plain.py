#!/usr/bin/env python3
"""analyze-vs-plain.py AUGUR SOURCES OUT.tsv [NAMES...]: for each development program of
bench/real (part dev, or the names given), its plain build (gfortran -O2 and the manifest's
flags, wall), one plain run (wall), and `augur analyze` of the same sources (wall), one after
the other on this machine. Prints and writes NAME, build s, run s, analyze s, ratio."""
import os, subprocess, sys, time, tomllib, tempfile, shutil
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
from manifests import dev_manifests, analyze_cmd

augur, sources, out = sys.argv[1], sys.argv[2], sys.argv[3]
names = sys.argv[4:]
rows = []
for m, root in dev_manifests(names, sources):
    flags = ['-O2'] + m.get('fflags', [])
    form = m.get('form')
    pre = (['-cpp'] if m.get('cpp') else []) + ['-D' + d for d in m.get('defines', [])] + ['-I' + i for i in m.get('include', [])]
    formflag = {'fixed': ['-ffixed-form'], 'free': ['-ffree-form']}.get(form, [])
    tmp = tempfile.mkdtemp(prefix='avp-')
    exe = os.path.join(tmp, 'plain')
    cmd = ['gfortran'] + flags + formflag + pre + ['-J', tmp] + m['files'] + ['-o', exe]
    t0 = time.time(); r = subprocess.run(cmd, cwd=root, capture_output=True); build = time.time() - t0
    if r.returncode:
        print(f"{m['name']}: plain build failed: {r.stderr.decode()[:300]}", file=sys.stderr); continue
    stdin = open(os.path.join(root, m['stdin'])) if m.get('stdin') else subprocess.DEVNULL
    t0 = time.time(); subprocess.run([exe] + m.get('args', []), cwd=root, stdin=stdin, capture_output=True); run = time.time() - t0
    acmd = analyze_cmd(m, augur, os.path.join(tmp, 'p.json'))
    t0 = time.time(); r = subprocess.run(acmd, cwd=root, capture_output=True); analyze = time.time() - t0
    ok = '' if r.returncode == 0 else ' (analyze failed: ' + r.stderr.decode()[-200:].replace('\n', ' ') + ')'
    row = (m['name'], build, run, analyze, analyze / (build + run))
    rows.append(row)
    print('%-22s build %6.2f s  run %6.2f s  analyze %6.2f s  %5.2fx%s' % (row + (ok,)), flush=True)
    shutil.rmtree(tmp, ignore_errors=True)
with open(out, 'w') as fh:
    fh.write('program\tbuild_s\trun_s\tanalyze_s\tratio\n')
    for r in rows:
        fh.write('%s\t%.2f\t%.2f\t%.2f\t%.2f\n' % r)
rs = sorted(r[4] for r in rows)
if rs:
    print(f"{len(rs)} programs: ratio median {rs[len(rs)//2]:.2f}x, within 2x: {sum(x <= 2 for x in rs)}, largest {rs[-1]:.2f}x")
