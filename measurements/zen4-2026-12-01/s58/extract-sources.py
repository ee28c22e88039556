import tomllib, glob, subprocess, os, sys
for f in sorted(glob.glob('bench/real/*.toml')):
    m = tomllib.load(open(f,'rb'))
    repo = m['source'].split(':',1)[1].replace('/','+')
    gd = f"/work/.mirror/{repo}/repo"
    inputs = m.get('inputs',{})
    paths = list(m['files']) + list(m.get('data',[]))
    if m.get('stdin') and m['stdin'] not in inputs: paths.append(m['stdin'])
    out = f"/work/SOURCES/{m['name']}"
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
