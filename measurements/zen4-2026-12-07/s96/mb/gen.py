# gen.py VARIANT: writes loop_VARIANT.s, a function loop(frame_rbp) running the -O0 loop body from i=1 to 1500
import sys,re
name=sys.argv[1]; body=open('body.txt').read().rstrip('\n').split('\n')
# body[0..4]: cmpl/setg/movzbl/testl/jne .L32
def sub(lines, a, b): return [l.replace(a,b) for l in lines]
v=list(body)
if name=='orig': pass
elif name=='stackstore': v=sub(v,'movsd\t%xmm0, (%rax,%rdx,8)','movsd\t%xmm0, -600(%rbp)')
elif name=='nostore': v=sub(v,'movsd\t%xmm0, (%rax,%rdx,8)','nop')
elif name=='regctr': v=sub(sub(sub(v,'cmpl\t$1500, -4(%rbp)','cmpl\t$1500, %r11d'),'movl\t-4(%rbp), %edx','movl\t%r11d, %edx'),'addl\t$1, -4(%rbp)','addl\t$1, %r11d')
elif name=='splitctr': v=sub(v,'addl\t$1, -4(%rbp)','movl\t-4(%rbp), %r10d\n\taddl\t$1, %r10d\n\tmovl\t%r10d, -4(%rbp)')
elif name=='cmpjcc': v=[l for l in v if not re.search(r'setg|movzbl\t%al|testl\t%eax',l)]; v=sub(v,'jne\t.L32','jg\t.L32')
else: raise SystemExit('unknown '+name)
v=sub(v,'.L32','.Lout')
out=['\t.text','\t.globl\tloop','\t.type\tloop, @function','loop:','\tpushq\t%rbp','\tmovq\t%rdi, %rbp','\tmovl\t$1, -4(%rbp)','\tmovl\t-4(%rbp), %r11d','\t.p2align 5','.Ltop:']+v+['\tjmp\t.Ltop','.Lout:','\tpopq\t%rbp','\tret','\t.section\t.note.GNU-stack,"",@progbits']
open(f'loop_{name}.s','w').write('\n'.join(out)+'\n')
