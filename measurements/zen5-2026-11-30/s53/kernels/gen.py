regs=["r8","r9","r10","r11","r12","r13","r14","r15"]
K={}
# loop bodies per element; %0=a %1=b %2=n ; rax index
K['axpy']="movsd (%1,%%rax,8),%%xmm1;movsd (%0,%%rax,8),%%xmm0;mulsd %%xmm2,%%xmm1;subsd %%xmm1,%%xmm0;movsd %%xmm0,(%0,%%rax,8)"
K['nostore']="movsd (%1,%%rax,8),%%xmm1;movsd (%0,%%rax,8),%%xmm0;mulsd %%xmm2,%%xmm1;subsd %%xmm1,%%xmm0"
K['noload']="movapd %%xmm2,%%xmm1;movapd %%xmm2,%%xmm0;mulsd %%xmm2,%%xmm1;subsd %%xmm1,%%xmm0;movsd %%xmm0,(%0,%%rax,8)"
K['memonly']="movsd (%1,%%rax,8),%%xmm1;movsd (%0,%%rax,8),%%xmm0;movsd %%xmm0,(%0,%%rax,8)"
K['st_only']="movsd %%xmm0,(%0,%%rax,8)"
K['ld2']="movsd (%1,%%rax,8),%%xmm1;movsd (%0,%%rax,8),%%xmm0"
K['fponly']="movapd %%xmm2,%%xmm1;mulsd %%xmm2,%%xmm1;movapd %%xmm2,%%xmm0;subsd %%xmm1,%%xmm0"
K['ld2st1_int']="movq (%1,%%rax,8),%%r8;movq (%0,%%rax,8),%%r9;movq %%r9,(%0,%%rax,8)"
K['ldst_diff']="movsd (%1,%%rax,8),%%xmm1;movsd (%0,%%rax,8),%%xmm0;mulsd %%xmm2,%%xmm1;subsd %%xmm1,%%xmm0;movsd %%xmm0,8192(%0,%%rax,8)"
for n in range(0,9):
    K['adds%d'%n]=";".join("add $1,%%%%%s"%regs[i] for i in range(n))
for n in (2,4,6,8):
    K['u4adds%d'%n]=";".join(["add $1,%%%%%s"%regs[i] for i in range(n)]*4)
K['u4axpy']=";".join("movsd %d(%%1,%%%%rax,8),%%%%xmm1;movsd %d(%%0,%%%%rax,8),%%%%xmm0;mulsd %%%%xmm2,%%%%xmm1;subsd %%%%xmm1,%%%%xmm0;movsd %%%%xmm0,%d(%%0,%%%%rax,8)"%(8*u,8*u,8*u) for u in range(4))
K['nop8']=";".join(["nop"]*8)
K['nop4']=";".join(["nop"]*4)
out=['#include <stdio.h>','#include <time.h>','#include <stdlib.h>','#include <string.h>',
'static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}',
'#define N 1024','double a[4096] __attribute__((aligned(64))), b[4096] __attribute__((aligned(64)));']
out.append('static void chain(long it){ long x=0; __asm__ volatile(".p2align 5\\n1:\\n\\t .rept 16\\n\\t add $1,%0\\n\\t .endr\\n\\t dec %1\\n\\t jnz 1b":"+r"(x),"+r"(it)); }')
names=[]
for k,body in K.items():
    ins="\\n\\t".join(body.split(";")) if body else ""
    out.append('static void k_%s(long reps){ for(long r=0;r<reps;r++){ long n=N; double t=1e-9;'%k)
    out.append(' __asm__ volatile("xor %%%%eax,%%%%eax\\n\\t movsd %%3,%%%%xmm2\\n\\t .p2align 6\\n1:\\n\\t %s\\n\\t addq $1,%%%%rax\\n\\t cmpq %%%%rax,%%2\\n\\t jne 1b"'%ins)
    out.append('  ::"r"(a),"r"(b),"r"(n),"m"(t):"rax","r8","r9","r10","r11","r12","r13","r14","r15","xmm0","xmm1","xmm2","memory");}}')
    names.append(k)
out.append('typedef void(*kf)(long);')
out.append('kf fs[]={%s}; const char*ns[]={%s};'%(",".join("k_"+k for k in names),",".join('"%s"'%k for k in names)))
out.append('''int main(int c,char**v){ long it=20000000; double best=1e9;
 for(int r=0;r<5;r++){double t0=now();chain(it);double t=now()-t0; if(t<best)best=t;}
 double cyc=best/(it*16.0); printf("cycle %.4f ns\\n",cyc*1e9);
 for(int k=0;k<(int)(sizeof fs/sizeof*fs);k++){ if(c>1&&!strstr(ns[k],v[1]))continue; double bt=1e9; long reps=200000;
  for(int r=0;r<7;r++){double t0=now();fs[k](reps);double t=now()-t0;if(t<bt)bt=t;}
  printf("%-12s %.3f cycles/iter\\n",ns[k],bt/(reps*(double)N)/cyc);}
}''')
open("k.c","w").write("\n".join(out))
