/* Independent reference computations for the single-contact tests: random
 * problems, brute-force minimisation of the maximum-dissipation problem and
 * checks of the Coulomb conditions. Nothing here uses the library's analytic
 * solver (no quartic, no Schur complement, a different parametrisation). */
#ifndef NSCD_TEST_SINGLE_CONTACT_REFERENCE_H
#define NSCD_TEST_SINGLE_CONTACT_REFERENCE_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Deterministic generator (xorshift64*), uniform in [0, 1). */
static uint64_t ref_rng_state = 0x9E3779B97F4A7C15ull;
static inline double ref_uniform(void) {
    ref_rng_state ^= ref_rng_state >> 12;
    ref_rng_state ^= ref_rng_state << 25;
    ref_rng_state ^= ref_rng_state >> 27;
    return (double)((ref_rng_state * 2685821657736338717ull) >> 11) * 0x1.0p-53;
}
static inline double ref_normal(void) {
    double u = ref_uniform() + 1e-300, v = ref_uniform();
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

static inline double ref_dot3(const double *a, const double *b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static inline void ref_matvec(const double A[9], const double x[3], double y[3]) {
    for (int i = 0; i < 3; ++i) {
        y[i] = ref_dot3(A + 3 * i, x);
    }
}
static inline double ref_objective(const double A[9], const double b[3], const double x[3]) {
    double Ax[3];
    ref_matvec(A, x, Ax);
    return 0.5 * ref_dot3(x, Ax) - ref_dot3(x, b);
}

/* Random SPD matrix M M' + eps I with a random condition, scaled by `scale`. */
static inline void ref_random_spd(double A[9], double scale) {
    double M[9];
    for (int i = 0; i < 9; ++i) {
        M[i] = ref_normal();
    }
    double eps = pow(10.0, -3.0 * ref_uniform());
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            A[3 * i + j] = scale * (ref_dot3(M + 3 * i, M + 3 * j) + (i == j ? eps : 0.0));
        }
    }
}

/* Solves A x = b by Cramer's rule (independent of the library's Cholesky). */
static inline void ref_solve3(const double A[9], const double b[3], double x[3]) {
    double c0 = A[4] * A[8] - A[5] * A[7], c1 = A[5] * A[6] - A[3] * A[8],
           c2 = A[3] * A[7] - A[4] * A[6];
    double det = A[0] * c0 + A[1] * c1 + A[2] * c2;
    double Ai[9] = {c0, A[2] * A[7] - A[1] * A[8], A[1] * A[5] - A[2] * A[4],
                    c1, A[0] * A[8] - A[2] * A[6], A[2] * A[3] - A[0] * A[5],
                    c2, A[1] * A[6] - A[0] * A[7], A[0] * A[4] - A[1] * A[3]};
    for (int i = 0; i < 3; ++i) {
        x[i] = ref_dot3(Ai + 3 * i, b) / det;
    }
}

/* Point of the cone surface x = s (1, mu cos th, mu sin th) on the plane
 * a_n'x = b_n (b_n > 0); false when the ray does not meet the plane. */
static inline bool ref_surface_point(const double A[9], const double b[3], double mu, double th,
                                     double x[3]) {
    double w[3] = {1.0, mu * cos(th), mu * sin(th)};
    double an_w = ref_dot3(A, w);
    if (!(an_w > 0.0)) {
        return false;
    }
    double s = b[0] / an_w;
    x[0] = s * w[0], x[1] = s * w[1], x[2] = s * w[2];
    return true;
}

/* Brute force for b_n > 0, mu > 0: the unconstrained minimum if it is in the cone,
 * else dense sampling of the cone-surface angle and golden-section refinement of
 * the 4 best local minima. Returns the minimum objective; x receives the minimiser. */
static inline double ref_brute_force_mdp(const double A[9], const double b[3], double mu,
                                         double x[3]) {
    double x0[3];
    ref_solve3(A, b, x0);
    if (x0[0] >= 0.0 && hypot(x0[1], x0[2]) <= mu * x0[0]) {
        memcpy(x, x0, sizeof x0);
        return ref_objective(A, b, x0);
    }
    enum { n = 4096 };
    static double f[n];
    const double two_pi = 6.283185307179586, h = two_pi / n;
    for (int i = 0; i < n; ++i) {
        double y[3];
        f[i] = ref_surface_point(A, b, mu, i * h, y) ? ref_objective(A, b, y) : INFINITY;
    }
    double best = INFINITY;
    for (int pass = 0; pass < 4; ++pass) {
        int imin = -1;
        for (int i = 0; i < n; ++i) {
            bool local = f[i] <= f[(i + 1) % n] && f[i] <= f[(i + n - 1) % n];
            if (local && isfinite(f[i]) && (imin < 0 || f[i] < f[imin])) {
                imin = i;
            }
        }
        if (imin < 0) {
            break;
        }
        double lo = (imin - 1) * h, hi = (imin + 1) * h;
        for (int it = 0; it < 200 && hi - lo > 1e-16; ++it) {
            double m1 = lo + 0.381966011250105 * (hi - lo), m2 = hi - 0.381966011250105 * (hi - lo);
            double y1[3], y2[3];
            double f1 = ref_surface_point(A, b, mu, m1, y1) ? ref_objective(A, b, y1) : INFINITY;
            double f2 = ref_surface_point(A, b, mu, m2, y2) ? ref_objective(A, b, y2) : INFINITY;
            if (f1 < f2) {
                hi = m2;
            } else {
                lo = m1;
            }
        }
        double y[3];
        if (ref_surface_point(A, b, mu, 0.5 * (lo + hi), y)) {
            double fy = ref_objective(A, b, y);
            if (fy < best) {
                best = fy;
                memcpy(x, y, sizeof y);
            }
        }
        f[imin] = INFINITY; /* next pass: next local minimum */
    }
    return best;
}

/* Checks of the impulsive Coulomb law at x with relative tolerance tol. */
static inline bool ref_is_coulomb_solution(const double A[9], const double b[3], double mu,
                                           const double x[3], double tol) {
    double u[3];
    ref_matvec(A, x, u);
    for (int i = 0; i < 3; ++i) {
        u[i] -= b[i];
    }
    double x0[3];
    ref_solve3(A, b, x0);
    double xs = fmax(sqrt(ref_dot3(x, x)), sqrt(ref_dot3(x0, x0)));
    double us = sqrt(ref_dot3(b, b)) + 1e-300;
    double xt = hypot(x[1], x[2]), ut = hypot(u[1], u[2]);
    if (x[0] < -tol * xs || u[0] < -tol * us || xt > mu * x[0] + tol * xs) {
        return false;
    }
    if (fabs(x[0] * u[0]) > tol * xs * us) {
        return false;
    }
    if (ut <= tol * us) {
        return true; /* sticking (or no contact with zero slip) */
    }
    /* sliding: x_to = -mu x_n u_to / ||u_to|| */
    double e1 = x[1] + mu * x[0] * u[1] / ut, e2 = x[2] + mu * x[0] * u[2] / ut;
    return hypot(e1, e2) <= tol * xs;
}

/* |a - b| <= tol in double precision (cmocka's assert_float_equal uses float). */
#define assert_close(a, b, tol) assert_true(fabs((double)(a) - (double)(b)) <= (double)(tol))

#endif
