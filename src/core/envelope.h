/* Envelope (profile) Cholesky of a symmetric positive definite matrix:
 * O(entries of the envelope) instead of O(n^3) for banded matrices such as a
 * chain of joints' W (world/world_joint_sweep.c, contact/assembly/projection.c),
 * with the arithmetic of the dense small kernels (dense_small.h), so that
 * switching between the two moves no bit. */
#ifndef NSCD_CORE_ENVELOPE_H
#define NSCD_CORE_ENVELOPE_H

#include <stdint.h>

#include "nscd/status.h"

/* The envelope (profile) of a symmetric n x n matrix and, in place, of its
 * Cholesky factor (envelope.c): row i holds columns start[i]..i at
 * L + offset[i] (offset[n] entries in all), last[i] the last row whose
 * envelope reaches column i; T + toff[i] holds column i below the diagonal
 * (the factor's, for the transposed solve; toff[n] entries). Cholesky fills
 * nothing outside the envelope, so a chain's W = H M^-1 H' in the order of
 * its joints (block tridiagonal) factors in O(rows) instead of O(rows^3).
 * Sizes: L at most n (n + 1) / 2 doubles, T at most n (n - 1) / 2. */
typedef struct nscd__envelope {
    int32_t n;
    int32_t *start, *last, *offset, *toff; /* n, n, n + 1 and n + 1 */
    double *L, *T;
    double *x; /* the right-hand side of nscd__envelope_solve_many */
} nscd__envelope;
/* offset, last and toff from start; returns offset[n]. */
int32_t nscd__envelope_layout(nscd__envelope *e);
/* L (A's lower envelope on entry) := its Cholesky factor, and T, or
 * NSCD_ERR_NOT_SPD; bitwise nscd__small_cholesky_cm's entries. */
nscd_status nscd__envelope_factor(nscd__envelope *e);
/* x := A^-1 x by the factor; bitwise nscd__small_cholesky_solve_cm. */
void nscd__envelope_solve(const nscd__envelope *e, double *x);
/* The same for `count` independent systems (each e[g].x), row by row in
 * lockstep: a triangular solve waits on each division, and the systems'
 * chains overlap; each system's arithmetic is its own solve's. */
void nscd__envelope_solve_many(int32_t count, const nscd__envelope *e);

#endif
