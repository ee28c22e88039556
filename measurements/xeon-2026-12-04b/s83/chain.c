#include <stdio.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
int main(){
  long n=100000000; double x=1.0, m=1.0000000001; long r;
  double t0=now();
  for(long i=0;i<n;i++){ __asm__ volatile("imulq %%rax, %%rax\n\timulq %%rax, %%rax\n\timulq %%rax, %%rax\n\timulq %%rax, %%rax":"+a"(r)); }
  double t1=now(); double cyc=(t1-t0)/n/4/3; printf("int add chain: %.4f ns/cycle (imul/3)\n",cyc*1e9);
  t0=now();
  for(long i=0;i<n;i++){ __asm__ volatile("mulsd %1, %0\n\tmulsd %1, %0\n\tmulsd %1, %0\n\tmulsd %1, %0":"+x"(x):"x"(m)); }
  t1=now(); printf("mulsd: %.2f cycles\n",(t1-t0)/n/4/cyc);
  t0=now();
  for(long i=0;i<n;i++){ __asm__ volatile("addsd %1, %0\n\taddsd %1, %0\n\taddsd %1, %0\n\taddsd %1, %0":"+x"(x):"x"(m)); }
  t1=now(); printf("addsd: %.2f cycles\n",(t1-t0)/n/4/cyc);
  double y=12345.6;
  t0=now();
  for(long i=0;i<n/4;i++){ __asm__ volatile("cvttsd2siq %0, %%rax\n\tpxor %0, %0\n\tcvtsi2sdq %%rax, %0\n\tcvttsd2siq %0, %%rax\n\tpxor %0, %0\n\tcvtsi2sdq %%rax, %0":"+x"(y)::"rax"); }
  t1=now(); printf("cvtt+pxor+cvtsi pair: %.2f cycles\n",(t1-t0)/(n/4)/2/cyc);
  y=12345.6; double mask=-0.0;
  t0=now();
  for(long i=0;i<n/4;i++){ __asm__ volatile("cvttsd2siq %0, %%rax\n\tpxor %0, %0\n\tcvtsi2sdq %%rax, %0\n\torpd %1, %0\n\tcvttsd2siq %0, %%rax\n\tpxor %0, %0\n\tcvtsi2sdq %%rax, %0\n\torpd %1, %0":"+x"(y):"x"(mask):"rax"); }
  t1=now(); printf("aint (cvtt+cvtsi+orpd): %.2f cycles\n",(t1-t0)/(n/4)/2/cyc);
  t0=now();
  for(long i=0;i<n/4;i++){ __asm__ volatile("movapd %0, %%xmm3\n\tmulsd %1, %%xmm3\n\tmovapd %%xmm3, %0\n\tmovapd %0, %%xmm3\n\tmulsd %1, %%xmm3\n\tmovapd %%xmm3, %0":"+x"(x):"x"(m):"xmm3"); }
  t1=now(); printf("movapd+mulsd+movapd: %.2f cycles\n",(t1-t0)/(n/4)/2/cyc);
  printf("%g %g %ld\n",x,y,r);
}
