import random
def sim(seq, ctxbits, nctx='hist'):
    tab={}; hist=0; last=last2=0; miss=0
    for T in seq:
        if nctx=='hist': key=('h', hist & ((1<<ctxbits)-1))
        elif nctx=='last2': key=('l',last,last2)
        else: key=('n',)
        for j in range(T+1):
            go = j<T
            c=tab.get((key,j),2)
            if (c>=2)!=go: miss+=1
            tab[(key,j)] = min(c+1,3) if go else max(c-1,0)
        hist = ((hist<<T)|((1<<T)-1))<<1
        hist &= (1<<64)-1
        last2=last; last=T
    return miss/len(seq)
gj=[]
for p in range(1,6):
    gj += [5-p]*4
gjseq = gj*5000
rnd=[random.randint(1,6) for _ in range(100000)]
for name,seq in [('gj',gjseq),('rnd',rnd)]:
    print(name, 'none %.3f'%sim(seq,0,'none'), 'last2 %.3f'%sim(seq,0,'last2'), ' '.join('h%d %.3f'%(b,sim(seq,b)) for b in (4,6,8,12,16,24,32)))
