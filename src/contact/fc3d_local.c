/* Single-contact block solvers of the fc3d sweeps (Coulomb's law here; the
 * maximum-dissipation block is the analytic solver of single_contact.h). */
#include "contact/fc3d_local.h"

#include <math.h>
#include <stdbool.h>

/* Solves A x = b for a 3x3 matrix by the adjugate; false when singular. */
static bool solve3(const double A[9], const double b[3], double x[3]) {
    double c00 = A[4] * A[8] - A[5] * A[7];
    double c01 = A[5] * A[6] - A[3] * A[8];
    double c02 = A[3] * A[7] - A[4] * A[6];
    double det = A[0] * c00 + A[1] * c01 + A[2] * c02;
    if (!(fabs(det) > 0.0) || !isfinite(det)) {
        return false;
    }
    double c10 = A[2] * A[7] - A[1] * A[8];
    double c11 = A[0] * A[8] - A[2] * A[6];
    double c12 = A[1] * A[6] - A[0] * A[7];
    double c20 = A[1] * A[5] - A[2] * A[4];
    double c21 = A[2] * A[3] - A[0] * A[5];
    double c22 = A[0] * A[4] - A[1] * A[3];
    /* inverse = adj / det, adj = cofactor matrix transposed */
    x[0] = (c00 * b[0] + c10 * b[1] + c20 * b[2]) / det;
    x[1] = (c01 * b[0] + c11 * b[1] + c21 * b[2]) / det;
    x[2] = (c02 * b[0] + c12 * b[1] + c22 * b[2]) / det;
    return true;
}

/* A sliding state parametrised by the slip direction w = (cos th, sin th):
 * x = x_n (1, -mu w), x_n fixed by u_n = 0. The state is a Coulomb solution
 * when u_t is parallel to w with u_t . w >= 0, i.e. g = w x u_t = 0. */
typedef struct slide_state {
    bool valid; /* (A (1, -mu w))_n > 0, so that x_n > 0 */
    double xn;  /* normal impulse */
    double g;   /* w x u_t */
    double dg;  /* dg / dth */
    double dot; /* w . u_t (slip speed, must be >= 0) */
} slide_state;

static slide_state slide_eval(const double A[9], const double v[3], double mu, double th) {
    slide_state st = {false, 0.0, 0.0, 0.0, 0.0};
    double c = cos(th), s = sin(th);
    double p[3] = {1.0, -mu * c, -mu * s};
    double dp[3] = {0.0, mu * s, -mu * c};
    double Ap[3], Adp[3];
    for (int i = 0; i < 3; ++i) {
        Ap[i] = A[3 * i] * p[0] + A[3 * i + 1] * p[1] + A[3 * i + 2] * p[2];
        Adp[i] = A[3 * i + 1] * dp[1] + A[3 * i + 2] * dp[2];
    }
    if (!(Ap[0] > 0.0)) {
        return st;
    }
    st.valid = true;
    st.xn = -v[0] / Ap[0];
    double dxn = -st.xn * Adp[0] / Ap[0];
    double ux = st.xn * Ap[1] + v[1], uy = st.xn * Ap[2] + v[2];
    double dux = dxn * Ap[1] + st.xn * Adp[1], duy = dxn * Ap[2] + st.xn * Adp[2];
    st.g = c * uy - s * ux;
    st.dot = c * ux + s * uy;
    st.dg = -st.dot + c * duy - s * dux;
    return st;
}

/* Refines a root of g in the bracket [a, b] (g(a), g(b) of opposite signs) by
 * Newton steps kept inside the bracket, bisection otherwise. */
static double refine_root(const double A[9], const double v[3], double mu, double a, double ga,
                          double b) {
    double th = 0.5 * (a + b);
    for (int it = 0; it < 80 && b - a > 1e-15 * (1.0 + fabs(th)); ++it) {
        slide_state st = slide_eval(A, v, mu, th);
        if (!st.valid) {
            return th; /* a pole inside the bracket: rejected by the caller */
        }
        if (st.g == 0.0) {
            return th;
        }
        if ((st.g > 0.0) == (ga > 0.0)) {
            a = th;
            ga = st.g;
        } else {
            b = th;
        }
        double next = st.dg != 0.0 ? th - st.g / st.dg : a - 1.0;
        th = (next > a && next < b) ? next : 0.5 * (a + b);
    }
    return th;
}

/* Scans n_samples slip angles from th0 and keeps the sliding solution nearest
 * to x (in impulse). Returns false when no root passes the checks. */
static bool find_sliding(const double A[9], const double v[3], double mu, double th0, int n_samples,
                         double x[3]) {
    const double two_pi = 6.283185307179586;
    double scale = fabs(v[0]) + hypot(v[1], v[2]);
    double best_dist = INFINITY, best[3] = {0.0, 0.0, 0.0};
    double h = two_pi / n_samples;
    slide_state prev = slide_eval(A, v, mu, th0);
    for (int k = 1; k <= n_samples; ++k) {
        double th = th0 + k * h;
        slide_state cur = slide_eval(A, v, mu, th);
        if (prev.valid && cur.valid && (prev.g > 0.0) != (cur.g > 0.0)) {
            double root = refine_root(A, v, mu, th - h, prev.g, th);
            slide_state st = slide_eval(A, v, mu, root);
            double tol = 1e-9 * (scale + st.xn * fabs(A[0]));
            if (st.valid && st.dot >= -tol && fabs(st.g) <= tol) {
                double cand[3] = {st.xn, -mu * st.xn * cos(root), -mu * st.xn * sin(root)};
                double d = hypot(hypot(cand[0] - x[0], cand[1] - x[1]), cand[2] - x[2]);
                if (d < best_dist) {
                    best_dist = d;
                    best[0] = cand[0], best[1] = cand[1], best[2] = cand[2];
                }
            }
        }
        prev = cur;
    }
    if (!(best_dist < INFINITY)) {
        return false;
    }
    x[0] = best[0], x[1] = best[1], x[2] = best[2];
    return true;
}

/* Fast path: a few plain Newton steps from th0 (exact in one step for a
 * tangentially isotropic block, quadratic near a simple root). */
static bool newton_sliding(const double A[9], const double v[3], double mu, double th,
                           double x[3]) {
    double scale = fabs(v[0]) + hypot(v[1], v[2]);
    for (int it = 0; it < 8; ++it) {
        slide_state st = slide_eval(A, v, mu, th);
        if (!st.valid) {
            return false;
        }
        double tol = 1e-13 * (scale + st.xn * fabs(A[0]));
        if (fabs(st.g) <= tol) {
            if (st.dot < 0.0) {
                return false;
            }
            x[0] = st.xn, x[1] = -mu * st.xn * cos(th), x[2] = -mu * st.xn * sin(th);
            return true;
        }
        if (!(st.dg != 0.0)) {
            return false;
        }
        th -= st.g / st.dg;
    }
    return false;
}

nscd_status nscd__fc3d_local_coulomb(const double A[9], const double v[3], double mu, double x[3]) {
    if (v[0] >= 0.0) { /* take-off: r = 0 gives u = v with u~ in K^* */
        x[0] = x[1] = x[2] = 0.0;
        return NSCD_OK;
    }
    if (mu == 0.0) { /* frictionless: u_n = 0 */
        x[0] = -v[0] / A[0];
        x[1] = x[2] = 0.0;
        return NSCD_OK;
    }
    double stick[3], minus_v[3] = {-v[0], -v[1], -v[2]};
    bool have_stick = solve3(A, minus_v, stick);
    if (have_stick && hypot(stick[1], stick[2]) <= mu * stick[0]) {
        x[0] = stick[0], x[1] = stick[1], x[2] = stick[2];
        return NSCD_OK;
    }
    /* Sliding: start the angle scan at the current slip direction guess (the
     * friction impulse opposes the slip), so that the nearest root is the one
     * continuation would find. For a tangentially isotropic A (spheres) the
     * sticking direction is already exact. */
    double th0 = 0.0;
    if (x[0] > 0.0 && hypot(x[1], x[2]) > 0.0) {
        th0 = atan2(-x[2], -x[1]);
    } else if (have_stick && hypot(stick[1], stick[2]) > 0.0) {
        th0 = atan2(-stick[2], -stick[1]);
    }
    if (newton_sliding(A, v, mu, th0, x) || find_sliding(A, v, mu, th0, 16, x) ||
        find_sliding(A, v, mu, th0, 512, x)) {
        return NSCD_OK;
    }
    return NSCD_ERR_NOT_CONVERGED;
}
