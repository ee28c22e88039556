# usage: cmpbin.py BIN_A BIN_B: every recounted profile predicted by both; the differences
import json,subprocess,sys,glob,os
from concurrent.futures import ThreadPoolExecutor
A,B=sys.argv[1],sys.argv[2]
def pred(binary,p,M):
    r=subprocess.run([binary,'predict',p,'-m',M,'--json'],capture_output=True,text=True)
    try: w=json.loads(r.stdout)['workload']; return (w[0] if isinstance(w,list) else w)['seconds']
    except Exception: return None
rows=[]
for s in ['corpus-O2','real-O2','corpus-O0','real-O0']:
    M=f'/work/main/measurements/zen5-2026-12-02/zen5-{s.split("-")[1]}.toml'
    for p in sorted(glob.glob(os.environ.get('PROFROOT','/tmp/s68')+f'/rc-{s}/*.profile.json')):
        a,b=pred(A,p,M),pred(B,p,M)
        n=os.path.basename(p).replace('.profile.json','')
        if a is None or b is None: rows.append((s,n,a,b,None)); continue
        rows.append((s,n,a,b,(b-a)/a))
bad=[r for r in rows if r[4] is None]
diffs=sorted([r for r in rows if r[4] is not None], key=lambda r:-abs(r[4]))
print(f'{len(rows)} predictions, {len(bad)} failed: {[(r[0],r[1]) for r in bad]}')
print('largest differences:'); [print(f'  {r[0]:10s} {r[1]:22s} {r[2]:.6f} {r[3]:.6f} {r[4]*100:+.3f}%') for r in diffs[:12]]
print('within 0.1%:', sum(abs(r[4])<=1e-3 for r in diffs), 'of', len(diffs))
