import json,collections,sys,glob,os
def parse(o):
    parts=[x.strip() for x in o.split(';')]
    classes=parts[0].split(',')
    reads=[(int(r.split(':')[0]), r.split(':')[1]) for r in parts[1].split()] if len(parts)>1 and parts[1] else []
    writes=[int(w) for w in parts[2].split(',')] if len(parts)>2 and parts[2] else []
    blk=0
    for f in (parts[3].split() if len(parts)>3 else []):
        if f.startswith('block='): blk=int(f[6:])
    return classes,reads,writes,blk
def pairs(sched):
    ops=[parse(o) for o in sched]
    storing=collections.defaultdict(set)
    for cl,r,w,b in ops:
        if any(c.startswith('store') for c in cl):
            for v in w: storing[v].add(b)
    seen=set(); n=0; loads=0
    for cl,r,w,b in ops:
        for v,path in r:
            if path.startswith('forward_reloaded'):
                loads+=1; n+= 1 if (b,v) in seen else max(1,len(storing[v]))
        if any(c.startswith('store') for c in cl):
            for v in w: seen.add((b,v))
    return loads,n
for d in sys.argv[1:]:
    for f in sorted(glob.glob(d+'/*.profile.json')):
        p=json.load(open(f)); opt=p.get('optimization') or {}
        for c in opt.get('compiled_loops',[]):
            l,n=pairs(c.get('schedule',[]))
            if l: print('%-22s line %5d  ops %4d  reloaded loads %3d pairs %4d%s'%(os.path.basename(f).split('.')[0], c['line'], len(c.get('schedule',[])), l, n, '  >40' if n>40 else ''))
