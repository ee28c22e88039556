import sys
K=[64,128,256,512,1024,2048]
out=['#include <stdio.h>','#include <time.h>','static double buf[4096] __attribute__((aligned(64)));','static long idx[64];',
'static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}']
stmt=lambda j: ("movl %d(%%%%rsp), %%%%edx\\n\\t" "movslq %%%%edx, %%%%rdx\\n\\t" "imulq %%%%rdx, %%%%rdx\\n\\t" "leaq -1(%%%%rdx), %%%%rcx\\n\\t" "addq %%%%rcx, %%%%rdx\\n\\t" "movsd 64(%%%%rsp,%%%%rdx,8), %%%%xmm%d\\n\\t" "mulsd %%%%xmm%d, %%%%xmm%d\\n\\t") % (8+(j%4)*4, j%8, j%8, j%8)
for k in K:
    body=''.join(stmt(j) for j in range(k))
    out.append('static void f%d(long n){ for(long i=0;i<n;i++){ __asm__ volatile("subq $512,%%%%rsp\\n\\t" "%s" "addq $512,%%%%rsp" :: [b]"r"(buf) : "rax","rcx","rdx","xmm0","xmm1","xmm2","xmm3","xmm4","xmm5","xmm6","xmm7","memory"); } }'%(k,body))
out.append('int main(){ double cyc=1e9; for(int r=0;r<9;r++){ double t0=now(); long x=0; for(long i=0;i<10000000;i++) __asm__ volatile("addq $1,%0\\n\\taddq $1,%0\\n\\taddq $1,%0\\n\\taddq $1,%0\\n\\taddq $1,%0\\n\\taddq $1,%0\\n\\taddq $1,%0\\n\\taddq $1,%0\\n\\taddq $1,%0\\n\\taddq $1,%0":"+r"(x)); double t=now()-t0; if(t<cyc)cyc=t;} cyc/=1e8;')
for k in K:
    n=40000000//k
    out.append(' { double best=1e9; for(int r=0;r<9;r++){ double t0=now(); f%d(%d); double t=now()-t0; if(t<best)best=t;} double per=best/%d; printf("K=%%4d instr=%%5d  %%.2f cycles/iter  IPC %%.2f\\n", %d, %d*7+2, per/cyc, (%d*7+2)/(per/cyc)); }'%(k,n,n,k,k,k))
out.append(' return 0; }')
open('fe.c','w').write('\n'.join(out))
