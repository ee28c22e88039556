# Per-program (ln error, irregular share, parameter sd) for each host set, from hybrid dirs.
import json, subprocess, glob, os, sys, math, statistics
A="/work/main/target/release/augur"
sets = {
 # name: (profile, dir)
}
Z5="/work/main/measurements/zen5-2026-11-30/s56"
X="/work/main/measurements/xeon-2026-11-29"
Z4="/work/main/measurements/zen4-2026-12-01"
S="/work/main/../shared/measurements"
for f in ["O2","O0"]:
    sets[f"zen5new-real-{f}"]=(f"{Z5}/zen5-{f}-s56.toml", f"/tmp/s59/hyb-t3-zen5-real-{f}")
    sets[f"zen5new-corpus-{f}"]=(f"{Z5}/zen5-{f}-s56.toml", f"/tmp/s59/hyb-t3-zen5-corpus-{f}")
    sets[f"xeon-real-{f}"]=(f"{X}/xeon-{f}-s47.toml", f"/tmp/s59/hyb-t3-xeon-real-{f}")
    sets[f"xeon-corpus-{f}"]=(f"{X}/xeon-{f}-s47.toml", f"/tmp/s59/hyb-t3-xeon-corpus-{f}")
    sets[f"zen4-real-{f}"]=(f"{Z4}/zen4-{f}.toml", f"/tmp/s59/hyb-t3-zen4-real-{f}")
    sets[f"zen4-corpus-{f}"]=(f"{Z4}/zen4-{f}.toml", f"/tmp/s59/hyb-t3-zen4-corpus-{f}")
rows=[]
for name,(prof,d) in sets.items():
    for p in sorted(glob.glob(d+"/*.profile.json")):
        n=os.path.basename(p)[:-len(".profile.json")]
        t=json.load(open(d+"/"+n+".timing.json"))
        out=subprocess.run([A,"predict",p,"-m",prof,"--json"],capture_output=True,text=True)
        if out.returncode: continue
        j=json.loads(out.stdout); pr=j["programs"][0]["predictions"][0]
        tot=pr["total"]["seconds"]; iv=pr["interval"]
        rows.append(dict(set=name,prog=n,pred=tot,meas=statistics.median(t["runs"]),
                         x=iv["irregular_share"],p=iv["parameter_log_sd"],m=iv["model_log_sd"],c=iv.get("count_log_sd",0)))
json.dump(rows,open("/tmp/s59/calib-rows.json","w"))
print(len(rows))
