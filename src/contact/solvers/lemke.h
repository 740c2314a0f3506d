/* Lemke's algorithm for the dense LCP w = M z + q, w, z >= 0, w'z = 0
 * (internal; contact/solvers/lemke.c). */
#ifndef NSCD_CONTACT_LEMKE_H
#define NSCD_CONTACT_LEMKE_H

#include <stdint.h>

#include "nscd/status.h"

/* Solves the LCP of the row-major n x n matrix M by Lemke's complementary
 * pivoting with the lexicographic ratio test (no cycling). M and q should
 * be scaled to O(1) entries (the pivot tolerance is relative to them).
 * T (n x (2n + 2) doubles) and basis (n) are work. On NSCD_OK, z and
 * w = M z + q hold a solution (z clipped at 0); NSCD_ERR_NOT_CONVERGED on a
 * secondary ray (no solution found) or past the pivot bound. */
nscd_status nscd__lemke(int32_t n, const double *M, const double *q, double *T, int32_t *basis,
                        double *z, double *w);

#endif
