#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <time.h>
#define N (1<<22)
static unsigned char T[N];
static short line[16];
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
__attribute__((noinline)) long run(const unsigned char*tr, int reps){
  long s=0;
  for(int r=0;r<reps;r++)
  for(int k=0;k<N;k++){
    int t=tr[k];
    for(int i=1;i<=t;i++){ short a=line[i]; line[i]=line[2*t+1-i]; line[2*t+1-i]=a; }
    s+=line[1];
  }
  return s;
}
int main(int argc,char**argv){
  int mode=atoi(argv[1]); uint64_t x=12345;
  for(int k=0;k<N;k++){
    x=x*6364136223846793005ULL+1442695040888963407ULL;
    if(mode==0) T[k]=1+(x>>33)%5;          /* uniform random 1..5 */
    else if(mode==1) T[k]=1+k%5;           /* cyclic 1..5: learnable */
    else T[k]=3;                            /* constant */
  }
  if(mode>=3){ FILE*f=fopen("trips.bin","rb"); fread(T,1,N,f); fclose(f);
    if(mode==4){ long c[8]={0}; for(int k=0;k<N;k++) c[T[k]]++; int k=0; for(int v=0;v<8;v++) for(long j=0;j<c[v];j++) T[k++]=v; }
    if(mode==5){ /* uniform random with the fannkuch distribution */ for(int k=N-1;k>0;k--){ x=x*6364136223846793005ULL+1442695040888963407ULL; int j=(x>>33)%(k+1); unsigned char a=T[k];T[k]=T[j];T[j]=a; } } }
  for(int i=0;i<16;i++) line[i]=i;
  double best=1e9; long s=0;
  for(int rep=0;rep<7;rep++){ double t0=now(); s+=run(T,4); double t1=now(); if(t1-t0<best) best=t1-t0; }
  printf("mode %d: %.3f ns per entry (s=%ld)\n",mode,best*1e9/(4.0*N),s);
}
