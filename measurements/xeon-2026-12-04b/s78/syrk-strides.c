#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc,char**argv){
  int n=atoi(argv[1]), k=atoi(argv[2]), ld=atoi(argv[3]);  /* ld: leading dimension (stride in elements between l) */
  double*a=aligned_alloc(4096,((size_t)ld*k*8+4095)/4096*4096);
  double*c=malloc((size_t)n*n*8);
  for(int l=0;l<k;l++) for(int i=0;i<ld;i++) a[i+(size_t)l*ld]=((i+l)%13)/13.0;
  for(size_t i=0;i<(size_t)n*n;i++) c[i]=1;
  double t0=now();
  for(int i=0;i<n;i++) for(int j=0;j<=i;j++){ double s=c[i+(size_t)j*n]; for(int l=0;l<k;l++) s+=a[i+(size_t)l*ld]*a[j+(size_t)l*ld]; c[i+(size_t)j*n]=s;}
  double t=now()-t0; double sum=0; for(size_t i=0;i<(size_t)n*n;i++) sum+=c[i];
  printf("n=%d k=%d ld=%d %.4f s  %.3f ns/iter %g\n",n,k,ld,t,t/((double)n*(n+1)/2*k)*1e9,sum);
}
