regs=['ecx','edx','esi','edi','r8d','r9d','r10d','r11d']
def body(n,kind):
    out=[]
    for c in (0,1):
        out += ['sqrtsd %%xmm%d, %%xmm%d'%(c,c)]*16
        if kind=='waitint': out.append('vmovq %%xmm%d, %%rax'%c)
        for k in range(n):
            if kind=='int': out.append('mov $1, %%%s'%regs[k%8])
            elif kind=='waitint': out.append('lea 1(%%rax), %%%s'%regs[k%8])
            elif kind=='waitfp': out.append('vaddsd %%xmm%d, %%xmm15, %%xmm%d'%(c,2+k%12))
    return out
src=['#include <stdio.h>','#include <time.h>','static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}']
cases=[]
for kind in ('int','waitint','waitfp'):
    for n in list(range(8,200,8))+[224,256,320]:
        fn='k_%s_%d'%(kind,n); cases.append((fn,kind,n))
        asm='\\n\\t'.join(body(n,kind))
        src.append('static void %s(long it){ __asm__ volatile("movsd %%[two], %%%%xmm0\\n\\tmovsd %%[two], %%%%xmm1\\n\\tvxorps %%%%xmm15,%%%%xmm15,%%%%xmm15\\n\\t" ::[two]"m"(two)); for(long i=0;i<it;i++) __asm__ volatile("%s" ::: "rax","rcx","rdx","rsi","rdi","r8","r9","r10","r11","xmm0","xmm1","xmm2","xmm3","xmm4","xmm5","xmm6","xmm7","xmm8","xmm9","xmm10","xmm11","xmm12","xmm13","xmm15"); }'%(fn, asm.replace('%','%%')))
src.insert(3,'static double two=2.0;')
src.append('int main(){')
for fn,kind,n in cases:
    src.append(' { double b=1e9; for(int r=0;r<5;r++){ double t0=now(); %s(20000); double t=now()-t0; if(t<b)b=t;} printf("%s %d %%.1f ns/iter\\n", b/20000*1e9); }'%(fn,kind,n))
src.append(' return 0; }')
open('win.c','w').write('\n'.join(src))
