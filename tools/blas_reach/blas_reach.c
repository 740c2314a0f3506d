/* blas_reach: which tests reach BLAS or LAPACK (docs/testing.md, "Portability").
 *
 * An LD_PRELOAD library that stands in front of every BLAS and LAPACK entry
 * the library imports (libnscd's cblas_* and LAPACKE_*, and the Fortran BLAS
 * that CHOLMOD and UMFPACK call), writes one line "EXECUTABLE SYMBOL" to the
 * file named by BLAS_REACH_LOG when the caller is libnscd, CHOLMOD or UMFPACK
 * (or any program that is not Python: an example, a unit test), and then
 * calls the real routine. A test that writes no line never reached OpenBLAS,
 * so another OPENBLAS_CORETYPE or OPENBLAS_NUM_THREADS cannot change one bit
 * of it: rerunning it in the portable tier only costs time.
 *
 * Python's own numpy calls are passed through unlogged: the reference
 * computations of the Python tests are not the library's results.
 *
 * Build and use: tools/blas_reach/blas_reach.sh BUILD_DIR [CTEST_REGEX]. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int process_is_python(void) {
    static int cached = -1;
    if (cached < 0) {
        char exe[4096] = {0};
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        cached = n > 0 && strstr(exe, "python") != NULL;
    }
    return cached;
}

static int caller_counts(void *return_address) {
    if (!process_is_python()) {
        return 1;
    }
    Dl_info info;
    if (!dladdr(return_address, &info) || info.dli_fname == NULL) {
        return 0;
    }
    return strstr(info.dli_fname, "libnscd") || strstr(info.dli_fname, "cholmod") ||
           strstr(info.dli_fname, "umfpack");
}

static void record(const char *symbol) {
    const char *path = getenv("BLAS_REACH_LOG");
    char exe[4096] = {0};
    if (path == NULL || readlink("/proc/self/exe", exe, sizeof exe - 1) < 0) {
        return;
    }
    FILE *f = fopen(path, "a");
    if (f != NULL) {
        fprintf(f, "%s %s\n", exe, symbol);
        fclose(f);
    }
}

/* The real routine: the next definition in the global scope, or the one of
 * the BLAS / LAPACKE library a module loaded privately (numpy does). */
static void *real(const char *symbol) {
    void *f = dlsym(RTLD_NEXT, symbol);
    const char *libraries[] = {"liblapacke.so.3", "libblas.so.3", "libopenblas.so.0"};
    for (size_t k = 0; f == NULL && k < sizeof libraries / sizeof *libraries; ++k) {
        void *handle = dlopen(libraries[k], RTLD_NOW | RTLD_GLOBAL);
        f = handle != NULL ? dlsym(handle, symbol) : NULL;
    }
    if (f == NULL) {
        abort();
    }
    return f;
}

#define NOTE(symbol)                                                                               \
    do {                                                                                           \
        if (caller_counts(__builtin_return_address(0))) {                                          \
            record(symbol);                                                                        \
        }                                                                                          \
    } while (0)

#define FORWARD(symbol, ret, params, args)                                                         \
    ret symbol params;                                                                             \
    ret symbol params {                                                                            \
        NOTE(#symbol);                                                                             \
        ret(*f) params = (ret(*) params)real(#symbol);                                             \
        return f args;                                                                             \
    }
#define FORWARD_VOID(symbol, params, args)                                                         \
    void symbol params;                                                                            \
    void symbol params {                                                                           \
        NOTE(#symbol);                                                                             \
        void(*f) params = (void(*) params)real(#symbol);                                           \
        f args;                                                                                    \
    }

/* CBLAS and LAPACKE, as libnscd imports them (nm -D --undefined-only). Enums
 * and lapack_int are int; the calling convention is all that matters here. */
FORWARD(cblas_ddot, double, (int n, const double *x, int ix, const double *y, int iy),
        (n, x, ix, y, iy))
FORWARD_VOID(cblas_dgemv,
             (int o, int t, int m, int n, double a, const double *A, int lda, const double *x,
              int ix, double b, double *y, int iy),
             (o, t, m, n, a, A, lda, x, ix, b, y, iy))
FORWARD_VOID(cblas_dgemm,
             (int o, int ta, int tb, int m, int n, int k, double a, const double *A, int lda,
              const double *B, int ldb, double b, double *C, int ldc),
             (o, ta, tb, m, n, k, a, A, lda, B, ldb, b, C, ldc))
FORWARD(LAPACKE_dpotrf_work, int, (int l, char u, int n, double *a, int lda), (l, u, n, a, lda))
FORWARD(LAPACKE_dpotrs_work, int,
        (int l, char u, int n, int r, const double *a, int lda, double *b, int ldb),
        (l, u, n, r, a, lda, b, ldb))
FORWARD(LAPACKE_dgesv, int, (int l, int n, int r, double *a, int lda, int *p, double *b, int ldb),
        (l, n, r, a, lda, p, b, ldb))
FORWARD(LAPACKE_dgelsd_work, int,
        (int l, int m, int n, int r, double *a, int lda, double *b, int ldb, double *s,
         double rcond, int *rank, double *w, int lw, int *iw),
        (l, m, n, r, a, lda, b, ldb, s, rcond, rank, w, lw, iw))
FORWARD(LAPACKE_dsbgv_work, int,
        (int l, char j, char u, int n, int ka, int kb, double *ab, int ldab, double *bb, int ldbb,
         double *w, double *z, int ldz, double *work),
        (l, j, u, n, ka, kb, ab, ldab, bb, ldbb, w, z, ldz, work))

/* Fortran BLAS of CHOLMOD and UMFPACK (nm -D --undefined-only): every
 * argument is a pointer (and hidden string lengths follow), so one
 * pointer-passing signature forwards them all on x86-64 and AArch64. */
#define FORTRAN(symbol)                                                                            \
    FORWARD_VOID(symbol,                                                                           \
                 (void *a, void *b, void *c, void *d, void *e, void *f1, void *g, void *h,         \
                  void *i, void *j, void *k, void *l, void *m, void *n, void *o, void *p),         \
                 (a, b, c, d, e, f1, g, h, i, j, k, l, m, n, o, p))
FORTRAN(dgemm_)
FORTRAN(dgemv_)
FORTRAN(dger_)
FORTRAN(dpotrf_)
FORTRAN(dsyrk_)
FORTRAN(dtrsm_)
FORTRAN(dtrsv_)
FORTRAN(zgemm_)
FORTRAN(zgemv_)
FORTRAN(zgeru_)
FORTRAN(zherk_)
FORTRAN(zpotrf_)
FORTRAN(ztrsm_)
FORTRAN(ztrsv_)
