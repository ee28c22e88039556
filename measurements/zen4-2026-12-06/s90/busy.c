#include <immintrin.h>
int main(){ __m256d a=_mm256_set1_pd(1.0),b=a,c=a,d=a,e=a,f=a,g=a,h=a, m=_mm256_set1_pd(0.9999999);
 for(long i=0;i<2000000000L;i++){a=_mm256_fmadd_pd(a,m,b);c=_mm256_fmadd_pd(c,m,d);e=_mm256_fmadd_pd(e,m,f);g=_mm256_fmadd_pd(g,m,h);b=_mm256_add_pd(b,m);d=_mm256_add_pd(d,m);}
 double o[4]; _mm256_storeu_pd(o,_mm256_add_pd(a,_mm256_add_pd(c,_mm256_add_pd(e,g)))); return o[0]>1e300; }
