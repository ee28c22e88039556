#include <stdio.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
#define N 50000000L
#define T(name, code, per, ...) { t0=now(); for(long i=0;i<N;i++){ __asm__ volatile(code __VA_ARGS__); } t1=now(); printf("%-40s %.2f cycles\n", name, (t1-t0)/N/per/cyc); }
int main(){
  double t0,t1; long r=3; double x=1.0, m=1.0000000001, z=0.0, y=1.5;
  t0=now(); for(long i=0;i<N;i++){ __asm__ volatile("imulq %%rax, %%rax\n\timulq %%rax, %%rax\n\timulq %%rax, %%rax\n\timulq %%rax, %%rax":"+a"(r)); } t1=now();
  double cyc=(t1-t0)/N/12; printf("cycle %.4f ns\n",cyc*1e9);
  T("mulsd x4", "mulsd %1,%0\n\tmulsd %1,%0\n\tmulsd %1,%0\n\tmulsd %1,%0", 4, :"+x"(x):"x"(m));
  T("(mulsd,orpd) x2 per pair", "mulsd %1,%0\n\torpd %2,%0\n\tmulsd %1,%0\n\torpd %2,%0", 2, :"+x"(x):"x"(m),"x"(z));
  T("(mulsd,andpd) x2 per pair", "mulsd %1,%0\n\tandpd %2,%0\n\tmulsd %1,%0\n\tandpd %2,%0", 2, :"+x"(x):"x"(m),"x"(y));
  T("(addsd,orpd) per pair", "addsd %2,%0\n\torpd %2,%0\n\taddsd %2,%0\n\torpd %2,%0", 2, :"+x"(x):"x"(m),"x"(z));
  T("orpd x4", "orpd %1,%0\n\torpd %1,%0\n\torpd %1,%0\n\torpd %1,%0", 4, :"+x"(x):"x"(z));
  T("(mulsd,movapd,orpd)", "mulsd %1,%0\n\tmovapd %0,%%xmm5\n\torpd %2,%%xmm5\n\tmovapd %%xmm5,%0", 1, :"+x"(x):"x"(m),"x"(z):"xmm5");
  T("(cvtt,pxor,cvtsi) pair", "cvttsd2siq %0,%%rax\n\tpxor %0,%0\n\tcvtsi2sdq %%rax,%0", 1, :"+x"(y)::"rax");
  T("(cvtt,pxor,cvtsi,orpd)", "cvttsd2siq %0,%%rax\n\tpxor %0,%0\n\tcvtsi2sdq %%rax,%0\n\torpd %1,%0", 1, :"+x"(y):"x"(z):"rax");
  T("(cvtt,pxor,cvtsi,mulsd)", "cvttsd2siq %0,%%rax\n\tpxor %0,%0\n\tcvtsi2sdq %%rax,%0\n\tmulsd %1,%0", 1, :"+x"(y):"x"(m):"rax");
  T("(cvtt,pxor,cvtsi,orpd,mulsd)", "cvttsd2siq %0,%%rax\n\tpxor %0,%0\n\tcvtsi2sdq %%rax,%0\n\torpd %1,%0\n\tmulsd %2,%0", 1, :"+x"(y):"x"(z),"x"(m):"rax");
  T("(mulsd,andpd,ucomisd-free) ", "mulsd %1,%0\n\tmovapd %0,%%xmm6\n\tandpd %2,%%xmm6\n\tmovapd %%xmm6,%0", 1, :"+x"(x):"x"(m),"x"(y):"xmm6");
  printf("%g %g %ld\n",x,y,r);
}
