import sys
d=sys.argv[1]; flag=sys.argv[2]; st=sys.argv[3] if len(sys.argv)>3 else 'real'
hosts=['zen4','zen4dec5','zen5','zen5new','xeon','xeon5','xeonER','xeonER4']
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
