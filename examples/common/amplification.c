/* Amplification eigenvalues from the library's trajectories (see the header). */
#include "amplification.h"

#include <complex.h>
#include <math.h>
#include <string.h>

#define PI 3.14159265358979323846

typedef struct oscillator {
    double omega2;
} oscillator;

static nscd_status osc_mass(void *user, const double *q, double *m) {
    (void)user, (void)q;
    m[0] = 1.0;
    return NSCD_OK;
}

static nscd_status osc_forces(void *user, double t, const double *q, const double *v, double *h) {
    (void)t, (void)v;
    h[0] = -((const oscillator *)user)->omega2 * q[0];
    return NSCD_OK;
}

static nscd_status osc_stiffness(void *user, double t, const double *q, const double *v,
                                 double *K) {
    (void)t, (void)q, (void)v;
    K[0] = ((const oscillator *)user)->omega2;
    return NSCD_OK;
}

/* One run from (q0, v0): y[n] = (q_n, v_n / omega), n = 0 .. AMPLIFICATION_STEPS. */
static nscd_status trajectory(const nscd_time_stepping_options *options, oscillator *osc, double q0,
                              double v0, double y[AMPLIFICATION_STEPS + 1][2]) {
    nscd_system_desc desc;
    nscd_system_desc_init(&desc, sizeof desc);
    desc.n_dof = 1;
    desc.user = osc;
    desc.mass = osc_mass;
    desc.forces = osc_forces;
    desc.stiffness = osc_stiffness;
    nscd_system *sys = NULL;
    nscd_status rc = nscd_system_create(&desc, &sys);
    if (rc != NSCD_OK) {
        return rc;
    }
    nscd_time_stepping *ts = NULL;
    rc = nscd_system_set_state(sys, 0.0, &q0, &v0);
    if (rc == NSCD_OK) {
        rc = nscd_time_stepping_create(sys, options, &ts);
    }
    double omega = sqrt(osc->omega2);
    for (int n = 0; n <= AMPLIFICATION_STEPS && rc == NSCD_OK; ++n) {
        if (n > 0) {
            rc = nscd_time_stepping_advance(ts, (double)n * options->dt, NULL);
        }
        double q, v;
        nscd_system_get_state(sys, NULL, &q, &v);
        y[n][0] = q;
        y[n][1] = v / omega;
    }
    nscd_time_stepping_destroy(ts);
    nscd_system_destroy(sys);
    return rc;
}

static double max_abs2(const double *y) { return fmax(fabs(y[0]), fabs(y[1])); }

/* Largest relative misfit of y_{n+1} = B y_n over both runs, n >= 1. */
static double map_residual(const double B[4], double y[2][AMPLIFICATION_STEPS + 1][2]) {
    double worst = 0.0, normB = fmax(fabs(B[0]) + fabs(B[1]), fabs(B[2]) + fabs(B[3]));
    for (int r = 0; r < 2; ++r) {
        for (int n = 1; n < AMPLIFICATION_STEPS; ++n) {
            const double *a = y[r][n], *b = y[r][n + 1];
            double p0 = B[0] * a[0] + B[1] * a[1], p1 = B[2] * a[0] + B[3] * a[1];
            double scale = normB * max_abs2(a) + max_abs2(b);
            if (scale > 0.0) {
                worst = fmax(worst, fmax(fabs(p0 - b[0]), fabs(p1 - b[1])) / scale);
            }
        }
    }
    return worst;
}

/* min |A x - b| for an m x p matrix (p <= 3, row-major; A and b destroyed)
 * by Householder QR. Returns 0, or -1 when a column vanishes. */
static int least_squares(int m, int p, double *A, double *b, double *x) {
    double diag[3];
    for (int k = 0; k < p; ++k) {
        double norm = 0.0;
        for (int i = k; i < m; ++i) {
            norm += A[i * p + k] * A[i * p + k];
        }
        norm = sqrt(norm);
        if (norm == 0.0) {
            return -1;
        }
        diag[k] = A[k * p + k] > 0.0 ? -norm : norm; /* no cancellation in v_k */
        A[k * p + k] -= diag[k];
        double vv = 0.0;
        for (int i = k; i < m; ++i) {
            vv += A[i * p + k] * A[i * p + k];
        }
        for (int j = k + 1; j <= p; ++j) { /* the columns to the right, then b */
            double s = 0.0;
            for (int i = k; i < m; ++i) {
                s += A[i * p + k] * (j < p ? A[i * p + j] : b[i]);
            }
            double f = 2.0 * s / vv;
            for (int i = k; i < m; ++i) {
                if (j < p) {
                    A[i * p + j] -= f * A[i * p + k];
                } else {
                    b[i] -= f * A[i * p + k];
                }
            }
        }
    }
    for (int k = p - 1; k >= 0; --k) {
        double s = b[k];
        for (int j = k + 1; j < p; ++j) {
            s -= A[k * p + j] * x[j];
        }
        x[k] = s / diag[k];
    }
    return 0;
}

/* Fits s_{n+3} = c0 s_n + c1 s_{n+1} + c2 s_{n+2} to the four sequences
 * (two runs, q and v / omega), each equation scaled by its largest term so
 * that decaying and growing runs weigh alike. Returns the relative misfit,
 * or -1 when the fit fails. */
static double fit_recurrence(double y[2][AMPLIFICATION_STEPS + 1][2], double c[3]) {
    enum { ROWS = 4 * (AMPLIFICATION_STEPS - 2) };
    double A[ROWS * 3], b[ROWS], A0[ROWS * 3], b0[ROWS];
    int m = 0;
    for (int r = 0; r < 2; ++r) {
        for (int comp = 0; comp < 2; ++comp) {
            for (int n = 0; n + 3 <= AMPLIFICATION_STEPS; ++n) {
                double scale = 0.0;
                for (int k = 0; k <= 3; ++k) {
                    scale = fmax(scale, fabs(y[r][n + k][comp]));
                }
                if (scale == 0.0) {
                    continue;
                }
                for (int k = 0; k < 3; ++k) {
                    A[3 * m + k] = y[r][n + k][comp] / scale;
                }
                b[m++] = y[r][n + 3][comp] / scale;
            }
        }
    }
    memcpy(A0, A, sizeof A);
    memcpy(b0, b, sizeof b);
    if (m < 3 || least_squares(m, 3, A, b, c) != 0) {
        return -1.0;
    }
    double worst = 0.0;
    for (int i = 0; i < m; ++i) {
        double fit = A0[3 * i] * c[0] + A0[3 * i + 1] * c[1] + A0[3 * i + 2] * c[2];
        worst = fmax(worst, fabs(fit - b0[i]));
    }
    return worst;
}

/* The roots of z^2 + b1 z + b0 (real coefficients), without cancellation. */
static void quadratic_roots(double b1, double b0, double complex z[2]) {
    double disc = b1 * b1 - 4.0 * b0;
    if (disc >= 0.0) {
        double s = -0.5 * (b1 + (b1 >= 0.0 ? sqrt(disc) : -sqrt(disc)));
        z[0] = s;
        z[1] = s != 0.0 ? b0 / s : 0.0;
    } else {
        z[0] = -0.5 * b1 + 0.5 * sqrt(-disc) * I;
        z[1] = conj(z[0]);
    }
}

/* p(z) = z^3 + a2 z^2 + a1 z + a0 and p'(z). */
static double complex cubic(const double a[3], double complex z, double complex *dp) {
    *dp = (3.0 * z + 2.0 * a[2]) * z + a[1];
    return ((z + a[2]) * z + a[1]) * z + a[0];
}

/* The roots of z^3 + a2 z^2 + a1 z + a0 (real coefficients): a real root by
 * bisection on the Cauchy bound, the other two from the deflated quadratic,
 * each polished by Newton on the cubic. */
static void cubic_roots(const double a[3], double complex z[3]) {
    double R = 1.0 + fmax(fabs(a[0]), fmax(fabs(a[1]), fabs(a[2])));
    double lo = -R, hi = R; /* p(-R) < 0 < p(R) */
    for (int it = 0; it < 200 && lo < hi; ++it) {
        double mid = 0.5 * (lo + hi);
        if (mid <= lo || mid >= hi) {
            break;
        }
        double pm = ((mid + a[2]) * mid + a[1]) * mid + a[0];
        if (pm < 0.0) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    double r = 0.5 * (lo + hi);
    double b1 = a[2] + r; /* p = (z - r)(z^2 + b1 z + b0) */
    z[0] = r;
    quadratic_roots(b1, a[1] + r * b1, z + 1);
    for (int k = 1; k < 3; ++k) { /* Newton polish; keep a step only if it helps */
        for (int it = 0; it < 5; ++it) {
            double complex dp, p = cubic(a, z[k], &dp), dp2;
            if (dp == 0.0) {
                break;
            }
            double complex next = z[k] - p / dp;
            if (cabs(cubic(a, next, &dp2)) >= cabs(p)) {
                break;
            }
            z[k] = next;
        }
    }
    if (cimag(z[1]) != 0.0) { /* a conjugate pair stays exactly one */
        z[2] = conj(z[1]);
    }
}

static void summarise(double Omega, int count, const double complex *z, amplification *out) {
    out->rho = 0.0;
    int principal = -1;
    for (int k = 0; k < count; ++k) {
        out->re[k] = creal(z[k]);
        out->im[k] = cimag(z[k]);
        out->rho = fmax(out->rho, cabs(z[k]));
        if (cimag(z[k]) != 0.0 && (principal < 0 || fabs(cimag(z[k])) > fabs(out->im[principal]))) {
            principal = k;
        }
    }
    out->period_error = principal < 0 ? NAN : Omega / fabs(carg(z[principal])) - 1.0;
}

nscd_status amplification_from_samples(double y[2][AMPLIFICATION_STEPS + 1][2], double Omega,
                                       amplification *out) {
    memset(out, 0, sizeof *out);
    double B[4] = {y[0][1][0], y[1][1][0], y[0][1][1], y[1][1][1]}; /* y_0 = e_1, e_2 */
    out->map_residual = map_residual(B, y);
    double c[3];
    out->fit_residual = out->map_residual < 1e-9 ? -1.0 : fit_recurrence(y, c);
    /* a third state only when B misses the later steps by more than rounding
     * and the recurrence of order 3 fits them 1000 times better */
    int third = out->fit_residual >= 0.0 && out->fit_residual < 1e-3 * out->map_residual &&
                isfinite(c[0] + c[1] + c[2]);
    double complex z[3];
    if (!third) { /* state (q, v): the eigenvalues of B */
        double tr = B[0] + B[3], det = B[0] * B[3] - B[1] * B[2];
        quadratic_roots(-tr, det, z);
        out->order = 2;
        out->fit_residual = fmax(out->fit_residual, 0.0);
        summarise(Omega, 2, z, out);
        return NSCD_OK;
    }
    double a[3] = {-c[0], -c[1], -c[2]}; /* z^3 - c2 z^2 - c1 z - c0 */
    cubic_roots(a, z);
    out->order = 3;
    summarise(Omega, 3, z, out);
    return NSCD_OK;
}

nscd_status amplification_estimate(const nscd_time_stepping_options *options, double dt_over_T,
                                   amplification *out) {
    memset(out, 0, sizeof *out);
    double omega = 2.0 * PI, dt = dt_over_T; /* T = 1 s */
    oscillator osc = {omega * omega};
    nscd_time_stepping_options opt = *options;
    opt.dt = dt;
    opt.on_step = NULL;
    /* the trajectory should be the linear map's to rounding: a tight
     * tolerance on the schemes' Newton loop, the caller's if that fails */
    opt.newton_tolerance = 1e-14;
    double y[2][AMPLIFICATION_STEPS + 1][2];
    nscd_status rc = NSCD_ERR_NOT_CONVERGED;
    for (int attempt = 0; attempt < 2 && rc == NSCD_ERR_NOT_CONVERGED; ++attempt) {
        rc = trajectory(&opt, &osc, 1.0, 0.0, y[0]);
        if (rc == NSCD_OK) {
            rc = trajectory(&opt, &osc, 0.0, omega, y[1]);
        }
        opt.newton_tolerance = options->newton_tolerance;
    }
    if (rc != NSCD_OK) {
        return rc;
    }
    return amplification_from_samples(y, omega * dt, out);
}
