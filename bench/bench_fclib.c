/* bench_fclib: the local problems of FCLIB files solved by nscd's fc3d methods
 * (Gauss–Seidel, Newton, AUTO, optionally Jacobi) and, when this build found
 * Siconos numerics (libsiconos-numerics-dev), by Siconos' NSGS, NSN-AC
 * (semismooth Newton on Alart–Curnier) and ADMM, side by side, all to the
 * same tolerance. See docs/benchmarks.md "FCLIB problems side by side with
 * Siconos".
 *
 * Usage: bench_fclib [--tolerance T] [--repeat N] [--solvers LIST]
 *                    [--max-iterations K] [--max-newton K] [--timeout S]
 *                    [--anderson-memory M] DIR_OR_FILE...
 *   LIST: comma-separated names among gs, gs_aa (Gauss–Seidel with Anderson
 *         acceleration of memory M, default 5), jacobi, newton, auto, prox (nscd) and
 *         nsgs, nsn_ac, admm, siconos_prox (Siconos' proximal point method,
 *         its inner solver at Siconos' defaults). Default: gs,newton,auto
 *         and, when built, nsgs,nsn_ac,admm.
 *   A directory stands for its *.hdf5 files, in name order. Files that hold
 *   no local problem (FCLIB global problems) are listed under "skipped".
 *   Defaults: T = 1e-8, N = 3, K = 100000 sweeps or iterations for the
 *   iterative solvers, 1000 steps for the Newton ones, S = 120 s per
 *   problem and solver (all repeats).
 *
 * Each problem is read once by libnscd_fclib (W in 3x3 block CSR form, q, mu);
 * Siconos gets the same W as a sparse block matrix (the same local form
 * u = W r + q, normal first; FCLIB's convention is Siconos' own). Every run
 * starts from r = 0 and happens in a child process (fork), so that a solver
 * that aborts or hangs past the timeout costs only its own row. "seconds" is
 * the median over the repeats of the child's CPU time of the solve call
 * alone (single-threaded solvers: insensitive to other processes sharing the
 * machine); "wall_seconds" the median wall time. Unless the caller set them,
 * the program re-executes itself with OPENBLAS_NUM_THREADS=1 and
 * OMP_NUM_THREADS=1: a BLAS thread pool's spinning threads would count in the
 * CPU time.
 *
 * E1 is computed here, by one function, for every engine's result r and its
 * u = W r + q: E1 = ||r - P_K(r - u~)|| / (1 + ||q||) with u~_j = (u_N + mu
 * ||u_T||, u_T) and P_K the projection onto contact j's friction cone.
 * "fclib_merit" is libfclib's own fclib_merit_local (MERIT_1) of the same r.
 * "merit_nscd" is nscd's own merit (nscd runs only), "siconos_error" Siconos'
 * own error (Siconos runs only). The performance profile at the end: for tau
 * in {1, 2, 4, 10}, the fraction of the problems each solver solves (E1 <=
 * 1e-6) within tau times the best time of any solver that solved it.
 *
 * The JSON goes to standard output; everything a solver library prints goes
 * to standard error. Exit status: 0, 1 when no problem could be read, 2 for
 * bad arguments. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "nscd/fc3d.h"
#include "nscd/fclib.h"

#include "../tests/common/friction_cone_reference.h"

#ifdef BF_HAVE_SICONOS
#include <CSparseMatrix.h>
#include <FrictionContactProblem.h>
#include <Friction_cst.h>
#include <NonSmoothDrivers.h>
#include <NumericsMatrix.h>
#include <SolverOptions.h>
#include <SparseBlockMatrix.h>
#endif

#define MAX_REPEAT 101
#define SOLVED_E1 1e-6

enum { ENGINE_NSCD, ENGINE_SICONOS };

typedef struct solver_def {
    const char *name;
    int engine;
    int id;     /* nscd method, or Siconos solver id */
    int newton; /* bounded by --max-newton */
    int accel;  /* nscd: nscd_fc3d_options.acceleration */
} solver_def;

static const solver_def ALL_SOLVERS[] = {
    {"gs", ENGINE_NSCD, NSCD_FC3D_GAUSS_SEIDEL, 0, NSCD_FC3D_ACCEL_NONE},
    {"gs_aa", ENGINE_NSCD, NSCD_FC3D_GAUSS_SEIDEL, 0, NSCD_FC3D_ACCEL_ANDERSON},
    {"jacobi", ENGINE_NSCD, NSCD_FC3D_JACOBI_BLEND, 0, 0},
    {"newton", ENGINE_NSCD, NSCD_FC3D_NEWTON, 1, 0},
    {"auto", ENGINE_NSCD, NSCD_FC3D_AUTO, 0, 0},
    {"prox", ENGINE_NSCD, NSCD_FC3D_PROX, 1, 0},
#ifdef BF_HAVE_SICONOS
    {"nsgs", ENGINE_SICONOS, SICONOS_FRICTION_3D_NSGS, 0, 0},
    {"nsn_ac", ENGINE_SICONOS, SICONOS_FRICTION_3D_NSN_AC, 1, 0},
    {"admm", ENGINE_SICONOS, SICONOS_FRICTION_3D_ADMM, 0, 0},
    {"siconos_prox", ENGINE_SICONOS, SICONOS_FRICTION_3D_PROX, 1, 0},
#endif
};
#define N_ALL_SOLVERS ((int)(sizeof ALL_SOLVERS / sizeof ALL_SOLVERS[0]))

typedef struct options {
    double tolerance;
    int repeat;
    int max_iterations, max_newton;
    double timeout;
    const solver_def *solvers[N_ALL_SOLVERS];
    int n_solvers;
    int anderson_memory; /* gs_aa */
} options;

/* One problem as read. */
typedef struct problem {
    int32_t n, n_blocks;
    int32_t *row_ptr, *col_idx;
    double *blocks, *q, *mu;
    nscd_fclib_problem *handle;
} problem;

/* What the child sends back for one (problem, solver). */
typedef struct run_header {
    int32_t status_code; /* nscd status, or Siconos info */
    int32_t converged;   /* the solver's own verdict */
    int32_t iterations;
    int32_t newton_iterations;
    double own_merit; /* nscd merit or Siconos error */
    double seconds, wall_seconds;
} run_header;

/* The row of the JSON. */
typedef struct run_result {
    const solver_def *solver;
    char status[96];
    int have_result;
    run_header header;
    double e1, fclib_merit;
} run_result;

static double now(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int compare_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, compare_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* u = W r + q with W in 3x3 block CSR form. */
static void velocity(const problem *p, const double *r, double *u) {
    for (int32_t i = 0; i < p->n; ++i) {
        for (int a = 0; a < 3; ++a) {
            u[3 * i + a] = p->q[3 * i + a];
        }
        for (int32_t b = p->row_ptr[i]; b < p->row_ptr[i + 1]; ++b) {
            const double *B = p->blocks + 9 * (size_t)b;
            const double *rj = r + 3 * (size_t)p->col_idx[b];
            for (int a = 0; a < 3; ++a) {
                u[3 * i + a] += B[3 * a] * rj[0] + B[3 * a + 1] * rj[1] + B[3 * a + 2] * rj[2];
            }
        }
    }
}

/* E1 = ||r - P_K(r - u~)|| / (1 + ||q||), the one measure of every engine's r. */
static double natural_map_error(const problem *p, const double *r, double *u_work) {
    velocity(p, r, u_work);
    double sum = 0.0, qq = 0.0;
    for (int32_t j = 0; j < p->n; ++j) {
        sum += reference_coulomb_residual2(r + 3 * (size_t)j, u_work + 3 * (size_t)j, p->mu[j]);
        for (int a = 0; a < 3; ++a) {
            qq += p->q[3 * j + a] * p->q[3 * j + a];
        }
    }
    return sqrt(sum) / (1.0 + sqrt(qq));
}

/* ------------------------------------------------------------------ solvers */

static void solve_nscd(const problem *p, const solver_def *s, const options *o, double *r,
                       double *u, run_header *h) {
    nscd_fc3d_options opts;
    nscd_fc3d_options_init(&opts, sizeof opts);
    opts.method = s->id;
    if (s->id == NSCD_FC3D_GAUSS_SEIDEL || s->id == NSCD_FC3D_JACOBI_BLEND) {
        opts.acceleration = s->accel;
        opts.anderson_memory = o->anderson_memory;
    }
    opts.tolerance = o->tolerance;
    opts.max_iterations = s->newton ? o->max_newton : o->max_iterations;
    opts.warm_start = 0;
    nscd_fc3d_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    memset(r, 0, 3 * (size_t)p->n * sizeof *r);
    double c0 = now(CLOCK_PROCESS_CPUTIME_ID), w0 = now(CLOCK_MONOTONIC);
    nscd_status st = nscd_fc3d_solve_bsr(p->n, p->row_ptr, p->col_idx, p->blocks, p->q, p->mu,
                                         &opts, r, u, &info);
    h->seconds = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
    h->wall_seconds = now(CLOCK_MONOTONIC) - w0;
    h->status_code = (int32_t)st;
    h->converged = st == NSCD_OK && info.converged;
    h->iterations = info.iterations;
    h->newton_iterations = info.newton_iterations;
    h->own_merit = info.merit;
}

#ifdef BF_HAVE_SICONOS
/* The same W as a Siconos sparse block matrix (3x3 blocks). */
static NumericsMatrix *siconos_matrix(const problem *p) {
    int m = 3 * p->n;
    NumericsMatrix *T = NM_create(NM_SPARSE, m, m);
    NM_triplet_alloc(T, 9 * (CS_INT)p->n_blocks);
    CSparseMatrix *triplet = NM_triplet(T);
    for (int32_t i = 0; i < p->n; ++i) {
        for (int32_t b = p->row_ptr[i]; b < p->row_ptr[i + 1]; ++b) {
            for (int a = 0; a < 3; ++a) {
                for (int c = 0; c < 3; ++c) {
                    CSparseMatrix_entry(triplet, 3 * i + a, 3 * p->col_idx[b] + c,
                                        p->blocks[9 * (size_t)b + 3 * (size_t)a + (size_t)c]);
                }
            }
        }
    }
    SparseBlockStructuredMatrix *sbm = SBM_new();
    if (SBM_from_csparse(3, NM_csc(T), sbm) != 0) {
        NM_free(T);
        return NULL;
    }
    NM_free(T);
    return NM_new_SBM(m, m, sbm);
}

static void solve_siconos(const problem *p, const solver_def *s, const options *o, double *r,
                          double *u, run_header *h) {
    NumericsMatrix *W = siconos_matrix(p);
    if (!W) {
        h->status_code = -1000;
        return;
    }
    FrictionContactProblem fc;
    memset(&fc, 0, sizeof fc);
    fc.dimension = 3;
    fc.numberOfContacts = p->n;
    fc.M = W;
    fc.q = p->q;
    fc.mu = p->mu;
    SolverOptions *so = solver_options_create(s->id);
    so->iparam[SICONOS_IPARAM_MAX_ITER] = s->newton ? o->max_newton : o->max_iterations;
    so->dparam[SICONOS_DPARAM_TOL] = o->tolerance;
    memset(r, 0, 3 * (size_t)p->n * sizeof *r);
    memset(u, 0, 3 * (size_t)p->n * sizeof *u);
    double c0 = now(CLOCK_PROCESS_CPUTIME_ID), w0 = now(CLOCK_MONOTONIC);
    int info = fc3d_driver(&fc, r, u, so);
    h->seconds = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
    h->wall_seconds = now(CLOCK_MONOTONIC) - w0;
    h->status_code = info;
    h->converged = info == 0;
    h->iterations = so->iparam[SICONOS_IPARAM_ITER_DONE];
    h->newton_iterations = s->newton ? h->iterations : 0;
    h->own_merit = so->dparam[SICONOS_DPARAM_RESIDU];
    solver_options_delete(so);
    NM_free(W);
}
#endif

/* ------------------------------------------------------------------ child runs */

static int write_all(int fd, const void *data, size_t size) {
    const char *c = data;
    while (size > 0) {
        ssize_t k = write(fd, c, size);
        if (k < 0 && errno == EINTR) {
            continue;
        }
        if (k <= 0) {
            return -1;
        }
        c += k, size -= (size_t)k;
    }
    return 0;
}

static int read_all(int fd, void *data, size_t size) {
    char *c = data;
    while (size > 0) {
        ssize_t k = read(fd, c, size);
        if (k < 0 && errno == EINTR) {
            continue;
        }
        if (k <= 0) {
            return -1;
        }
        c += k, size -= (size_t)k;
    }
    return 0;
}

/* Runs the repeats of one solver on one problem in a child; fills res and r. */
static void run_one(const problem *p, const solver_def *s, const options *o, double *r,
                    run_result *res) {
    size_t n3 = 3 * (size_t)p->n;
    memset(res, 0, sizeof *res);
    res->solver = s;
    res->e1 = res->fclib_merit = NAN;
    int fds[2];
    if (pipe(fds) != 0) {
        snprintf(res->status, sizeof res->status, "pipe failed");
        return;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]), close(fds[1]);
        snprintf(res->status, sizeof res->status, "fork failed");
        return;
    }
    if (pid == 0) {
        close(fds[0]);
        alarm((unsigned)ceil(o->timeout));
        double *u = malloc(n3 * sizeof *u);
        double secs[MAX_REPEAT], walls[MAX_REPEAT];
        run_header h;
        memset(&h, 0, sizeof h);
        for (int k = 0; k < o->repeat; ++k) {
            memset(&h, 0, sizeof h);
            if (s->engine == ENGINE_NSCD) {
                solve_nscd(p, s, o, r, u, &h);
            }
#ifdef BF_HAVE_SICONOS
            else {
                solve_siconos(p, s, o, r, u, &h);
            }
#endif
            secs[k] = h.seconds, walls[k] = h.wall_seconds;
        }
        h.seconds = median(secs, o->repeat);
        h.wall_seconds = median(walls, o->repeat);
        int bad = write_all(fds[1], &h, sizeof h) || write_all(fds[1], r, n3 * sizeof *r);
        _exit(bad ? 3 : 0);
    }
    close(fds[1]);
    int got = read_all(fds[0], &res->header, sizeof res->header) == 0 &&
              read_all(fds[0], r, n3 * sizeof *r) == 0;
    close(fds[0]);
    int wstatus = 0;
    while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
    }
    if (!got) {
        if (WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGALRM) {
            snprintf(res->status, sizeof res->status, "timeout");
        } else if (WIFSIGNALED(wstatus)) {
            snprintf(res->status, sizeof res->status, "crashed (signal %d)", WTERMSIG(wstatus));
        } else {
            snprintf(res->status, sizeof res->status, "exited (%d)",
                     WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1);
        }
        return;
    }
    res->have_result = 1;
    if (s->engine == ENGINE_NSCD) {
        snprintf(res->status, sizeof res->status, "%s",
                 res->header.converged ? "converged"
                                       : nscd_status_string((nscd_status)res->header.status_code));
    } else if (res->header.status_code == -1000) {
        res->have_result = 0;
        snprintf(res->status, sizeof res->status, "matrix conversion failed");
        return;
    } else {
        snprintf(res->status, sizeof res->status, res->header.converged ? "converged" : "info %d",
                 (int)res->header.status_code);
    }
    int finite = 1;
    for (size_t k = 0; k < n3; ++k) {
        finite = finite && isfinite(r[k]);
    }
    if (finite) {
        double *u = malloc(n3 * sizeof *u);
        if (u) {
            res->e1 = natural_map_error(p, r, u);
        }
        free(u);
        double m = NAN;
        if (nscd_fclib_problem_merit(p->handle, r, &m) == NSCD_OK) {
            res->fclib_merit = m;
        }
    }
}

/* ------------------------------------------------------------------ input */

static void free_problem(problem *p) {
    free(p->row_ptr), free(p->col_idx), free(p->blocks), free(p->q), free(p->mu);
    nscd_fclib_problem_destroy(p->handle);
    memset(p, 0, sizeof *p);
}

/* 0: read; otherwise the reason is in *why. */
static int read_problem(const char *path, problem *p, const char **why) {
    memset(p, 0, sizeof *p);
    if (nscd_fclib_problem_create(NULL, &p->handle) != NSCD_OK) {
        *why = "out of memory";
        return -1;
    }
    if (nscd_fclib_read(p->handle, path) != NSCD_OK) {
        *why = nscd_fclib_problem_last_error(p->handle);
        return -1;
    }
    nscd_fclib_problem_get_sizes(p->handle, &p->n, &p->n_blocks, NULL);
    size_t n = (size_t)p->n, nb = (size_t)p->n_blocks;
    p->row_ptr = malloc((n + 1) * sizeof *p->row_ptr);
    p->col_idx = malloc((nb ? nb : 1) * sizeof *p->col_idx);
    p->blocks = malloc((nb ? 9 * nb : 1) * sizeof *p->blocks);
    p->q = malloc(3 * n * sizeof *p->q);
    p->mu = malloc(n * sizeof *p->mu);
    if (!p->row_ptr || !p->col_idx || !p->blocks || !p->q || !p->mu ||
        nscd_fclib_problem_get_bsr(p->handle, p->row_ptr, p->col_idx, p->blocks, p->q, p->mu) !=
            NSCD_OK) {
        *why = "out of memory";
        return -1;
    }
    return 0;
}

static int compare_string(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Appends path (a file) or the *.hdf5 files of path (a directory, sorted). */
static void collect(const char *path, char ***files, int *n_files) {
    DIR *dir = opendir(path);
    if (!dir) {
        *files = realloc(*files, (size_t)(*n_files + 1) * sizeof **files);
        (*files)[(*n_files)++] = strdup(path);
        return;
    }
    int first = *n_files;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len > 5 && strcmp(e->d_name + len - 5, ".hdf5") == 0) {
            size_t size = strlen(path) + len + 2;
            char *full = malloc(size);
            snprintf(full, size, "%s/%s", path, e->d_name);
            *files = realloc(*files, (size_t)(*n_files + 1) * sizeof **files);
            (*files)[(*n_files)++] = full;
        }
    }
    closedir(dir);
    qsort(*files + first, (size_t)(*n_files - first), sizeof **files, compare_string);
}

/* ------------------------------------------------------------------ output */

static void json_string(FILE *out, const char *s) {
    fputc('"', out);
    for (; *s; ++s) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            fprintf(out, "\\%c", c);
        } else if (c < 0x20) {
            fprintf(out, "\\u%04x", c);
        } else {
            fputc(c, out);
        }
    }
    fputc('"', out);
}

static void json_number(FILE *out, double v) {
    if (isfinite(v)) {
        fprintf(out, "%.6g", v);
    } else {
        fputs("null", out);
    }
}

static const char *engine_name(int engine) { return engine == ENGINE_NSCD ? "nscd" : "siconos"; }

static int usage(const char *message) {
    fprintf(stderr,
            "bench_fclib: %s\n"
            "usage: bench_fclib [--tolerance T] [--repeat N] [--solvers LIST]\n"
            "                   [--max-iterations K] [--max-newton K] [--timeout S]\n"
            "                   DIR_OR_FILE...\n",
            message);
    return 2;
}

static int parse_solvers(const char *text, options *o) {
    o->n_solvers = 0;
    char *copy = strdup(text), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int found = 0;
        for (int k = 0; k < N_ALL_SOLVERS && !found; ++k) {
            if (strcmp(t, ALL_SOLVERS[k].name) == 0) {
                found = 1;
                if (o->n_solvers < N_ALL_SOLVERS) {
                    o->solvers[o->n_solvers++] = &ALL_SOLVERS[k];
                }
            }
        }
        if (!found) {
            free(copy);
            return -1;
        }
    }
    free(copy);
    return o->n_solvers > 0 ? 0 : -1;
}

int main(int argc, char **argv) {
    /* One BLAS / OpenMP thread for every engine (as the other benchmarks:
     * docs/benchmarks.md), unless the caller chose: OpenBLAS reads these when
     * it is loaded, before main, hence one re-execution with them set. */
    if (!getenv("OPENBLAS_NUM_THREADS") || !getenv("OMP_NUM_THREADS")) {
        setenv("OPENBLAS_NUM_THREADS", "1", 0);
        setenv("OMP_NUM_THREADS", "1", 0);
        execv("/proc/self/exe", argv);
        /* Not re-executed: go on with whatever the libraries chose. */
    }
    options o = {1e-8, 3, 100000, 1000, 120.0, {NULL}, 0, 5};
    for (int k = 0; k < N_ALL_SOLVERS; ++k) {
        if (strcmp(ALL_SOLVERS[k].name, "jacobi") != 0 &&
            strcmp(ALL_SOLVERS[k].name, "gs_aa") != 0 && strcmp(ALL_SOLVERS[k].name, "prox") != 0 &&
            strcmp(ALL_SOLVERS[k].name, "siconos_prox") != 0) { /* opt-in: --solvers */
            o.solvers[o.n_solvers++] = &ALL_SOLVERS[k];
        }
    }
    char **files = NULL;
    int n_files = 0;
    for (int k = 1; k < argc; ++k) {
        const char *a = argv[k], *v = k + 1 < argc ? argv[k + 1] : NULL;
        char *end = NULL;
        if (strcmp(a, "--tolerance") == 0 && v) {
            o.tolerance = strtod(v, &end);
            if (*end || !(o.tolerance > 0.0) || !isfinite(o.tolerance)) {
                return usage("bad --tolerance");
            }
            ++k;
        } else if (strcmp(a, "--timeout") == 0 && v) {
            o.timeout = strtod(v, &end);
            if (*end || !(o.timeout >= 1.0) || o.timeout > 1e6) {
                return usage("bad --timeout");
            }
            ++k;
        } else if ((strcmp(a, "--repeat") == 0 || strcmp(a, "--max-iterations") == 0 ||
                    strcmp(a, "--max-newton") == 0) &&
                   v) {
            long n = strtol(v, &end, 10);
            if (*end || n < 1 || n > 100000000 || (strcmp(a, "--repeat") == 0 && n > MAX_REPEAT)) {
                return usage("bad count");
            }
            if (strcmp(a, "--repeat") == 0) {
                o.repeat = (int)n;
            } else if (strcmp(a, "--max-iterations") == 0) {
                o.max_iterations = (int)n;
            } else {
                o.max_newton = (int)n;
            }
            ++k;
        } else if (strcmp(a, "--anderson-memory") == 0 && v) {
            long n = strtol(v, &end, 10);
            if (*end || n < 1 || n > NSCD_FC3D_ANDERSON_MAX_MEMORY) {
                return usage("bad --anderson-memory");
            }
            o.anderson_memory = (int)n;
            ++k;
        } else if (strcmp(a, "--solvers") == 0 && v) {
            if (parse_solvers(v, &o) != 0) {
                return usage("unknown solver in --solvers (or Siconos not built)");
            }
            ++k;
        } else if (a[0] == '-') {
            return usage("unknown option");
        } else {
            collect(a, &files, &n_files);
        }
    }
    if (n_files == 0) {
        return usage("no file or directory given");
    }

    /* Solver libraries may print: keep standard output for the JSON alone. */
    fflush(stdout);
    int json_fd = dup(STDOUT_FILENO);
    FILE *out = json_fd >= 0 ? fdopen(json_fd, "w") : NULL;
    if (!out || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        fprintf(stderr, "bench_fclib: cannot set up the output\n");
        return 1;
    }

    int ns = o.n_solvers, n_read = 0;
    double *times = malloc((size_t)n_files * (size_t)ns * sizeof *times); /* NAN: not solved */
    fprintf(out, "{\n  \"benchmark\": \"bench_fclib\",\n  \"siconos_built\": %s,\n",
#ifdef BF_HAVE_SICONOS
            "true"
#else
            "false"
#endif
    );
    fprintf(out, "  \"tolerance\": ");
    json_number(out, o.tolerance);
    fprintf(out,
            ",\n  \"repeat\": %d,\n  \"max_iterations\": %d,\n  \"max_newton\": %d,\n"
            "  \"timeout\": %g,\n  \"solved_e1\": %g,\n  \"time\": \"cpu\",\n",
            o.repeat, o.max_iterations, o.max_newton, o.timeout, SOLVED_E1);
    fprintf(out, "  \"openblas_num_threads\": ");
    json_string(out, getenv("OPENBLAS_NUM_THREADS") ? getenv("OPENBLAS_NUM_THREADS") : "");
    fprintf(out, ",\n  \"omp_num_threads\": ");
    json_string(out, getenv("OMP_NUM_THREADS") ? getenv("OMP_NUM_THREADS") : "");
    fprintf(out, ",\n  \"solvers\": [");
    for (int s = 0; s < ns; ++s) {
        fprintf(out, "%s{\"engine\": \"%s\", \"solver\": \"%s\"}", s ? ", " : "",
                engine_name(o.solvers[s]->engine), o.solvers[s]->name);
    }
    fprintf(out, "],\n  \"problems\": [");
    char *skipped = calloc(1, 1);
    size_t skipped_len = 0;
    for (int f = 0; f < n_files; ++f) {
        problem p;
        const char *why = "";
        if (read_problem(files[f], &p, &why) != 0) {
            char line[512];
            int len = snprintf(line, sizeof line, "%s{\"file\": \"%s\", \"reason\": \"",
                               skipped_len ? ", " : "", files[f]);
            size_t add = (size_t)(len > 0 ? len : 0) + strlen(why) * 6 + 4;
            skipped = realloc(skipped, skipped_len + add + 1);
            skipped_len += (size_t)snprintf(skipped + skipped_len, add, "%s", line);
            for (const char *c = why; *c; ++c) {
                skipped[skipped_len++] =
                    (*c == '"' || *c == '\\' || (unsigned char)*c < 0x20) ? '\'' : *c;
            }
            skipped_len += (size_t)snprintf(skipped + skipped_len, 4, "\"}");
            free_problem(&p);
            continue;
        }
        double *r = malloc(3 * (size_t)p.n * sizeof *r);
        fprintf(out, "%s\n    {\"file\": ", n_read ? "," : "");
        json_string(out, files[f]);
        fprintf(out, ", \"contacts\": %d, \"blocks\": %d, \"runs\": [", (int)p.n, (int)p.n_blocks);
        for (int s = 0; s < ns; ++s) {
            run_result res;
            run_one(&p, o.solvers[s], &o, r, &res);
            int solved = res.have_result && isfinite(res.e1) && res.e1 <= SOLVED_E1;
            times[(size_t)n_read * (size_t)ns + (size_t)s] = solved ? res.header.seconds : NAN;
            fprintf(out,
                    "%s\n      {\"engine\": \"%s\", \"solver\": \"%s\", \"status\": ", s ? "," : "",
                    engine_name(res.solver->engine), res.solver->name);
            json_string(out, res.status);
            fprintf(out, ", \"converged\": %s, \"solved\": %s, \"iterations\": %d",
                    res.have_result && res.header.converged ? "true" : "false",
                    solved ? "true" : "false", res.have_result ? (int)res.header.iterations : 0);
            fprintf(out, ", \"newton_iterations\": %d",
                    res.have_result ? (int)res.header.newton_iterations : 0);
            fprintf(out, ", \"seconds\": ");
            json_number(out, res.have_result ? res.header.seconds : NAN);
            fprintf(out, ", \"wall_seconds\": ");
            json_number(out, res.have_result ? res.header.wall_seconds : NAN);
            fprintf(out, ", \"merit_nscd\": ");
            json_number(out, res.have_result && res.solver->engine == ENGINE_NSCD
                                 ? res.header.own_merit
                                 : NAN);
            fprintf(out, ", \"siconos_error\": ");
            json_number(out, res.have_result && res.solver->engine == ENGINE_SICONOS
                                 ? res.header.own_merit
                                 : NAN);
            fprintf(out, ", \"E1\": ");
            json_number(out, res.e1);
            fprintf(out, ", \"fclib_merit\": ");
            json_number(out, res.fclib_merit);
            fputc('}', out);
            fflush(out);
        }
        fprintf(out, "]}");
        free(r);
        free_problem(&p);
        ++n_read;
    }
    fprintf(out,
            "\n  ],\n  \"skipped\": [%s],\n  \"profile\": {\"taus\": [1, 2, 4, 10], "
            "\"fractions\": [",
            skipped);
    static const double taus[] = {1.0, 2.0, 4.0, 10.0};
    for (int s = 0; s < ns; ++s) {
        fprintf(out, "%s\n    {\"engine\": \"%s\", \"solver\": \"%s\", \"fraction\": [",
                s ? "," : "", engine_name(o.solvers[s]->engine), o.solvers[s]->name);
        for (int t = 0; t < 4; ++t) {
            int count = 0;
            for (int i = 0; i < n_read; ++i) {
                double best = INFINITY, mine = times[(size_t)i * (size_t)ns + (size_t)s];
                for (int k = 0; k < ns; ++k) {
                    double v = times[(size_t)i * (size_t)ns + (size_t)k];
                    if (isfinite(v) && v < best) {
                        best = v;
                    }
                }
                count += isfinite(mine) && mine <= taus[t] * best;
            }
            fprintf(out, "%s", t ? ", " : "");
            json_number(out, n_read ? (double)count / n_read : NAN);
        }
        fprintf(out, "]}");
    }
    fprintf(out, "\n  ]}\n}\n");
    fclose(out);
    free(skipped);
    free(times);
    for (int f = 0; f < n_files; ++f) {
        free(files[f]);
    }
    free(files);
    return n_read > 0 ? 0 : 1;
}
