/* Replays trace.bin (pairs of int64 id, address) through augur_probe. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
int64_t augur_counts[1] = {0};
int64_t augur_ncounts = 1;
int64_t augur_shapes[1];
int64_t augur_nshapes = 0;
int64_t augur_nprobes = 614;
int64_t augur_nenv = 0;
void augur_probe(int32_t id, int64_t addr);
int main(void) {
    FILE *f = fopen("/tmp/s97/exp/trace.bin", "rb");
    static int64_t r[2 * 65536];
    size_t n;
    while ((n = fread(r, 16, 65536, f)) > 0)
        for (size_t i = 0; i < n; i++) augur_probe((int32_t)r[2 * i], r[2 * i + 1]);
    return 0;
}
