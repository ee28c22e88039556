/* fannkuch flips' trip counts (t/2 for t = first element, 1-based), in permutation order */
#include <stdio.h>
#include <stdlib.h>
int main(int argc,char**argv){
  int n=atoi(argv[1]); long maxout=atol(argv[2]);
  int perm1[16],count[16],perm[16]; long out=0;
  for(int i=0;i<n;i++) perm1[i]=i;
  int r=n;
  FILE*f=fopen("trips.bin","wb");
  while(1){
    while(r!=1){count[r-1]=r;r--;}
    for(int i=0;i<n;i++) perm[i]=perm1[i]+1;
    int t=perm[0];
    while(t!=1){
      int tr=t/2; unsigned char c=tr; fwrite(&c,1,1,f); if(++out>=maxout) goto done;
      for(int i=0;i<tr;i++){int a=perm[i];perm[i]=perm[t-1-i];perm[t-1-i]=a;}
      t=perm[0];
    }
    while(1){
      if(r==n) goto done;
      int p0=perm1[0]; for(int i=0;i<r;i++) perm1[i]=perm1[i+1]; perm1[r]=p0;
      count[r]--; if(count[r]>0) break; r++;
    }
  }
done: fclose(f); printf("%ld trips\n",out); return 0;
}
