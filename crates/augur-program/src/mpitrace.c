/* augur's MPI tracer (Open MPI 4.1, every Fortran binding: `mpif.h`, `use mpi` and
   `use mpi_f08`): linked into the counting build, it defines the Fortran entry points
   (mpi_send_ for `mpif.h` and `use mpi`, mpi_send_f08_ for `use mpi_f08`) and calls
   Open MPI's profiling entry points of the same binding (PMPI_Send_f, pmpi_send_f08_).
   Both bindings pass every argument by reference and their handles are the same
   integers (a `TYPE(MPI_Comm)` is a structure holding the one integer `MPI_VAL`), so one
   tracing function serves both, handed the profiling entry point to call. At each call
   it writes the block counters' change since the previous call (a compute segment) and
   the call (an event) to the rank's trace, `$AUGUR_MPI_TRACE.<rank>`; a pair equal to the
   one before only adds to its repeat count. Rank r > 0 writes its counts file as
   `$AUGUR_COUNTS_FILE.<r>` (rank 0 keeps the name).

   Trace lines: `augur-mpi-trace 2 RANK SIZE`, then per record `R REPEAT`, `S i:d ...`
   (counter index and change), `E OP PEER TAG BYTES BYTES2 COMM REQUEST SITE [WORDS]`
   (-1 where it does not apply; PEER and roots as ranks of MPI_COMM_WORLD, -1 for
   MPI_ANY_SOURCE, -2 for MPI_PROC_NULL; SITE: the call site the rewritten source set
   with augur_mpi_site, 0 when unknown), and `end`. WORDS: `m=` a communicator's members
   (world ranks in its rank order), `c=` bytes per rank of a v-collective, `d=` the
   requests a wait or test completed, `w=REQ:SOURCE:TAG` the source (world rank) and tag
   a receive posted with MPI_ANY_SOURCE or MPI_ANY_TAG matched, `t=` the tag the receive
   of a sendrecv matched. */
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef MPI_Fint F;

extern int64_t augur_counts[];
extern int64_t augur_ncounts;
/* Open MPI's MPI_IN_PLACE of its Fortran bindings (all three share it). */
extern F mpi_fortran_in_place_;

/* A Fortran status (an integer array or a TYPE(MPI_Status)) in integers. */
#define FSTATUS ((int)(sizeof(MPI_Status) / sizeof(F)))

/* The profiling entry points, by argument list; each serves the old and f08 bindings. */
typedef void f_init(F *ierr);
typedef void f_init_thread(F *required, F *provided, F *ierr);
typedef void f_send(void *b, F *n, F *t, F *peer, F *tag, F *comm, F *ierr);
typedef void f_recv(void *b, F *n, F *t, F *src, F *tag, F *comm, F *status, F *ierr);
typedef void f_isend(void *b, F *n, F *t, F *peer, F *tag, F *comm, F *req, F *ierr);
typedef void f_wait(F *req, F *status, F *ierr);
typedef void f_waitall(F *n, F *reqs, F *statuses, F *ierr);
typedef void f_waitany(F *n, F *reqs, F *index, F *status, F *ierr);
typedef void f_waitsome(F *n, F *reqs, F *outn, F *indices, F *statuses, F *ierr);
typedef void f_test(F *req, F *flag, F *status, F *ierr);
typedef void f_testall(F *n, F *reqs, F *flag, F *statuses, F *ierr);
typedef void f_testany(F *n, F *reqs, F *index, F *flag, F *status, F *ierr);
typedef void f_sendrecv(void *sb, F *sn, F *st, F *dest, F *stag, void *rb, F *rn, F *rt,
                        F *src, F *rtag, F *comm, F *status, F *ierr);
typedef void f_barrier(F *comm, F *ierr);
typedef void f_bcast(void *b, F *n, F *t, F *root, F *comm, F *ierr);
typedef void f_reduce(void *sb, void *rb, F *n, F *t, F *op, F *root, F *comm, F *ierr);
typedef void f_allreduce(void *sb, void *rb, F *n, F *t, F *op, F *comm, F *ierr);
typedef void f_gather(void *sb, F *sn, F *st, void *rb, F *rn, F *rt, F *root, F *comm,
                      F *ierr);
typedef void f_allgather(void *sb, F *sn, F *st, void *rb, F *rn, F *rt, F *comm, F *ierr);
typedef void f_gatherv(void *sb, F *sn, F *st, void *rb, F *rcounts, F *displs, F *rt,
                       F *root, F *comm, F *ierr);
typedef void f_scatterv(void *sb, F *scounts, F *displs, F *st, void *rb, F *rn, F *rt,
                        F *root, F *comm, F *ierr);
typedef void f_allgatherv(void *sb, F *sn, F *st, void *rb, F *rcounts, F *displs, F *rt,
                          F *comm, F *ierr);
typedef void f_alltoallv(void *sb, F *scounts, F *sdispls, F *st, void *rb, F *rcounts,
                         F *rdispls, F *rt, F *comm, F *ierr);
typedef void f_reduce_scatter(void *sb, void *rb, F *rcounts, F *t, F *op, F *comm, F *ierr);
typedef void f_comm_split(F *comm, F *color, F *key, F *newcomm, F *ierr);
typedef void f_comm_dup(F *comm, F *newcomm, F *ierr);
typedef void f_cart_sub(F *comm, F *remain_dims, F *newcomm, F *ierr);
typedef void f_comm_free(F *comm, F *ierr);

f_init PMPI_Init_f, pmpi_init_f08_, PMPI_Finalize_f, pmpi_finalize_f08_;
f_init_thread PMPI_Init_thread_f, pmpi_init_thread_f08_;
f_send PMPI_Send_f, pmpi_send_f08_, PMPI_Ssend_f, pmpi_ssend_f08_;
f_recv PMPI_Recv_f, pmpi_recv_f08_;
f_isend PMPI_Isend_f, pmpi_isend_f08_, PMPI_Irecv_f, pmpi_irecv_f08_;
f_wait PMPI_Wait_f, pmpi_wait_f08_;
f_waitall PMPI_Waitall_f, pmpi_waitall_f08_;
f_waitany PMPI_Waitany_f, pmpi_waitany_f08_;
f_waitsome PMPI_Waitsome_f, pmpi_waitsome_f08_, PMPI_Testsome_f, pmpi_testsome_f08_;
f_test PMPI_Test_f, pmpi_test_f08_;
f_testall PMPI_Testall_f, pmpi_testall_f08_;
f_testany PMPI_Testany_f, pmpi_testany_f08_;
f_sendrecv PMPI_Sendrecv_f, pmpi_sendrecv_f08_;
f_barrier PMPI_Barrier_f, pmpi_barrier_f08_;
f_bcast PMPI_Bcast_f, pmpi_bcast_f08_;
f_reduce PMPI_Reduce_f, pmpi_reduce_f08_;
f_allreduce PMPI_Allreduce_f, pmpi_allreduce_f08_;
f_gather PMPI_Gather_f, pmpi_gather_f08_, PMPI_Scatter_f, pmpi_scatter_f08_;
f_allgather PMPI_Allgather_f, pmpi_allgather_f08_, PMPI_Alltoall_f, pmpi_alltoall_f08_;
f_gatherv PMPI_Gatherv_f, pmpi_gatherv_f08_;
f_scatterv PMPI_Scatterv_f, pmpi_scatterv_f08_;
f_allgatherv PMPI_Allgatherv_f, pmpi_allgatherv_f08_;
f_alltoallv PMPI_Alltoallv_f, pmpi_alltoallv_f08_;
f_reduce_scatter PMPI_Reduce_scatter_f, pmpi_reduce_scatter_f08_;
f_comm_split PMPI_Comm_split_f, pmpi_comm_split_f08_;
f_comm_dup PMPI_Comm_dup_f, pmpi_comm_dup_f08_;
f_cart_sub PMPI_Cart_sub_f, pmpi_cart_sub_f08_;
f_comm_free PMPI_Comm_free_f, pmpi_comm_free_f08_;

/* ---- Growable buffers ---- */

/* A growing text; `p` stays a C string. */
struct text {
    char *p;
    size_t len, cap;
};

/* A growing array of integers. */
struct ints {
    long *v;
    int n, cap;
};

static FILE *trace;
static int64_t *prev;
static struct text seg, last_seg, ev, last_ev, extra;
static long repeat;
/* The call site the rewritten source set last (0: none since the last event). */
static int site;

static int text_init(struct text *t) {
    t->cap = 256;
    t->len = 0;
    t->p = malloc(t->cap);
    if (t->p) t->p[0] = 0;
    return t->p != NULL;
}

static void clear(struct text *t) {
    t->len = 0;
    if (t->p) t->p[0] = 0;
}

/* Appends to `t`; on a failed allocation the trace stops (the rank's trace then ends
   without `end`, which the reader reports). */
static void put(struct text *t, const char *fmt, ...) {
    if (!trace) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->p + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        if (n < 0) { trace = NULL; return; }
        if ((size_t)n < t->cap - t->len) { t->len += (size_t)n; return; }
        char *p = realloc(t->p, t->cap * 2 + (size_t)n);
        if (!p) { trace = NULL; return; }
        t->p = p;
        t->cap = t->cap * 2 + (size_t)n;
    }
}

static void push(struct ints *a, long x) {
    if (a->n == a->cap) {
        int cap = a->cap ? a->cap * 2 : 64;
        long *v = realloc(a->v, (size_t)cap * sizeof(long));
        if (!v) { trace = NULL; return; }
        a->v = v;
        a->cap = cap;
    }
    a->v[a->n++] = x;
}

/* `n` integers of scratch space (one buffer per use, calls do not nest). */
static F *scratch(F **buf, int *cap, int n) {
    if (n > *cap) {
        F *b = realloc(*buf, (size_t)n * sizeof(F));
        if (!b) return NULL;
        *buf = b;
        *cap = n;
    }
    return *buf;
}

/* ---- Records ---- */

/* The counters' change since the previous record, as text (`S i:d ...`). */
static void segment_text(void) {
    clear(&seg);
    put(&seg, "S");
    for (int64_t i = 0; i < augur_ncounts && trace; i++) {
        int64_t d = augur_counts[i] - prev[i];
        if (d == 0) continue;
        put(&seg, " %ld:%ld", (long)i, (long)d);
        prev[i] = augur_counts[i];
    }
}

static void flush_record(void) {
    if (trace && repeat > 0) fprintf(trace, "R %ld\n%s\n%s\n", repeat, last_seg.p, last_ev.p);
    repeat = 0;
}

static void swap(struct text *a, struct text *b) {
    struct text t = *a;
    *a = *b;
    *b = t;
}

/* Open MPI's Fortran MPI_COMM_WORLD is 0; a handle names one communicator at a time. */
static int is_world(F comm) {
    return MPI_Comm_f2c(comm) == MPI_COMM_WORLD;
}

/* A world rank for `rank` of communicator `comm` (-1: MPI_ANY_SOURCE or none, -2:
   MPI_PROC_NULL). */
static int world(F comm, int rank) {
    if (rank == MPI_PROC_NULL) return -2;
    if (rank < 0) return -1;
    if (is_world(comm)) return rank;
    MPI_Group g, w;
    int out = rank;
    PMPI_Comm_group(MPI_Comm_f2c(comm), &g);
    PMPI_Comm_group(MPI_COMM_WORLD, &w);
    PMPI_Group_translate_ranks(g, 1, &rank, w, &out);
    PMPI_Group_free(&g);
    PMPI_Group_free(&w);
    return out;
}

static long bytes(F n, F type) {
    int size = 0;
    PMPI_Type_size(MPI_Type_f2c(type), &size);
    return (long)n * size;
}

static int in_place(const void *b) {
    return b == (const void *)&mpi_fortran_in_place_;
}

/* Records the segment before an MPI call and the call, with the words gathered in
   `extra` and the call site. */
static void event(const char *op, int peer, int tag, long b1, long b2, F comm, long req) {
    if (!trace) return;
    segment_text();
    clear(&ev);
    put(&ev, "E %s %d %d %ld %ld %d %ld %d%s", op, world(comm, peer), tag, b1, b2, (int)comm,
        req, site, extra.p);
    site = 0;
    clear(&extra);
    if (!trace) return;
    if (repeat > 0 && strcmp(ev.p, last_ev.p) == 0 && strcmp(seg.p, last_seg.p) == 0) {
        repeat++;
        return;
    }
    flush_record();
    swap(&ev, &last_ev);
    swap(&seg, &last_seg);
    repeat = 1;
}

/* Called by the rewritten source just before each traced CALL: its site number. */
void augur_mpi_site_(const F *n) {
    site = (int)*n;
}

/* A word of integers, ` key=a,b,c`. */
static void words(const char *key, const long *v, int n) {
    if (n <= 0) return;
    put(&extra, " %s=", key);
    for (int i = 0; i < n; i++) put(&extra, i ? ",%ld" : "%ld", v[i]);
}

/* ---- Communicators ---- */

static struct ints described;

static int find(const struct ints *a, long x) {
    for (int i = 0; i < a->n; i++)
        if (a->v[i] == x) return i;
    return -1;
}

static void forget(struct ints *a, long x) {
    int i = find(a, x);
    if (i >= 0) a->v[i] = a->v[--a->n];
}

/* The members of `comm` as the word `m=` (world ranks in the communicator's order). */
static void members(F comm) {
    MPI_Group g, w;
    int k = 0;
    PMPI_Comm_group(MPI_Comm_f2c(comm), &g);
    PMPI_Comm_group(MPI_COMM_WORLD, &w);
    PMPI_Group_size(g, &k);
    int *in = malloc((size_t)(k > 0 ? k : 1) * sizeof(int) * 2);
    long *out = malloc((size_t)(k > 0 ? k : 1) * sizeof(long));
    if (in && out) {
        for (int i = 0; i < k; i++) in[i] = i;
        PMPI_Group_translate_ranks(g, k, in, w, in + k);
        for (int i = 0; i < k; i++) out[i] = in[k + i];
        words("m", out, k);
    } else {
        trace = NULL;
    }
    free(in);
    free(out);
    PMPI_Group_free(&g);
    PMPI_Group_free(&w);
    if (find(&described, comm) < 0) push(&described, comm);
}

/* Before a collective on `comm`: its members, once, for a communicator that is not
   MPI_COMM_WORLD (the replay needs them; one made by MPI_Comm_split or MPI_Comm_dup
   was described when made). Keeps the collective's call site. */
static void describe(F comm) {
    if (!trace || is_world(comm) || find(&described, comm) >= 0) return;
    int at = site;
    site = 0;
    members(comm);
    event("comm", -1, -1, 0, -1, comm, -1);
    site = at;
}

/* ---- Requests ---- */

/* Receives posted with MPI_ANY_SOURCE or MPI_ANY_TAG: (request, communicator). */
static struct ints wild_req, wild_comm;
static F *saved, *statuses;
static int saved_cap, statuses_cap;

/* After request `req` completed with Fortran status `st`: the source and tag it matched,
   if it was a receive posted with a wildcard. */
static void resolve(F req, const F *st) {
    int i = find(&wild_req, req);
    if (i < 0 || !trace) return;
    MPI_Status s;
    PMPI_Status_f2c(st, &s);
    put(&extra, " w=%ld:%d:%d", (long)req, world((F)wild_comm.v[i], s.MPI_SOURCE), s.MPI_TAG);
    wild_req.v[i] = wild_req.v[--wild_req.n];
    wild_comm.v[i] = wild_comm.v[--wild_comm.n];
}

/* A wildcard receive posted as `req` (a handle still listed was freed by a call the
   tracer does not follow, MPI_Request_free or MPI_Cancel: it now names this one). */
static void remember_wild(F req, F comm) {
    int i = find(&wild_req, req);
    if (i >= 0) {
        wild_comm.v[i] = comm;
        return;
    }
    push(&wild_req, req);
    push(&wild_comm, comm);
}

/* The status to pass: the caller's, or ours when it passed MPI_STATUS_IGNORE. */
static F *status_of(F *st, F *own) {
    return st == MPI_F_STATUS_IGNORE ? own : st;
}

/* The statuses to pass for `n` requests: the caller's, or ours for MPI_STATUSES_IGNORE. */
static F *statuses_of(F *sts, int n) {
    if (sts != MPI_F_STATUSES_IGNORE) return sts;
    F *own = scratch(&statuses, &statuses_cap, n * FSTATUS);
    return own ? own : sts;
}

/* A copy of the `n` requests before a call completes (and frees) some of them. */
static F *save(const F *reqs, int n) {
    F *s = scratch(&saved, &saved_cap, n > 0 ? n : 1);
    if (s) memcpy(s, reqs, (size_t)(n > 0 ? n : 0) * sizeof(F));
    return s;
}

/* The word `d=` of the requests completed, `idx[j]` (1-based) each with status `j`, and
   the sources and tags of the wildcard receives among them. */
static void completed(const F *reqs, const F *idx, int n, const F *sts) {
    struct ints d = {0};
    for (int j = 0; j < n; j++) {
        int i = idx ? idx[j] - 1 : j;
        if (reqs[i] == MPI_Request_c2f(MPI_REQUEST_NULL)) continue;
        push(&d, reqs[i]);
        resolve(reqs[i], sts + (size_t)j * FSTATUS);
    }
    words("d", d.v, d.n);
    free(d.v);
}

/* ---- Setup ---- */

static void open_trace(void) {
    /* Once: a Fortran MPI_Init may reach the C one too. */
    static int opened;
    if (opened) return;
    opened = 1;
    int rank = 0, size = 1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *counts = getenv("AUGUR_COUNTS_FILE");
    if (counts && rank > 0) {
        char name[4096];
        snprintf(name, sizeof name, "%s.%d", counts, rank);
        setenv("AUGUR_COUNTS_FILE", name, 1);
    }
    const char *prefix = getenv("AUGUR_MPI_TRACE");
    if (!prefix) return;
    char path[4096];
    snprintf(path, sizeof path, "%s.%d", prefix, rank);
    int ok = text_init(&seg) & text_init(&last_seg) & text_init(&ev) & text_init(&last_ev) &
             text_init(&extra);
    prev = calloc((size_t)augur_ncounts + 1, sizeof(int64_t));
    trace = (ok && prev) ? fopen(path, "w") : NULL;
    if (trace) fprintf(trace, "augur-mpi-trace 2 %d %d\n", rank, size);
    event("init", -1, -1, 0, 0, 0, -1);
}

static void t_init(f_init *f, F *ierr) {
    f(ierr);
    open_trace();
}

static void t_init_thread(f_init_thread *f, F *required, F *provided, F *ierr) {
    f(required, provided, ierr);
    open_trace();
}

static void close_trace(void) {
    event("finalize", -1, -1, 0, 0, 0, -1);
    flush_record();
    if (trace) {
        fprintf(trace, "end\n");
        fclose(trace);
        trace = NULL;
    }
}

static void t_finalize(f_init *f, F *ierr) {
    close_trace();
    f(ierr);
}

/* A program whose main is in C starts and ends MPI there (its Fortran makes the
   calls between): traced alike. */
int MPI_Init(int *argc, char ***argv) {
    int r = PMPI_Init(argc, argv);
    open_trace();
    return r;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
    int r = PMPI_Init_thread(argc, argv, required, provided);
    open_trace();
    return r;
}

int MPI_Finalize(void) {
    close_trace();
    return PMPI_Finalize();
}

/* ---- Point to point ---- */

static void t_send(f_send *f, void *b, F *n, F *t, F *dest, F *tag, F *comm, F *ierr) {
    event("send", *dest, *tag, bytes(*n, *t), -1, *comm, -1);
    f(b, n, t, dest, tag, comm, ierr);
}

/* Recorded after the call: a wildcard source or tag is the one matched. */
static void t_recv(f_recv *f, void *b, F *n, F *t, F *src, F *tag, F *comm, F *st, F *ierr) {
    F own[FSTATUS];
    F *s = status_of(st, own);
    f(b, n, t, src, tag, comm, s, ierr);
    MPI_Status cs;
    PMPI_Status_f2c(s, &cs);
    int peer = *src == MPI_ANY_SOURCE ? cs.MPI_SOURCE : *src;
    int matched = *tag == MPI_ANY_TAG && *src != MPI_PROC_NULL ? cs.MPI_TAG : *tag;
    event("recv", peer, matched, bytes(*n, *t), -1, *comm, -1);
}

static void t_isend(f_isend *f, void *b, F *n, F *t, F *dest, F *tag, F *comm, F *req, F *ierr) {
    f(b, n, t, dest, tag, comm, req, ierr);
    event("isend", *dest, *tag, bytes(*n, *t), -1, *comm, *req);
}

/* A wildcard receive is remembered until the wait or test that completes it. */
static void t_irecv(f_isend *f, void *b, F *n, F *t, F *src, F *tag, F *comm, F *req, F *ierr) {
    f(b, n, t, src, tag, comm, req, ierr);
    if (trace && (*src == MPI_ANY_SOURCE || *tag == MPI_ANY_TAG)) remember_wild(*req, *comm);
    event("irecv", *src, *tag, bytes(*n, *t), -1, *comm, *req);
}

static void t_wait(f_wait *f, F *req, F *st, F *ierr) {
    F own[FSTATUS];
    F *s = status_of(st, own);
    F r = *req;
    f(req, s, ierr);
    resolve(r, s);
    event("wait", -1, -1, 0, -1, 0, r);
}

static void t_waitall(f_waitall *f, F *n, F *reqs, F *sts, F *ierr) {
    F *s = statuses_of(sts, *n);
    F *before = save(reqs, *n);
    f(n, reqs, s, ierr);
    if (before && s != MPI_F_STATUSES_IGNORE) completed(before, NULL, *n, s);
    event("waitall", -1, -1, *n, -1, 0, -1);
}

static void t_waitany(f_waitany *f, F *n, F *reqs, F *index, F *st, F *ierr) {
    F own[FSTATUS];
    F *s = status_of(st, own);
    F *before = save(reqs, *n);
    f(n, reqs, index, s, ierr);
    if (before && *index >= 1 && *index <= *n) completed(before, index, 1, s);
    event("waitany", -1, -1, *n, -1, 0, -1);
}

/* MPI_Waitsome and MPI_Testsome (`op`). */
static void t_some(const char *op, f_waitsome *f, F *n, F *reqs, F *outn, F *indices, F *sts,
                   F *ierr) {
    F *s = statuses_of(sts, *n);
    F *before = save(reqs, *n);
    f(n, reqs, outn, indices, s, ierr);
    if (before && s != MPI_F_STATUSES_IGNORE && *outn > 0) completed(before, indices, *outn, s);
    event(op, -1, -1, *n, -1, 0, -1);
}

static void t_test(f_test *f, F *req, F *flag, F *st, F *ierr) {
    F own[FSTATUS];
    F *s = status_of(st, own);
    F r = *req;
    f(req, flag, s, ierr);
    if (*flag) completed(&r, NULL, 1, s);
    event("test", -1, -1, 0, -1, 0, r);
}

static void t_testall(f_testall *f, F *n, F *reqs, F *flag, F *sts, F *ierr) {
    F *s = statuses_of(sts, *n);
    F *before = save(reqs, *n);
    f(n, reqs, flag, s, ierr);
    if (before && *flag && s != MPI_F_STATUSES_IGNORE) completed(before, NULL, *n, s);
    event("testall", -1, -1, *n, -1, 0, -1);
}

static void t_testany(f_testany *f, F *n, F *reqs, F *index, F *flag, F *st, F *ierr) {
    F own[FSTATUS];
    F *s = status_of(st, own);
    F *before = save(reqs, *n);
    f(n, reqs, index, flag, s, ierr);
    if (before && *flag && *index >= 1 && *index <= *n) completed(before, index, 1, s);
    event("testany", -1, -1, *n, -1, 0, -1);
}

/* The source (REQUEST column) and the tag (`t=`) the receive half matched. */
static void t_sendrecv(f_sendrecv *f, void *sb, F *sn, F *st, F *dest, F *stag, void *rb, F *rn,
                       F *rt, F *src, F *rtag, F *comm, F *status, F *ierr) {
    F own[FSTATUS];
    F *s = status_of(status, own);
    f(sb, sn, st, dest, stag, rb, rn, rt, src, rtag, comm, s, ierr);
    MPI_Status cs;
    PMPI_Status_f2c(s, &cs);
    int from = *src == MPI_ANY_SOURCE ? cs.MPI_SOURCE : *src;
    put(&extra, " t=%d", *rtag == MPI_ANY_TAG && *src != MPI_PROC_NULL ? cs.MPI_TAG : *rtag);
    event("sendrecv", *dest, *stag, bytes(*sn, *st), bytes(*rn, *rt), *comm, world(*comm, from));
}

/* ---- Collectives ---- */

static void t_barrier(f_barrier *f, F *comm, F *ierr) {
    describe(*comm);
    event("barrier", -1, -1, 0, -1, *comm, -1);
    f(comm, ierr);
}

static void t_bcast(f_bcast *f, void *b, F *n, F *t, F *root, F *comm, F *ierr) {
    describe(*comm);
    event("bcast", *root, -1, bytes(*n, *t), -1, *comm, -1);
    f(b, n, t, root, comm, ierr);
}

static void t_reduce(f_reduce *f, void *sb, void *rb, F *n, F *t, F *op, F *root, F *comm,
                     F *ierr) {
    describe(*comm);
    event("reduce", *root, -1, bytes(*n, *t), -1, *comm, -1);
    f(sb, rb, n, t, op, root, comm, ierr);
}

static void t_allreduce(f_allreduce *f, void *sb, void *rb, F *n, F *t, F *op, F *comm,
                        F *ierr) {
    describe(*comm);
    event("allreduce", -1, -1, bytes(*n, *t), -1, *comm, -1);
    f(sb, rb, n, t, op, comm, ierr);
}

/* MPI_Gather and MPI_Scatter (`op`); MPI_IN_PLACE at the root: its own part's size. */
static void t_rooted(const char *op, f_gather *f, void *sb, F *sn, F *st, void *rb, F *rn, F *rt,
                     F *root, F *comm, F *ierr) {
    long sent = bytes(*sn, *st), got = bytes(*rn, *rt);
    if (in_place(sb)) sent = got;
    if (in_place(rb)) got = sent;
    describe(*comm);
    event(op, *root, -1, sent, got, *comm, -1);
    f(sb, sn, st, rb, rn, rt, root, comm, ierr);
}

/* MPI_Allgather and MPI_Alltoall (`op`). */
static void t_all(const char *op, f_allgather *f, void *sb, F *sn, F *st, void *rb, F *rn, F *rt,
                  F *comm, F *ierr) {
    long got = bytes(*rn, *rt);
    describe(*comm);
    event(op, -1, -1, in_place(sb) ? got : bytes(*sn, *st), got, *comm, -1);
    f(sb, sn, st, rb, rn, rt, comm, ierr);
}

static int comm_size(F comm) {
    int k = 0;
    PMPI_Comm_size(MPI_Comm_f2c(comm), &k);
    return k;
}

static int comm_rank(F comm) {
    int r = 0;
    PMPI_Comm_rank(MPI_Comm_f2c(comm), &r);
    return r;
}

/* `counts` of `type` as bytes, appended to `out`; returns their sum. */
static long counts_in_bytes(struct ints *out, const F *counts, int k, F type) {
    long sum = 0;
    for (int i = 0; i < k; i++) {
        push(out, bytes(counts[i], type));
        sum += bytes(counts[i], type);
    }
    return sum;
}

/* The receive counts matter at the root only (elsewhere they need not be valid). */
static void t_gatherv(f_gatherv *f, void *sb, F *sn, F *st, void *rb, F *rcounts, F *displs,
                      F *rt, F *root, F *comm, F *ierr) {
    struct ints c = {0};
    long sent = bytes(*sn, *st), got = 0;
    int me = comm_rank(*comm);
    if (me == *root) {
        got = counts_in_bytes(&c, rcounts, comm_size(*comm), *rt);
        if (in_place(sb) && me < c.n) sent = c.v[me];
    }
    describe(*comm);
    words("c", c.v, c.n);
    free(c.v);
    event("gatherv", *root, -1, sent, got, *comm, -1);
    f(sb, sn, st, rb, rcounts, displs, rt, root, comm, ierr);
}

/* The send counts matter at the root only. */
static void t_scatterv(f_scatterv *f, void *sb, F *scounts, F *displs, F *st, void *rb, F *rn,
                       F *rt, F *root, F *comm, F *ierr) {
    struct ints c = {0};
    long sent = 0, got = bytes(*rn, *rt);
    int me = comm_rank(*comm);
    if (me == *root) {
        sent = counts_in_bytes(&c, scounts, comm_size(*comm), *st);
        if (in_place(rb) && me < c.n) got = c.v[me];
    }
    describe(*comm);
    words("c", c.v, c.n);
    free(c.v);
    event("scatterv", *root, -1, sent, got, *comm, -1);
    f(sb, scounts, displs, st, rb, rn, rt, root, comm, ierr);
}

static void t_allgatherv(f_allgatherv *f, void *sb, F *sn, F *st, void *rb, F *rcounts,
                         F *displs, F *rt, F *comm, F *ierr) {
    struct ints c = {0};
    long got = counts_in_bytes(&c, rcounts, comm_size(*comm), *rt);
    int me = comm_rank(*comm);
    long sent = in_place(sb) && me < c.n ? c.v[me] : bytes(*sn, *st);
    describe(*comm);
    words("c", c.v, c.n);
    free(c.v);
    event("allgatherv", -1, -1, sent, got, *comm, -1);
    f(sb, sn, st, rb, rcounts, displs, rt, comm, ierr);
}

/* `c=` holds the bytes sent to each rank, then those received from each. */
static void t_alltoallv(f_alltoallv *f, void *sb, F *scounts, F *sdispls, F *st, void *rb,
                        F *rcounts, F *rdispls, F *rt, F *comm, F *ierr) {
    struct ints c = {0};
    int k = comm_size(*comm);
    long sent = in_place(sb) ? counts_in_bytes(&c, rcounts, k, *rt)
                             : counts_in_bytes(&c, scounts, k, *st);
    long got = counts_in_bytes(&c, rcounts, k, *rt);
    describe(*comm);
    words("c", c.v, c.n);
    free(c.v);
    event("alltoallv", -1, -1, sent, got, *comm, -1);
    f(sb, scounts, sdispls, st, rb, rcounts, rdispls, rt, comm, ierr);
}

static void t_reduce_scatter(f_reduce_scatter *f, void *sb, void *rb, F *rcounts, F *t, F *op,
                             F *comm, F *ierr) {
    struct ints c = {0};
    long all = counts_in_bytes(&c, rcounts, comm_size(*comm), *t);
    int me = comm_rank(*comm);
    long mine = me < c.n ? c.v[me] : 0;
    describe(*comm);
    words("c", c.v, c.n);
    free(c.v);
    event("reduce_scatter", -1, -1, all, mine, *comm, -1);
    f(sb, rb, rcounts, t, op, comm, ierr);
}

/* ---- Communicators made ---- */

/* After MPI_Comm_split, MPI_Comm_dup or MPI_Cart_sub (`op`) of `comm`: the new
   communicator's handle (REQUEST column, -1 for MPI_COMM_NULL) and members. */
static void made(const char *op, F comm, F newcomm) {
    describe(comm);
    int null = newcomm == MPI_Comm_c2f(MPI_COMM_NULL);
    if (trace && !null) members(newcomm);
    event(op, -1, -1, 0, -1, comm, null ? -1 : (long)newcomm);
}

static void t_comm_split(f_comm_split *f, F *comm, F *color, F *key, F *newcomm, F *ierr) {
    f(comm, color, key, newcomm, ierr);
    made("comm_split", *comm, *newcomm);
}

static void t_comm_dup(f_comm_dup *f, F *comm, F *newcomm, F *ierr) {
    f(comm, newcomm, ierr);
    made("comm_dup", *comm, *newcomm);
}

/* MPI_Cart_sub: a split of the Cartesian communicator by the coordinates not kept. */
static void t_cart_sub(f_cart_sub *f, F *comm, F *remain_dims, F *newcomm, F *ierr) {
    f(comm, remain_dims, newcomm, ierr);
    made("cart_sub", *comm, *newcomm);
}

/* A freed handle may name another communicator later: describe that one anew. */
static void t_comm_free(f_comm_free *f, F *comm, F *ierr) {
    forget(&described, *comm);
    f(comm, ierr);
}

/* ---- The entry points: `mpif.h` and `use mpi`, then `use mpi_f08` ---- */

void mpi_init_(F *e) { t_init(PMPI_Init_f, e); }
void mpi_init_f08_(F *e) { t_init(pmpi_init_f08_, e); }
void mpi_init_thread_(F *r, F *p, F *e) { t_init_thread(PMPI_Init_thread_f, r, p, e); }
void mpi_init_thread_f08_(F *r, F *p, F *e) { t_init_thread(pmpi_init_thread_f08_, r, p, e); }
void mpi_finalize_(F *e) { t_finalize(PMPI_Finalize_f, e); }
void mpi_finalize_f08_(F *e) { t_finalize(pmpi_finalize_f08_, e); }

void mpi_send_(void *b, F *n, F *t, F *d, F *g, F *c, F *e) { t_send(PMPI_Send_f, b, n, t, d, g, c, e); }
void mpi_send_f08_(void *b, F *n, F *t, F *d, F *g, F *c, F *e) { t_send(pmpi_send_f08_, b, n, t, d, g, c, e); }
void mpi_ssend_(void *b, F *n, F *t, F *d, F *g, F *c, F *e) { t_send(PMPI_Ssend_f, b, n, t, d, g, c, e); }
void mpi_ssend_f08_(void *b, F *n, F *t, F *d, F *g, F *c, F *e) { t_send(pmpi_ssend_f08_, b, n, t, d, g, c, e); }
void mpi_recv_(void *b, F *n, F *t, F *s, F *g, F *c, F *st, F *e) { t_recv(PMPI_Recv_f, b, n, t, s, g, c, st, e); }
void mpi_recv_f08_(void *b, F *n, F *t, F *s, F *g, F *c, F *st, F *e) { t_recv(pmpi_recv_f08_, b, n, t, s, g, c, st, e); }
void mpi_isend_(void *b, F *n, F *t, F *d, F *g, F *c, F *r, F *e) { t_isend(PMPI_Isend_f, b, n, t, d, g, c, r, e); }
void mpi_isend_f08_(void *b, F *n, F *t, F *d, F *g, F *c, F *r, F *e) { t_isend(pmpi_isend_f08_, b, n, t, d, g, c, r, e); }
void mpi_irecv_(void *b, F *n, F *t, F *s, F *g, F *c, F *r, F *e) { t_irecv(PMPI_Irecv_f, b, n, t, s, g, c, r, e); }
void mpi_irecv_f08_(void *b, F *n, F *t, F *s, F *g, F *c, F *r, F *e) { t_irecv(pmpi_irecv_f08_, b, n, t, s, g, c, r, e); }
void mpi_sendrecv_(void *sb, F *sn, F *st, F *d, F *sg, void *rb, F *rn, F *rt, F *s, F *rg, F *c, F *status, F *e) {
    t_sendrecv(PMPI_Sendrecv_f, sb, sn, st, d, sg, rb, rn, rt, s, rg, c, status, e);
}
void mpi_sendrecv_f08_(void *sb, F *sn, F *st, F *d, F *sg, void *rb, F *rn, F *rt, F *s, F *rg, F *c, F *status, F *e) {
    t_sendrecv(pmpi_sendrecv_f08_, sb, sn, st, d, sg, rb, rn, rt, s, rg, c, status, e);
}

void mpi_wait_(F *r, F *s, F *e) { t_wait(PMPI_Wait_f, r, s, e); }
void mpi_wait_f08_(F *r, F *s, F *e) { t_wait(pmpi_wait_f08_, r, s, e); }
void mpi_waitall_(F *n, F *r, F *s, F *e) { t_waitall(PMPI_Waitall_f, n, r, s, e); }
void mpi_waitall_f08_(F *n, F *r, F *s, F *e) { t_waitall(pmpi_waitall_f08_, n, r, s, e); }
void mpi_waitany_(F *n, F *r, F *i, F *s, F *e) { t_waitany(PMPI_Waitany_f, n, r, i, s, e); }
void mpi_waitany_f08_(F *n, F *r, F *i, F *s, F *e) { t_waitany(pmpi_waitany_f08_, n, r, i, s, e); }
void mpi_waitsome_(F *n, F *r, F *o, F *i, F *s, F *e) { t_some("waitsome", PMPI_Waitsome_f, n, r, o, i, s, e); }
void mpi_waitsome_f08_(F *n, F *r, F *o, F *i, F *s, F *e) { t_some("waitsome", pmpi_waitsome_f08_, n, r, o, i, s, e); }
void mpi_testsome_(F *n, F *r, F *o, F *i, F *s, F *e) { t_some("testsome", PMPI_Testsome_f, n, r, o, i, s, e); }
void mpi_testsome_f08_(F *n, F *r, F *o, F *i, F *s, F *e) { t_some("testsome", pmpi_testsome_f08_, n, r, o, i, s, e); }
void mpi_test_(F *r, F *f, F *s, F *e) { t_test(PMPI_Test_f, r, f, s, e); }
void mpi_test_f08_(F *r, F *f, F *s, F *e) { t_test(pmpi_test_f08_, r, f, s, e); }
void mpi_testall_(F *n, F *r, F *f, F *s, F *e) { t_testall(PMPI_Testall_f, n, r, f, s, e); }
void mpi_testall_f08_(F *n, F *r, F *f, F *s, F *e) { t_testall(pmpi_testall_f08_, n, r, f, s, e); }
void mpi_testany_(F *n, F *r, F *i, F *f, F *s, F *e) { t_testany(PMPI_Testany_f, n, r, i, f, s, e); }
void mpi_testany_f08_(F *n, F *r, F *i, F *f, F *s, F *e) { t_testany(pmpi_testany_f08_, n, r, i, f, s, e); }

void mpi_barrier_(F *c, F *e) { t_barrier(PMPI_Barrier_f, c, e); }
void mpi_barrier_f08_(F *c, F *e) { t_barrier(pmpi_barrier_f08_, c, e); }
void mpi_bcast_(void *b, F *n, F *t, F *r, F *c, F *e) { t_bcast(PMPI_Bcast_f, b, n, t, r, c, e); }
void mpi_bcast_f08_(void *b, F *n, F *t, F *r, F *c, F *e) { t_bcast(pmpi_bcast_f08_, b, n, t, r, c, e); }
void mpi_reduce_(void *sb, void *rb, F *n, F *t, F *o, F *r, F *c, F *e) { t_reduce(PMPI_Reduce_f, sb, rb, n, t, o, r, c, e); }
void mpi_reduce_f08_(void *sb, void *rb, F *n, F *t, F *o, F *r, F *c, F *e) { t_reduce(pmpi_reduce_f08_, sb, rb, n, t, o, r, c, e); }
void mpi_allreduce_(void *sb, void *rb, F *n, F *t, F *o, F *c, F *e) { t_allreduce(PMPI_Allreduce_f, sb, rb, n, t, o, c, e); }
void mpi_allreduce_f08_(void *sb, void *rb, F *n, F *t, F *o, F *c, F *e) { t_allreduce(pmpi_allreduce_f08_, sb, rb, n, t, o, c, e); }
void mpi_gather_(void *sb, F *sn, F *st, void *rb, F *rn, F *rt, F *r, F *c, F *e) {
    t_rooted("gather", PMPI_Gather_f, sb, sn, st, rb, rn, rt, r, c, e);
}
void mpi_gather_f08_(void *sb, F *sn, F *st, void *rb, F *rn, F *rt, F *r, F *c, F *e) {
    t_rooted("gather", pmpi_gather_f08_, sb, sn, st, rb, rn, rt, r, c, e);
}
void mpi_scatter_(void *sb, F *sn, F *st, void *rb, F *rn, F *rt, F *r, F *c, F *e) {
    t_rooted("scatter", PMPI_Scatter_f, sb, sn, st, rb, rn, rt, r, c, e);
}
void mpi_scatter_f08_(void *sb, F *sn, F *st, void *rb, F *rn, F *rt, F *r, F *c, F *e) {
    t_rooted("scatter", pmpi_scatter_f08_, sb, sn, st, rb, rn, rt, r, c, e);
}
void mpi_allgather_(void *sb, F *sn, F *st, void *rb, F *rn, F *rt, F *c, F *e) {
    t_all("allgather", PMPI_Allgather_f, sb, sn, st, rb, rn, rt, c, e);
}
void mpi_allgather_f08_(void *sb, F *sn, F *st, void *rb, F *rn, F *rt, F *c, F *e) {
    t_all("allgather", pmpi_allgather_f08_, sb, sn, st, rb, rn, rt, c, e);
}
void mpi_alltoall_(void *sb, F *sn, F *st, void *rb, F *rn, F *rt, F *c, F *e) {
    t_all("alltoall", PMPI_Alltoall_f, sb, sn, st, rb, rn, rt, c, e);
}
void mpi_alltoall_f08_(void *sb, F *sn, F *st, void *rb, F *rn, F *rt, F *c, F *e) {
    t_all("alltoall", pmpi_alltoall_f08_, sb, sn, st, rb, rn, rt, c, e);
}
void mpi_gatherv_(void *sb, F *sn, F *st, void *rb, F *rc, F *d, F *rt, F *r, F *c, F *e) {
    t_gatherv(PMPI_Gatherv_f, sb, sn, st, rb, rc, d, rt, r, c, e);
}
void mpi_gatherv_f08_(void *sb, F *sn, F *st, void *rb, F *rc, F *d, F *rt, F *r, F *c, F *e) {
    t_gatherv(pmpi_gatherv_f08_, sb, sn, st, rb, rc, d, rt, r, c, e);
}
void mpi_scatterv_(void *sb, F *sc, F *d, F *st, void *rb, F *rn, F *rt, F *r, F *c, F *e) {
    t_scatterv(PMPI_Scatterv_f, sb, sc, d, st, rb, rn, rt, r, c, e);
}
void mpi_scatterv_f08_(void *sb, F *sc, F *d, F *st, void *rb, F *rn, F *rt, F *r, F *c, F *e) {
    t_scatterv(pmpi_scatterv_f08_, sb, sc, d, st, rb, rn, rt, r, c, e);
}
void mpi_allgatherv_(void *sb, F *sn, F *st, void *rb, F *rc, F *d, F *rt, F *c, F *e) {
    t_allgatherv(PMPI_Allgatherv_f, sb, sn, st, rb, rc, d, rt, c, e);
}
void mpi_allgatherv_f08_(void *sb, F *sn, F *st, void *rb, F *rc, F *d, F *rt, F *c, F *e) {
    t_allgatherv(pmpi_allgatherv_f08_, sb, sn, st, rb, rc, d, rt, c, e);
}
void mpi_alltoallv_(void *sb, F *sc, F *sd, F *st, void *rb, F *rc, F *rd, F *rt, F *c, F *e) {
    t_alltoallv(PMPI_Alltoallv_f, sb, sc, sd, st, rb, rc, rd, rt, c, e);
}
void mpi_alltoallv_f08_(void *sb, F *sc, F *sd, F *st, void *rb, F *rc, F *rd, F *rt, F *c, F *e) {
    t_alltoallv(pmpi_alltoallv_f08_, sb, sc, sd, st, rb, rc, rd, rt, c, e);
}
void mpi_reduce_scatter_(void *sb, void *rb, F *rc, F *t, F *o, F *c, F *e) {
    t_reduce_scatter(PMPI_Reduce_scatter_f, sb, rb, rc, t, o, c, e);
}
void mpi_reduce_scatter_f08_(void *sb, void *rb, F *rc, F *t, F *o, F *c, F *e) {
    t_reduce_scatter(pmpi_reduce_scatter_f08_, sb, rb, rc, t, o, c, e);
}

void mpi_comm_split_(F *c, F *col, F *k, F *n, F *e) { t_comm_split(PMPI_Comm_split_f, c, col, k, n, e); }
void mpi_comm_split_f08_(F *c, F *col, F *k, F *n, F *e) { t_comm_split(pmpi_comm_split_f08_, c, col, k, n, e); }
void mpi_comm_dup_(F *c, F *n, F *e) { t_comm_dup(PMPI_Comm_dup_f, c, n, e); }
void mpi_comm_dup_f08_(F *c, F *n, F *e) { t_comm_dup(pmpi_comm_dup_f08_, c, n, e); }
void mpi_cart_sub_(F *c, F *r, F *n, F *e) { t_cart_sub(PMPI_Cart_sub_f, c, r, n, e); }
void mpi_cart_sub_f08_(F *c, F *r, F *n, F *e) { t_cart_sub(pmpi_cart_sub_f08_, c, r, n, e); }
void mpi_comm_free_(F *c, F *e) { t_comm_free(PMPI_Comm_free_f, c, e); }
void mpi_comm_free_f08_(F *c, F *e) { t_comm_free(pmpi_comm_free_f08_, c, e); }
