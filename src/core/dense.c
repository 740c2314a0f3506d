/* Dense linear algebra: the library's own fixed-order kernels (dense_small.c)
 * for blocks whose dimensions are at most NSCD__DENSE_SMALL, CBLAS/LAPACKE
 * (OpenBLAS) above; row-major throughout unless a name ends in _cm. The one
 * place that decides which: every BLAS/LAPACK call of the library on a block
 * that may be small goes through here (docs/portability.md). */
#include "core/dense.h"

#include <cblas.h>
#include <lapacke.h>

#include "core/dense_small.h"

static int small(int32_t n) { return n <= NSCD__DENSE_SMALL; }

void nscd__gemv(int32_t m, int32_t n, const double *A, const double *x, double *y) {
    if (small(m) && small(n)) {
        nscd__small_gemv(m, n, A, x, y);
        return;
    }
    cblas_dgemv(CblasRowMajor, CblasNoTrans, m, n, 1.0, A, n, x, 1, 0.0, y, 1);
}

void nscd__gemm_nt(int32_t m, int32_t n, int32_t k, const double *A, const double *B, double *C) {
    if (small(m) && small(n) && small(k)) {
        nscd__small_gemm_nt(m, n, k, A, B, C);
        return;
    }
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, 1.0, A, k, B, k, 0.0, C, n);
}

void nscd__gemm_nn(int32_t m, int32_t n, int32_t k, const double *A, const double *B, double *C) {
    if (small(m) && small(n) && small(k)) {
        nscd__small_gemm_nn(m, n, k, A, B, C);
        return;
    }
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, A, k, B, n, 0.0, C, n);
}

void nscd__gemm_tn(int32_t m, int32_t n, int32_t k, const double *A, const double *B, double *C) {
    if (small(m) && small(n) && small(k)) {
        nscd__small_gemm_tn(m, n, k, A, B, C);
        return;
    }
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, m, n, k, 1.0, A, m, B, n, 0.0, C, n);
}

double nscd__dot(int32_t n, const double *x, const double *y) {
    return small(n) ? nscd__small_dot(n, x, y) : cblas_ddot(n, x, 1, y, 1);
}

nscd_status nscd__cholesky_cm(int32_t n, const double *A, double *L) {
    if (small(n)) {
        return nscd__small_cholesky_cm(n, A, L);
    }
    for (int32_t j = 0; j < n; ++j) { /* the lower triangle, as LAPACKE lays it out */
        for (int32_t i = j; i < n; ++i) {
            L[(size_t)j * (size_t)n + (size_t)i] = A[(size_t)i * (size_t)n + (size_t)j];
        }
    }
    lapack_int info = LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', n, L, n);
    return info == 0 ? NSCD_OK : (info > 0 ? NSCD_ERR_NOT_SPD : NSCD_ERR_INVALID_ARGUMENT);
}

nscd_status nscd__cholesky_solve_cm(int32_t n, const double *L, int32_t nrhs, double *B) {
    if (small(n)) {
        nscd__small_cholesky_solve_cm(n, L, nrhs, B);
        return NSCD_OK;
    }
    lapack_int info = LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'L', n, nrhs, L, n, B, n);
    return info == 0 ? NSCD_OK : NSCD_ERR_INVALID_ARGUMENT;
}

nscd_status nscd__lu_solve(int32_t n, double *A, int32_t *pivots, int32_t nrhs, double *B) {
    if (small(n)) {
        nscd_status rc = nscd__small_lu_factor(n, A, pivots);
        if (rc == NSCD_OK) {
            nscd__small_lu_solve(n, A, pivots, nrhs, B);
        }
        return rc;
    }
    lapack_int info = LAPACKE_dgesv(LAPACK_ROW_MAJOR, n, nrhs, A, n, pivots, B, nrhs);
    return info == 0 ? NSCD_OK : (info > 0 ? NSCD_ERR_SINGULAR : NSCD_ERR_INVALID_ARGUMENT);
}
