#include <stdio.h>
#include <stdint.h>
#include <time.h>
int64_t augur_nbranches = 4, augur_nloops = 4;
void augur_brloop(int32_t id, int64_t trips);
void augur_br(int32_t id, int32_t c);
int main(int argc, char **argv) {
    int constant = argc > 1; /* any argument: 4 trips every entry, else random trips of 1 to 6 */
    uint32_t s = 12345; struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (long k = 0; k < 100000000; k++) {
        s ^= s << 13; s ^= s >> 17; s ^= s << 5;
        augur_brloop(1, constant ? 4 : 1 + s % 6);
        if ((k & 7) == 0) augur_br(0, s & 1);
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("%.2f ns/entry\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / 1e8);
    return 0;
}
