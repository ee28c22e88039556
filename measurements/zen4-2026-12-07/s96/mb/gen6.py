import sys
name,g,variant=sys.argv[1],int(sys.argv[2]),sys.argv[3]
grp=['movq\t-208(%rbp), %rax','movq\t-200(%rbp), %rsi','movl\t-12(%rbp), %edx','movslq\t%edx, %rcx','movq\t-144(%rbp), %rdx','imulq\t%rcx, %rdx','leaq\t(%rsi,%rdx), %rcx','movl\t-8(%rbp), %edx','movslq\t%edx, %rdx','addq\t%rcx, %rdx','movsd\t(%rax,%rdx,8), %xmm0']
if variant=='noarr': grp=grp[:-1]+['movsd\t-560(%rbp), %xmm0']
if variant=='noimul': grp=[l.replace('imulq','addq') for l in grp]
if variant=='nomovs': grp=[l.replace('movslq\t%edx, %rcx','movl\t%edx, %ecx').replace('movslq\t%edx, %rdx','movl\t%edx, %edx') for l in grp]
v=[]
for i in range(g): v+=['\t'+l for l in grp]
v=['\tcmpl\t$1500, %r11d','\tjg\t.Lout']+v+['\taddl\t$1, %r11d']
out=['\t.text','\t.globl\tloop','\t.type\tloop, @function','loop:','\tpushq\t%rbp','\tmovq\t%rdi, %rbp','\tmovl\t$1, %r11d','\t.p2align 5','.Ltop:']+v+['\tjmp\t.Ltop','.Lout:','\tpopq\t%rbp','\tret','\t.section\t.note.GNU-stack,"",@progbits']
open(f'loop_{name}.s','w').write('\n'.join(out)+'\n')
