#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <time.h>
#ifndef K
#define K 0
#endif
#define A1 asm volatile("add $1, %0\n\tadd $1, %1\n\tadd $1, %2\n\tadd $1, %3" : "+r"(r1),"+r"(r2),"+r"(r3),"+r"(r4));
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
int main(int argc,char**argv){
  size_t n = (size_t)atol(argv[1]); size_t m = 20000000;
  int *a = malloc(n*sizeof(int)); uint32_t *idx = malloc(m*sizeof(uint32_t));
  for(size_t i=0;i<n;i++) a[i]=i;
  uint64_t s=88172645463325252ull;
  for(size_t i=0;i<m;i++){ s^=s<<13; s^=s>>7; s^=s<<17; idx[i]=s%n; }
  long r1=0,r2=0,r3=0,r4=0; long acc=0;
  double best=1e9;
  for(int rep=0;rep<3;rep++){
  double t0=now();
  for(size_t i=0;i<m;i++){
    acc += a[idx[i]];
#if K>0
    for(int k=0;k<K;k++) A1
#endif
  }
  double t=now()-t0; if(t<best)best=t;}
  printf("K=%d n=%zu %.2f ns/access (acc %ld %ld)\n", K*4, n, best/m*1e9, acc, r1+r2+r3+r4);
}
