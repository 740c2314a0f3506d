/**
 * @file lcp.h
 * @brief Small dense linear complementarity problems (LCP).
 *
 * Finds z such that  w = M z + q,  w >= 0,  z >= 0,  z' w = 0.
 * Used for simultaneous frictionless impacts and for persistent contacts,
 * and public as a pure kernel.
 */
#ifndef NSCD_LCP_H
#define NSCD_LCP_H

#include <stdint.h>

#include "nscd/export.h"
#include "nscd/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Largest LCP that nscd_lcp_solve_dense() accepts. */
#define NSCD_LCP_MAX_SIZE 64

/**
 * @brief Solves a dense LCP exactly by Murty's least-index principal pivoting.
 *
 * The method terminates in finitely many pivots for P-matrices (for example a
 * symmetric positive definite Delassus matrix W M^-1 W'), and the answer is
 * exact up to rounding: each pivot solves the active block with a Cholesky or
 * LU factorisation.
 * @param n Problem size, 0 <= n <= ::NSCD_LCP_MAX_SIZE.
 * @param M n-by-n matrix, row-major.
 * @param q Vector of length n.
 * @param z Receives the solution (length n).
 * @param w Receives M z + q (length n); may be NULL.
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_INVALID_ARGUMENT (n out of
 *         range); ::NSCD_ERR_NOT_FINITE; ::NSCD_ERR_SINGULAR (a principal block is
 *         singular: M is not a P-matrix); ::NSCD_ERR_NOT_CONVERGED (pivot limit,
 *         only possible when M is not a P-matrix). On failure z and w are unchanged.
 */
NSCD_API nscd_status nscd_lcp_solve_dense(int32_t n, const double *M, const double *q, double *z,
                                          double *w);

#ifdef __cplusplus
}
#endif

#endif /* NSCD_LCP_H */
