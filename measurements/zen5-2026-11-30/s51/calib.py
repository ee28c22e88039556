# Per-program (ln error, irregular share, parameter sd) for each host set, from hybrid dirs.
# `python3 calib.py` writes /tmp/s51/calib-rows.json from session 51's replays; another
# session calls `rows(profiles, dirs, out)` with its own (session 59: ../../zen4-2026-12-01/s59/calib.py).
import json, subprocess, glob, os, sys, math, statistics
A="/work/main/target/release/augur"
Z5="/work/main/measurements/zen5-2026-11-30"
X="/work/main/measurements/xeon-2026-11-29"
Z4="/work/main/measurements/zen4-2026-11-28"

def rows(profile, hyb, out):
    """profile(host, flag) -> machine profile; hyb(host, set, flag) -> replay dir."""
    sets = {}
    for f in ["O2","O0"]:
        for host in ["zen5new", "xeon", "zen4"]:
            for s in ["real", "corpus"]:
                sets[f"{host}-{s}-{f}"]=(profile(host, f), hyb(host, s, f))
    rows=[]
    for name,(prof,d) in sets.items():
        for p in sorted(glob.glob(d+"/*.profile.json")):
            n=os.path.basename(p)[:-len(".profile.json")]
            t=json.load(open(d+"/"+n+".timing.json"))
            out_=subprocess.run([A,"predict",p,"-m",prof,"--json"],capture_output=True,text=True)
            if out_.returncode: continue
            j=json.loads(out_.stdout); pr=j["programs"][0]["predictions"][0]
            tot=pr["total"]["seconds"]; iv=pr["interval"]
            rows.append(dict(set=name,prog=n,pred=tot,meas=statistics.median(t["runs"]),
                             x=iv["irregular_share"],p=iv["parameter_log_sd"],m=iv["model_log_sd"],c=iv.get("count_log_sd",0)))
    json.dump(rows,open(out,"w"))
    print(len(rows))

if __name__ == "__main__":
    names = {"zen5new": f"{Z5}/zen5-{{f}}.toml", "xeon": f"{X}/xeon-{{f}}-s47.toml", "zen4": f"{Z4}/zen4-{{f}}.toml"}
    rows(lambda h, f: names[h].format(f=f), lambda h, s, f: f"/tmp/s51/hyb-{h}-{s}-{f}", "/tmp/s51/calib-rows.json")
