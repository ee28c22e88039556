import sys,re,statistics as st,math
def load(f):
    r={}
    for l in open(f):
        m=re.match(r'^(\S+)\s+[\d.e]+\s+([\d.]+)(m?s)\s+([\d.]+)(m?s)',l)
        if m: r[m[1]]=float(m[2])*(1e-3 if m[3]=='ms' else 1)
    return r
base=load(sys.argv[1])
for f in sys.argv[2:]:
    o=load(f); d=[o[k]/base[k]-1 for k in base if k in o]
    print(f"{sys.argv[1]} vs {f}: n={len(d)} RMS {100*math.sqrt(sum(x*x for x in d)/len(d)):.2f}% max {100*max(abs(x) for x in d):.1f}% within 5%: {sum(abs(x)<=0.05 for x in d)} within 2%: {sum(abs(x)<=0.02 for x in d)}")
