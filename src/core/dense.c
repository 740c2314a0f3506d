/* Thin wrappers over CBLAS and LAPACKE (OpenBLAS), row-major throughout. */
#include "core/dense.h"

#include <cblas.h>
#include <lapacke.h>

void nscd__gemv(int32_t m, int32_t n, const double *A, const double *x, double *y) {
    cblas_dgemv(CblasRowMajor, CblasNoTrans, m, n, 1.0, A, n, x, 1, 0.0, y, 1);
}

void nscd__gemm_nt(int32_t m, int32_t n, int32_t k, const double *A, const double *B, double *C) {
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, 1.0, A, k, B, k, 0.0, C, n);
}

double nscd__dot(int32_t n, const double *x, const double *y) { return cblas_ddot(n, x, 1, y, 1); }

nscd_status nscd__cholesky_cm(int32_t n, const double *A, double *L) {
    for (int32_t j = 0; j < n; ++j) { /* the lower triangle, as LAPACKE lays it out */
        for (int32_t i = j; i < n; ++i) {
            L[(size_t)j * (size_t)n + (size_t)i] = A[(size_t)i * (size_t)n + (size_t)j];
        }
    }
    lapack_int info = LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', n, L, n);
    return info == 0 ? NSCD_OK : (info > 0 ? NSCD_ERR_NOT_SPD : NSCD_ERR_INVALID_ARGUMENT);
}

nscd_status nscd__cholesky_solve_cm(int32_t n, const double *L, int32_t nrhs, double *B) {
    lapack_int info = LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'L', n, nrhs, L, n, B, n);
    return info == 0 ? NSCD_OK : NSCD_ERR_INVALID_ARGUMENT;
}

nscd_status nscd__lu_solve(int32_t n, double *A, int32_t *pivots, int32_t nrhs, double *B) {
    lapack_int info = LAPACKE_dgesv(LAPACK_ROW_MAJOR, n, nrhs, A, n, pivots, B, nrhs);
    return info == 0 ? NSCD_OK : (info > 0 ? NSCD_ERR_SINGULAR : NSCD_ERR_INVALID_ARGUMENT);
}
