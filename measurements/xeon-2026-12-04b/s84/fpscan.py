import tomllib, subprocess, os, sys
root='/work/main/corpus'
d=tomllib.load(open(f'{root}/corpus.toml','rb'))
os.makedirs('/tmp/s84/fpb',exist_ok=True)
for p in d['program']:
    name=p['name']; files=[f'{root}/{f}' for f in p['files']]
    exe=f'/tmp/s84/fpb/{name}'
    objs=[]
    ok=True
    fsrc=[f for f in files if not f.endswith('.c')]; csrc=[f for f in files if f.endswith('.c')]
    for c in csrc:
        o=exe+os.path.basename(c)+'.o'; subprocess.run(['gcc','-O2','-c',c,'-o',o],check=True); objs.append(o)
    flags=['-O2']+(['-cpp'] if p.get('cpp') else [])+p.get('fflags',[])
    r=subprocess.run(['gfortran',*flags,*fsrc,*objs,'-o',exe,'-J','/tmp/s84/fpb'],capture_output=True,text=True)
    if r.returncode: print(name,'BUILD FAIL',r.stderr[:200]); continue
    stdin=open(f"{root}/{p['stdin']}") if p.get('stdin') else subprocess.DEVNULL
    r=subprocess.run([exe,*p.get('args',[])],stdin=stdin,capture_output=True,text=True,env={**os.environ,'LD_PRELOAD':'/tmp/s84/fpx.so'},cwd=root,timeout=120)
    fl=[l for l in r.stderr.splitlines() if l.startswith('FPX')]
    print(f'{name:16} {fl[-1] if fl else "?"}')
