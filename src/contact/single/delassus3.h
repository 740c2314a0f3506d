/* Validation and Cholesky factorisation of a 3x3 Delassus block, shared by the
 * single-contact solvers. */
#ifndef NSCD_CONTACT_DELASSUS3_H
#define NSCD_CONTACT_DELASSUS3_H

#include <math.h>

#include "nscd/status.h"

/* Euclidean norms. The plain sum of squares is used whenever it lies safely
 * inside the normal range, [2^-960, 2^960]: there it is as accurate as hypot,
 * which costs more than the rest of a single-contact solve. Outside (squares
 * that underflow, e.g. the impulses of a friction coefficient below 1e-154, or
 * overflow) hypot takes over. */
static inline double nscd__norm2(double a, double b) {
    double s = a * a + b * b;
    if (s > 0x1p-960 && s < 0x1p960) {
        return sqrt(s);
    }
    return (a == 0.0 && b == 0.0) ? 0.0 : hypot(a, b);
}
static inline double nscd__norm3(double a, double b, double c) {
    double s = a * a + b * b + c * c;
    if (s > 0x1p-960 && s < 0x1p960) {
        return sqrt(s);
    }
    return (a == 0.0 && b == 0.0 && c == 0.0) ? 0.0 : hypot(hypot(a, b), c);
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
