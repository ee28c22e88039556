#include <stdio.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
int main(int argc,char**argv){
  int chunks = argc>1? atoi(argv[1]):40; long n=100000000;
  volatile double seed=1e-9; double x=0, y=seed;
  for(int c=0;c<chunks;c++){
    double t0=now();
    for(long i=0;i<n;i++){ x = x + y; __asm__ volatile("" : "+x"(x)); }
    double t=now()-t0;
    printf("%d %.4f ns/add  %.3f GHz(if 2-cycle add)\n", c, t/n*1e9, 2.0/(t/n*1e9));
  }
  printf("%g\n",x);
}
