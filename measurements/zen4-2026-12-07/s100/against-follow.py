"""against-follow.py BIN MACHINE: each development program analyzed by BIN (from the repository root),
its analysis wall, counting run, probes and sampled references, and its prediction on MACHINE against
follow-dev.txt's (the binary of session 100's second change)."""
import sys, os, subprocess, json, time, tempfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
from manifests import dev_manifests, analyze_cmd
ref = {}
for l in open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'follow-dev.txt')).read().splitlines()[1:]:
    f = l.split(); ref[f[0]] = float(f[8])
for m, root in dev_manifests([]):
    out = tempfile.mktemp(suffix='.json')
    t=time.time(); r=subprocess.run(analyze_cmd(m, sys.argv[1], out), cwd=root, capture_output=True); w=time.time()-t
    d=json.load(open(out)); l=d['locality']
    p=subprocess.run([sys.argv[1],'predict',out,'-m',sys.argv[2],'--json'],capture_output=True,text=True)
    pr=json.loads(p.stdout)['programs'][0]['predictions'][0]['total']['seconds']
    print('%-22s %7.2f s run %6.2f s probes %4s sampled %3d pred %.4f (augur-fol %.4f) %+.2f%%' % (m['name'], w, d['run']['wall_seconds'], (l.get('address_sampling') or {}).get('probes'), len(l['sampled_refs']), pr, ref[m['name']], 100*(pr/ref[m['name']]-1)), flush=True)
    os.remove(out)
