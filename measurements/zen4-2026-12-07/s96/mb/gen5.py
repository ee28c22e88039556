import sys
# gen5.py NAME K S STMODE: K independent stack loads + S stores per iteration
name,k,s,sm=sys.argv[1],int(sys.argv[2]),int(sys.argv[3]),sys.argv[4]
regs=['%rdx','%rcx','%rsi','%r8','%r9','%r10','%rax','%r12']
v=[f'\tmovq\t{-16-8*i}(%rbp), {regs[i%8]}' for i in range(k)]
for j in range(s):
    if sm=='fixed': st=f'\tmovq\t%rdx, {-400-8*j}(%rbp)'
    elif sm=='stream': st=f'\tmovq\t%rdx, {8*j}(%rdi,%r11,8)'
    elif sm=='rmw': st=f'\taddl\t$1, {-400-8*j}(%rbp)'
    pos=(len(v)*(j+1))//(s+1)
    v.insert(pos, st)
v=['\tcmpl\t$1500, %r11d','\tjg\t.Lout']+v+['\taddl\t$1, %r11d']
out=['\t.text','\t.globl\tloop','\t.type\tloop, @function','loop:','\tpushq\t%rbp','\tpushq\t%r12','\tmovq\t%rdi, %rbp','\tmovl\t$1, %r11d','\tlea\t-20000(%rdi), %rdi', '\t.p2align 5','.Ltop:']+v+['\tjmp\t.Ltop','.Lout:','\tpopq\t%r12','\tpopq\t%rbp','\tret','\t.section\t.note.GNU-stack,"",@progbits']
open(f'loop_{name}.s','w').write('\n'.join(out)+'\n')
