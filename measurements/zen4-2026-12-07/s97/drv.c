/* Feeds augur_probe synthetic address streams (strided, random, interleaved, repeated) for
   equivalence checks of two runtimes. */
#include <stdint.h>
#include <stdlib.h>
int64_t augur_counts[1] = {0};
int64_t augur_ncounts = 1;
int64_t augur_shapes[1];
int64_t augur_nshapes = 0;
int64_t augur_nprobes = 64;
int64_t augur_nenv = 0;
void augur_probe(int32_t id, int64_t addr);
static uint64_t s = 88172645463325252ULL;
static uint64_t rnd(void) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return s; }
int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 20000000;
    int64_t base[64];
    int64_t stride[64];
    for (int i = 0; i < 64; i++) {
        base[i] = 0x100000000LL + (int64_t)i * 0x1000000 + (int64_t)(rnd() % 4096);
        int kind = i % 8;
        stride[i] = kind == 0 ? 8 : kind == 1 ? 776 : kind == 2 ? -8 : kind == 3 ? 4104
                  : kind == 4 ? 64 * 97 : kind == 5 ? 16 : kind == 6 ? 0 : 8 * (1 + i);
    }
    for (long t = 0; t < n; t++) {
        int i = (int)(t % 64);
        int64_t a;
        if (i % 16 == 7) a = base[i] + (int64_t)(rnd() % (1 << 20)) * 8;      /* random */
        else if (i % 16 == 15) a = base[i] + ((t / 64) % 5 - 2) * 8 * 300 + (t / 640) * 8; /* banded */
        else a = base[i] + stride[i] * ((t / 64) % 97) + (t / (64 * 97)) * 8; /* restarts */
        augur_probe(i, a);
    }
    return 0;
}
