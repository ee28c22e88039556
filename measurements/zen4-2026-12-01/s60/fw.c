#include <stdio.h>
#include <time.h>
static double buf[64] __attribute__((aligned(64)));
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
#define REP 10000000L
int main(void){
  double best[4]={1e9,1e9,1e9,1e9};
  for(int trial=0;trial<7;trial++){
    double t0,t1;
    /* frame-like: rbp-relative replaced by fixed base register displacement */
    t0=now();
    __asm__ volatile(
      "xorpd %%xmm1,%%xmm1\n\t pxor %%xmm0,%%xmm0\n\t mov %0,%%rcx\n\t"
      "1:\n\t"
      "movsd %%xmm0,8(%1)\n\t movsd 8(%1),%%xmm0\n\t addsd %%xmm1,%%xmm0\n\t"
      "movsd %%xmm0,8(%1)\n\t movsd 8(%1),%%xmm0\n\t addsd %%xmm1,%%xmm0\n\t"
      "dec %%rcx\n\t jnz 1b\n\t"
      : : "r"(REP), "r"(buf) : "rcx","xmm0","xmm1","memory");
    t1=now(); if(t1-t0<best[0]) best[0]=t1-t0;
    /* indexed: base + index*8, index register unchanged */
    t0=now();
    __asm__ volatile(
      "xorpd %%xmm1,%%xmm1\n\t pxor %%xmm0,%%xmm0\n\t mov %0,%%rcx\n\t xor %%rax,%%rax\n\t mov $3,%%rax\n\t"
      "1:\n\t"
      "movsd %%xmm0,(%1,%%rax,8)\n\t movsd (%1,%%rax,8),%%xmm0\n\t addsd %%xmm1,%%xmm0\n\t"
      "movsd %%xmm0,(%1,%%rax,8)\n\t movsd (%1,%%rax,8),%%xmm0\n\t addsd %%xmm1,%%xmm0\n\t"
      "dec %%rcx\n\t jnz 1b\n\t"
      : : "r"(REP), "r"(buf) : "rcx","rax","xmm0","xmm1","memory");
    t1=now(); if(t1-t0<best[1]) best[1]=t1-t0;
    /* indexed like a compiled loop: index register rewritten between store and load (5 trips, reset) */
    t0=now();
    __asm__ volatile(
      "xorpd %%xmm1,%%xmm1\n\t pxor %%xmm0,%%xmm0\n\t mov %0,%%rcx\n\t"
      "1:\n\t xor %%eax,%%eax\n\t"
      "2:\n\t movsd (%1,%%rax),%%xmm0\n\t subsd %%xmm1,%%xmm0\n\t movsd %%xmm0,(%1,%%rax)\n\t add $8,%%rax\n\t cmp $40,%%rax\n\t jne 2b\n\t"
      "dec %%rcx\n\t jnz 1b\n\t"
      : : "r"(REP/5), "r"(buf) : "rcx","rax","xmm0","xmm1","memory");
    t1=now(); if(t1-t0<best[2]) best[2]=t1-t0;
    /* addsd chain alone */
    t0=now();
    __asm__ volatile(
      "xorpd %%xmm1,%%xmm1\n\t pxor %%xmm0,%%xmm0\n\t mov %0,%%rcx\n\t"
      "1:\n\t addsd %%xmm1,%%xmm0\n\t addsd %%xmm1,%%xmm0\n\t dec %%rcx\n\t jnz 1b\n\t"
      : : "r"(REP), "r"(buf) : "rcx","xmm0","xmm1","memory");
    t1=now(); if(t1-t0<best[3]) best[3]=t1-t0;
  }
  printf("ns per link: frame(disp) %.3f  indexed %.3f  loop-of-5 (per outer iteration) %.3f  addsd %.3f\n",
    best[0]/(2*REP)*1e9, best[1]/(2*REP)*1e9, best[2]/(REP/5)*1e9, best[3]/(2*REP)*1e9);
  return 0;
}
