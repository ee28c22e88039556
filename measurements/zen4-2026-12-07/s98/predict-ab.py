import subprocess,sys,time,statistics
old,new,M=sys.argv[1:4]; progs=sys.argv[4:]
for p in progs:
    f=f'/tmp/s94/prf/rc-real-O2/{p}.profile.json'
    t={old:[],new:[]}
    for r in range(11):
        for b in (old,new):
            s=time.perf_counter(); subprocess.run([b,'predict',f,'-m',M],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL); t[b].append(time.perf_counter()-s)
    print(f"{p:22s} old median {statistics.median(t[old])*1e3:6.1f} ms min {min(t[old])*1e3:6.1f}   new median {statistics.median(t[new])*1e3:6.1f} ms min {min(t[new])*1e3:6.1f}")
