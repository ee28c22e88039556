/* Chains through one memory slot: a load, an add, a store of the same slot, at each width
   and with each kind of load (session 61, docs/ACCURACY.md): which loads the core renames
   (an integer read back at its stored size) and which wait for the store forwarding.
   gcc -O1 renaming.c -o renaming; ./renaming 0 */
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
long buf[1024];
#define RUN(name, body) t0=now(); __asm__ volatile("mov %0,%%rcx\n1: " body body "dec %%rcx\n jnz 1b\n"::"r"(n/2),"r"(p):"rcx","rax","memory"); t1=now(); printf("%-14s %.3f ns/link\n",name,(t1-t0)/n*1e9);
int main(int argc,char**argv){
  long n=200000000; double t0,t1; char *p=(char*)(buf+atoi(argv[1]));
  RUN("b movzbl", "movzbl 256(%1),%%eax\n addl $1,%%eax\n movb %%al,256(%1)\n")
  RUN("b movb", "movb 256(%1),%%al\n addb $1,%%al\n movb %%al,256(%1)\n")
  RUN("l movl", "movl 256(%1),%%eax\n addl $1,%%eax\n movl %%eax,256(%1)\n")
  RUN("l movslq", "movslq 256(%1),%%rax\n addl $1,%%eax\n movl %%eax,256(%1)\n")
  RUN("w movzwl", "movzwl 256(%1),%%eax\n addl $1,%%eax\n movw %%ax,256(%1)\n")
  RUN("l cltq", "movl 256(%1),%%eax\n cltq\n addl $1,%%eax\n movl %%eax,256(%1)\n")
  return 0;}
