/* A PMPI profiling layer for bench/mpi_scaling.py (docs/distributed.md,
 * "Strong scaling"): preloaded into each rank (LD_PRELOAD), it counts the
 * collective calls and the point-to-point waits, separately for
 * MPI_COMM_WORLD (the example's own calls) and for every other communicator
 * (the library's duplicate), and the process CPU time and wall time spent
 * inside them. At MPI_Finalize each rank prints one JSON line to stderr:
 *
 *   {"mpi_profile":1,"rank":R,"cpu":S,"wall":S,"lib_collectives":N,
 *    "lib_p2p_waits":N,"world_collectives":N,"cpu_in_mpi":S,"wall_in_mpi":S}
 *
 * `cpu - cpu_in_mpi` is the rank's work without its waiting: with one core
 * per rank Open MPI busy-polls while it waits, so a rank's CPU time is its
 * wall time, and on a loaded machine the wall time measures the scheduler.
 * Not part of the library; built only with MPI (bench/CMakeLists.txt). */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <time.h>

static double cpu_in, wall_in, cpu0, wall0;
static long lib_collectives, lib_waits, world_collectives;

static double clock_of(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct span {
    double cpu, wall;
} span;

static span enter(void) {
    span s = {clock_of(CLOCK_PROCESS_CPUTIME_ID), clock_of(CLOCK_MONOTONIC)};
    return s;
}

static void leave(span s) {
    cpu_in += clock_of(CLOCK_PROCESS_CPUTIME_ID) - s.cpu;
    wall_in += clock_of(CLOCK_MONOTONIC) - s.wall;
}

static void count(MPI_Comm comm) {
    int same = MPI_UNEQUAL;
    PMPI_Comm_compare(comm, MPI_COMM_WORLD, &same);
    if (same == MPI_IDENT) {
        ++world_collectives;
    } else {
        ++lib_collectives;
    }
}

int MPI_Init(int *argc, char ***argv) {
    int rc = PMPI_Init(argc, argv);
    cpu0 = clock_of(CLOCK_PROCESS_CPUTIME_ID);
    wall0 = clock_of(CLOCK_MONOTONIC);
    return rc;
}

int MPI_Allreduce(const void *a, void *b, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
    span s = enter();
    int rc = PMPI_Allreduce(a, b, n, t, op, comm);
    leave(s);
    count(comm);
    return rc;
}

int MPI_Alltoall(const void *a, int n, MPI_Datatype t, void *b, int m, MPI_Datatype u,
                 MPI_Comm comm) {
    span s = enter();
    int rc = PMPI_Alltoall(a, n, t, b, m, u, comm);
    leave(s);
    count(comm);
    return rc;
}

int MPI_Alltoallv(const void *a, const int *n, const int *d, MPI_Datatype t, void *b, const int *m,
                  const int *e, MPI_Datatype u, MPI_Comm comm) {
    span s = enter();
    int rc = PMPI_Alltoallv(a, n, d, t, b, m, e, u, comm);
    leave(s);
    count(comm);
    return rc;
}

int MPI_Allgather(const void *a, int n, MPI_Datatype t, void *b, int m, MPI_Datatype u,
                  MPI_Comm comm) {
    span s = enter();
    int rc = PMPI_Allgather(a, n, t, b, m, u, comm);
    leave(s);
    count(comm);
    return rc;
}

int MPI_Allgatherv(const void *a, int n, MPI_Datatype t, void *b, const int *m, const int *d,
                   MPI_Datatype u, MPI_Comm comm) {
    span s = enter();
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
    span s = enter();
    int rc = PMPI_Wait(r, st);
    leave(s);
    return rc;
}

int MPI_Waitall(int n, MPI_Request *r, MPI_Status *st) {
    span s = enter();
    int rc = PMPI_Waitall(n, r, st);
    leave(s);
    ++lib_waits;
    return rc;
}

int MPI_Finalize(void) {
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr,
            "{\"mpi_profile\":1,\"rank\":%d,\"cpu\":%.6f,\"wall\":%.6f,\"lib_collectives\":%ld,"
            "\"lib_p2p_waits\":%ld,\"world_collectives\":%ld,\"cpu_in_mpi\":%.6f,"
            "\"wall_in_mpi\":%.6f}\n",
            rank, clock_of(CLOCK_PROCESS_CPUTIME_ID) - cpu0, clock_of(CLOCK_MONOTONIC) - wall0,
            lib_collectives, lib_waits, world_collectives, cpu_in, wall_in);
    return PMPI_Finalize();
}
