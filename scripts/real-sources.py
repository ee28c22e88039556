#!/usr/bin/env python3
"""Extracts the sources of bench/real's programs from their repositories' mirrors.

usage: python3 scripts/real-sources.py [MIRRORS] [SOURCES]
  MIRRORS (default /work/.mirror) holds OWNER+NAME/repo, a bare git directory per
  repository a manifest names (the search tool's `fetch` makes them); SOURCES (default
  /work/SOURCES) receives NAME/ per program: its files, data and stdin at their
  repository paths, symbolic links kept, the include directories' headers beside them.
"""
import sys
MIRRORS = sys.argv[1] if len(sys.argv) > 1 else '/work/.mirror'
SOURCES = sys.argv[2] if len(sys.argv) > 2 else '/work/SOURCES'
import tomllib, glob, subprocess, os, sys
for f in sorted(glob.glob('bench/real/*.toml')):
    m = tomllib.load(open(f,'rb'))
    repo = m['source'].split(':',1)[1].replace('/','+')
    gd = f"{MIRRORS}/{repo}/repo"
    inputs = m.get('inputs',{})
    paths = list(m['files']) + list(m.get('data',[]))
    if m.get('stdin') and m['stdin'] not in inputs: paths.append(m['stdin'])
    out = f"{SOURCES}/{m['name']}"
    errs=[]
    for p in paths:
        os.makedirs(os.path.dirname(os.path.join(out,p)) or out, exist_ok=True)
        r = subprocess.run(['git',f'--git-dir={gd}','show',f"{m['commit']}:{p}"], capture_output=True)
        mode = subprocess.run(['git',f'--git-dir={gd}','ls-tree',m['commit'],'--',p], capture_output=True, text=True).stdout.split()
        dst = os.path.join(out,p)
        if r.returncode: errs.append(p+': '+r.stderr.decode()[:100])
        elif mode and mode[0]=='120000':
            if os.path.lexists(dst): os.remove(dst)
            os.symlink(r.stdout.decode(), dst)
        else: open(dst,'wb').write(r.stdout)
    for inc in m.get('include',[]):
        r = subprocess.run(f"git --git-dir={gd} ls-tree -r --name-only {m['commit']} -- {inc}", shell=True, capture_output=True, text=True)
        for p in r.stdout.split():
            if p.endswith(('.h','.inc','.f','.F','.f90','.F90','.fh','.i','.cmn','.par')) or '.' not in os.path.basename(p):
                if os.path.lexists(os.path.join(out,p)): continue
                os.makedirs(os.path.dirname(os.path.join(out,p)), exist_ok=True)
                rr = subprocess.run(['git',f'--git-dir={gd}','show',f"{m['commit']}:{p}"], capture_output=True)
                if rr.returncode==0: open(os.path.join(out,p),'wb').write(rr.stdout)
    print(m['name'], 'ok' if not errs else errs)
