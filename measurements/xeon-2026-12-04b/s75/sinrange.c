#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#define N 512
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
double x[N], y[N];
typedef double (*fn)(double);
static double thr(fn f){ double best=1e9; for(int r=0;r<200;r++){ double t0=now(); for(int i=0;i<N;i++) y[i]=f(x[i]); double t=now()-t0; if(t<best)best=t;} return best/N*1e9; }
static double lat(fn f){ double best=1e9; for(int r=0;r<200;r++){ double s=0; double t0=now(); for(int i=0;i<N;i++){ s=f(x[i]+s*1e-300);} double t=now()-t0; y[0]=s; if(t<best)best=t;} return best/N*1e9; }
int main(){
  double lo[]={1.0,0.0,0.0,0.0,-3.14159,0.0,0.0}, hi[]={2.0,0.8,6.283185307,3.14159,3.14159,2.4,100.0};
  const char*nm[]={"sin","cos","exp","log"}; fn fs[]={sin,cos,exp,log};
  for(int k=0;k<7;k++){ srand(1); for(int i=0;i<N;i++) x[i]=lo[k]+(hi[k]-lo[k])*(rand()/(RAND_MAX+1.0));
    printf("[%g,%g): ",lo[k],hi[k]);
    for(int f=0;f<2;f++) printf("%s thr %.2f lat %.2f  ",nm[f],thr(fs[f]),lat(fs[f]));
    printf("\n");}
  return 0;}
