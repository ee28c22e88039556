#include <stdio.h>
#include <time.h>
#include <stdlib.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
static void chain(long it){ long x=0; __asm__ volatile(".p2align 5\n1:\n\t .rept 16\n\t add $1,%0\n\t .endr\n\t dec %1\n\t jnz 1b":"+r"(x),"+r"(it)); }
/* inner loop of n trips, body: 4 independent adds, 1 cycle chain via counter */
__attribute__((noinline)) static void run(long entries, long n){
 for(long e=0;e<entries;e++){ long i=n;
  __asm__ volatile(".p2align 5\n1:\n\t add $1,%%r8\n\t add $1,%%r9\n\t dec %0\n\t jnz 1b":"+r"(i)::"r8","r9");}
}
int main(){ long it=20000000; double best=1e9;
 for(int r=0;r<5;r++){double t0=now();chain(it);double t=now()-t0; if(t<best)best=t;}
 double cyc=best/(it*16.0); printf("cycle %.4f ns\n",cyc*1e9);
 long ns[]={1,2,4,8,12,16,24,32,48,64,96,128,256,512,1024,4096};
 for(int k=0;k<16;k++){ long n=ns[k]; long entries=200000000/(n+8); double bt=1e9;
  for(int r=0;r<7;r++){double t0=now();run(entries,n);double t=now()-t0;if(t<bt)bt=t;}
  double per_entry=bt/entries/cyc; printf("n=%5ld  %.2f cycles/entry  %.2f beyond n  %.3f per iter\n",n,per_entry,per_entry-n,per_entry/n);}
}
