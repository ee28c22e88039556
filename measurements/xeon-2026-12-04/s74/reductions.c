#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
double red1(const double*a,long n){double s=0; for(long i=0;i<n;i++){s+=a[i];} return s;}
double red2(const double*a,long n){double s=0,t=0; for(long i=0;i<n;i+=2){s+=a[i];t+=a[i+1];} return s+t;}
double red4(const double*a,long n){double s=0,t=0,u=0,v=0; for(long i=0;i<n;i+=4){s+=a[i];t+=a[i+1];u+=a[i+2];v+=a[i+3];} return s+t+u+v;}
double red8(const double*a,long n){double s[8]={0}; for(long i=0;i<n;i+=8){for(int k=0;k<8;k++)s[k]+=a[i+k];} double r=0; for(int k=0;k<8;k++)r+=s[k]; return r;}
int main(int argc,char**argv){
  long kb[] = {16, 512, 8192, 49152, 393216};
  double *a = aligned_alloc(4096, 393216L*1024);
  for(long i=0;i<393216L*128;i++) a[i]=1e-9*i;
  double (*f[])(const double*,long) = {red1,red2,red4,red8};
  for(int s=0;s<5;s++){
    long n = kb[s]*128; long reps = (1L<<29)/(kb[s]*1024); if(reps<3)reps=3;
    printf("%7ld KB:", kb[s]);
    for(int c=0;c<4;c++){
      double best=1e9, acc=0;
      for(int r=0;r<3;r++){ double t0=now(); for(long q=0;q<reps;q++) acc+=f[c](a,n); double t=(now()-t0)/reps; if(t<best)best=t;}
      printf("  %d chains %.3f ns/elt%s", 1<<c, best/n*1e9, acc==42?"!":"");
    }
    printf("\n");
  }
}
