/* augur branch runtime: reference branch predictors fed with the program's outcomes. */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
extern int64_t augur_nbranches;
extern int64_t augur_nloops;
#define AUGUR_BR_BITS 16
#define AUGUR_BR_MASK ((1u << AUGUR_BR_BITS) - 1)
#define AUGUR_BR_NP 6
/* `hist` and `hlocal`: the global and own histories under which the branch's counters
   were last found all saturated toward `firm_t`; `firm_epoch`: the value of
   `augur_tab_epoch` (which counts the changes of any two-way counter) then, or ~0 when
   they were not. While no counter has changed since, they still are, without reading
   them. */
typedef struct {
    uint64_t n, taken, local, hist, hlocal, firm_epoch; int firm_t;
    /* Misses of the executions simulated in whole and of those measured in windows
       (sampling, below), and how many of each. */
    uint64_t exact_miss[AUGUR_BR_NP], miss[AUGUR_BR_NP], exact, measured;
} augur_branch_t;
/* Sampled simulation. A long run's outcomes all go into the histories, but the
   predictors' tables are read and trained only in windows: the first
   AUGUR_SAMPLE_PERIOD events (branch executions and loop entries) whole, then the last
   AUGUR_SAMPLE_WARM + AUGUR_SAMPLE_MEASURE events of every period after, the tables
   trained again over the first part of a window and its misses counted over the rest.
   Each branch's (short loop's) first AUGUR_SAMPLE_FIRST executions (entries) are
   always simulated. Its misses are those of the executions simulated in whole plus
   those of the windows scaled to every execution outside them (strata: a run's first
   period, often its setup, counts once, not for the periods after). A simulated
   execution reads and updates the tables, about 26 ns, against 2-4 ns for the
   histories alone (a molecular dynamics code: 695 million tests of an unpredictable
   cut-off). AUGUR_BRANCH_SAMPLE=all simulates every event. */
#define AUGUR_SAMPLE_PERIOD (1ULL << 23)
#define AUGUR_SAMPLE_WARM (1ULL << 18)
#define AUGUR_SAMPLE_MEASURE (3ULL << 18)
#define AUGUR_SAMPLE_FIRST 1024
enum { AUGUR_SKIP, AUGUR_WARM, AUGUR_MEASURE, AUGUR_EXACT };
static uint64_t augur_clock;
static int augur_sample_all;
/* The phase of the next event for an item executed `n` times before. */
static inline int augur_phase(uint64_t n) {
    uint64_t c = augur_clock++;
    if (augur_sample_all || c < AUGUR_SAMPLE_PERIOD || n < AUGUR_SAMPLE_FIRST) return AUGUR_EXACT;
    uint64_t r = c & (AUGUR_SAMPLE_PERIOD - 1);
    if (r < AUGUR_SAMPLE_PERIOD - AUGUR_SAMPLE_WARM - AUGUR_SAMPLE_MEASURE) return AUGUR_SKIP;
    return r < AUGUR_SAMPLE_PERIOD - AUGUR_SAMPLE_MEASURE ? AUGUR_WARM : AUGUR_MEASURE;
}
/* The misses of an item executed `n` times: `exact` of them simulated in whole with
   `exact_miss` misses, `measured` in windows with `miss`; the windows stand for every
   execution outside them (the simulated ones' rate where no window saw the item). */
static uint64_t augur_scaled(uint64_t n, uint64_t exact, uint64_t exact_miss,
                             uint64_t measured, uint64_t miss) {
    uint64_t rest = n > exact ? n - exact : 0;
    if (rest == 0 || (measured == 0 && exact == 0)) return exact_miss;
    double rate = measured ? (double)miss / (double)measured : (double)exact_miss / (double)exact;
    return exact_miss + (uint64_t)(rate * (double)rest + 0.5);
}
/* Where an event of phase `ph` counts its misses: NULL when it does not. */
static inline uint64_t *augur_misses_of(int ph, uint64_t *exact, uint64_t *measured) {
    return ph == AUGUR_EXACT ? exact : ph == AUGUR_MEASURE ? measured : NULL;
}
static uint64_t augur_tab_epoch;
/* A short loop's exit (at most AUGUR_LX_TRIPS iterations an entry) is simulated one
   decision at a time, the way a core's direction predictor sees it: at the loop's
   guard and at each iteration's backward jump, continue or leave, each decision a
   two-bit counter of its own, kept per iteration number in the contexts of
   AUGUR_LX_NP predictors (the loop alone; its last two trip counts; the last 4 and 8
   outcomes of the branches before it, the DO loops' backward jumps and exits among
   them, as a core's global history holds them), the loop's mispredictions the
   fewest of any. A trip count that repeats, alone or in a sequence (the inner loop of
   a triangular nest: n-1, n-2, ..., 0, n-1, ...) is learned, one the entries before
   decide in part (Gauss-Jordan's `do j = p+1, 5`, trips 4, 4, 4, 4, 3, 3, ...: 0.2
   an entry; with 16 outcomes 0.1, with 24 none, where a Zen 4 spends 0.3 `BRMP` an
   entry on it); one drawn at random is missed more often than the best guess would
   (the counters at the iterations where the loop leaves a third or a half of the
   time flip): random trips of 1 to 6 miss 0.96 an entry, not 5/6. */
#define AUGUR_LX_TRIPS 32
#define AUGUR_LX_NP 4
#define AUGUR_LX_BITS 15
#define AUGUR_LX_MASK ((1u << AUGUR_LX_BITS) - 1)
/* A row of counters: one per decision (iterations 0 to AUGUR_LX_TRIPS), then the trip
   count the row has learned (its counters saturated for it, the next entry of that
   count in that context decided without a miss and without a change), else 255. */
#define AUGUR_LX_ROW 40
#define AUGUR_LX_LEARNED (AUGUR_LX_ROW - 1)
typedef struct {
    uint64_t entries, changes;
    int64_t last, last2;
    /* Short entries (at most AUGUR_LX_TRIPS trips); the misses of those simulated in
       whole and of those measured in windows (sampling, above), and how many of each. */
    uint64_t short_entries, exact_miss[AUGUR_LX_NP], miss[AUGUR_LX_NP], exact, measured;
} augur_loopx_t;
static uint8_t *augur_lxtab[AUGUR_LX_NP];
/* Longer trip counts: the count that followed the loop's last two trip counts is
   expected again (a repeating sequence is learned, the way a predictor with global
   history learns the exit from the path that led to the loop). */
typedef struct { uint64_t key; int64_t trips; } augur_tripx_t;
static augur_tripx_t *augur_trips;
static augur_branch_t *augur_brs;
static augur_loopx_t *augur_lps;
static uint8_t *augur_tab[AUGUR_BR_NP];
static uint64_t augur_ghist; /* directions of the two-way branches */
static uint64_t augur_phist; /* path: directions and multiway outcomes */
static uint64_t augur_lhist; /* directions, each DO loop's backward jumps and exit among them */
static int augur_br_failed;
static inline uint64_t augur_mix(uint64_t x) {
    x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27; x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}
static inline uint32_t augur_brmix(uint64_t x) { return (uint32_t)augur_mix(x) & AUGUR_BR_MASK; }
/* The table slot of each predictor: the branch alone, hashed with 8, 16, 32 and 64
   outcomes of global history `g`, and with the branch's own 16 outcomes. */
static void augur_br_index(int32_t id, uint64_t g, uint64_t local, uint32_t *idx) {
    uint64_t key = ((uint64_t)id + 1) * 0x9E3779B97F4A7C15ULL;
    idx[0] = augur_brmix(key);
    idx[1] = augur_brmix(key ^ ((g & 0xffULL) * 0xD6E8FEB86659FD93ULL) ^ 1);
    idx[2] = augur_brmix(key ^ ((g & 0xffffULL) * 0xD6E8FEB86659FD93ULL) ^ 2);
    idx[3] = augur_brmix(key ^ ((g & 0xffffffffULL) * 0xD6E8FEB86659FD93ULL) ^ 3);
    idx[4] = augur_brmix(key ^ (g * 0xD6E8FEB86659FD93ULL) ^ (g >> 32) ^ 4);
    idx[5] = augur_brmix(key ^ ((local & 0xffffULL) * 0xA0761D6478BD642FULL) ^ 5);
}
static int augur_br_init(void) {
    if (augur_br_failed) return 0;
    augur_brs = calloc((size_t)(augur_nbranches > 0 ? augur_nbranches : 1), sizeof(augur_branch_t));
    augur_lps = calloc((size_t)(augur_nloops > 0 ? augur_nloops : 1), sizeof(augur_loopx_t));
    if (!augur_brs || !augur_lps) { augur_br_failed = 1; return 0; }
    for (int64_t i = 0; i < augur_nbranches; i++) augur_brs[i].firm_epoch = ~0ULL;
    for (int p = 0; p < AUGUR_BR_NP; p++) {
        augur_tab[p] = malloc((size_t)AUGUR_BR_MASK + 1);
        if (!augur_tab[p]) { augur_br_failed = 1; return 0; }
        for (size_t i = 0; i <= AUGUR_BR_MASK; i++) augur_tab[p][i] = 2; /* weakly taken */
    }
    return 1;
}
/* An outcome `t` of branch `b` counted and shifted into every history (`g`: the global
   one before it). */
static inline void augur_br_count(augur_branch_t *b, uint64_t g, int t) {
    b->n++;
    b->taken += (uint64_t)t;
    b->local = (b->local << 1) | (uint64_t)t;
    augur_ghist = (g << 1) | (uint64_t)t;
    augur_lhist = (augur_lhist << 1) | (uint64_t)t;
    augur_phist = (augur_phist << 1) | (uint64_t)t;
}
/* An execution of `b` in phase `ph` tallied: simulated in whole, measured, or neither. */
static inline void augur_br_tally(augur_branch_t *b, int ph) {
    b->exact += ph == AUGUR_EXACT;
    b->measured += ph == AUGUR_MEASURE;
}
void augur_br(int32_t id, int32_t c) {
    if (id < 0 || id >= augur_nbranches) return;
    if (!augur_brs && !augur_br_init()) return;
    augur_branch_t *b = &augur_brs[id];
    uint64_t g = augur_ghist;
    int t = c != 0;
    int ph = augur_phase(b->n);
    if (ph == AUGUR_SKIP) {
        augur_br_count(b, g, t);
        return;
    }
    /* A branch seen under the same histories as last time (a test in a loop whose tests
       repeat a pattern: the histories before it are the same each time) whose counters
       there were all saturated toward this outcome, and no counter of any branch has
       changed since: the tables stay as they are and no predictor misses. */
    uint8_t firm = t ? 3 : 0;
    if (b->hist == g && b->hlocal == b->local && b->firm_epoch == augur_tab_epoch
        && b->firm_t == t) {
        augur_br_tally(b, ph);
        augur_br_count(b, g, t);
        return;
    }
    uint32_t idx[AUGUR_BR_NP];
    augur_br_index(id, g, b->local, idx);
    uint64_t *misses = augur_misses_of(ph, b->exact_miss, b->miss);
    int settled = 1, changed = 0;
    for (int p = 0; p < AUGUR_BR_NP; p++) {
        uint8_t *ctr = &augur_tab[p][idx[p]];
        uint8_t was = *ctr;
        if ((was >= 2) != t && misses) misses[p]++;
        uint8_t now = t ? (uint8_t)(was + (was < 3)) : (uint8_t)(was - (was > 0));
        *ctr = now;
        changed |= now != was;
        settled &= now == firm;
    }
    augur_tab_epoch += (uint64_t)changed;
    /* Saturated now, as of this epoch: remembered with the histories they were found
       under, for the next execution to skip them. */
    if (settled) {
        b->hist = g;
        b->hlocal = b->local;
        b->firm_t = t;
        b->firm_epoch = augur_tab_epoch;
    } else {
        b->firm_epoch = ~0ULL;
    }
    augur_br_tally(b, ph);
    augur_br_count(b, g, t);
}
/* Multiway branches (SELECT CASE arms, computed GOTO values): each predictor remembers
   the last outcome seen in its context (the branch alone, global histories, the
   branch's last four outcomes) and misses when the next one differs. */
static uint16_t *augur_mtab[AUGUR_BR_NP];
void augur_brk(int32_t id, int32_t k) {
    if (id < 0 || id >= augur_nbranches) return;
    if (!augur_brs && !augur_br_init()) return;
    if (!augur_mtab[0]) {
        for (int p = 0; p < AUGUR_BR_NP; p++) {
            augur_mtab[p] = calloc((size_t)AUGUR_BR_MASK + 1, sizeof(uint16_t));
            if (!augur_mtab[p]) { augur_br_failed = 1; return; }
        }
    }
    augur_branch_t *b = &augur_brs[id];
    int ph = augur_phase(b->n);
    if (ph != AUGUR_SKIP) {
        uint32_t idx[AUGUR_BR_NP];
        augur_br_index(id, augur_phist, b->local, idx);
        uint16_t v = (uint16_t)(k + 1);
        uint64_t *misses = augur_misses_of(ph, b->exact_miss, b->miss);
        for (int p = 0; p < AUGUR_BR_NP; p++) {
            uint16_t *slot = &augur_mtab[p][idx[p]];
            if (*slot != v && misses) misses[p]++;
            *slot = v;
        }
    }
    augur_br_tally(b, ph);
    b->n++;
    /* As in CPUs whose indirect-target predictor is indexed by a path history and whose
       direction predictor by the directions: a multiway outcome goes into the path
       history (and its own local one), not into the two-way branches' history. */
    b->local = (b->local << 4) | (uint64_t)(k & 15);
    augur_phist = (augur_phist << 3) | (uint64_t)(k & 7);
}
/* A short loop's entry of `trips` backward jumps taken, then its exit, in the history. */
static inline void augur_lx_history(int64_t trips) {
    augur_lhist = (augur_lhist << trips | ((1ULL << trips) - 1)) << 1; /* trips <= 32 */
}
/* Each decision of a short loop's entry of `trips` iterations fed to the counters of
   every context; 0 when the tables cannot be had (the run then reports it failed). */
static int augur_lxsim(int32_t id, augur_loopx_t *l, int64_t trips, uint64_t *misses) {
    if (!augur_lxtab[0]) {
        for (int p = 0; p < AUGUR_LX_NP; p++) {
            size_t n = ((size_t)AUGUR_LX_MASK + 1) * AUGUR_LX_ROW;
            augur_lxtab[p] = malloc(n);
            if (!augur_lxtab[p]) { augur_br_failed = 1; return 0; }
            for (size_t i = 0; i < n; i++)
                augur_lxtab[p][i] = i % AUGUR_LX_ROW == AUGUR_LX_LEARNED ? 255 : 2;
        }
    }
    uint64_t base = ((uint64_t)id + 1) * 0x9E3779B97F4A7C15ULL;
    uint64_t g = augur_lhist;
    uint64_t ctx[AUGUR_LX_NP] = {
        base,
        base ^ ((uint64_t)l->last * 0xD6E8FEB86659FD93ULL) ^ ((uint64_t)l->last2 * 0xA0761D6478BD642FULL) ^ 1,
        base ^ ((g & 0xfULL) * 0xD6E8FEB86659FD93ULL) ^ 2,
        base ^ ((g & 0xffULL) * 0xD6E8FEB86659FD93ULL) ^ 3,
    };
    /* A context's counters are a row of its own, chosen by one hash an entry. */
    for (int p = 0; p < AUGUR_LX_NP; p++) {
        size_t slot = (size_t)(augur_mix(ctx[p]) & AUGUR_LX_MASK);
        uint8_t *row = &augur_lxtab[p][slot * AUGUR_LX_ROW];
        if (row[AUGUR_LX_LEARNED] == trips) continue;
        uint64_t miss = 0;
        int settled = 1;
        for (int64_t j = 0; j < trips; j++) {
            miss += row[j] < 2;
            row[j] += row[j] < 3;
            settled &= row[j] == 3;
        }
        miss += row[trips] >= 2;
        row[trips] -= row[trips] > 0;
        settled &= row[trips] == 0;
        row[AUGUR_LX_LEARNED] = settled ? (uint8_t)trips : 255;
        if (misses) misses[p] += miss;
    }
    augur_lx_history(trips);
    return 1;
}
void augur_brloop(int32_t id, int64_t trips) {
    if (id < 0 || id >= augur_nloops) return;
    if (!augur_lps && !augur_br_init()) return;
    augur_loopx_t *l = &augur_lps[id];
    if (trips <= AUGUR_LX_TRIPS) {
        int ph = augur_phase(l->short_entries);
        if (ph == AUGUR_SKIP) {
            augur_lx_history(trips);
        } else if (!augur_lxsim(id, l, trips, augur_misses_of(ph, l->exact_miss, l->miss))) {
            return;
        }
        l->short_entries++;
        l->exact += ph == AUGUR_EXACT;
        l->measured += ph == AUGUR_MEASURE;
        l->entries++;
        l->last2 = l->last;
        l->last = trips;
        return;
    }
    if (!augur_trips) {
        augur_trips = calloc((size_t)AUGUR_BR_MASK + 1, sizeof(augur_tripx_t));
        if (!augur_trips) { augur_br_failed = 1; return; }
    }
    uint64_t key = (((uint64_t)id + 1) * 0x9E3779B97F4A7C15ULL)
        ^ ((uint64_t)l->last * 0xD6E8FEB86659FD93ULL) ^ ((uint64_t)l->last2 * 0xA0761D6478BD642FULL);
    augur_tripx_t *e = &augur_trips[augur_brmix(key)];
    augur_lhist = ~0ULL << 1; /* more than 32 backward jumps taken, then the exit */
    int64_t expected = (l->entries >= 2 && e->key == key) ? e->trips : l->last;
    if (l->entries == 0 || trips != expected) l->changes++;
    e->key = key;
    e->trips = trips;
    l->entries++;
    l->last2 = l->last;
    l->last = trips;
}
static void augur_br_dump(void) {
    const char *path = getenv("AUGUR_BRANCH_FILE");
    if (!path) return;
    FILE *f = fopen(path, "w");
    if (!f) return;
    fprintf(f, "augur-branches %lld %lld %d\n", (long long)augur_nbranches, (long long)augur_nloops, augur_br_failed);
    for (int64_t i = 0; i < augur_nbranches; i++) {
        augur_branch_t z = {0};
        augur_branch_t *b = augur_brs ? &augur_brs[i] : &z;
        fprintf(f, "%llu %llu", (unsigned long long)b->n, (unsigned long long)b->taken);
        for (int p = 0; p < AUGUR_BR_NP; p++)
            fprintf(f, " %llu", (unsigned long long)augur_scaled(b->n, b->exact, b->exact_miss[p], b->measured, b->miss[p]));
        fprintf(f, "\n");
    }
    for (int64_t i = 0; i < augur_nloops; i++) {
        augur_loopx_t z = {0};
        augur_loopx_t *l = augur_lps ? &augur_lps[i] : &z;
        uint64_t fewest = 0;
        for (int p = 0; p < AUGUR_LX_NP; p++) {
            uint64_t m = augur_scaled(l->short_entries, l->exact, l->exact_miss[p], l->measured, l->miss[p]);
            if (p == 0 || m < fewest) fewest = m;
        }
        fprintf(f, "%llu %llu\n", (unsigned long long)l->entries, (unsigned long long)(l->changes + fewest));
    }
    fprintf(f, "end\n");
    fclose(f);
}
__attribute__((constructor)) static void augur_br_start(void) {
    const char *all = getenv("AUGUR_BRANCH_SAMPLE");
    augur_sample_all = all && all[0] == 'a';
    atexit(augur_br_dump);
}
