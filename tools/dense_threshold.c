/* Measures where the library's own small dense kernels (core/dense_small.h)
 * and OpenBLAS/LAPACKE cross over, to choose NSCD__DENSE_SMALL
 * (docs/portability.md). For each size n it times, per call, the median over
 * repetitions of: LU factor + solve of one right-hand side (dgesv), Cholesky
 * factor + solve (dpotrf + dpotrs), y = A x (dgemv) and C = A B' (dgemm), own
 * kernel against LAPACKE/CBLAS. Run it with OPENBLAS_NUM_THREADS=1 (the
 * thread pool only adds to OpenBLAS's side) on a quiet machine:
 *   cmake -DNSCD_BUILD_TOOLS=ON ... && cmake --build build --target dense_threshold
 *   OPENBLAS_NUM_THREADS=1 build/tools/dense_threshold [max_n]
 * Prints one line per size: n, then for each kernel own/OpenBLAS time ratio
 * (below 1: the own kernel is faster) and the own time in microseconds. */
#define _POSIX_C_SOURCE 199309L
#include <cblas.h>
#include <lapacke.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/dense_small.h"

#define REPEAT 31

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct {
    int32_t n;
    double *A, *S, *W, *b, *x, *C;
    int32_t *piv;
} problem;

static volatile double sink;

static void run(int kernel, int own, problem *p) {
    int32_t n = p->n;
    size_t nn = (size_t)n * (size_t)n;
    switch (kernel) {
    case 0: /* LU + solve */
        memcpy(p->W, p->A, nn * sizeof(double));
        memcpy(p->x, p->b, (size_t)n * sizeof(double));
        if (own) {
            if (nscd__small_lu_factor(n, p->W, p->piv) == NSCD_OK) {
                nscd__small_lu_solve(n, p->W, p->piv, 1, p->x);
            }
        } else {
            LAPACKE_dgesv(LAPACK_ROW_MAJOR, n, 1, p->W, n, p->piv, p->x, 1);
        }
        break;
    case 1: /* Cholesky + solve */
        memcpy(p->x, p->b, (size_t)n * sizeof(double));
        if (own) {
            if (nscd__small_cholesky_cm(n, p->S, p->W) == NSCD_OK) {
                nscd__small_cholesky_solve_cm(n, p->W, 1, p->x);
            }
        } else {
            memcpy(p->W, p->S, nn * sizeof(double));
            if (LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', n, p->W, n) == 0) {
                LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'L', n, 1, p->W, n, p->x, n);
            }
        }
        break;
    case 2: /* gemv */
        if (own) {
            nscd__small_gemv(n, n, p->A, p->b, p->x);
        } else {
            cblas_dgemv(CblasRowMajor, CblasNoTrans, n, n, 1.0, p->A, n, p->b, 1, 0.0, p->x, 1);
        }
        break;
    default: /* gemm A A' */
        if (own) {
            nscd__small_gemm_nt(n, n, n, p->A, p->S, p->C);
        } else {
            cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, n, n, 1.0, p->A, n, p->S, n,
                        0.0, p->C, n);
        }
        break;
    }
    sink = p->x[0] + p->C[0];
}

/* median seconds per call, calls batched to ~0.2 ms per repetition */
static double time_kernel(int kernel, int own, problem *p) {
    int calls = 1;
    for (;;) {
        double t0 = now();
        for (int c = 0; c < calls; ++c) {
            run(kernel, own, p);
        }
        if (now() - t0 > 2e-4 || calls > (1 << 20)) {
            break;
        }
        calls *= 2;
    }
    double t[REPEAT];
    for (int r = 0; r < REPEAT; ++r) {
        double t0 = now();
        for (int c = 0; c < calls; ++c) {
            run(kernel, own, p);
        }
        t[r] = (now() - t0) / calls;
    }
    qsort(t, REPEAT, sizeof t[0], by_value);
    return t[REPEAT / 2];
}

int main(int argc, char **argv) {
    int32_t max_n = argc > 1 ? atoi(argv[1]) : 128;
    if (max_n < 1 || max_n > 4096) {
        fprintf(stderr, "usage: dense_threshold [max_n <= 4096]\n");
        return 2;
    }
    static const char *names[] = {"lu+solve", "chol+solve", "gemv", "gemm_nt"};
    printf("# own / OpenBLAS time per call (own microseconds)\n# n");
    for (int k = 0; k < 4; ++k) {
        printf("  %-20s", names[k]);
    }
    printf("\n");
    uint64_t state = 12345;
    for (int32_t n = 2; n <= max_n; n += n < 16 ? 2 : (n < 64 ? 8 : 16)) {
        size_t nn = (size_t)n * (size_t)n;
        problem p = {.n = n,
                     .A = malloc(nn * sizeof(double)),
                     .S = malloc(nn * sizeof(double)),
                     .W = malloc(nn * sizeof(double)),
                     .C = malloc(nn * sizeof(double)),
                     .b = malloc((size_t)n * sizeof(double)),
                     .x = malloc((size_t)n * sizeof(double)),
                     .piv = malloc((size_t)n * sizeof(int32_t))};
        if (!p.A || !p.S || !p.W || !p.C || !p.b || !p.x || !p.piv) {
            return 1;
        }
        for (size_t i = 0; i < nn; ++i) {
            state = state * 6364136223846793005u + 1442695040888963407u;
            p.A[i] = (double)(state >> 11) / 9007199254740992.0 - 0.5;
        }
        for (int32_t i = 0; i < n; ++i) {
            p.b[i] = 1.0 + 0.01 * i;
        }
        nscd__small_gemm_nt(n, n, n, p.A, p.A, p.S); /* S = A A' + n I, SPD */
        for (int32_t i = 0; i < n; ++i) {
            p.S[(size_t)i * (size_t)n + (size_t)i] += n;
        }
        printf("%4d", (int)n);
        for (int k = 0; k < 4; ++k) {
            double own = time_kernel(k, 1, &p), blas = time_kernel(k, 0, &p);
            printf("  %6.2f (%9.3f us)", own / blas, 1e6 * own);
        }
        printf("\n");
        fflush(stdout);
        free(p.A), free(p.S), free(p.W), free(p.C), free(p.b), free(p.x), free(p.piv);
    }
    return 0;
}
