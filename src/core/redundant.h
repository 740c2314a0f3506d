/* Redundant (dependent) constraint rows decided by the problem, not by
 * round-off (docs/time_stepping.md, "Redundant rows").
 *
 * A Delassus matrix W = H M^-1 H' is symmetric positive semidefinite; its
 * rows are dependent when H has dependent rows (a box on twelve coplanar
 * points: rank 2; a planar four-bar of four revolute joints: 20 joint rows
 * on 18 dofs, rank 17). Such a W is singular in exact arithmetic, but its
 * factorisations see pivots of round-off size, whose sign and size depend on
 * the last bits of the arithmetic: a pivoting method that meets them divides
 * by round-off. The rule here:
 *
 * - Rank: the diagonally pivoted LDL' (Cholesky with symmetric pivoting, the
 *   largest remaining diagonal first) of the scaled S = D^-1/2 W D^-1/2,
 *   D = diag(W) (unit diagonal: each row measured on its own scale, so that
 *   a heavy body beside a light one, or rows in metres beside rows in
 *   radians, do not make the light rows look dependent), stops when the
 *   largest remaining pivot is <= NSCD__REDUNDANT_PIVOT; the rows left are
 *   then dependent. A zero row (W_ii = 0) is dependent. For rows of one
 *   scale this is "a pivot <= 1e-9 max W_ii counts as zero".
 * - Solve: a redundant set is solved by proximal point iterations
 *       z_{k+1} = solution of the problem with W + eps D and c - eps D z_k,
 *   eps = NSCD__REDUNDANT_SHIFT (a zero diagonal takes max_j W_jj), from
 *   z_0 = 0: every problem on W + eps D is positive definite (a P-matrix:
 *   a unique solution, no singular basis), and the iterates converge to a
 *   solution of the problem on W (for equations W x = b: to the one of
 *   least D-norm). The result is checked against W itself, in the units of
 *   u = W z + c: |u_i| on equality rows, the complementarity of u_i and
 *   W_ii z_i on the others, <= NSCD__REDUNDANT_CHECK (max|c| + max|W z|).
 *   (Not max|W| max|z|: on a set with no solution the iterates grow like
 *   k c / eps, and such a scale would let them pass.) A set with no
 *   solution (inconsistent equality rows) fails the check:
 *   NSCD_ERR_SINGULAR, and the caller sends it to a solver that handles it
 *   (the time steppers' AUTO choice: the prox solver's least squares).
 *
 * The arithmetic is plain loops in a fixed order (no BLAS), so that the
 * decisions and the numbers do not depend on the BLAS kernel. */
#ifndef NSCD_CORE_REDUNDANT_H
#define NSCD_CORE_REDUNDANT_H

#include <stdint.h>

#include "nscd/status.h"

/* A pivot of the unit-diagonal S <= this counts as zero. */
#define NSCD__REDUNDANT_PIVOT 1e-9
/* eps: the proximal (regularising) shift is eps W_ii on row i. */
#define NSCD__REDUNDANT_SHIFT 1e-8
/* Residual against W, relative to max|c| + max|W z|. */
#define NSCD__REDUNDANT_CHECK 1e-10
/* Proximal iterations before a set counts as having no solution. */
#define NSCD__REDUNDANT_ITERATIONS 200

/* Doubles of work nscd__redundant_rank and nscd__redundant_solve need. */
#define NSCD__REDUNDANT_WORK(n) ((size_t)(n) * (size_t)(n) + 6 * (size_t)(n))

/* The rank of the n x n row-major W when it is symmetric (|W_ij - W_ji| <=
 * 1e-10 sqrt(W_ii W_jj)) and positive semidefinite to the tolerance (the
 * block of S left when the pivoted LDL' stops is zero to
 * NSCD__REDUNDANT_PIVOT);
 * -1 otherwise (a general matrix: the caller keeps its own method). n is
 * returned for a regular W. `work`: NSCD__REDUNDANT_WORK(n) doubles. */
int32_t nscd__redundant_rank(int32_t n, const double *W, double *work);

/* The proximal shift of each row: NSCD__REDUNDANT_SHIFT W_ii (a zero
 * diagonal takes the largest, a zero W 1) into eps (n). */
void nscd__redundant_shifts(int32_t n, const double *W, double *eps);

/* Whether z solves the mixed complementarity problem u = W z + c with u_i =
 * 0 on the rows with equality[i] != 0 (equality NULL: none) and 0 <= z_i _|_
 * u_i >= 0 on the others, to NSCD__REDUNDANT_CHECK relative (see above). */
int nscd__redundant_check(int32_t n, const double *W, const double *c, const uint8_t *equality,
                          const double *z);

/* The least-D-norm solution of W x = b for a symmetric positive semidefinite
 * W (n x n, row-major): proximal iterations on one pivoted LDL' of W + eps D,
 * checked against W. b (n) is replaced by x on success; NSCD_ERR_SINGULAR
 * (b unchanged) when no x holds the check (b outside the range of W).
 * `work`: NSCD__REDUNDANT_WORK(n) doubles. */
nscd_status nscd__redundant_solve(int32_t n, const double *W, double *b, double *work);

/* Solves the regular problem on the shifted matrix (W + eps D, c - eps D z_k)
 * into z (which holds the previous iterate on entry: a warm start). */
typedef nscd_status (*nscd__redundant_subsolve)(void *user, const double *W_shifted,
                                                const double *c_shifted, double *z);

/* The proximal iterations of a mixed complementarity problem (as in
 * nscd__redundant_check) on a symmetric positive semidefinite W: each
 * iteration calls `solve` on W + eps D; stops when z holds the check
 * against W (NSCD_OK, z written), NSCD_ERR_SINGULAR after
 * NSCD__REDUNDANT_ITERATIONS without (z unchanged); a failing `solve`
 * returns its status. `work`: NSCD__REDUNDANT_WORK(n) doubles. */
nscd_status nscd__redundant_proximal(int32_t n, const double *W, const double *c,
                                     const uint8_t *equality, nscd__redundant_subsolve solve,
                                     void *user, double *z, double *work);

#endif
