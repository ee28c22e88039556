import sys
name=sys.argv[1]
bodies={
 'c1':['\tcmpl\t$1500, -4(%rbp)','\tjg\t.Lout','\taddl\t$1, -4(%rbp)'],
 'c2':['\tcmpl\t$1500, -4(%rbp)','\tjg\t.Lout','\tmovl\t-4(%rbp), %edx','\tmovl\t-4(%rbp), %ecx','\tmovl\t-4(%rbp), %esi','\taddl\t$1, -4(%rbp)'],
 'c3':['\tcmpl\t$1500, -4(%rbp)','\tsetg\t%al','\tmovzbl\t%al, %eax','\ttestl\t%eax, %eax','\tjne\t.Lout','\taddl\t$1, -4(%rbp)'],
 'c4':['\tcmpl\t$1500, -4(%rbp)','\tjg\t.Lout','\tmovl\t-4(%rbp), %r10d','\taddl\t$1, %r10d','\tmovl\t%r10d, -4(%rbp)'],
 'c5':['\tcmpl\t$1500, %r11d','\tjg\t.Lout','\taddl\t$1, %r11d'],
}
v=bodies[name]
out=['\t.text','\t.globl\tloop','\t.type\tloop, @function','loop:','\tpushq\t%rbp','\tmovq\t%rdi, %rbp','\tmovl\t$1, -4(%rbp)','\tmovl\t$1, %r11d','\t.p2align 5','.Ltop:']+v+['\tjmp\t.Ltop','.Lout:','\tpopq\t%rbp','\tret','\t.section\t.note.GNU-stack,"",@progbits']
open(f'loop_{name}.s','w').write('\n'.join(out)+'\n')
