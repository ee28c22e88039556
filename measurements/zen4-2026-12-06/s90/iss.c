#include <stdio.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(){
  long n=200000000; double best=1e9;
  for(int r=0;r<15;r++){
    double t0=now();
    __asm__ volatile(
      "mov %0, %%rcx\n"
      "1:\n"
      "add $1,%%rax\n add $1,%%rbx\n add $1,%%rdx\n add $1,%%rsi\n add $1,%%rdi\n add $1,%%r8\n"
      "add $1,%%r9\n add $1,%%r10\n add $1,%%r11\n add $1,%%r12\n add $1,%%r13\n"
      "dec %%rcx\n jnz 1b\n" :: "r"(n/10) : "rax","rbx","rcx","rdx","rsi","rdi","r8","r9","r10","r11","r12","r13");
    double t=(now()-t0)/(n/10); if(t<best)best=t;
  }
  printf("%.3f ns per 12-instruction iteration\n", best*1e9);
}
