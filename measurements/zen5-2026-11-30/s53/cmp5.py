import sys,re
def read(f):
    d={}
    for l in open(f):
        m=re.match(r'^(\S+)\s+[\d.e+]+\s+([\d.]+)(ms|s|us)\s',l)
        if m: d[m.group(1)]=float(m.group(2))*{'s':1,'ms':1e-3,'us':1e-6}[m.group(3)]
    return d
b=read(sys.argv[1])
for f in sys.argv[2:]:
    o=read(f); r=[abs(o[k]/b[k]-1) for k in b if k in o]
    print(f, 'n=%d within 2%%: %d, within 5%%: %d, largest %.1f%%'%(len(r),sum(x<=0.02 for x in r),sum(x<=0.05 for x in r),100*max(r)))
