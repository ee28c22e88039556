/* Replays trace.bin (pairs of int64 id, address) through augur_probe from memory; prints ns a call. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
int64_t augur_counts[1] = {0};
int64_t augur_ncounts = 1;
int64_t augur_shapes[1];
int64_t augur_nshapes = 0;
int64_t augur_nprobes = 614;
int64_t augur_nenv = 0;
void augur_probe(int32_t id, int64_t addr);
int main(void) {
    FILE *f = fopen("/tmp/s97/exp/trace.bin", "rb");
    size_t cap = 40000000;
    int64_t *r = malloc(cap * 16);
    size_t n = fread(r, 16, cap, f);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (size_t i = 0; i < n; i++) augur_probe((int32_t)r[2 * i], r[2 * i + 1]);
    clock_gettime(CLOCK_MONOTONIC, &b);
    fprintf(stderr, "%.2f ns a call\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n);
    return 0;
}
