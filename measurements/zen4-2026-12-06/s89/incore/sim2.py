import sys, re
def classify(ins):
    m = ins.split()[0]
    ops = ins[len(m):]
    mem = '(' in ops and not m.startswith('lea') and not m.startswith('nop')
    if m.startswith('nop'): return ('nop',)
    fp = m in ('mulsd','subsd','addsd','divsd','pxor','cvtsi2sdl') or ('xmm' in ops and not mem) 
    if m.startswith('movsd') or (m.startswith('movq') and 'xmm' in ops):
        return ('mem',) if mem else ('fp',)
    if fp: return ('fp',)
    if mem:
        if m in ('movq','movl','movslq','movzbl') and ops.strip().endswith(')') : return ('mem',)  # store
        if m.startswith('mov'): return ('mem',)  # load
        return ('mem','alu')  # load-op / rmw
    return ('alu',)
def groups(instrs, W, MEM, ALU):
    cyc = 0; i = 0; n = len(instrs)
    while i < n:
        w = m = a = 0
        while i < n:
            c = classify(instrs[i])
            dm = c.count('mem'); da = c.count('alu')
            if w + 1 > W or m + dm > MEM or a + da > ALU: break
            w += 1; m += dm; a += da; i += 1
        cyc += 1
    return cyc
def body(path, reg):
    b = [l.strip() for l in open(path) if l.strip()]
    if reg: b = [x.replace('movl\t-4(%rbp), %edx','movl\t%ebx, %edx') for x in b]
    ctl = ['cmpl $1000, %ebx' if reg else 'cmpl $1000, -4(%rbp)', 'setg %al', 'movzbl %al, %eax', 'jne .L32']
    tail = ['addl $1, %ebx' if reg else 'addl $1, -4(%rbp)', 'jmp .L21']
    return ctl + b + tail
W, MEM, ALU = map(int, sys.argv[1:4])
for a in sys.argv[4:]:
    p, reg = (a[:-4], True) if a.endswith(':reg') else (a, False)
    b = body(p, reg)
    g = groups(b * 20, W, MEM, ALU) / 20
    cl = [classify(x) for x in b]
    mem = sum(c.count('mem') for c in cl); alu = sum(c.count('alu') for c in cl)
    print(a, round(g,2), round(max(g, mem/3, alu/4),2))
