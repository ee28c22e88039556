/* augur runtime: dumps the block counters, the recorded array shapes and the
   program's minor page faults at program exit, and samples the addresses of probed references (SHARDS:
   a line is kept when the top `shift` bits of its hash are zero; the rate
   halves whenever more than the buffer's samples qualify). */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <dirent.h>
extern int64_t augur_counts[];
extern int64_t augur_ncounts;
/* Columns of the counter array: one per thread in an OpenMP build (absent otherwise). */
extern int64_t augur_nthreads __attribute__((weak));
/* Set (AUGUR_NO_PROBES) in the runs that only count per thread: the probes below
   keep one buffer, which threads must not share. */
static int augur_probes_off;
extern int64_t augur_shapes[];
extern int64_t augur_nshapes;
extern int64_t augur_nprobes;
#define AUGUR_MAX_SAMPLES (1u << 22)
static uint64_t *augur_addr;
static uint32_t *augur_id;
static uint32_t *augur_reps;
/* Per probe: how many of its executions moved to a line none of its streams holds, and
   of those how many were strided: by the same step in bytes as the execution before
   (at most a page: a stride prefetcher's rule), or by continuing one of the line
   streams it walks, as a stream prefetcher's table follows them (AUGUR_STREAMS entries
   of a last line, a step in lines, whether a continuation confirmed it and when it was
   last used, the entry continued last tried first). A reference that interleaves several streams
   (`x(col(k))` of a banded matrix's rows: `r-m, r-1, r, r+1, r+m`, three lines a row,
   each a line further every eight rows) walks each of them; one step of one address
   called 60% of it random. A probe's state lies in five cache lines of its own: a
   run whose loops hold hundreds of probes finds each in one place. */
#define AUGUR_STREAMS 8
typedef struct {
    int64_t last[AUGUR_STREAMS], step[AUGUR_STREAMS], use[AUGUR_STREAMS];
    int64_t addr, bstep;
    uint64_t calls, strided, moved;
    /* Past a probe's first AUGUR_FOLLOW_EXACT executions: those counted in windows, and
       where the current period's window starts (its warm-up). */
    uint64_t wcalls, wstrided, wmoved, wstart;
    uint8_t conf[AUGUR_STREAMS], hot;
} __attribute__((aligned(64))) augur_probe_state;
/* Following a probe's every execution through its stream table cost 19 ns an execution
   (an FFT package's probes: 612 million executions, 11.7 of a 15 s counting run whose
   plain run takes 0.9 s). A probe's first AUGUR_FOLLOW_EXACT executions are followed
   whole; then in each period of AUGUR_FOLLOW_PERIOD executions a window at a
   pseudo-random place (a loop's power-of-two phases do not line up with it): its
   first AUGUR_FOLLOW_WARM executions retrain the table, the next AUGUR_FOLLOW_WINDOW
   are counted, and the moves and strides over the rest are the windows' rates times
   the rest (`augur_probe_totals`). Every execution still counts in `calls` and reaches
   the address sampling. AUGUR_ADDRESS_FOLLOW=all follows every execution. */
#define AUGUR_FOLLOW_EXACT (1ull << 16)
#define AUGUR_FOLLOW_PERIOD (1ull << 16)
#define AUGUR_FOLLOW_WARM (1ull << 9)
#define AUGUR_FOLLOW_WINDOW (1ull << 12)
static int augur_follow_all;
static augur_probe_state *augur_ps;
static size_t augur_ns_kept;
static size_t augur_ns_peak;
static long augur_flt0;
static unsigned augur_shift;
static int augur_failed;
static inline uint64_t augur_mix(uint64_t x) {
    x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27; x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}
static inline int augur_keep(uint64_t addr, unsigned shift) {
    return shift == 0 || (augur_mix((addr >> 6) ^ 0x5851f42d4c957f2dULL) >> (64 - shift)) == 0;
}
/* Follows execution `addr` of probe `p`. Its step in bytes against the execution
   before (kept whenever it moved). In its stream table: a repeat of an entry's last
   line, or of the line just behind a confirmed stream's head, has not moved; a step
   equal to an entry's continues (and confirms) that stream; any other move trains the
   nearest unconfirmed entry within two lines (its step from there: streams are
   adjacent lines, larger strides the byte rule's), or else starts a new entry in place
   of the one used least recently (the first such, found in the same pass). A confirmed
   entry is never retrained: `r` and `r+m` of a banded matrix each keep their own. An
   empty entry's last line is 0. */
static void augur_follow_streams(augur_probe_state *p, int64_t addr, uint64_t *moved,
                                 uint64_t *strided) {
    const int64_t line = addr >> 6, page = 4096 >> 6;
    const int64_t now = (int64_t)p->calls + 1;
    int64_t bstep = addr - p->addr;
    int same_step = p->calls > 1 && bstep != 0 && bstep == p->bstep
                    && bstep <= 4096 && bstep >= -4096;
    if (p->calls > 0 && bstep != 0) p->bstep = bstep;
    p->addr = addr;
    int hot = p->hot, near = -1, lru = hot;
    int64_t nearest = 3;
    for (int k = 0; k < AUGUR_STREAMS; k++) {
        int j = (hot + k) & (AUGUR_STREAMS - 1);
        if (p->use[j] < p->use[lru] || (p->use[j] == p->use[lru] && j < lru)) lru = j;
        if (p->last[j] == 0) continue;
        int64_t d = line - p->last[j];
        if (d == 0) {
            p->use[j] = now;
            return;
        }
        if (p->step[j] != 0 && d == p->step[j] && d <= page && d >= -page) {
            ++*moved;
            ++*strided;
            p->last[j] = line;
            p->conf[j] = 1;
            p->use[j] = now;
            p->hot = (uint8_t)j;
            return;
        }
        if (p->conf[j]) {
            if ((d == 1 || d == -1) && (d < 0) != (p->step[j] < 0)) {
                p->use[j] = now;
                return;
            }
            continue;
        }
        int64_t a = d < 0 ? -d : d;
        if (a < nearest) { nearest = a; near = j; }
    }
    if (p->calls > 0) {
        ++*moved;
        if (same_step) ++*strided;
    }
    if (near >= 0) {
        p->step[near] = line - p->last[near];
    } else {
        near = lru;
        p->step[near] = 0;
        p->conf[near] = 0;
    }
    p->last[near] = line;
    p->use[near] = now;
    p->hot = (uint8_t)near;
}
/* A probe's moves and strided moves over all its executions: the whole part's, plus the
   windows' rates over the executions past it (the whole part's rate when the run ended
   before a window counted). */
static void augur_probe_totals(const augur_probe_state *p, uint64_t *strided, uint64_t *moved) {
    uint64_t whole = p->calls < AUGUR_FOLLOW_EXACT || augur_follow_all ? p->calls : AUGUR_FOLLOW_EXACT;
    uint64_t rest = p->calls - whole;
    double s = (double)p->strided, m = (double)p->moved;
    if (rest > 0 && p->wcalls > 0) {
        s += (double)p->wstrided * (double)rest / (double)p->wcalls;
        m += (double)p->wmoved * (double)rest / (double)p->wcalls;
    } else if (rest > 0 && whole > 0) {
        s += (double)p->strided * (double)rest / (double)whole;
        m += (double)p->moved * (double)rest / (double)whole;
    }
    *strided = (uint64_t)(s + 0.5);
    *moved = (uint64_t)(m + 0.5);
}
void augur_probe(int32_t id, int64_t addr) {
    if (augur_probes_off || augur_failed || id < 0 || id >= augur_nprobes) return;
    if (!augur_ps) {
        size_t bytes = (size_t)augur_nprobes * sizeof(augur_probe_state);
        augur_ps = aligned_alloc(64, bytes);
        if (augur_ps) memset(augur_ps, 0, bytes); /* the dump reads it even if the rest failed */
        augur_addr = malloc(AUGUR_MAX_SAMPLES * sizeof(uint64_t));
        augur_id = malloc(AUGUR_MAX_SAMPLES * sizeof(uint32_t));
        augur_reps = malloc(AUGUR_MAX_SAMPLES * sizeof(uint32_t));
        if (!augur_ps || !augur_addr || !augur_id || !augur_reps) {
            augur_failed = 1;
            return;
        }
    }
    augur_probe_state *p = &augur_ps[id];
    uint64_t c = p->calls;
    if (c < AUGUR_FOLLOW_EXACT || augur_follow_all) {
        augur_follow_streams(p, addr, &p->moved, &p->strided);
    } else {
        uint64_t k = c - AUGUR_FOLLOW_EXACT;
        if (k % AUGUR_FOLLOW_PERIOD == 0) {
            uint64_t period = k / AUGUR_FOLLOW_PERIOD;
            p->wstart = c + augur_mix(period * 0x9e3779b97f4a7c15ULL ^ (uint64_t)id)
                            % (AUGUR_FOLLOW_PERIOD - AUGUR_FOLLOW_WARM - AUGUR_FOLLOW_WINDOW);
        }
        uint64_t at = c - p->wstart;
        if (c < p->wstart || at >= AUGUR_FOLLOW_WARM + AUGUR_FOLLOW_WINDOW) {
            /* outside the window: not followed */
        } else if (at >= AUGUR_FOLLOW_WARM) {
            augur_follow_streams(p, addr, &p->wmoved, &p->wstrided);
            p->wcalls++;
        } else {
            uint64_t m = 0, st = 0;
            augur_follow_streams(p, addr, &m, &st);
        }
    }
    p->calls++;
    if (!augur_keep((uint64_t)addr, augur_shift)) return;
    /* The same probe on the same line as the sample before: distance 0,
       kept as a repeat count (dropping it changes no other distance). */
    if (augur_ns_kept > 0 && augur_id[augur_ns_kept - 1] == (uint32_t)id
        && (augur_addr[augur_ns_kept - 1] >> 6) == ((uint64_t)addr >> 6)
        && augur_reps[augur_ns_kept - 1] < UINT32_MAX) {
        augur_reps[augur_ns_kept - 1]++;
        return;
    }
    while (augur_ns_kept == AUGUR_MAX_SAMPLES) {
        size_t j = 0;
        augur_shift++;
        if (augur_shift >= 63) { augur_failed = 1; return; }
        for (size_t i = 0; i < augur_ns_kept; i++)
            if (augur_keep(augur_addr[i], augur_shift)) {
                augur_addr[j] = augur_addr[i]; augur_id[j] = augur_id[i];
                augur_reps[j] = augur_reps[i]; j++;
            }
        augur_ns_kept = j;
        if (!augur_keep((uint64_t)addr, augur_shift)) return;
    }
    augur_addr[augur_ns_kept] = (uint64_t)addr;
    augur_id[augur_ns_kept] = (uint32_t)id;
    augur_reps[augur_ns_kept] = 0;
    augur_ns_kept++;
    if (augur_ns_kept > augur_ns_peak) augur_ns_peak = augur_ns_kept;
}
/* The integer values a loop nest depends on at each entry: distinct tuples per nest
   with their counts, in an open-addressing table; a nest's tuples beyond
   AUGUR_ENV_PER or beyond the table's three quarters are only counted. */
extern int64_t augur_nenv;
#define AUGUR_ENV_VARS 6
#define AUGUR_ENV_SLOTS (1u << 14)
#define AUGUR_ENV_PER 512
typedef struct { int32_t id, n; int64_t v[AUGUR_ENV_VARS]; uint64_t count; } augur_env_t;
static augur_env_t *augur_envs;
static uint64_t *augur_env_other;
static uint32_t *augur_env_distinct;
static size_t augur_env_used;
static int augur_env_failed;
void augur_env(int32_t id, int32_t n, const int64_t *v) {
    if (augur_probes_off || augur_env_failed || id < 0 || id >= augur_nenv || n < 0
        || n > AUGUR_ENV_VARS) return;
    if (!augur_envs) {
        augur_envs = calloc(AUGUR_ENV_SLOTS, sizeof(augur_env_t));
        augur_env_other = calloc((size_t)augur_nenv, sizeof(uint64_t));
        augur_env_distinct = calloc((size_t)augur_nenv, sizeof(uint32_t));
        if (!augur_envs || !augur_env_other || !augur_env_distinct) { augur_env_failed = 1; return; }
    }
    uint64_t h = augur_mix((uint64_t)id + 1);
    for (int32_t i = 0; i < n; i++) h = augur_mix(h ^ (uint64_t)v[i]);
    size_t s = (size_t)(h & (AUGUR_ENV_SLOTS - 1));
    for (;;) {
        augur_env_t *e = &augur_envs[s];
        if (e->count == 0) {
            if (augur_env_used >= AUGUR_ENV_SLOTS / 4 * 3 || augur_env_distinct[id] >= AUGUR_ENV_PER) {
                augur_env_other[id]++;
                return;
            }
            e->id = id; e->n = n;
            for (int32_t i = 0; i < n; i++) e->v[i] = v[i];
            e->count = 1;
            augur_env_used++;
            augur_env_distinct[id]++;
            return;
        }
        if (e->id == id && e->n == n && memcmp(e->v, v, (size_t)n * sizeof(int64_t)) == 0) {
            e->count++;
            return;
        }
        s = (s + 1) & (AUGUR_ENV_SLOTS - 1);
    }
}
static long augur_minflt(void) {
    struct rusage u;
    return getrusage(RUSAGE_SELF, &u) == 0 ? u.ru_minflt : -1;
}
/* The minor page faults of each thread of the process (/proc/self/task/N/stat, field
   10): who touched the memory first, in a run with several threads. */
static void augur_task_faults(FILE *f) {
    DIR *d = opendir("/proc/self/task");
    if (!d) return;
    fprintf(f, "augur-task-faults");
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char path[300], buf[1024];
        snprintf(path, sizeof path, "/proc/self/task/%s/stat", e->d_name);
        FILE *s = fopen(path, "r");
        if (!s) continue;
        size_t n = fread(buf, 1, sizeof buf - 1, s);
        fclose(s);
        buf[n] = 0;
        char *p = strrchr(buf, ')');
        unsigned long minflt = 0;
        if (p && sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %lu", &minflt) == 1)
            fprintf(f, " %lu", minflt);
    }
    closedir(d);
    fprintf(f, "\n");
}
/* The main thread's sticky floating-point exception flags at exit (x86's MXCSR: bit 1
   an operand was subnormal, bit 4 a result underflowed), read before anything here
   computes; -1 on another architecture. */
static long augur_fp_flags(void) {
#if defined(__x86_64__) || defined(__i386__)
    unsigned csr = __builtin_ia32_stmxcsr();
    return (long)(csr & 0x12u);
#else
    return -1;
#endif
}
static void augur_dump(void) {
    long fp = augur_fp_flags();
    long flt = augur_minflt();
    const char *path = getenv("AUGUR_COUNTS_FILE");
    if (!path) return;
    FILE *f = fopen(path, "w");
    if (!f) return;
    int64_t nt = &augur_nthreads ? augur_nthreads : 1, nc = augur_ncounts;
    fprintf(f, "augur-counts %lld\n", (long long)nc);
    for (int64_t i = 0; i < nc; i++) {
        int64_t total = 0;
        for (int64_t t = 0; t < nt; t++) total += augur_counts[t * nc + i];
        fprintf(f, "%lld\n", (long long)total);
    }
    fprintf(f, "end\n");
    /* Per thread: the columns of the threads that counted anything. */
    if (nt > 1) {
        fprintf(f, "augur-threads %lld\n", (long long)nc);
        for (int64_t t = 0; t < nt; t++) {
            int any = 0;
            for (int64_t i = 0; i < nc && !any; i++) any = augur_counts[t * nc + i] != 0;
            if (!any) continue;
            fprintf(f, "%lld", (long long)t);
            for (int64_t i = 0; i < nc; i++) fprintf(f, " %lld", (long long)augur_counts[t * nc + i]);
            fprintf(f, "\n");
        }
        fprintf(f, "end\n");
        augur_task_faults(f);
    }
    fprintf(f, "augur-shapes %lld\n", (long long)augur_nshapes);
    for (int64_t i = 0; i < augur_nshapes; i++) fprintf(f, "%lld\n", (long long)augur_shapes[i]);
    fprintf(f, "end\n");
    /* Minor page faults from the start of the program to its end (first touches of its
       memory), and the pages the sample buffers above took of them. */
    if (augur_flt0 >= 0 && flt >= 0)
        fprintf(f, "augur-faults %ld %lu\n", flt - augur_flt0,
                (unsigned long)((augur_ns_peak * 16 + 4095) / 4096));
    if (fp >= 0) fprintf(f, "augur-fp %s %s\n", (fp & 0x2) ? "denormal" : "-", (fp & 0x10) ? "underflow" : "-");
    if (augur_envs) {
        fprintf(f, "augur-env %lu\n", (unsigned long)augur_env_used);
        for (size_t i = 0; i < AUGUR_ENV_SLOTS; i++) {
            augur_env_t *e = &augur_envs[i];
            if (e->count == 0) continue;
            fprintf(f, "%d %llu", e->id, (unsigned long long)e->count);
            for (int32_t k = 0; k < e->n; k++) fprintf(f, " %lld", (long long)e->v[k]);
            fprintf(f, "\n");
        }
        fprintf(f, "augur-env-other\n");
        for (int64_t i = 0; i < augur_nenv; i++)
            if (augur_env_other[i]) fprintf(f, "%lld %llu\n", (long long)i, (unsigned long long)augur_env_other[i]);
        fprintf(f, "end\n");
    }
    fclose(f);
    if (augur_nprobes <= 0) return;
    size_t n = strlen(path);
    char *sp = malloc(n + 9);
    if (!sp) return;
    memcpy(sp, path, n);
    memcpy(sp + n, ".samples", 9);
    FILE *g = fopen(sp, "wb");
    free(sp);
    if (!g) return;
    fprintf(g, "augur-samples %lld %u %llu %d\n", (long long)augur_nprobes, augur_shift,
            (unsigned long long)augur_ns_kept, augur_failed);
    for (int64_t i = 0; i < augur_nprobes; i++) {
        uint64_t strided = 0, moved = 0;
        if (augur_ps) augur_probe_totals(&augur_ps[i], &strided, &moved);
        fprintf(g, "%llu %llu %llu\n", (unsigned long long)(augur_ps ? augur_ps[i].calls : 0),
                (unsigned long long)strided, (unsigned long long)moved);
    }
    if (augur_ns_kept) {
        fwrite(augur_id, sizeof(uint32_t), augur_ns_kept, g);
        fwrite(augur_addr, sizeof(uint64_t), augur_ns_kept, g);
        fwrite(augur_reps, sizeof(uint32_t), augur_ns_kept, g);
    }
    fclose(g);
}
__attribute__((constructor)) static void augur_init(void) {
    augur_flt0 = augur_minflt();
    augur_probes_off = getenv("AUGUR_NO_PROBES") != NULL;
    const char *follow = getenv("AUGUR_ADDRESS_FOLLOW");
    augur_follow_all = follow && strcmp(follow, "all") == 0;
    atexit(augur_dump);
}
