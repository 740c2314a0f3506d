/* Dense linear algebra: the library's own fixed-order kernels for blocks of
 * dimension <= NSCD__DENSE_SMALL (core/dense_small.h: bitwise the same on every
 * CPU and OpenBLAS setting), CBLAS/LAPACKE above; matrices are row-major
 * unless a name ends in _cm (column-major). */
#ifndef NSCD_CORE_DENSE_H
#define NSCD_CORE_DENSE_H

#include <stdint.h>

#include "nscd/status.h"

/* y = A x, A is m x n. */
void nscd__gemv(int32_t m, int32_t n, const double *A, const double *x, double *y);
/* C = A B', A is m x k, B is n x k, C is m x n. */
void nscd__gemm_nt(int32_t m, int32_t n, int32_t k, const double *A, const double *B, double *C);
/* C = A B, A is m x k, B is k x n, C is m x n. */
void nscd__gemm_nn(int32_t m, int32_t n, int32_t k, const double *A, const double *B, double *C);
/* C = A' B, A is k x m, B is k x n, C is m x n. */
void nscd__gemm_tn(int32_t m, int32_t n, int32_t k, const double *A, const double *B, double *C);
/* x' y */
double nscd__dot(int32_t n, const double *x, const double *y);

/* Cholesky factorisation and solves for repeated solves with one factor
 * (the generic system's mass matrix), the factor kept column-major so that
 * no solve transposes it (LAPACKE's row-major interface transposes the
 * factor and B at every call and checks both for NaN). nscd__cholesky_cm:
 * L (n x n, column-major, lower triangle) = the Cholesky factor of the
 * row-major SPD matrix A (its lower triangle is read), NSCD_ERR_NOT_SPD when
 * A is not positive definite. nscd__cholesky_solve_cm: B (n x nrhs,
 * column-major, leading dimension n) := A^-1 B. Above the threshold the
 * numbers are those of LAPACK's dpotrf/dpotrs with uplo 'L'. */
nscd_status nscd__cholesky_cm(int32_t n, const double *A, double *L);
nscd_status nscd__cholesky_solve_cm(int32_t n, const double *L, int32_t nrhs, double *B);
/* Solves A X = B by LU with partial pivoting; A (n x n) is overwritten,
 * `pivots` has n entries. NSCD_ERR_SINGULAR when A is exactly singular. */
nscd_status nscd__lu_solve(int32_t n, double *A, int32_t *pivots, int32_t nrhs, double *B);

#endif
