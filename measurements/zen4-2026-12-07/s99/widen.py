import json,subprocess,sys,glob,os
M=sys.argv[1]; D=sys.argv[2]
out=[]
for p in sorted(glob.glob(D+'/*.profile.json')):
    r=[]
    for b in ('old','new'):
        o=subprocess.run(['/tmp/s99/augur-'+b,'predict',p,'-m',M,'--json'],capture_output=True,text=True)
        if o.returncode: break
        pr=json.loads(o.stdout)['programs'][0]['predictions'][0]; iv=pr['interval']
        r.append((iv['high']/pr['total']['seconds'], iv.get('contested_log_sd',0)))
    if len(r)==2 and abs(r[0][0]-r[1][0])>1e-4: out.append((os.path.basename(p)[:-13], r[0][0], r[1][0], r[1][1]))
for x in out: print("%-20s high/total %.3f -> %.3f (contested sd %.3f)"%x)
