/* augur-incore's driver: times the kernels of kernels.s (generated, with this file's
 * table, by augur-incore) and prints, for each, one line per observation:
 *   AUGINC <kernel index> <ns per counted instruction>
 * The table (AUGUR_KERNELS, the window and the observation count) comes before this
 * text in the generated file. */
#include <stdio.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* This thread's CPU time: what another process's time slice takes is not in it (on a
 * busy 2-core guest every 5 ms window of the wall clock lost a third to other
 * processes). */
static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double timed(kernel_fn k, long n)
{
    double t0 = cpu_now();
    k(n);
    return cpu_now() - t0;
}

/* Kernels first..last-1: the core warmed up on kernel 0 (a chain of integer adds) for
 * warmup_s; each kernel's iteration count chosen so that one observation lasts about
 * window_s; then `reps` rounds over them all (a disturbance hits one observation of
 * each, not every observation of one). */
void augur_incore_run(int first, int last)
{
    static long n[sizeof kernels / sizeof kernels[0]];
    if (first < 0)
        first = 0;
    if (last > (int)(sizeof kernels / sizeof kernels[0]))
        last = (int)(sizeof kernels / sizeof kernels[0]);
    double until = now() + warmup_s;
    while (now() < until)
        kernels[0](1000);
    for (int i = first; i < last; i++) {
        long m = 16;
        double t = timed(kernels[i], m);
        while (t < window_s / 16 && m < (1L << 40)) {
            m *= 4;
            t = timed(kernels[i], m);
        }
        double scaled = (double)m * window_s / (t > 0 ? t : 1e-9);
        n[i] = scaled < 1 ? 1 : (long)scaled;
    }
    for (int r = 0; r < reps; r++)
        for (int i = first; i < last; i++) {
            double t = timed(kernels[i], n[i]);
            printf("AUGINC %d %.6e\n", i, 1e9 * t / ((double)n[i] * counted[i]));
        }
    fflush(stdout);
}
