#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
/* S interleaved read streams over an array of MB megabytes; W = words read per line (1 or 8). */
int main(int argc,char**argv){
  long mb = atol(argv[1]); int W = atoi(argv[2]);
  long bytes = mb<<20; long nd = bytes/8; double *a = aligned_alloc(4096, bytes);
  for(long i=0;i<nd;i++) a[i]=1e-9*i;
  int Ss[] = {1,2,4,8,16,32,64,128};
  printf("%4ld MB W=%d:", mb, W);
  for(int si=0; si<8; si++){
    int S=Ss[si]; long per = nd/S; per -= per%8; long lines = per/8;
    long reps = (1L<<31)/bytes; if(reps<3)reps=3; if (reps>200) reps=200;
    double best=1e9, acc=0;
    for(int rep=0; rep<3; rep++){
      double t0=now(); double s0=0,s1=0,s2=0,s3=0;
      for(long rr=0; rr<reps; rr++)
      if (W==8) { for(long l=0;l<lines;l++) for(int k=0;k<S;k++){ double *p=a+k*per+l*8; s0+=p[0]+p[4]; s1+=p[1]+p[5]; s2+=p[2]+p[6]; s3+=p[3]+p[7]; } }
      else { for(long l=0;l<lines;l++) for(int k=0;k<S;k++){ double *p=a+k*per+l*8; s0+=p[0]; } }
      double t=(now()-t0)/reps; acc+=s0+s1+s2+s3; if(t<best)best=t;
    }
    printf(" S%d %.2f", S, best/(lines*(double)S)*1e9); if(acc==42)printf("!");
  }
  printf("\n");
}
