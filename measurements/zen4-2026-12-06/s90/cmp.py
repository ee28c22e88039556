import sys,re,statistics
def load(f):
    d={}
    for l in open(f):
        m=re.match(r'^(\S+)\s+[\d.e+]+\s+([\d.]+)(ms|s|us|µs)\s',l)
        if m:
            v=float(m.group(2))*{'s':1,'ms':1e-3,'us':1e-6,'µs':1e-6}[m.group(3)]
            d[m.group(1)]=v
    return d
# usage: cmp.py REF OTHER... (names of rp-NAME; both sets)
ref=sys.argv[1]
for s in ['corpus','real']:
    a=load(f'/tmp/s90/rp-{ref}-{s}.txt')
    for o in sys.argv[2:]:
        b=load(f'/tmp/s90/rp-{o}-{s}.txt')
        e=[100*(b[k]/a[k]-1) for k in a if k in b]
        print(f"{s:6s} {ref}->{o:8s} median {statistics.median(e):+6.1f}%  within 2%: {sum(abs(x)<=2 for x in e):2d}/{len(e)}  within 5%: {sum(abs(x)<=5 for x in e):2d}  max {max(abs(x) for x in e):5.1f}%")
