#include <stdio.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int buf[1024] __attribute__((aligned(64)));
long slot[64] __attribute__((aligned(64)));
#define N 20000
#define PRO "push %%rbp\n\tmov %%rsp, %%rbp\n\tsub $128, %%rsp\n\t"
#define EPI "leave\n\t"
#define K(name, setup, link) static void name(long it){ for(long i=0;i<it;i++) __asm__ volatile(PRO setup "\n\t.rept 100\n\t" link "\n\t.endr\n\t" EPI ::: "rax","rcx","rdx","memory"); }
K(b1, "lea buf(%%rip), %%rcx\n\tmovq %%rcx, -72(%%rbp)", "movq -72(%%rbp), %%rax\n\tmovl 292(%%rax), %%eax\n\tleal 1(%%rax), %%edx\n\tmovq -72(%%rbp), %%rax\n\tmovl %%edx, 292(%%rax)")
K(b0, "lea buf(%%rip), %%rcx\n\tmovq %%rcx, -72(%%rbp)", "movq -72(%%rbp), %%rax\n\tmovl (%%rax), %%edx\n\taddl $1, %%edx\n\tmovq -72(%%rbp), %%rax\n\tmovl %%edx, (%%rax)")
K(b2, "lea buf(%%rip), %%rcx\n\tmovq %%rcx, slot(%%rip)", "movq slot(%%rip), %%rax\n\tmovl 292(%%rax), %%eax\n\tleal 1(%%rax), %%edx\n\tmovq slot(%%rip), %%rax\n\tmovl %%edx, 292(%%rax)")
K(b3, "lea -48(%%rbp), %%rcx\n\tmovq %%rcx, -72(%%rbp)", "movq -72(%%rbp), %%rax\n\tmovl (%%rax), %%edx\n\taddl $1, %%edx\n\tmovq -72(%%rbp), %%rax\n\tmovl %%edx, (%%rax)")
K(b4, "lea buf(%%rip), %%rcx\n\tmovq %%rcx, -72(%%rbp)", "movq -72(%%rbp), %%rax\n\tmovl 292(%%rax), %%eax\n\tleal 1(%%rax), %%edx\n\tmovq -72(%%rbp), %%rcx\n\tmovl %%edx, 292(%%rcx)")
K(e1, "", "movl slot+64(%%rip), %%eax\n\tleal 1(%%rax), %%edx\n\tmovl %%edx, slot+64(%%rip)")
K(e2, "movl $0, -28(%%rbp)", "movl -28(%%rbp), %%eax\n\tleal 1(%%rax), %%edx\n\tmovl %%edx, -28(%%rbp)")
int main(){ void (*f[])(long)={b1,b0,b2,b3,b4,e1,e2}; const char*n[]={"b1 ptr slot rbp, disp 292, interp form","b0 ptr slot rbp, disp 0, kernel form to buf","b2 ptr slot rip, disp 292","b3 ptr slot rbp -> frame (kernel exact)","b4 like b1, store via rcx","e1 rip-relative slot","e2 rbp slot"};
 for(int k=0;k<7;k++){ double best=1e9; for(int r=0;r<7;r++){double t0=now(); f[k](N); double t=now()-t0; if(t<best)best=t;} printf("%-45s %.3f ns/link  %.2f cycles\n", n[k], best/N/100*1e9, best/N/100*1e9/0.2526);} return 0;}
