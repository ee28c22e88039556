#include <stdio.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
#define PRO "push %%rbp\n\tmov %%rsp, %%rbp\n\tsub $120, %%rsp\n\tmovq $0, -48(%%rbp)\n\tlea -48(%%rbp), %%rcx\n\tmovq %%rcx, -56(%%rbp)\n\txor %%r8d, %%r8d\n\t"
#define LD "movq -56(%%rbp), %%rax\n\tmovl (%%rax), %%edx\n\taddl $1, %%edx\n\tmovq -56(%%rbp), %%rax\n\t"
#define ST "movl %%edx, (%%rax)\n\t"
/* one pair per iteration; the store that feeds the next iteration's load is one of two instructions chosen by a branch */
#define LOOP(name, test) static void name(long n){ __asm__ volatile(PRO ".p2align 5\n1:\n\t" LD test "inc %%r8d\n\tdec %%rdi\n\tjnz 1b\n\tleave\n\t" :: "D"(n) : "rax","rcx","rdx","r8","memory"); }
LOOP(one, ST)
LOOP(alt2, "test $1, %%r8d\n\tjz 3f\n\t" ST "jmp 4f\n3:\n\t" ST "4:\n\t")
LOOP(alt4, "test $3, %%r8d\n\tjz 3f\n\t" ST "jmp 4f\n3:\n\t" ST "4:\n\t")
LOOP(alt8, "test $7, %%r8d\n\tjz 3f\n\t" ST "jmp 4f\n3:\n\t" ST "4:\n\t")
LOOP(four, "test $3, %%r8d\n\tjz 3f\n\ttest $1, %%r8d\n\tjz 5f\n\t" ST "jmp 4f\n5:\n\t" ST "jmp 4f\n3:\n\ttest $2, %%r8d\n\tjz 6f\n\t" ST "jmp 4f\n6:\n\t" ST "4:\n\t")
int main(){ void(*f[])(long)={one,alt2,alt4,alt8,four}; const char*nm[]={"one store","two stores alternating","two stores 1 in 4","two stores 1 in 8","four stores in turn"};
for(int k=0;k<5;k++){ double b=1e9; for(int r=0;r<5;r++){double t0=now(); f[k](2000000); double t=now()-t0; if(t<b)b=t;} printf("%-28s %.3f ns/iter\n", nm[k], b/2e6*1e9);} }
