import re
t=open(__import__('sys').argv[1]).read()
blocks=re.split(r'^== ', t, flags=re.M)[1:]
rows=[]
for b in blocks:
    n=re.match(r'(\d+) lines: (\d+) lines in (\d+) files', b)
    if not n: continue
    g=lambda k: re.search(k+r' wall ([0-9.]+) s user ([0-9.]+) s peak (\d+) KB', b)
    pb,pr,st,an=g('plain build'),g('plain run'),g(r'analyze --static'),g(r'\nanalyze')
    pf=re.search(r'profile (\d+) bytes; (\d+) units (\d+) blocks counting run ([0-9.]+) s locality ([0-9.]+) s', b)
    pd=re.findall(r'predict wall ([0-9.]+) s user ([0-9.]+) s peak (\d+) KB', b)
    if not (pb and an and pf and pd): continue
    pw=sorted(float(x[0]) for x in pd)[len(pd)//2]; pm=max(int(x[2]) for x in pd)
    ratio=float(an[1])/(float(pb[1])+float(pr[1]))
    rows.append(f"| {int(n[2]):,} | {pf[2]} / {pf[3]} | {pb[1]} s + {pr[1]} s | {st[1]} s, {int(st[3])//1024} MB | {an[1]} s ({ratio:.1f}x), {int(an[3])//1024} MB | {pf[4]} s / {pf[5]} s | {int(pf[1])/1e6:.0f} MB | {pw:.2f} s, {pm//1024} MB |")
print("| lines | units / blocks | plain build + run | `analyze --static` | `analyze` (its build + run) | counting run / locality | profile | `predict` (median of 3) |")
print("|---:|---:|---:|---:|---:|---:|---:|---:|")
print("\n".join(rows))
