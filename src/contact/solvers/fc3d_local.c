/* Single-contact block solvers of the fc3d sweeps (Coulomb's law here; the
 * maximum-dissipation block is the analytic solver of single_contact.h). */
#include "contact/solvers/fc3d_local.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>

#include "core/bracket.h"

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

/* hypot(a, b) <= r, by squares where they neither overflow nor underflow
 * (the same answer but at the boundary itself, to rounding), by hypot
 * otherwise. */
static bool in_disc(double a, double b, double r) {
    if (!(r >= 0.0)) {
        return false;
    }
    const double lo = 1e-150, hi = 1e150;
    if (r > lo && r < hi && fabs(a) < hi && fabs(b) < hi) {
        return a * a + b * b <= r * r;
    }
    return hypot(a, b) <= r;
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

/* The sliding state at the slip direction w = (c, s), a unit vector. */
static slide_state slide_eval_w(const double A[9], const double v[3], double mu, double c,
                                double s) {
    slide_state st = {false, 0.0, 0.0, 0.0, 0.0};
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
    double r = 1.0 / Ap[0];
    st.xn = -v[0] * r;
    double dxn = -st.xn * Adp[0] * r;
    double ux = st.xn * Ap[1] + v[1], uy = st.xn * Ap[2] + v[2];
    double dux = dxn * Ap[1] + st.xn * Adp[1], duy = dxn * Ap[2] + st.xn * Adp[2];
    st.g = c * uy - s * ux;
    st.dot = c * ux + s * uy;
    st.dg = -st.dot + c * duy - s * dux;
    return st;
}

static slide_state slide_eval(const double A[9], const double v[3], double mu, double th) {
    return slide_eval_w(A, v, mu, cos(th), sin(th));
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

/* Fast path: Newton's method on the slip angle, carried on the unit vector
 * w = (c, s) itself so that no step needs a sine or a cosine: the Newton
 * step d = -g / g' in the angle moves w to (w + d w_perp) / sqrt(1 + d^2),
 * the point at angle atan(d) (= d - d^3/3 + ..., so the convergence near a
 * simple root stays quadratic, and a step never turns w by a right angle or
 * more). Exact in one step for a tangentially isotropic block. Stops when
 * |g| <= 1e-13 (|v|_1 + x_n |A_nn|), the residual of the local problem
 * (g = w x u_t, the tangential velocity's part across the slip); false
 * when that is not reached in 12 steps (the caller then scans). w0 need not
 * be of unit length (nonzero). */
static bool newton_sliding(const double A[9], const double v[3], double mu, const double w0[2],
                           double x[3]) {
    double scale = fabs(v[0]) + fabs(v[1]) + fabs(v[2]);
    double norm = sqrt(w0[0] * w0[0] + w0[1] * w0[1]);
    if (!(norm > 0.0) || !isfinite(norm)) {
        return false;
    }
    double c = w0[0] / norm, s = w0[1] / norm;
    for (int it = 0; it < 12; ++it) {
        slide_state st = slide_eval_w(A, v, mu, c, s);
        if (!st.valid) {
            return false;
        }
        double tol = 1e-13 * (scale + st.xn * fabs(A[0]));
        if (fabs(st.g) <= tol) {
            if (st.dot < 0.0) {
                return false;
            }
            x[0] = st.xn, x[1] = -mu * st.xn * c, x[2] = -mu * st.xn * s;
            return true;
        }
        if (!(st.dg != 0.0)) {
            return false;
        }
        /* d = -g / g', (w + d w_perp) / sqrt(1 + d^2) with one division:
         * sign(g') (g' w - g w_perp) / sqrt(g'^2 + g^2). */
        double h = 1.0 / sqrt(st.dg * st.dg + st.g * st.g);
        if (!(h > 0.0) || !isfinite(h)) {
            return false;
        }
        h = st.dg > 0.0 ? h : -h;
        double cn = (c * st.dg + st.g * s) * h, sn = (s * st.dg - st.g * c) * h;
        c = cn, s = sn;
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
    if (have_stick && in_disc(stick[1], stick[2], mu * stick[0])) {
        x[0] = stick[0], x[1] = stick[1], x[2] = stick[2];
        return NSCD_OK;
    }
    /* Sliding: start at the current slip direction guess (the friction
     * impulse opposes the slip), so that the nearest root is the one
     * continuation would find. For a tangentially isotropic A (spheres) the
     * sticking direction is already exact. */
    double w0[2] = {1.0, 0.0};
    if (x[0] > 0.0 && (x[1] != 0.0 || x[2] != 0.0)) {
        w0[0] = -x[1], w0[1] = -x[2];
    } else if (have_stick && (stick[1] != 0.0 || stick[2] != 0.0)) {
        w0[0] = -stick[1], w0[1] = -stick[2];
    }
    /* Scale w0 to its largest component first: its norm cannot overflow. */
    double big = fmax(fabs(w0[0]), fabs(w0[1]));
    w0[0] /= big, w0[1] /= big;
    if (newton_sliding(A, v, mu, w0, x)) {
        return NSCD_OK;
    }
    double th0 = atan2(w0[1], w0[0]);
    if (find_sliding(A, v, mu, th0, 16, x) || find_sliding(A, v, mu, th0, 512, x)) {
        return NSCD_OK;
    }
    return NSCD_ERR_NOT_CONVERGED;
}

/* Tresca's problem on the disc of radius R: y = argmin 1/2 y'T y + b'y over
 * ||y|| <= R, T = [t00 t01; t01 t11] symmetric positive definite. Interior:
 * y = -T^-1 b; boundary: y = -(T + lambda I)^-1 b with ||y|| = R, lambda > 0
 * found by Newton's method on 1/||y(lambda)|| - 1/R, which is concave and
 * increasing, so that the iterates rise monotonically to the root from
 * lambda = 0 (More and Sorensen's trust-region subproblem, in 2D). */
static void tresca_disc(double t00, double t01, double t11, const double b[2], double R,
                        double y[2]) {
    y[0] = y[1] = 0.0;
    if (!(R > 0.0)) {
        return;
    }
    double det = t00 * t11 - t01 * t01;
    double y0 = (t01 * b[1] - t11 * b[0]) / det, y1 = (t01 * b[0] - t00 * b[1]) / det;
    if (hypot(y0, y1) <= R) {
        y[0] = y0, y[1] = y1;
        return;
    }
    double c = 1.0, s = 0.0, a0 = t00, a1 = t11; /* T = Q diag(a0, a1) Q', Q = [c -s; s c] */
    if (t01 != 0.0) {
        double th = 0.5 * atan2(2.0 * t01, t00 - t11);
        c = cos(th), s = sin(th);
        a0 = t00 * c * c + 2.0 * t01 * c * s + t11 * s * s;
        a1 = t00 * s * s - 2.0 * t01 * c * s + t11 * c * c;
    }
    double c0 = c * b[0] + s * b[1], c1 = c * b[1] - s * b[0];
    double lambda = 0.0;
    for (int it = 0; it < 100; ++it) {
        double d0 = c0 / (a0 + lambda), d1 = c1 / (a1 + lambda);
        double n2 = d0 * d0 + d1 * d1, n = sqrt(n2);
        double h = 1.0 / n - 1.0 / R;
        double dh = (d0 * d0 / (a0 + lambda) + d1 * d1 / (a1 + lambda)) / (n2 * n);
        double next = lambda - h / dh;
        if (!(next > lambda)) {
            break; /* the root, to rounding */
        }
        lambda = next;
    }
    double z0 = -c0 / (a0 + lambda), z1 = -c1 / (a1 + lambda);
    double f = R / hypot(z0, z1); /* onto the circle exactly */
    y[0] = f * (c * z0 - s * z1);
    y[1] = f * (s * z0 + c * z1);
}

/* The impulse of normal part t >= 0 whose tangential part solves Tresca's
 * problem with the bound mu t; returns its normal velocity u_n. */
static double tresca_state(const double A[9], const double v[3], double mu, double t, double y[3]) {
    double b[2] = {v[1] + A[3] * t, v[2] + A[6] * t};
    y[0] = t;
    tresca_disc(A[4], 0.5 * (A[5] + A[7]), A[8], b, mu * t, y + 1);
    return A[0] * t + A[1] * y[1] + A[2] * y[2] + v[0];
}

nscd_status nscd__fc3d_local_coulomb_shifted(const double A[9], const double v[3], double mu,
                                             double s, double x[3]) {
    if (s == 0.0) {
        return nscd__fc3d_local_coulomb(A, v, mu, x);
    }
    double y[3];
    double lo = s, flo = tresca_state(A, v, mu, s, y);
    if (flo >= 0.0) { /* the bound alone separates the contact: u_n >= 0 at x_n = s */
        x[0] = y[0], x[1] = y[1], x[2] = y[2];
        return NSCD_OK;
    }
    if (mu == 0.0) {
        x[0] = -v[0] / A[0];
        x[1] = x[2] = 0.0;
        return NSCD_OK;
    }
    double stick[3], minus_v[3] = {-v[0], -v[1], -v[2]};
    if (solve3(A, minus_v, stick) && stick[0] >= s && hypot(stick[1], stick[2]) <= mu * stick[0]) {
        x[0] = stick[0], x[1] = stick[1], x[2] = stick[2];
        return NSCD_OK;
    }
    /* u_n = 0 with x_n = t > s: the Tresca state's normal velocity f(t) is
     * continuous, f(s) < 0; bracket a root by doubling steps, refine it. */
    double step = fmax(s, fabs(v[0]) / A[0]), hi = lo, fhi = flo;
    int found = 0;
    for (int k = 0; k < 200 && !found; ++k) {
        hi = lo + step;
        fhi = tresca_state(A, v, mu, hi, y);
        if (!isfinite(fhi)) {
            return NSCD_ERR_NOT_CONVERGED;
        }
        if (fhi >= 0.0) {
            found = 1;
        } else {
            lo = hi, flo = fhi, step *= 2.0;
        }
    }
    if (!found) {
        return NSCD_ERR_NOT_CONVERGED; /* u_n < 0 for every bound: a jam */
    }
    nscd__bracket br = nscd__bracket_make(lo, flo, hi, fhi);
    double root = hi; /* always an end with u_n >= 0 */
    for (int it = 0; it < 200 && br.b - br.a > 4.0 * DBL_EPSILON * br.b; ++it) {
        double t = nscd__bracket_trial(&br);
        double ft = tresca_state(A, v, mu, t, y);
        if (ft == 0.0) {
            root = t;
            break;
        }
        nscd__bracket_update(&br, t, ft, ft < 0.0);
        root = br.b;
    }
    tresca_state(A, v, mu, root, y);
    x[0] = y[0], x[1] = y[1], x[2] = y[2];
    return NSCD_OK;
}
