/*
 * chash/timer.c - small C helper linked into the Fortran program
 * chash (compile with gcc -c timer.c). Provides a wall-clock timer
 * (used only to check that time advances, never printed, so the
 * output stays deterministic) and a 32-bit integer mixing function
 * called from Fortran through ISO_C_BINDING.
 */
#include <stdint.h>
#include <time.h>

double augur_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* murmur3-style finaliser, result reduced to 31 bits */
int32_t augur_mix32(int32_t key)
{
    uint32_t h = (uint32_t)key;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return (int32_t)(h & 0x7fffffffu);
}
