import tomllib,sys,statistics as st
def ab(f):
    d=tomllib.load(open(f,'rb'))['abop']
    return {k:v['mean_ns'] for k,v in d.items() if v.get('status')=='measured' and v.get('mean_ns')}
fs=sys.argv[1:]
P={f:ab(f) for f in fs}
for i in range(len(fs)):
    for j in range(i+1,len(fs)):
        a,b=P[fs[i]],P[fs[j]]
        ks=[k for k in a if k in b and a[k]>0.05]
        d=[(b[k]/a[k]-1) for k in ks]
        print(f"{fs[i]:>12} {fs[j]:>12} n={len(ks)} median|d|={100*st.median([abs(x) for x in d]):.2f}% signed median={100*st.median(d):+.2f}%")
