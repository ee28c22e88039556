#include <stdio.h>
#include <time.h>
static long buf[64] __attribute__((aligned(64)));
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
#define N 10000000
#define REP10(x) x x x x x x x x x x
int main(){
  double best[4]={1e9,1e9,1e9,1e9};
  for(int r=0;r<15;r++){
    double t0,t1; long i;
    t0=now(); long x=0; for(i=0;i<N;i++){ __asm__ volatile(REP10("addq $1,%0\n\t") :"+r"(x)); } t1=now(); if((t1-t0)<best[0])best[0]=t1-t0;
    /* 1: ld/add/st with index register, 32-bit */
    t0=now(); for(i=0;i<N;i++){ __asm__ volatile("movl $3,%%ecx\n\t" REP10("movl 8(%0,%%rcx,4),%%edx\n\taddl $1,%%edx\n\tmovl %%edx,8(%0,%%rcx,4)\n\t") ::"r"(buf):"rcx","rdx","memory"); } t1=now(); if((t1-t0)<best[1])best[1]=t1-t0;
    /* 2: same address via base only but pointer recomputed by lea from index */
    t0=now(); for(i=0;i<N;i++){ __asm__ volatile("movl $3,%%ecx\n\t" REP10("leaq 8(%0,%%rcx,4),%%rax\n\tmovl (%%rax),%%edx\n\taddl $1,%%edx\n\tmovl %%edx,(%%rax)\n\t") ::"r"(buf):"rax","rcx","rdx","memory"); } t1=now(); if((t1-t0)<best[2])best[2]=t1-t0;
    /* 3: store at one address form, load at another form of the same address */
    t0=now(); for(i=0;i<N;i++){ __asm__ volatile("movl $3,%%ecx\n\tleaq 20(%0),%%rax\n\t" REP10("movl 8(%0,%%rcx,4),%%edx\n\taddl $1,%%edx\n\tmovl %%edx,(%%rax)\n\t") ::"r"(buf):"rax","rcx","rdx","memory"); } t1=now(); if((t1-t0)<best[3])best[3]=t1-t0;
  }
  double cyc=best[0]/(10.0*N);
  const char*nm[4]={"add chain","ld/add/st indexed","ld/add/st via lea ptr","st base / ld indexed"};
  for(int k=0;k<4;k++) printf("%-24s %.3f ns  %.2f cycles per link\n",nm[k],best[k]/(10.0*N)*1e9,best[k]/(10.0*N)/cyc);
}
