/* Optimal damping coefficient of the Hertz spring + linear damper: the
 * closed form of eq. 49 and the exact optimum of eq. 23. */
#include "contact/compliant/copt.h"

#include <float.h>
#include <math.h>

#include "contact/compliant/copt_table.h"
#include "contact/compliant/impact_ode.h"
#include "nscd/compliant.h"

/* ------------------------------------------------------------ closed form */

double nscd__copt_alpha(double n) {
    return (((0.3331 * n - 1.48) * n + 3.077) * n - 2.306) * n + 1.794; /* eq. 46 */
}

double nscd__copt_beta(double n) { return 1.285 * pow(n, 0.2553) - 1.725; /* eq. 47 */ }

double nscd__copt_scale(double m, double k, double n, double v) {
    return exp((log(k) + (n - 1.0) * log(v) + n * log(m)) / (n + 1.0));
}

double nscd__copt_zeta_closed_form(double e, double n) {
    return nscd__copt_alpha(n) * (pow(e, nscd__copt_beta(n)) - 1.0); /* eq. 49 */
}

/* ------------------------------------------------------------ input checks */

/* The ranges of the paper's verification (Sect. 5.1). */
static nscd_status check_inputs(double m, double k, double n, double v, double e) {
    if (!isfinite(m) || !isfinite(k) || !isfinite(n) || !isfinite(v) || !isfinite(e)) {
        return NSCD_ERR_NOT_FINITE;
    }
    if (m < 1e-5 || m > 1e2 || k < 1e5 || k > 1e10 || n < 1.0 || n > 2.0 || v < 1e-3 || v > 1e2 ||
        !(e > 0.0) || e > 1.0) {
        return NSCD_ERR_OUT_OF_RANGE;
    }
    return NSCD_OK;
}

nscd_status nscd_copt_closed_form(double m, double k, double n, double v, double e, double *c) {
    if (c == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd_status rc = check_inputs(m, k, n, v, e);
    if (rc != NSCD_OK) {
        return rc;
    }
    *c = e == 1.0 ? 0.0 : nscd__copt_zeta_closed_form(e, n) * nscd__copt_scale(m, k, n, v);
    return NSCD_OK;
}

nscd_status nscd_copt_exact(double m, double k, double n, double v, double e, double *c) {
    if (c == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd_status rc = check_inputs(m, k, n, v, e);
    if (rc != NSCD_OK) {
        return rc;
    }
    *c = nscd__copt_zeta_table(e, n) * nscd__copt_scale(m, k, n, v);
    return NSCD_OK;
}

/* ------------------------------------------------------------ table */

/* sum_i a[i] T_i(t) by Clenshaw's recurrence. */
static double clenshaw(const double *a, int count, int stride, double t) {
    double b1 = 0.0, b2 = 0.0;
    for (int i = count - 1; i >= 1; --i) {
        double b0 = 2.0 * t * b1 - b2 + a[i * stride];
        b2 = b1;
        b1 = b0;
    }
    return t * b1 - b2 + a[0];
}

/* The tensor series of one interval at (t, s): Clenshaw's recurrence in t
 * run on all DN columns at once (independent lanes the compiler vectorises),
 * then once in s. */
static double table_series(int interval, double t, double s) {
    const double(*a)[NSCD__COPT_DN] = nscd__copt_table[interval];
    double b1[NSCD__COPT_DN] = {0}, b2[NSCD__COPT_DN] = {0}, col[NSCD__COPT_DN];
    for (int i = NSCD__COPT_DE - 1; i >= 1; --i) {
        for (int j = 0; j < NSCD__COPT_DN; ++j) {
            double b0 = 2.0 * t * b1[j] - b2[j] + a[i][j];
            b2[j] = b1[j];
            b1[j] = b0;
        }
    }
    for (int j = 0; j < NSCD__COPT_DN; ++j) {
        col[j] = t * b1[j] - b2[j] + a[0][j];
    }
    return clenshaw(col, NSCD__COPT_DN, 1, s);
}

double nscd__copt_zeta_table(double e, double n) {
    double s = 2.0 * n - 3.0;
    int ex;
    if (e >= 0.5) {
        double u = 1.0 - e; /* exact for e in [1/2, 1] */
        if (u == 0.0) {
            return 0.0;
        }
        if (u < ldexp(1.0, -(NSCD__COPT_HIGH + 1))) {
            double t = ldexp(u, NSCD__COPT_HIGH + 2) - 1.0;
            return table_series(NSCD__COPT_LOW + NSCD__COPT_HIGH, t, s);
        }
        frexp(u, &ex); /* u in [2^(ex-1), 2^ex) */
        int h = ex < 0 ? -ex : 1;
        double t = 2.0 * ldexp(u, h + 1) - 3.0;
        return table_series(NSCD__COPT_LOW + h - 1, t, s);
    }
    double g;
    if (e < ldexp(1.0, -(NSCD__COPT_LOW + 1))) {
        g = table_series(NSCD__COPT_LOW - 1, -1.0, s);
    } else {
        frexp(e, &ex); /* e in [2^(ex-1), 2^ex), ex <= -1 */
        int l = -ex;
        double t = 2.0 * ldexp(e, l + 1) - 3.0;
        g = table_series(l - 1, t, s);
    }
    return g * pow(e, -1.0 / (n + 1.0));
}

/* ------------------------------------------------------------ reference solver */

typedef struct hd_dimless {
    double zeta, n;
} hd_dimless;

static double hd_force(void *ctx, double x, double p) {
    const hd_dimless *hd = ctx;
    return hd->zeta * p + pow(x, hd->n);
}

nscd_status nscd__hertz_damper_restitution(double zeta, double n, double tol, double *e_out) {
    hd_dimless hd = {zeta, n};
    nscd__impact_outcome o;
    nscd_status rc = nscd__impact_integrate(hd_force, &hd, tol, &o);
    if (rc == NSCD_OK) {
        *e_out = o.e_out;
    }
    return rc;
}

/* ln e_out(zeta) - ln e as a function of L = ln zeta: nearly linear for small
 * e (e ~ zeta^-(n+1)) and smooth near e = 1, so a bracketed secant converges
 * in a handful of integrations. */
static nscd_status log_residual(double L, double e, double n, double tol, double *r) {
    double e_out;
    nscd_status rc = nscd__hertz_damper_restitution(exp(L), n, tol, &e_out);
    if (rc == NSCD_OK) {
        *r = log(e_out) - log(e);
    }
    return rc;
}

nscd_status nscd__copt_zeta_solve(double e, double n, double tol, double *zeta) {
    if (e == 1.0) {
        *zeta = 0.0;
        return NSCD_OK;
    }
    double guess = e > 0.05 ? nscd__copt_zeta_closed_form(e, n) : pow(e, -1.0 / (n + 1.0));
    double a = log(guess), fa, b, fb;
    nscd_status rc = log_residual(a, e, n, tol, &fa);
    /* Bracket: e_out decreases with zeta. */
    double step = fa > 0.0 ? 0.25 : -0.25;
    for (int i = 0; rc == NSCD_OK; ++i) {
        b = a + step;
        rc = log_residual(b, e, n, tol, &fb);
        if (rc != NSCD_OK || (fa > 0.0) != (fb > 0.0) || fb == 0.0) {
            break;
        }
        if (i > 200) {
            return NSCD_ERR_NOT_CONVERGED;
        }
        a = b;
        fa = fb;
        step *= 1.5;
    }
    if (rc != NSCD_OK) {
        return rc;
    }
    /* Illinois on the bracket [a, b]. */
    int side = 0;
    double best = fabs(fa) < fabs(fb) ? a : b;
    for (int it = 0; it < 100 && fb != 0.0 && fabs(b - a) > 1e-15 * fmax(1.0, fabs(b)); ++it) {
        double c = (fa * b - fb * a) / (fa - fb), fc;
        rc = log_residual(c, e, n, tol, &fc);
        if (rc != NSCD_OK) {
            return rc;
        }
        best = c;
        if ((fc > 0.0) == (fb > 0.0)) {
            b = c;
            fb = fc;
            if (side == -1) {
                fa *= 0.5;
            }
            side = -1;
        } else {
            a = c;
            fa = fc;
            if (side == 1) {
                fb *= 0.5;
            }
            side = 1;
        }
        if (fabs(fc) < 1e-15) {
            break;
        }
    }
    *zeta = exp(best);
    return NSCD_OK;
}
