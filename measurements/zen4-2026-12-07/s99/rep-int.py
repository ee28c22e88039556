# usage: rep-int.py BIN PROFDIR... : each program predicted on the five repeatability profiles;
# per program: spread of the totals (max/min), and whether every profile's total lies within
# every other profile's 90% interval; the contested sd on each.
import json, subprocess, sys, glob, os
B=sys.argv[1]; dirs=sys.argv[2:]
M=sorted(glob.glob('/work/main/measurements/zen4-2026-12-07/s97/repeatability-profiles/run-*.toml'))
rows=[]
for d in dirs:
    for p in sorted(glob.glob(d+'/*.profile.json')):
        n=os.path.basename(p).replace('.profile.json','')
        res=[]
        for m in M:
            o=subprocess.run([B,'predict',p,'-m',m,'--json'],capture_output=True,text=True)
            if o.returncode: break
            pr=json.loads(o.stdout)['programs'][0]['predictions'][0]
            iv=pr['interval']; res.append((pr['total']['seconds'] if isinstance(pr['total'],dict) else pr['total'], iv['low'], iv['high'], iv.get('contested_log_sd',0)))
        if len(res)<len(M): continue
        ts=[r[0] for r in res]
        covered=sum(1 for i,r in enumerate(res) for j,t in enumerate(ts) if i!=j and r[1]<=t<=r[2])
        rows.append((n, max(ts)/min(ts)-1, covered, len(M)*(len(M)-1), max(r[3] for r in res), min(r[2]/r[0] for r in res)))
rows.sort(key=lambda r:-r[1])
tot=sum(r[2] for r in rows); pairs=sum(r[3] for r in rows)
print(f"{len(rows)} programs; pairs covered {tot}/{pairs}; programs with spread > 4% (i.e. beyond +-2%): {sum(1 for r in rows if r[1]>0.04)}")
for r in rows[:20]: print(f"{r[0]:24s} spread {100*r[1]:5.1f}%  pairs covered {r[2]}/{r[3]}  contested sd {r[4]:.3f}  high/total {r[5]:.3f}")
