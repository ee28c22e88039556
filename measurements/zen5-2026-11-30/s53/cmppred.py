import sys,re,statistics
def read(f):
    d={}
    for l in open(f):
        m=re.match(r'^(\S+)\s+[\d.e+]+\s+([\d.]+)(ms|s|us)\s',l)
        if m:
            v=float(m.group(2))*{'s':1,'ms':1e-3,'us':1e-6}[m.group(3)]
            d[m.group(1)]=v
    return d
base=read(sys.argv[1])
for f in sys.argv[2:]:
    o=read(f)
    diffs=sorted((abs(o[k]/base[k]-1),k) for k in base if k in o and base[k]>0)
    w2=sum(1 for x in diffs if x[0]<=0.02)
    print(f, len(diffs), 'within 2%%: %d (%.0f%%)'%(w2,100*w2/len(diffs)), 'median %.2f%%'%(100*statistics.median(x[0] for x in diffs)), 'max', ['%s %.1f%%'%(k,100*x) for x,k in diffs[-3:]])
