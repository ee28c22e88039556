#include <stdio.h>
#include <time.h>
int main(){ struct timespec a,b; long n=1000000000; long x=0;
clock_gettime(CLOCK_MONOTONIC,&a);
for(long i=0;i<n;i++){ __asm__ volatile("add $1, %0" : "+r"(x)); }
clock_gettime(CLOCK_MONOTONIC,&b);
double s=(b.tv_sec-a.tv_sec)+1e-9*(b.tv_nsec-a.tv_nsec); printf("%.3f GHz-ish (1 iter/cycle)\n", n/s/1e9); return 0;}
