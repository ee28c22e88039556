// Latency of gfortran's aint sequence in a dependent chain, against its parts.
// usage: ./aint  -> ns per link for: (a) mulsd alone, (b) mulsd+cvttsd2si+cvtsi2sd, (c) (b)+orpd (copysign), (d) the full aint with the magnitude test
#include <stdio.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
#define N 20000000L
int main(){
  double x=1.5, one=1.0000001, big=4503599627370496.0; long r; double best[4]={1e9,1e9,1e9,1e9};
  unsigned long long mask=0x7fffffffffffffffULL; double m; __builtin_memcpy(&m,&mask,8);
  for(int rep=0;rep<7;rep++){
    double t0=now();
    for(long i=0;i<N;i++) __asm__ volatile("mulsd %1,%0":"+x"(x):"x"(one));
    double t1=now();
    for(long i=0;i<N;i++) __asm__ volatile("mulsd %2,%0\n\tcvttsd2siq %0,%1\n\tpxor %0,%0\n\tcvtsi2sdq %1,%0":"+x"(x),"=r"(r):"x"(one));
    double t2=now();
    double s;
    for(long i=0;i<N;i++) __asm__ volatile("mulsd %3,%0\n\tmovapd %4,%2\n\tandnpd %0,%2\n\tcvttsd2siq %0,%1\n\tpxor %0,%0\n\tcvtsi2sdq %1,%0\n\torpd %2,%0":"+x"(x),"=r"(r),"=&x"(s):"x"(one),"x"(m));
    double t3=now();
    double a;
    for(long i=0;i<N;i++) __asm__ volatile("mulsd %4,%0\n\tmovapd %0,%3\n\tandpd %5,%3\n\tucomisd %3,%6\n\tjbe 1f\n\tcvttsd2siq %0,%1\n\tpxor %3,%3\n\tmovapd %5,%2\n\tandnpd %0,%2\n\tcvtsi2sdq %1,%3\n\tmovapd %3,%0\n\torpd %2,%0\n1:":"+x"(x),"=r"(r),"=&x"(s),"=&x"(a):"x"(one),"x"(m),"x"(big));
    double t4=now();
    double v[4]={t1-t0,t2-t1,t3-t2,t4-t3};
    for(int k=0;k<4;k++){ double ns=v[k]/N*1e9; if(ns<best[k]) best[k]=ns; }
  }
  printf("mulsd %.3f ns; +cvt pair %.3f; +copysign %.3f; full aint %.3f (x=%g)\n",best[0],best[1],best[2],best[3],x);
  return 0;
}
