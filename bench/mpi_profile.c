/* A PMPI profiling layer for bench/mpi_scaling.py (docs/distributed.md,
 * "Strong scaling"): preloaded into each rank (LD_PRELOAD), it counts the
 * collective calls and the point-to-point waits, separately for
 * MPI_COMM_WORLD (the example's own calls) and for every other communicator
 * (the library's duplicate), and the process CPU time and wall time spent
 * inside them. At MPI_Finalize each rank prints one JSON line to stderr:
 *
 *   {"mpi_profile":1,"rank":R,"cpu":S,"wall":S,"lib_collectives":N,
 *    "lib_p2p_waits":N,"world_collectives":N,"cpu_in_mpi":S,"wall_in_mpi":S,
 *    "segments":N,"critical_work":S,"by_kind":[...]}
 *
 * `cpu - cpu_in_mpi` is the rank's work without its waiting: with one core
 * per rank Open MPI busy-polls while it waits, so a rank's CPU time is its
 * wall time, and on a loaded machine the wall time measures the scheduler.
 *
 * The work between two blocking calls (a collective or a wait) is a
 * segment; every rank runs the same sequence of them (the library's step is
 * the same on every rank). `critical_work` is the sum over the segments of
 * the largest rank's CPU time in it: the run's time on idle cores less the
 * latencies, since every segment ends in a synchronisation (exact for 2
 * ranks, where every wait is with the peer; -1 when the ranks' segment
 * counts differ). `by_kind` splits it by the call that ends the segment
 * (function, communicator, element count): {"kind", "count", "own" (this
 * rank's CPU s), "max" (the sum of the maxima)}.
 * Not part of the library; built only with MPI (bench/CMakeLists.txt). */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_in, wall_in, cpu0, wall0;
static long lib_collectives, lib_waits, world_collectives;

static double clock_of(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ------------------------------------------------------------ segments */

#define MAX_KINDS 64
static char kind_name[MAX_KINDS][48];
static int n_kinds;
static double last_leave; /* CPU time when the last blocking call returned */
static double *seg_cpu;
static unsigned char *seg_kind;
static size_t n_seg, seg_cap;

static int kind_of(const char *name) {
    for (int k = 0; k < n_kinds; ++k) {
        if (strcmp(kind_name[k], name) == 0) {
            return k;
        }
    }
    if (n_kinds == MAX_KINDS) {
        return MAX_KINDS - 1;
    }
    snprintf(kind_name[n_kinds], sizeof kind_name[0], "%s", name);
    return n_kinds++;
}

static void record(const char *name, double cpu_now) {
    if (n_seg == seg_cap) {
        size_t cap = seg_cap ? 2 * seg_cap : 4096;
        double *c = realloc(seg_cpu, cap * sizeof *c);
        unsigned char *k = c ? realloc(seg_kind, cap) : NULL;
        if (c == NULL || k == NULL) {
            seg_cpu = c ? c : seg_cpu;
            return;
        }
        seg_cpu = c;
        seg_kind = k;
        seg_cap = cap;
    }
    seg_cpu[n_seg] = cpu_now - last_leave;
    seg_kind[n_seg++] = (unsigned char)kind_of(name);
}

/* ------------------------------------------------------------ wrappers */

typedef struct span {
    double cpu, wall;
} span;

static const char *comm_name(MPI_Comm comm) {
    int same = MPI_UNEQUAL;
    PMPI_Comm_compare(comm, MPI_COMM_WORLD, &same);
    return same == MPI_IDENT ? "world" : "lib";
}

/* Entering a blocking call named `fn` on comm with n elements. */
static span enter_call(const char *fn, MPI_Comm comm, int n) {
    span s = {clock_of(CLOCK_PROCESS_CPUTIME_ID), clock_of(CLOCK_MONOTONIC)};
    char name[48];
    snprintf(name, sizeof name, "%s/%s/%d", fn, comm == MPI_COMM_NULL ? "-" : comm_name(comm), n);
    record(name, s.cpu);
    return s;
}

static void leave(span s) {
    double c = clock_of(CLOCK_PROCESS_CPUTIME_ID);
    cpu_in += c - s.cpu;
    wall_in += clock_of(CLOCK_MONOTONIC) - s.wall;
    last_leave = c;
}

static void count(MPI_Comm comm) {
    if (strcmp(comm_name(comm), "world") == 0) {
        ++world_collectives;
    } else {
        ++lib_collectives;
    }
}

int MPI_Init(int *argc, char ***argv) {
    int rc = PMPI_Init(argc, argv);
    cpu0 = clock_of(CLOCK_PROCESS_CPUTIME_ID);
    wall0 = clock_of(CLOCK_MONOTONIC);
    last_leave = cpu0;
    return rc;
}

int MPI_Allreduce(const void *a, void *b, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
    span s = enter_call("Allreduce", comm, n);
    int rc = PMPI_Allreduce(a, b, n, t, op, comm);
    leave(s);
    count(comm);
    return rc;
}

int MPI_Alltoall(const void *a, int n, MPI_Datatype t, void *b, int m, MPI_Datatype u,
                 MPI_Comm comm) {
    span s = enter_call("Alltoall", comm, n);
    int rc = PMPI_Alltoall(a, n, t, b, m, u, comm);
    leave(s);
    count(comm);
    return rc;
}

int MPI_Alltoallv(const void *a, const int *n, const int *d, MPI_Datatype t, void *b, const int *m,
                  const int *e, MPI_Datatype u, MPI_Comm comm) {
    span s = enter_call("Alltoallv", comm, 0);
    int rc = PMPI_Alltoallv(a, n, d, t, b, m, e, u, comm);
    leave(s);
    count(comm);
    return rc;
}

int MPI_Allgather(const void *a, int n, MPI_Datatype t, void *b, int m, MPI_Datatype u,
                  MPI_Comm comm) {
    span s = enter_call("Allgather", comm, n);
    int rc = PMPI_Allgather(a, n, t, b, m, u, comm);
    leave(s);
    count(comm);
    return rc;
}

int MPI_Allgatherv(const void *a, int n, MPI_Datatype t, void *b, const int *m, const int *d,
                   MPI_Datatype u, MPI_Comm comm) {
    span s = enter_call("Allgatherv", comm, n);
    int rc = PMPI_Allgatherv(a, n, t, b, m, d, u, comm);
    leave(s);
    count(comm);
    return rc;
}

int MPI_Iallreduce(const void *a, void *b, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm,
                   MPI_Request *request) {
    count(comm);
    return PMPI_Iallreduce(a, b, n, t, op, comm, request);
}

int MPI_Wait(MPI_Request *r, MPI_Status *st) {
    span s = enter_call("Wait", MPI_COMM_NULL, 1);
    int rc = PMPI_Wait(r, st);
    leave(s);
    return rc;
}

int MPI_Waitall(int n, MPI_Request *r, MPI_Status *st) {
    span s = enter_call("Waitall", MPI_COMM_NULL, n);
    int rc = PMPI_Waitall(n, r, st);
    leave(s);
    ++lib_waits;
    return rc;
}

/* The sum over the segments of the largest rank's CPU time, by kind, into
 * max_by_kind (and its total); -1 when the ranks' segment counts differ. */
static double critical(double *own_by_kind, double *max_by_kind, long *count_by_kind) {
    long mine = (long)n_seg, lo = 0, hi = 0;
    PMPI_Allreduce(&mine, &lo, 1, MPI_LONG, MPI_MIN, MPI_COMM_WORLD);
    PMPI_Allreduce(&mine, &hi, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    for (size_t j = 0; j < n_seg; ++j) {
        own_by_kind[seg_kind[j]] += seg_cpu[j];
        count_by_kind[seg_kind[j]]++;
    }
    if (lo != hi || seg_cpu == NULL) {
        return -1.0;
    }
    double total = 0.0;
    const size_t chunk = 1 << 16;
    double *m = malloc(chunk * sizeof *m);
    for (size_t j = 0; m != NULL && j < n_seg; j += chunk) {
        int n = (int)(n_seg - j < chunk ? n_seg - j : chunk);
        PMPI_Allreduce(seg_cpu + j, m, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        for (int i = 0; i < n; ++i) {
            max_by_kind[seg_kind[j + (size_t)i]] += m[i];
            total += m[i];
        }
    }
    free(m);
    return m == NULL ? -1.0 : total;
}

int MPI_Finalize(void) {
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double cpu = clock_of(CLOCK_PROCESS_CPUTIME_ID), wall = clock_of(CLOCK_MONOTONIC);
    record("Finalize/-/0", cpu);
    double own[MAX_KINDS] = {0}, max[MAX_KINDS] = {0};
    long counts[MAX_KINDS] = {0};
    double crit = critical(own, max, counts);
    char by_kind[MAX_KINDS * 120] = "", *p = by_kind;
    for (int k = 0; k < n_kinds; ++k) {
        p += snprintf(p, sizeof by_kind - (size_t)(p - by_kind),
                      "%s{\"kind\":\"%s\",\"count\":%ld,\"own\":%.6f,\"max\":%.6f}", k ? "," : "",
                      kind_name[k], counts[k], own[k], crit < 0.0 ? -1.0 : max[k]);
    }
    fprintf(stderr,
            "{\"mpi_profile\":1,\"rank\":%d,\"cpu\":%.6f,\"wall\":%.6f,\"lib_collectives\":%ld,"
            "\"lib_p2p_waits\":%ld,\"world_collectives\":%ld,\"cpu_in_mpi\":%.6f,"
            "\"wall_in_mpi\":%.6f,\"segments\":%zu,\"critical_work\":%.6f,\"by_kind\":[%s]}\n",
            rank, cpu - cpu0, wall - wall0, lib_collectives, lib_waits, world_collectives, cpu_in,
            wall_in, n_seg, crit, by_kind);
    free(seg_cpu);
    free(seg_kind);
    return PMPI_Finalize();
}
