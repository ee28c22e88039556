/* augur's MPI tracer (Open MPI, Fortran bindings `mpif.h` and `use mpi`): linked into
   the counting build, it defines the Fortran entry points (mpi_send_, ...) and calls
   Open MPI's profiling aliases of its own Fortran bindings (PMPI_Send_f, ...). At each
   call it writes the block counters' change since the previous call (a compute segment)
   and the call (an event) to the rank's trace, `$AUGUR_MPI_TRACE.<rank>`; a pair equal to
   the one before only adds to its repeat count. Rank r > 0 writes its counts file as
   `$AUGUR_COUNTS_FILE.<r>` (rank 0 keeps the name).

   Trace lines: `augur-mpi-trace 1 RANK SIZE`, then per record `R REPEAT`, `S i:d ...`
   (counter index and change), `E OP PEER TAG BYTES BYTES2 COMM REQUEST` (-1 where it does
   not apply; PEER and roots as ranks of MPI_COMM_WORLD), and `end`. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int64_t augur_counts[];
extern int64_t augur_ncounts;

typedef MPI_Fint F;

void PMPI_Init_f(F *ierr);
void PMPI_Init_thread_f(F *required, F *provided, F *ierr);
void PMPI_Finalize_f(F *ierr);
void PMPI_Send_f(void *b, F *n, F *t, F *dest, F *tag, F *comm, F *ierr);
void PMPI_Ssend_f(void *b, F *n, F *t, F *dest, F *tag, F *comm, F *ierr);
void PMPI_Recv_f(void *b, F *n, F *t, F *src, F *tag, F *comm, F *status, F *ierr);
void PMPI_Isend_f(void *b, F *n, F *t, F *dest, F *tag, F *comm, F *req, F *ierr);
void PMPI_Irecv_f(void *b, F *n, F *t, F *src, F *tag, F *comm, F *req, F *ierr);
void PMPI_Wait_f(F *req, F *status, F *ierr);
void PMPI_Waitall_f(F *count, F *reqs, F *statuses, F *ierr);
void PMPI_Sendrecv_f(void *sb, F *sn, F *st, F *dest, F *stag, void *rb, F *rn, F *rt,
                     F *src, F *rtag, F *comm, F *status, F *ierr);
void PMPI_Barrier_f(F *comm, F *ierr);
void PMPI_Bcast_f(void *b, F *n, F *t, F *root, F *comm, F *ierr);
void PMPI_Reduce_f(void *sb, void *rb, F *n, F *t, F *op, F *root, F *comm, F *ierr);
void PMPI_Allreduce_f(void *sb, void *rb, F *n, F *t, F *op, F *comm, F *ierr);
void PMPI_Gather_f(void *sb, F *sn, F *st, void *rb, F *rn, F *rt, F *root, F *comm, F *ierr);
void PMPI_Scatter_f(void *sb, F *sn, F *st, void *rb, F *rn, F *rt, F *root, F *comm, F *ierr);
void PMPI_Allgather_f(void *sb, F *sn, F *st, void *rb, F *rn, F *rt, F *comm, F *ierr);
void PMPI_Alltoall_f(void *sb, F *sn, F *st, void *rb, F *rn, F *rt, F *comm, F *ierr);

static FILE *trace;
static int64_t *prev;
static char *seg, *last_seg, *last_ev;
static size_t seg_cap;
static long repeat;

/* The counters' change since the previous record, as text (`S i:d ...`). */
static void segment_text(void) {
    size_t len = 0;
    int64_t n = augur_ncounts;
    len += (size_t)snprintf(seg, seg_cap, "S");
    for (int64_t i = 0; i < n; i++) {
        int64_t d = augur_counts[i] - prev[i];
        if (d == 0) continue;
        if (len + 48 > seg_cap) {
            seg_cap *= 2;
            seg = realloc(seg, seg_cap);
            last_seg = realloc(last_seg, seg_cap);
            if (!seg || !last_seg) { trace = NULL; return; }
        }
        len += (size_t)snprintf(seg + len, seg_cap - len, " %ld:%ld", (long)i, (long)d);
        prev[i] = augur_counts[i];
    }
}

static void flush_record(void) {
    if (trace && repeat > 0)
        fprintf(trace, "R %ld\n%s\n%s\n", repeat, last_seg, last_ev);
    repeat = 0;
}

/* A world rank for `rank` of communicator `comm` (-1 stays -1). */
static int world(F comm, int rank) {
    if (rank < 0) return rank;
    MPI_Comm c = MPI_Comm_f2c(comm);
    if (c == MPI_COMM_WORLD) return rank;
    MPI_Group g, w;
    int out = rank;
    PMPI_Comm_group(c, &g);
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

/* Records the segment before an MPI call and the call. */
static void event(const char *op, int peer, int tag, long b1, long b2, F comm, long req) {
    if (!trace) return;
    char ev[160];
    segment_text();
    if (!trace) return;
    snprintf(ev, sizeof ev, "E %s %d %d %ld %ld %d %ld", op, world(comm, peer), tag, b1, b2,
             (int)comm, req);
    if (repeat > 0 && strcmp(ev, last_ev) == 0 && strcmp(seg, last_seg) == 0) {
        repeat++;
        return;
    }
    flush_record();
    strcpy(last_ev, ev);
    strcpy(last_seg, seg);
    repeat = 1;
}

static void open_trace(void) {
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
    seg_cap = 1 << 16;
    seg = malloc(seg_cap);
    last_seg = malloc(seg_cap);
    last_ev = malloc(160);
    prev = calloc((size_t)augur_ncounts + 1, sizeof(int64_t));
    trace = (seg && last_seg && last_ev && prev) ? fopen(path, "w") : NULL;
    if (trace) fprintf(trace, "augur-mpi-trace 1 %d %d\n", rank, size);
    event("init", -1, -1, 0, 0, 0, -1);
}

void mpi_init_(F *ierr) {
    PMPI_Init_f(ierr);
    open_trace();
}

void mpi_init_thread_(F *required, F *provided, F *ierr) {
    PMPI_Init_thread_f(required, provided, ierr);
    open_trace();
}

void mpi_finalize_(F *ierr) {
    event("finalize", -1, -1, 0, 0, 0, -1);
    flush_record();
    if (trace) {
        fprintf(trace, "end\n");
        fclose(trace);
        trace = NULL;
    }
    PMPI_Finalize_f(ierr);
}

void mpi_send_(void *b, F *n, F *t, F *dest, F *tag, F *comm, F *ierr) {
    event("send", *dest, *tag, bytes(*n, *t), -1, *comm, -1);
    PMPI_Send_f(b, n, t, dest, tag, comm, ierr);
}

void mpi_ssend_(void *b, F *n, F *t, F *dest, F *tag, F *comm, F *ierr) {
    event("send", *dest, *tag, bytes(*n, *t), -1, *comm, -1);
    PMPI_Ssend_f(b, n, t, dest, tag, comm, ierr);
}

void mpi_recv_(void *b, F *n, F *t, F *src, F *tag, F *comm, F *status, F *ierr) {
    event("recv", *src, *tag, bytes(*n, *t), -1, *comm, -1);
    PMPI_Recv_f(b, n, t, src, tag, comm, status, ierr);
}

void mpi_isend_(void *b, F *n, F *t, F *dest, F *tag, F *comm, F *req, F *ierr) {
    PMPI_Isend_f(b, n, t, dest, tag, comm, req, ierr);
    event("isend", *dest, *tag, bytes(*n, *t), -1, *comm, *req);
}

void mpi_irecv_(void *b, F *n, F *t, F *src, F *tag, F *comm, F *req, F *ierr) {
    PMPI_Irecv_f(b, n, t, src, tag, comm, req, ierr);
    event("irecv", *src, *tag, bytes(*n, *t), -1, *comm, *req);
}

void mpi_wait_(F *req, F *status, F *ierr) {
    event("wait", -1, -1, 0, -1, 0, *req);
    PMPI_Wait_f(req, status, ierr);
}

void mpi_waitall_(F *count, F *reqs, F *statuses, F *ierr) {
    event("waitall", -1, -1, *count, -1, 0, -1);
    PMPI_Waitall_f(count, reqs, statuses, ierr);
}

void mpi_sendrecv_(void *sb, F *sn, F *st, F *dest, F *stag, void *rb, F *rn, F *rt, F *src,
                   F *rtag, F *comm, F *status, F *ierr) {
    /* The source goes in the request column: one line for both halves. */
    event("sendrecv", *dest, *stag, bytes(*sn, *st), bytes(*rn, *rt), *comm,
          world(*comm, *src));
    PMPI_Sendrecv_f(sb, sn, st, dest, stag, rb, rn, rt, src, rtag, comm, status, ierr);
}

void mpi_barrier_(F *comm, F *ierr) {
    event("barrier", -1, -1, 0, -1, *comm, -1);
    PMPI_Barrier_f(comm, ierr);
}

void mpi_bcast_(void *b, F *n, F *t, F *root, F *comm, F *ierr) {
    event("bcast", *root, -1, bytes(*n, *t), -1, *comm, -1);
    PMPI_Bcast_f(b, n, t, root, comm, ierr);
}

void mpi_reduce_(void *sb, void *rb, F *n, F *t, F *op, F *root, F *comm, F *ierr) {
    event("reduce", *root, -1, bytes(*n, *t), -1, *comm, -1);
    PMPI_Reduce_f(sb, rb, n, t, op, root, comm, ierr);
}

void mpi_allreduce_(void *sb, void *rb, F *n, F *t, F *op, F *comm, F *ierr) {
    event("allreduce", -1, -1, bytes(*n, *t), -1, *comm, -1);
    PMPI_Allreduce_f(sb, rb, n, t, op, comm, ierr);
}

void mpi_gather_(void *sb, F *sn, F *st, void *rb, F *rn, F *rt, F *root, F *comm, F *ierr) {
    event("gather", *root, -1, bytes(*sn, *st), bytes(*rn, *rt), *comm, -1);
    PMPI_Gather_f(sb, sn, st, rb, rn, rt, root, comm, ierr);
}

void mpi_scatter_(void *sb, F *sn, F *st, void *rb, F *rn, F *rt, F *root, F *comm, F *ierr) {
    event("scatter", *root, -1, bytes(*sn, *st), bytes(*rn, *rt), *comm, -1);
    PMPI_Scatter_f(sb, sn, st, rb, rn, rt, root, comm, ierr);
}

void mpi_allgather_(void *sb, F *sn, F *st, void *rb, F *rn, F *rt, F *comm, F *ierr) {
    event("allgather", -1, -1, bytes(*sn, *st), bytes(*rn, *rt), *comm, -1);
    PMPI_Allgather_f(sb, sn, st, rb, rn, rt, comm, ierr);
}

void mpi_alltoall_(void *sb, F *sn, F *st, void *rb, F *rn, F *rt, F *comm, F *ierr) {
    event("alltoall", -1, -1, bytes(*sn, *st), bytes(*rn, *rt), *comm, -1);
    PMPI_Alltoall_f(sb, sn, st, rb, rn, rt, comm, ierr);
}
