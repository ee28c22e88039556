#include <stdio.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
#define N 30000000L
#define T(name, code, ...) { double best=1e9; for(int rep=0;rep<3;rep++){ t0=now(); for(long i=0;i<N;i++){ __asm__ volatile(code __VA_ARGS__); } t1=now(); double c=(t1-t0)/N/cyc; if(c<best)best=c;} printf("%-34s %.2f cycles/iter\n", name, best); }
int main(){
  double t0,t1; long r=3; double x=1.0, one=1.0, zero=0.0, nine=1.0;
  double cyc=1e9; for(int k=0;k<3;k++){ t0=now(); for(long i=0;i<N;i++){ __asm__ volatile("imulq %%rax, %%rax\n\timulq %%rax, %%rax\n\timulq %%rax, %%rax\n\timulq %%rax, %%rax":"+a"(r)); } t1=now(); double c=(t1-t0)/N/12; if(c<cyc)cyc=c;} printf("cycle %.4f ns\n",cyc*1e9);
  T("add x4 (8)", "addsd %1,%0\n\taddsd %1,%0\n\taddsd %1,%0\n\taddsd %1,%0", :"+x"(x):"x"(zero));
  T("mul x4 (12)", "mulsd %1,%0\n\tmulsd %1,%0\n\tmulsd %1,%0\n\tmulsd %1,%0", :"+x"(x):"x"(one));
  T("add,mul x2 (10)", "addsd %1,%0\n\tmulsd %2,%0\n\taddsd %1,%0\n\tmulsd %2,%0", :"+x"(x):"x"(zero),"x"(one));
  T("add x7, div (14+div)", "addsd %1,%0\n\taddsd %1,%0\n\taddsd %1,%0\n\taddsd %1,%0\n\taddsd %1,%0\n\taddsd %1,%0\n\taddsd %1,%0\n\tdivsd %2,%0", :"+x"(x):"x"(zero),"x"(nine));
  T("div x2", "divsd %1,%0\n\tdivsd %1,%0", :"+x"(x):"x"(nine));
  T("mul x7, div (21+div)", "mulsd %1,%0\n\tmulsd %1,%0\n\tmulsd %1,%0\n\tmulsd %1,%0\n\tmulsd %1,%0\n\tmulsd %1,%0\n\tmulsd %1,%0\n\tdivsd %2,%0", :"+x"(x):"x"(one),"x"(nine));
  T("add,sub x2 (8)", "addsd %1,%0\n\tsubsd %1,%0\n\taddsd %1,%0\n\tsubsd %1,%0", :"+x"(x):"x"(zero));
  T("mul,sub x2 (10)", "mulsd %2,%0\n\tsubsd %1,%0\n\tmulsd %2,%0\n\tsubsd %1,%0", :"+x"(x):"x"(zero),"x"(one));
  printf("%g %ld\n",x,r);
}
