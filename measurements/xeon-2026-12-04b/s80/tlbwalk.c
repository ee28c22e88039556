/* tlbwalk PAGES STRIDE_PAGES: read one double per page, pages STRIDE_PAGES apart, in
   ascending order, cycled; ns per access (best of 5). Independent loads, four sums. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
int main(int argc,char**argv){
  long p=atol(argv[1]); double sp=atof(argv[2]);
  long step=(long)(sp*512); /* doubles: 512 a page */
  long n=p*step+8; double*a=malloc(n*sizeof(double));
  for(long i=0;i<n;i++)a[i]=1.0;
  long reps=(long)(2e7/p)+1; double best=1e9,s0=0,s1=0,s2=0,s3=0;
  for(int t=0;t<5;t++){double t0=now();
    for(long r=0;r<reps;r++){long i=0;for(long k=0;k+3<p;k+=4){s0+=a[i];s1+=a[i+step];s2+=a[i+2*step];s3+=a[i+3*step];i+=4*step;}}
    double dt=(now()-t0)/(reps*(double)p)*1e9; if(dt<best)best=dt;}
  printf("%ld pages at %.3g pages: %.3f ns (%g)\n",p,sp,best,s0+s1+s2+s3);
  return 0;}
