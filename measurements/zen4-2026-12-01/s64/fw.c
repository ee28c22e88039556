#include <stdio.h>
#include <time.h>
#include <stdint.h>
static long buf[64] __attribute__((aligned(64)));
static long *ptr = buf;
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
#define N 10000000
#define REP10(x) x x x x x x x x x x
int main(){
  double best[6]={1e9,1e9,1e9,1e9,1e9,1e9};
  for(int r=0;r<15;r++){
    double t0,t1; long i;
    /* 0: chain of dependent adds (cycle) */
    t0=now(); long x=0; for(i=0;i<N;i++){ __asm__ volatile(REP10("addq $1,%0\n\t") :"+r"(x)); } t1=now(); if((t1-t0)<best[0])best[0]=t1-t0;
    /* 1: rmw on stack slot via rbp-like: use rsp-relative local */
    t0=now(); for(i=0;i<N;i++){ __asm__ volatile("subq $64,%%rsp\n\t" REP10("addq $1,8(%%rsp)\n\t") "addq $64,%%rsp" ::: "memory"); } t1=now(); if((t1-t0)<best[1])best[1]=t1-t0;
    /* 2: rmw through a fixed non-stack pointer register */
    t0=now(); for(i=0;i<N;i++){ __asm__ volatile(REP10("addq $1,8(%0)\n\t") ::"r"(buf):"memory"); } t1=now(); if((t1-t0)<best[2])best[2]=t1-t0;
    /* 3: rmw through a pointer reloaded from memory each time (O0 dummy arg) */
    t0=now(); for(i=0;i<N;i++){ __asm__ volatile(REP10("movq %0,%%rax\n\taddq $1,8(%%rax)\n\t") ::"m"(ptr):"rax","memory"); } t1=now(); if((t1-t0)<best[3])best[3]=t1-t0;
    /* 4: load-add-store separate through reloaded pointer, 32-bit */
    t0=now(); for(i=0;i<N;i++){ __asm__ volatile(REP10("movq %0,%%rax\n\tmovl 8(%%rax),%%edx\n\taddl $1,%%edx\n\tmovq %0,%%rax\n\tmovl %%edx,8(%%rax)\n\t") ::"m"(ptr):"rax","rdx","memory"); } t1=now(); if((t1-t0)<best[4])best[4]=t1-t0;
    /* 5: same via rbp-like stack slot 32-bit load/add/store */
    t0=now(); for(i=0;i<N;i++){ __asm__ volatile("subq $64,%%rsp\n\t" REP10("movl 8(%%rsp),%%edx\n\taddl $1,%%edx\n\tmovl %%edx,8(%%rsp)\n\t") "addq $64,%%rsp" ::: "rdx","memory"); } t1=now(); if((t1-t0)<best[5])best[5]=t1-t0;
  }
  double cyc=best[0]/(10.0*N);
  const char*nm[6]={"add chain","rmw rsp slot","rmw fixed ptr","rmw reloaded ptr","ld/add/st reloaded ptr","ld/add/st rsp slot"};
  for(int k=0;k<6;k++) printf("%-24s %.3f ns  %.2f cycles per link\n",nm[k],best[k]/(10.0*N)*1e9,best[k]/(10.0*N)/cyc);
}
