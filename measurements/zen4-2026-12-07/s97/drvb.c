/* Replays trace.bin (pairs of int32 branch id, outcome) through augur_br from memory; prints ns a call. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
int64_t augur_nbranches = 115;
int64_t augur_nloops = 29;
void augur_br(int32_t id, int32_t c);
int main(void) {
    FILE *f = fopen("/tmp/s97/br/trace.bin", "rb");
    size_t cap = 50000000;
    int32_t *r = malloc(cap * 8);
    size_t n = fread(r, 8, cap, f);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (size_t i = 0; i < n; i++) augur_br(r[2 * i], r[2 * i + 1]);
    clock_gettime(CLOCK_MONOTONIC, &b);
    fprintf(stderr, "%.2f ns a call\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n);
    return 0;
}
