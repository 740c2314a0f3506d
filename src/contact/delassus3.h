/* Validation and Cholesky factorisation of a 3x3 Delassus block, shared by the
 * single-contact solvers. */
#ifndef NSCD_CONTACT_DELASSUS3_H
#define NSCD_CONTACT_DELASSUS3_H

#include <math.h>

#include "nscd/status.h"

/* Euclidean norms without hypot's overflow guard (which costs more than the rest
 * of a single-contact solve); fine for |values| < 1e150. */
static inline double nscd__norm2(double a, double b) { return sqrt(a * a + b * b); }
static inline double nscd__norm3(double a, double b, double c) {
    return sqrt(a * a + b * b + c * c);
}

/* Checks A (row-major) for finiteness, symmetry (relative 1e-10) and numerical
 * positive definiteness (Cholesky pivots above 1e-14 of the largest diagonal).
 * Writes the symmetric part S and the lower Cholesky factor L (row-major, upper
 * part zero). Returns NSCD_ERR_NOT_FINITE or NSCD_ERR_NOT_SPD on failure. */
nscd_status nscd__delassus3_factor(const double A[9], double S[9], double L[9]);

/* Solves L L' x = b. */
void nscd__delassus3_solve(const double L[9], const double b[3], double x[3]);

/* Checks the common arguments of the single-contact functions: pointers,
 * finiteness of b and mu, mu >= 0. */
nscd_status nscd__single_contact_args(const double *A, const double *b, double mu, const void *out);

#endif
