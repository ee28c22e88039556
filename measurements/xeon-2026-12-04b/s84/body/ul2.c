#include <stdio.h>
#include <time.h>
#include <stdlib.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}

extern void body_base(double *a, long n, long off, long trip);
extern void body_chain(long n);
int main(){
  double *a = aligned_alloc(64, 1<<16); for(int i=0;i<8192;i++) a[i]=1e-3;
  long n = 100000000; double bc=1e9;
  for(int r=0;r<5;r++){double t0=now(); body_chain(n); double t1=now(); if(t1-t0<bc) bc=t1-t0;}
  double cyc=bc/n/3;
  long trips[]={4,5,8,16,64,256};
  for(int k=0;k<6;k++){ long t=trips[k]; long m=(n/t)*t; double b=1e9;
    for(int r=0;r<5;r++){double t0=now(); body_base(a,m,64,t); double t1=now(); if(t1-t0<b) b=t1-t0;}
    printf("trip %4ld: %.2f cycles/iter, %.1f cycles/entry beyond 3.06/iter\n", t, b/m/cyc, (b/m/cyc-3.06)*t);
  }
}
