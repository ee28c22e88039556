#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
void loop(char *rbp);
static double now(){struct timespec t; clock_gettime(CLOCK_MONOTONIC,&t); return t.tv_sec+1e-9*t.tv_nsec;}
int main(int argc,char**argv){
  int reps = 200, calls = 400; /* 400 calls x 1500 iterations a sample */
  static double x[2000], l[2000];
  for(int i=0;i<2000;i++){x[i]=1.0; l[i]=1e-9;}
  static char stack[4096] __attribute__((aligned(64)));
  char *rbp = stack + 2048;
  memset(stack,0,sizeof stack);
  *(double**)(rbp-208)=x; *(long*)(rbp-200)=0; *(long*)(rbp-144)=0; *(int*)(rbp-12)=0; *(int*)(rbp-8)=0;
  *(double**)(rbp-112)=l; *(long*)(rbp-104)=0; *(long*)(rbp-48)=0;
  /* the clock: one dependent add a cycle */
  double best_clk=1e9, best=1e9;
  for(int r=0;r<reps;r++){
    double a=now(); long y=0; for(long i=0;i<600000;i++) __asm__ volatile("add $1, %0":"+r"(y)); double b=now();
    if(b-a<best_clk) best_clk=b-a;
    a=now(); for(int c=0;c<calls;c++) loop(rbp); b=now();
    if(b-a<best) best=b-a;
  }
  double ghz = 600000/best_clk/1e9;
  double ns = best/ (calls*1500.0) * 1e9;
  printf("%.2f cycles an iteration (%.3f ns, clock %.2f GHz)\n", ns*ghz, ns, ghz);
  return 0;
}
