import sys
# gen4.py NAME K MODE : K independent loads of distinct non-stored slots per iteration; counter in r11
name,k,mode=sys.argv[1],int(sys.argv[2]),sys.argv[3]
regs=['%rdx','%rcx','%rsi','%r8','%r9','%r10','%rax','%r12']
v=[]
for i in range(k):
    if mode=='stack': v.append(f'\tmovq\t{-16-8*i}(%rbp), {regs[i%8]}')
    elif mode=='rsi': v.append(f'\tmovq\t{8*i}(%rdi), {regs[i%8]}')
    elif mode=='idx': v.append(f'\tmovq\t{8*i}(%rdi,%r11,8), {regs[i%8]}')
v=['\tcmpl\t$1500, %r11d','\tjg\t.Lout']+v+['\taddl\t$1, %r11d']
out=['\t.text','\t.globl\tloop','\t.type\tloop, @function','loop:','\tpushq\t%rbp','\tpushq\t%r12','\tmovq\t%rdi, %rbp','\tmovl\t$1, %r11d','\tlea\t-4096(%rdi), %rdi', '\t.p2align 5','.Ltop:']+v+['\tjmp\t.Ltop','.Lout:','\tpopq\t%r12','\tpopq\t%rbp','\tret','\t.section\t.note.GNU-stack,"",@progbits']
open(f'loop_{name}.s','w').write('\n'.join(out)+'\n')
