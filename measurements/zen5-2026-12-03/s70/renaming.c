#include <stdio.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
double buf[64] __attribute__((aligned(64)));
long ibuf[64] __attribute__((aligned(64)));
#define N 200000000L
int main(){
  double best[6]={1e9,1e9,1e9,1e9,1e9,1e9};
  for(int rep=0;rep<5;rep++){
  double t0,t1; long n;
  double one=1e-9;
  // 0: FP mirrored (%rdi) store & load
  n=N; t0=now();
  __asm__ volatile("1: movsd (%1), %%xmm0\n addsd %2, %%xmm0\n movsd %%xmm0, (%1)\n dec %0\n jnz 1b\n":"+r"(n):"r"(buf),"x"(one):"xmm0","memory");
  t1=now(); if((t1-t0)/N*1e9<best[0])best[0]=(t1-t0)/N*1e9;
  // 1: FP non-mirrored: load via rsi, store via rdi (same address)
  n=N; t0=now();
  __asm__ volatile("1: movsd (%2), %%xmm0\n addsd %3, %%xmm0\n movsd %%xmm0, (%1)\n dec %0\n jnz 1b\n":"+r"(n):"r"(buf),"r"(buf),"x"(one):"xmm0","memory");
  t1=now(); if((t1-t0)/N*1e9<best[1])best[1]=(t1-t0)/N*1e9;
  // 2: FP base+index mirrored
  n=N; t0=now();
  __asm__ volatile("1: movsd 8(%1,%2,8), %%xmm0\n addsd %3, %%xmm0\n movsd %%xmm0, 8(%1,%2,8)\n dec %0\n jnz 1b\n":"+r"(n):"r"(buf),"r"(2L),"x"(one):"xmm0","memory");
  t1=now(); if((t1-t0)/N*1e9<best[2])best[2]=(t1-t0)/N*1e9;
  // 3: int mirrored
  n=N; t0=now();
  __asm__ volatile("1: movq (%1), %%rax\n addq $1, %%rax\n movq %%rax, (%1)\n dec %0\n jnz 1b\n":"+r"(n):"r"(ibuf):"rax","memory");
  t1=now(); if((t1-t0)/N*1e9<best[3])best[3]=(t1-t0)/N*1e9;
  // 4: int non-mirrored
  n=N; t0=now();
  __asm__ volatile("1: movq (%2), %%rax\n addq $1, %%rax\n movq %%rax, (%1)\n dec %0\n jnz 1b\n":"+r"(n):"r"(ibuf),"r"(ibuf):"rax","memory");
  t1=now(); if((t1-t0)/N*1e9<best[4])best[4]=(t1-t0)/N*1e9;
  // 5: FP register chain only
  n=N; t0=now();
  __asm__ volatile("xorpd %%xmm0,%%xmm0\n 1: addsd %1, %%xmm0\n dec %0\n jnz 1b\n":"+r"(n):"x"(one):"xmm0");
  t1=now(); if((t1-t0)/N*1e9<best[5])best[5]=(t1-t0)/N*1e9;
  }
  printf("ns/iter: fp mirrored %.3f  fp other base %.3f  fp base+index mirrored %.3f  int mirrored %.3f  int other base %.3f  addsd alone %.3f\n",best[0],best[1],best[2],best[3],best[4],best[5]);
}
