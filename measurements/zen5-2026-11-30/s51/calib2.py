import json, math, statistics, sys
# usage: python3 calib2.py [ROWS.json [O2_REGULAR O2_IRREGULAR O0_REGULAR O0_IRREGULAR]] (the pairs priced now)
rows=json.load(open(sys.argv[1] if len(sys.argv) > 1 else "/tmp/s51/calib-rows.json"))
NOW=[float(x) for x in sys.argv[2:6]] if len(sys.argv) > 5 else [0.19,0.35,0.22,0.45]
Z=1.645; P0=0.14
def evaluate(r,i,flag,sets=None):
    cov=[];fac=[]
    for w in rows:
        if not w["set"].endswith(flag): continue
        if sets and not any(w["set"].startswith(s) for s in sets): continue
        e=abs(math.log(w["pred"]/w["meas"]))
        sm=math.sqrt((1-w["x"])*r*r+w["x"]*i*i)
        s=math.sqrt(sm*sm+max(0,w["p"]**2-P0**2)+w["c"]**2)
        cov.append(e<=Z*s); fac.append(math.exp(Z*s))
    return sum(cov)/len(cov), statistics.median(fac), len(cov)
for flag in ["O2","O0"]:
    base = (NOW[0],NOW[1]) if flag=="O2" else (NOW[2],NOW[3])
    print(flag, "current", base, evaluate(*base,flag))
    for hosts in [["xeon"],["zen4"],["zen5new"]]:
        print("   ", hosts, evaluate(*base,flag,hosts))
    best=None
    for r in [x/100 for x in range(12,25)]:
        for i in [x/100 for x in range(20,60,2)]:
            c,f,n=evaluate(r,i,flag)
            if c>=0.90 and (best is None or f<best[1]): best=(c,f,r,i)
    print(flag,"best pooled >=90%:",best)
    if best:
        for hosts in [["xeon"],["zen4"],["zen5new"]]:
            print("   ", hosts, evaluate(best[2],best[3],flag,hosts))
print("constrained: pooled>=0.90, each host>=0.88")
for flag in ["O2","O0"]:
    best=None
    for r in [x/100 for x in range(12,25)]:
        for i in [x/100 for x in range(20,70,2)]:
            c,f,n=evaluate(r,i,flag)
            hs=[evaluate(r,i,flag,[h])[0] for h in ["xeon","zen4","zen5new"]]
            if c>=0.90 and min(hs)>=0.88 and (best is None or f<best[1]): best=(c,f,r,i,hs)
    print(flag,best)
