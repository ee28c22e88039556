#include <stdio.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
int main(int argc, char **argv){
  volatile double seed_small = 1e-310, seed_norm = 1e-300, one = 1.0, zero = 0.0;
  long n = 20000000;
  for (int rep = 0; rep < 2; rep++) {
  double x, t0, t1;
  x = seed_norm; t0 = now(); for (long i=0;i<n;i++){ __asm__("mulsd %1, %0" : "+x"(x) : "x"((double)one)); } t1=now(); printf("mul normal   %.2f ns %g\n",(t1-t0)/n*1e9, x);
  x = seed_small; t0 = now(); for (long i=0;i<n;i++){ __asm__("mulsd %1, %0" : "+x"(x) : "x"((double)one)); } t1=now(); printf("mul subnorm  %.2f ns %g\n",(t1-t0)/n*1e9, x);
  x = seed_norm; t0 = now(); for (long i=0;i<n;i++){ __asm__("addsd %1, %0" : "+x"(x) : "x"((double)zero)); } t1=now(); printf("add normal   %.2f ns %g\n",(t1-t0)/n*1e9, x);
  x = seed_small; t0 = now(); for (long i=0;i<n;i++){ __asm__("addsd %1, %0" : "+x"(x) : "x"((double)zero)); } t1=now(); printf("add subnorm  %.2f ns %g\n",(t1-t0)/n*1e9, x);
  }
}
