import sys
# gen3.py NAME K SLOT : K extra loads of SLOT in the counter loop
name,k,slot=sys.argv[1],int(sys.argv[2]),sys.argv[3]
regs=['%edx','%ecx','%esi','%r8d','%r9d','%r10d','%eax','%r12d']
v=['\tcmpl\t$1500, -4(%rbp)','\tjg\t.Lout']+[f'\tmovl\t{slot}(%rbp), {regs[i%8]}' for i in range(k)]+['\taddl\t$1, -4(%rbp)']
out=['\t.text','\t.globl\tloop','\t.type\tloop, @function','loop:','\tpushq\t%rbp','\tpushq\t%r12','\tmovq\t%rdi, %rbp','\tmovl\t$1, -4(%rbp)','\t.p2align 5','.Ltop:']+v+['\tjmp\t.Ltop','.Lout:','\tpopq\t%r12','\tpopq\t%rbp','\tret','\t.section\t.note.GNU-stack,"",@progbits']
open(f'loop_{name}.s','w').write('\n'.join(out)+'\n')
