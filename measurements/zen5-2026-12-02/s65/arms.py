# Writes arms.c: 4 integers at rip-relative addresses read at a loop's top and stored in
# each of A arms reached in turn through a jump table (A = 1..16): 4*A store-load pairs.
# gcc -O1 -no-pie arms.c -o arms && ./arms  (session 65, Zen 5: renamed to 40 pairs, forwarded from 48)
regs=['edx','ecx','esi','r9d']
P='%%'
src=['#include <stdio.h>','#include <time.h>','int slot[64];','static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}']
As=[1,2,4,6,8,10,12,16]
for A in As:
    b=[f'xor {P}r8d, {P}r8d','.p2align 5','1:']
    for j,r in enumerate(regs):
        b+= [f'movl slot+{4*j}({P}rip), {P}{r}', f'addl $1, {P}{r}']
    b+= [f'leaq 9f({P}rip), {P}rax', f'jmp *({P}rax,{P}r8,8)']
    for a in range(A):
        b+= ['.p2align 4', f'arm{A}_{a}:']
        b+= [f'movl {P}{r}, slot+{4*j}({P}rip)' for j,r in enumerate(regs)]
        b+= ['jmp 7f']
    b+= ['7:', f'inc {P}r8d', f'cmp ${A}, {P}r8d', 'jb 6f', f'xor {P}r8d, {P}r8d', '6:', f'dec {P}rdi', 'jnz 1b', 'jmp 5f', '.section .rodata', '.p2align 3', '9:']
    b+= [f'.quad arm{A}_{a}' for a in range(A)]
    b+= ['.text','5:']
    asm='\\n\\t'.join(b)
    src.append(f'static void k{A}(long n){{ __asm__ volatile("{asm}" :: "D"(n) : "rax","rcx","rdx","rsi","r8","r9","memory"); }}')
src.append('int main(){')
for A in As:
    src.append(f' {{ double b=1e9; for(int r=0;r<5;r++){{ double t0=now(); k{A}(2000000); double t=now()-t0; if(t<b)b=t;}} printf("arms %2d pairs %3d: %.3f ns/iter\\n", {A}, {4*A}, b/2e6*1e9); }}')
src.append('}')
open('arms.c','w').write('\n'.join(src))
