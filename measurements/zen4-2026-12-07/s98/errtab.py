import sys
d=sys.argv[1]; flag=sys.argv[2]; st=sys.argv[3] if len(sys.argv)>3 else 'real'
import os
# every host of measurements/hosts.txt with [incore] runs at FLAG (the replays' names), in its order
here=os.path.dirname(os.path.abspath(__file__))
hosts=[l.split()[0] for l in open(os.path.join(here,'../../hosts.txt')) if l.strip() and not l.startswith('#')
       and flag in l.split()[1].split(',') and l.split()[0] not in ('zen3','zen5old','zen4old','zen5dec3')]
tab={}
for h in hosts:
    try: L=open(f'{d}/{h}-{st}-{flag}.txt')
    except: continue
    for l in L:
        f=l.split()
        if len(f)>5 and f[5].endswith('%') and f[4].endswith('%'):
            try: tab.setdefault(f[0],{})[h]=float(f[5].rstrip('%'))
            except: pass
print('%-24s'%'prog'+''.join('%9s'%h for h in hosts))
for p,dd in sorted(tab.items()):
    print('%-24s'%p+''.join('%9s'%('%.1f'%dd[h] if h in dd else '-') for h in hosts))
