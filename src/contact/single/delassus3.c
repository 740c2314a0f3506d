/* 3x3 Delassus block: validation and Cholesky factorisation. Written out by hand
 * because a LAPACK call costs more than the whole single-contact solve. */
#include "contact/single/delassus3.h"

#include <math.h>
#include <stddef.h>

#include "core/check.h"

nscd_status nscd__single_contact_args(const double *A, const double *b, double mu,
                                      const void *out) {
    if (A == NULL || b == NULL || out == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    if (!nscd__all_finite(A, 9) || !nscd__all_finite(b, 3) || !isfinite(mu)) {
        return NSCD_ERR_NOT_FINITE;
    }
    return mu < 0.0 ? NSCD_ERR_OUT_OF_RANGE : NSCD_OK;
}

static double max3(double a, double b, double c) {
    double m = a > b ? a : b;
    return m > c ? m : c;
}

nscd_status nscd__delassus3_factor(const double A[9], double S[9], double L[9]) {
    if (!nscd__all_finite(A, 9)) {
        return NSCD_ERR_NOT_FINITE;
    }
    double dmax = max3(fabs(A[0]), fabs(A[4]), fabs(A[8]));
    double asym = max3(fabs(A[1] - A[3]), fabs(A[2] - A[6]), fabs(A[5] - A[7]));
    if (!(dmax > 0.0) || asym > 1e-10 * dmax) {
        return NSCD_ERR_NOT_SPD;
    }
    S[0] = A[0], S[4] = A[4], S[8] = A[8];
    S[1] = S[3] = 0.5 * (A[1] + A[3]);
    S[2] = S[6] = 0.5 * (A[2] + A[6]);
    S[5] = S[7] = 0.5 * (A[5] + A[7]);
    /* numerically positive definite: every pivot above 1e-14 of the largest diagonal */
    double tiny = 1e-14 * dmax;
    double p0 = S[0];
    if (!(p0 > tiny)) {
        return NSCD_ERR_NOT_SPD;
    }
    double l00 = sqrt(p0), l10 = S[3] / l00, l20 = S[6] / l00;
    double p1 = S[4] - l10 * l10;
    if (!(p1 > tiny)) {
        return NSCD_ERR_NOT_SPD;
    }
    double l11 = sqrt(p1), l21 = (S[7] - l20 * l10) / l11;
    double p2 = S[8] - l20 * l20 - l21 * l21;
    if (!(p2 > tiny)) {
        return NSCD_ERR_NOT_SPD;
    }
    L[0] = l00, L[1] = 0.0, L[2] = 0.0;
    L[3] = l10, L[4] = l11, L[5] = 0.0;
    L[6] = l20, L[7] = l21, L[8] = sqrt(p2);
    return NSCD_OK;
}

void nscd__delassus3_solve(const double L[9], const double b[3], double x[3]) {
    double y0 = b[0] / L[0];
    double y1 = (b[1] - L[3] * y0) / L[4];
    double y2 = (b[2] - L[6] * y0 - L[7] * y1) / L[8];
    x[2] = y2 / L[8];
    x[1] = (y1 - L[7] * x[2]) / L[4];
    x[0] = (y0 - L[3] * x[1] - L[6] * x[2]) / L[0];
}
