#include <stdio.h>
#include <time.h>
static unsigned char buf[256] __attribute__((aligned(64)));
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
#define N 10000000
#define REP10(x) x x x x x x x x x x
int main(){
  double best[6]={1e9,1e9,1e9,1e9,1e9,1e9};
  for(int r=0;r<15;r++){
    double t0,t1; long i;
    t0=now(); long x=0; for(i=0;i<N;i++){ __asm__ volatile(REP10("addq $1,%0\n\t") :"+r"(x)); } t1=now(); if((t1-t0)<best[0])best[0]=t1-t0;
    /* byte store, movzbl load (O0 integer(1)) */
    t0=now(); for(i=0;i<N;i++){ __asm__ volatile(REP10("movzbl 8(%0),%%eax\n\taddl $1,%%eax\n\tmovb %%al,8(%0)\n\t") ::"r"(buf):"rax","memory"); } t1=now(); if((t1-t0)<best[1])best[1]=t1-t0;
    /* byte store, movsbl load */
    t0=now(); for(i=0;i<N;i++){ __asm__ volatile(REP10("movsbl 8(%0),%%eax\n\taddl $1,%%eax\n\tmovb %%al,8(%0)\n\t") ::"r"(buf):"rax","memory"); } t1=now(); if((t1-t0)<best[2])best[2]=t1-t0;
    /* 16-bit store, movzwl load */
    t0=now(); for(i=0;i<N;i++){ __asm__ volatile(REP10("movzwl 8(%0),%%eax\n\taddl $1,%%eax\n\tmovw %%ax,8(%0)\n\t") ::"r"(buf):"rax","memory"); } t1=now(); if((t1-t0)<best[3])best[3]=t1-t0;
    /* 32-bit store, movslq load */
    t0=now(); for(i=0;i<N;i++){ __asm__ volatile(REP10("movslq 8(%0),%%rax\n\taddl $1,%%eax\n\tmovl %%eax,8(%0)\n\t") ::"r"(buf):"rax","memory"); } t1=now(); if((t1-t0)<best[4])best[4]=t1-t0;
    /* byte store, byte compare-load (cmpb) feeding nothing; use movb load into al */
    t0=now(); for(i=0;i<N;i++){ __asm__ volatile(REP10("movb 8(%0),%%al\n\taddb $1,%%al\n\tmovb %%al,8(%0)\n\t") ::"r"(buf):"rax","memory"); } t1=now(); if((t1-t0)<best[5])best[5]=t1-t0;
  }
  double cyc=best[0]/(10.0*N);
  const char*nm[6]={"add chain","movb/movzbl","movb/movsbl","movw/movzwl","movl/movslq","movb/movb"};
  for(int k=0;k<6;k++) printf("%-16s %.3f ns  %.2f cycles per link\n",nm[k],best[k]/(10.0*N)*1e9,best[k]/(10.0*N)/cyc);
}
