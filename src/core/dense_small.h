/* The library's own dense kernels for small blocks (see docs/portability.md).
 *
 * Every kernel here sums in one fixed order written in C: with the library
 * built with -ffp-contract=off (no fused multiply-add the compiler might or
 * might not choose) its result depends on the input only, never on the CPU's
 * vector width, OpenBLAS's choice of kernel (OPENBLAS_CORETYPE) or its thread
 * count. core/dense.c calls them for every block whose dimensions are at most
 * NSCD__DENSE_SMALL and calls CBLAS/LAPACKE above; the kernels themselves
 * accept any size (the unit tests compare them with naive references around
 * the threshold). Row-major unless a name ends in _cm (column-major). */
#ifndef NSCD_CORE_DENSE_SMALL_H
#define NSCD_CORE_DENSE_SMALL_H

#include <stdint.h>

#include "nscd/status.h"

/* The largest dimension solved by the kernels below rather than by
 * OpenBLAS/LAPACKE. Measured with tools/dense_threshold.c (docs/portability.md):
 * the own LU is as fast as OpenBLAS's single-threaded dgesv up to n ~ 48-64 and
 * never pays for the thread pool; Cholesky and the products lose earlier but
 * cost little at these sizes. Models whose blocks all stay at or below it give
 * bitwise the same results on every CPU and thread count. */
#define NSCD__DENSE_SMALL 64

/* x' y, four interleaved partial sums added in a fixed order. */
double nscd__small_dot(int32_t n, const double *restrict x, const double *restrict y);
/* nscd__small_dot(6, x, y) inline, the same arithmetic: the hot loops of
 * the joints' W (the projection's and the sweeps', which must agree bitwise). */
static inline double nscd__small_dot6(const double *x, const double *y) {
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    s0 += x[0] * y[0];
    s1 += x[1] * y[1];
    s2 += x[2] * y[2];
    s3 += x[3] * y[3];
    double s = (s0 + s1) + (s2 + s3);
    s += x[4] * y[4];
    s += x[5] * y[5];
    return s;
}
/* y = A x, A m x n. */
void nscd__small_gemv(int32_t m, int32_t n, const double *restrict A, const double *restrict x,
                      double *restrict y);
/* C = A B, A m x k, B k x n, C m x n. */
void nscd__small_gemm_nn(int32_t m, int32_t n, int32_t k, const double *restrict A,
                         const double *restrict B, double *restrict C);
/* C = A B', A m x k, B n x k, C m x n. */
void nscd__small_gemm_nt(int32_t m, int32_t n, int32_t k, const double *restrict A,
                         const double *restrict B, double *restrict C);
/* C = A' B, A k x m, B k x n, C m x n. */
void nscd__small_gemm_tn(int32_t m, int32_t n, int32_t k, const double *restrict A,
                         const double *restrict B, double *restrict C);

/* LU with partial pivoting of A (n x n), in place: L unit lower, U upper;
 * row i was swapped with row pivots[i] >= i (0-based) at step i, the largest
 * |A(r, i)| with the smallest r on ties. NSCD_ERR_SINGULAR when a pivot
 * column is exactly zero or not a number (A is then partly factorised). */
nscd_status nscd__small_lu_factor(int32_t n, double *restrict A, int32_t *restrict pivots);
/* B (n x nrhs) := A^-1 B with the factors of nscd__small_lu_factor. */
void nscd__small_lu_solve(int32_t n, const double *restrict LU, const int32_t *restrict pivots,
                          int32_t nrhs, double *restrict B);

/* L (column-major, lower triangle) = the Cholesky factor of the row-major SPD
 * A (its lower triangle is read). NSCD_ERR_NOT_SPD when a pivot is not > 0. */
nscd_status nscd__small_cholesky_cm(int32_t n, const double *restrict A, double *restrict L);
/* B (n x nrhs, column-major, leading dimension n) := (L L')^-1 B. */
void nscd__small_cholesky_solve_cm(int32_t n, const double *restrict L, int32_t nrhs,
                                   double *restrict B);
/* x := L^-1 x and x := L'^-1 x for the column-major lower L. */
void nscd__small_trsv_lower_cm(int32_t n, const double *restrict L, double *restrict x);
void nscd__small_trsv_lower_transposed_cm(int32_t n, const double *restrict L, double *restrict x);

/* Doubles of scratch nscd__small_lstsq_cm needs for size n. */
#define NSCD__SMALL_LSTSQ_SCRATCH(n) ((size_t)(n) * (size_t)(n) + 2 * (size_t)(n))
/* The minimum-norm least-squares solution of A x = b (A n x n column-major,
 * destroyed; b replaced by x). When A is regular by a margin of 1e4 over
 * rcond (LU pivots, see dense_small.c) by LU, x = A^-1 b; otherwise by
 * one-sided Jacobi SVD (Hestenes): plane
 * rotations of A's columns in cyclic order until every pair is orthogonal to
 * working precision, then x = V S^+ U' b with the singular values
 * <= rcond * (largest) taken as zero; *rank receives the others' count, like
 * LAPACK's dgelsd. NSCD_ERR_NOT_FINITE when A or b holds NaN or Inf,
 * NSCD_ERR_NOT_CONVERGED when the sweeps do not settle. */
nscd_status nscd__small_lstsq_cm(int32_t n, double *restrict A, double *restrict b, double rcond,
                                 int32_t *rank, double *restrict scratch);

/* The eigenvalues (ascending) and, when vectors != NULL, the eigenvectors
 * (columns of the column-major n x n `vectors`, B-normalised: v' B v = 1,
 * largest component positive) of the symmetric-definite pencil A v = w B v;
 * A and B row-major symmetric (lower triangles read). By the Cholesky factor
 * of B and cyclic Jacobi rotations of L^-1 A L^-T. scratch: 3 n^2 doubles.
 * NSCD_ERR_NOT_SPD when B is not positive definite. */
nscd_status nscd__small_sygv(int32_t n, const double *A, const double *B, double *w,
                             double *vectors, double *scratch);

#endif
