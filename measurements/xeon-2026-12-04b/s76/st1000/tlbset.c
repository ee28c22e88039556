#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <stdint.h>
#include <string.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc,char**argv){
  size_t region=(size_t)1<<30; char*buf=aligned_alloc(4096,region); memset(buf,1,region);
  int counts[]={512,768,1024,1280,1536,1792,1920,2048,2560,3072,4096};
  const char*names[]={"contig","stride2","stride1.95","random"};
  printf("%-11s","pages");for(int c=0;c<11;c++)printf("%7d",counts[c]);printf("\n");
  for(int mode=0;mode<4;mode++){
    printf("%-11s",names[mode]);
    for(int c=0;c<11;c++){
      int n=counts[c]; long*off=malloc(n*sizeof(long));
      for(int i=0;i<n;i++){
        long page;
        if(mode==0) page=i; else if(mode==1) page=2L*i; else if(mode==2) page=(long)(i*8000L/4096); else page=0;
        if(mode==3){ page=(long)(((uint64_t)rand()<<16 ^ rand()) % (region/4096/2)); }
        off[i]=page*4096 + (i*64)%4096; // different line within page
      }
      volatile long sum=0; double best=1e9;
      for(int r=0;r<7;r++){
        long reps=4000000/n+1; double a=now();
        for(long k=0;k<reps;k++){ for(int i=0;i<n;i++) sum+=buf[off[i]]; }
        double t=(now()-a)/(reps*n)*1e9; if(t<best)best=t;
      }
      printf("%7.2f",best); fflush(stdout); free(off);
    }
    printf("\n");
  }
}
