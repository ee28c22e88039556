import json,glob,os,sys
a,b=sys.argv[1],sys.argv[2]
for f in sorted(glob.glob(b+'/*.profile.json')):
    g=os.path.join(a,os.path.basename(f))
    if not os.path.exists(g): continue
    A={u['name']:u.get('chained_calls') for u in json.load(open(g))['units']}
    for u in json.load(open(f))['units']:
        if A.get(u['name'])!=u.get('chained_calls'):
            print(os.path.basename(f)[:-13], u['name'], A.get(u['name']), '->', u.get('chained_calls'), 'calls', u.get('calls'))
