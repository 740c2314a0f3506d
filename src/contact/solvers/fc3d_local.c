/* Single-contact block solvers of the fc3d sweeps (Coulomb's law here; the
 * maximum-dissipation block is the analytic solver of single_contact.h). */
#include "contact/solvers/fc3d_local.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>

#include "core/bracket.h"

/* The adjugate of a 3x3 matrix (row-major: A^-1 = adj / det) and its
 * determinant, A's first row times the first column of adj. */
static double adjugate3(const double A[9], double adj[9]) {
    adj[0] = A[4] * A[8] - A[5] * A[7];
    adj[3] = A[5] * A[6] - A[3] * A[8];
    adj[6] = A[3] * A[7] - A[4] * A[6];
    adj[1] = A[2] * A[7] - A[1] * A[8];
    adj[4] = A[0] * A[8] - A[2] * A[6];
    adj[7] = A[1] * A[6] - A[0] * A[7];
    adj[2] = A[1] * A[5] - A[2] * A[4];
    adj[5] = A[2] * A[3] - A[0] * A[5];
    adj[8] = A[0] * A[4] - A[1] * A[3];
    return A[0] * adj[0] + A[1] * adj[3] + A[2] * adj[6];
}

/* Solves A x = b for a 3x3 matrix by the adjugate; false when singular. */
static bool solve3(const double A[9], const double b[3], double x[3]) {
    double adj[9];
    double det = adjugate3(A, adj);
    if (!(fabs(det) > 0.0) || !isfinite(det)) {
        return false;
    }
    for (int r = 0; r < 3; ++r) {
        x[r] = (adj[3 * r] * b[0] + adj[3 * r + 1] * b[1] + adj[3 * r + 2] * b[2]) / det;
    }
    return true;
}

/* hypot(a, b) <= r, by squares where they neither overflow nor underflow
 * (the same answer but at the boundary itself, to rounding), by hypot
 * otherwise. */
static inline bool in_disc(double a, double b, double r) {
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

/* The coefficients of the slip equation G(w) of a sliding contact (see
 * newton_sliding) for the block A, the free velocity v and mu, and its
 * tolerances: shared by the exact solve and the sweeps' one step. */
typedef struct slip_function {
    double L1, L2, Qcc, Qcs, Qss, P, tol, tol_n;
} slip_function;

static slip_function slip_function_of(const double A[9], const double v[3], double mu) {
    const double vn = v[0], v1 = v[1], v2 = v[2], ann = A[0];
    slip_function g;
    g.L1 = ann * v2 - vn * A[6], g.L2 = vn * A[3] - ann * v1;
    g.Qcc = mu * (vn * A[7] - A[1] * v2);
    g.Qcs = mu * (vn * (A[8] - A[4]) - (A[2] * v2 - A[1] * v1));
    g.Qss = mu * (A[2] * v1 - vn * A[5]);
    g.P = g.Qcc - g.Qss;
    g.tol = 1e-13 * (fabs(vn) + fabs(v1) + fabs(v2)), g.tol_n = 1e-13 * fabs(vn * ann);
    return g;
}

/* Fast path: Halley's method on the slip angle th, w = (c, s) = (cos th,
 * sin th), carried on w itself (no sine or cosine is ever evaluated).
 *
 * With D(w) = A_nn - mu A_nt.w (= (A p)_n, p = (1, -mu w)) > 0, the
 * sliding state's g = w x u_t (slide_eval_w) times D is, by x_n D = -v_n,
 *
 *   G(w) = -v_n w x A_tn + mu v_n w x (A_tt w) + A_nn w x v_t
 *          - mu (A_nt.w) (w x v_t)
 *        = L1 c + L2 s + Qcc c^2 + Qcs c s + Qss s^2,
 *
 * a trigonometric polynomial of degree 2 in th whose coefficients are
 * formed once: G, G' and G'' then cost a few products and no division. A
 * root of G with D > 0 is a root of g, and |g| <= tol is |G| <= tol D: the
 * stopping test is the one on g, |g| <= 1e-13 (|v|_1 + x_n |A_nn|), the
 * residual of the local problem (the tangential velocity across the slip),
 * here 1e-13 (|v|_1 D + |v_n| |A_nn|) on G. A step d (Halley's, cubic near
 * a simple root; Newton's where Halley's denominator is not positive)
 * turns w by the angle d: for |d| <= 1e-2 by cos d and sin d to O(d^6)
 * (the truncation below 2e-15, w renormalised at the end), else to
 * (w + d w_perp) / sqrt(1 + d^2) (the angle atan d, which never turns w by
 * a right angle or more). Exact at once for a tangentially isotropic
 * block. At the root: D > 0 and the slip w.u_t >= 0, else false (the
 * caller scans); false too after 16 steps. w0 need not be of unit length
 * (nonzero, finite). */
static bool newton_sliding(const double A[9], const double v[3], double mu, const double w0[2],
                           double x[3]) {
    const double vn = v[0], v1 = v[1], v2 = v[2], ann = A[0];
    const slip_function g = slip_function_of(A, v, mu);
    double w0x = w0[0], w0y = w0[1], q0 = w0x * w0x + w0y * w0y;
    if (!(q0 > 1e-290 && q0 < 1e290)) { /* scaled to its largest component first */
        double big = fabs(w0x) > fabs(w0y) ? fabs(w0x) : fabs(w0y);
        if (!(big > 0.0) || !isfinite(big)) {
            return false;
        }
        w0x /= big, w0y /= big;
        q0 = w0x * w0x + w0y * w0y;
    }
    double norm = sqrt(q0);
    if (!(norm > 0.0) || !isfinite(norm)) {
        return false;
    }
    double inv = 1.0 / norm;
    double c = w0x * inv, s = w0y * inv;
    for (int it = 0; it <= 16; ++it) {
        double cc = c * c - s * s, cs = c * s; /* cos 2th, sin 2th / 2 */
        double D = ann - mu * (A[1] * c + A[2] * s);
        double G = g.L1 * c + g.L2 * s + g.Qcc * c * c + g.Qcs * cs + g.Qss * s * s;
        if (fabs(G) <= g.tol * fabs(D) + g.tol_n) {
            if (!(D > 0.0)) {
                return false;
            }
            /* back onto the unit circle: |w|^2 = 1 + e with |e| at rounding
             * level after the series steps, where 1/sqrt(1 + e) is
             * 1 - e/2 to O(e^2) */
            double q = c * c + s * s;
            double f = fabs(q - 1.0) < 1e-8 ? 1.5 - 0.5 * q : 1.0 / sqrt(q);
            c *= f, s *= f;
            D = ann - mu * (A[1] * c + A[2] * s);
            if (!(D > 0.0)) {
                return false;
            }
            double xn = -vn / D;
            double ux = xn * (A[3] - mu * (A[4] * c + A[5] * s)) + v1;
            double uy = xn * (A[6] - mu * (A[7] * c + A[8] * s)) + v2;
            if (c * ux + s * uy < 0.0) {
                return false;
            }
            x[0] = xn, x[1] = -mu * xn * c, x[2] = -mu * xn * s;
            return true;
        }
        if (it == 16) {
            break;
        }
        double G1 = g.L2 * c - g.L1 * s + g.Qcs * cc - 2.0 * g.P * cs;
        double G2 = -g.L1 * c - g.L2 * s - 2.0 * g.P * cc - 4.0 * g.Qcs * cs;
        double den = 2.0 * G1 * G1 - G * G2, d;
        if (den > 0.0) {
            d = -2.0 * G * G1 / den;
        } else if (G1 != 0.0) {
            d = -G / G1;
        } else {
            return false;
        }
        if (!isfinite(d)) {
            return false;
        }
        if (fabs(d) <= 1e-2) {
            double d2 = d * d;
            double co = 1.0 - 0.5 * d2 * (1.0 - (1.0 / 12.0) * d2);
            double si = d * (1.0 - (1.0 / 6.0) * d2 * (1.0 - 0.05 * d2));
            double cn = c * co - s * si, sn = s * co + c * si;
            c = cn, s = sn;
        } else {
            double f = 1.0 / sqrt(1.0 + d * d);
            double cn = (c - d * s) * f, sn = (s + d * c) * f;
            c = cn, s = sn;
        }
    }
    return false;
}

/* One step of newton_sliding from the slip direction w0 (nonzero, finite,
 * of any length): the sweeps' inexact sliding solve
 * (nscd__fc3d_local_coulomb_step). The start's residual g(w0) = G/D, the
 * tangential velocity across the slip (m/s), goes to *resid; it is 0 when
 * G passes newton_sliding's stopping test, and then the step d is 0: x is
 * the sliding impulse at w0, newton_sliding's root from w0 (to rounding).
 * Else d is Halley's step (Newton's where Halley's denominator is not
 * positive), and w turns by 2 atan(d/2) (d - d^3/12 + ...: the Cayley
 * transform w' = ((1 - t^2) w + 2t w_perp) / (1 + t^2), t = d/2, of unit
 * length by construction, no square root and no branch on |d|); no test
 * at its end. The impulse x = x_n (1, -mu w') with x_n from u_n = 0 takes
 * one division: with N = (1 + t^2) w' and E = 1 + t^2,
 * D(w') = (A_nn E - mu A_nt.N) / E, so x_n = -v_n E / D~ and
 * x_n w' = -v_n N / D~, D~ = A_nn E - mu A_nt.N. false (x unset) when a
 * step cannot be taken or D <= 0 or the slip w'.u_t < 0 at its end: the
 * caller then solves exactly. The step t = d/2 is kept as a quotient b/a
 * (Halley: a = 2 G'^2 - G G'', b = -G G'), and E, N, D~ are formed times
 * a^2 (the same quotients), so that the whole update takes one division:
 * none for the step, one for x_n. */
static bool halley_once(const double A[9], const double v[3], double mu, double w0x, double w0y,
                        double x[3], double *resid) {
    const double vn = v[0], v1 = v[1], v2 = v[2], ann = A[0];
    const slip_function g = slip_function_of(A, v, mu);
    double q0 = w0x * w0x + w0y * w0y;
    if (!(q0 > 1e-290 && q0 < 1e290)) {
        return false; /* the exact solve rescales */
    }
    double inv = 1.0 / sqrt(q0);
    double c = w0x * inv, s = w0y * inv;
    double cc = c * c - s * s, cs = c * s;
    double D = ann - mu * (A[1] * c + A[2] * s);
    double G = g.L1 * c + g.L2 * s + g.Qcc * c * c + g.Qcs * cs + g.Qss * s * s;
    if (!(D > 0.0)) {
        return false;
    }
    /* the step's t = d/2 as the quotient b/a (a > 0), never divided out */
    double a = 1.0, b = 0.0;
    *resid = 0.0;
    if (!(fabs(G) <= g.tol * fabs(D) + g.tol_n)) {
        *resid = fabs(G) / D;
        double G1 = g.L2 * c - g.L1 * s + g.Qcs * cc - 2.0 * g.P * cs;
        double G2 = -g.L1 * c - g.L2 * s - 2.0 * g.P * cc - 4.0 * g.Qcs * cs;
        double den = 2.0 * G1 * G1 - G * G2;
        if (den > 0.0) { /* Halley: d = -2 G G1 / den */
            a = den, b = -G * G1;
        } else if (G1 != 0.0) { /* Newton: d = -G / G1 */
            a = fabs(2.0 * G1), b = G1 > 0.0 ? -G : G;
        } else {
            return false;
        }
    }
    /* E, N and D~ of the comment above times a^2: the same quotients */
    const double a2 = a * a, b2 = b * b, ab2 = 2.0 * a * b;
    const double E = a2 + b2, O = a2 - b2;
    const double Nc = c * O - ab2 * s, Ns = s * O + ab2 * c;
    const double Dt = ann * E - mu * (A[1] * Nc + A[2] * Ns);
    if (!(Dt > 0.0 && Dt < INFINITY && E < INFINITY)) {
        return false; /* D <= 0, or a step out of range: the exact solve */
    }
    const double r = -vn / Dt;
    const double xn = r * E, xc = r * Nc, xs = r * Ns; /* x_n and x_n w' */
    double ux = xn * A[3] - mu * (A[4] * xc + A[5] * xs) + v1;
    double uy = xn * A[6] - mu * (A[7] * xc + A[8] * xs) + v2;
    if (!(xn > 0.0) || xc * ux + xs * uy < 0.0) { /* x_n > 0: the sign of w'.u_t */
        return false;
    }
    x[0] = xn, x[1] = -mu * xc, x[2] = -mu * xs;
    return true;
}

bool nscd__fc3d_inverse3(const double A[9], double Ai[9]) {
    double B[9];
    double det = adjugate3(A, B);
    if (!(fabs(det) > 0.0) || !isfinite(det)) {
        return false;
    }
    double r = 1.0 / det;
    for (int k = 0; k < 9; ++k) {
        B[k] *= r;
    }
    for (int k = 0; k < 9; ++k) {
        if (!isfinite(B[k])) {
            return false;
        }
    }
    for (int k = 0; k < 9; ++k) {
        Ai[k] = B[k];
    }
    return true;
}

/* The sliding branch of the Coulomb block solve (stick: the sticking
 * impulse, have_stick: whether there is one). `prescale`: the start
 * directions scaled to their largest component here (two divisions before
 * the iteration can start) rather than in newton_sliding only when their
 * squares would leave the normal range (the same directions to rounding). */
static nscd_status coulomb_sliding(const double A[9], const double v[3], double mu,
                                   const double stick[3], bool have_stick, bool prescale,
                                   double x[3]) {
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
    if (prescale) {
        double big = fabs(w0[0]) > fabs(w0[1]) ? fabs(w0[0]) : fabs(w0[1]);
        w0[0] /= big, w0[1] /= big;
    }
    if (newton_sliding(A, v, mu, w0, x)) {
        return NSCD_OK;
    }
    /* The iteration met a root with the wrong slip (u_t against w) or none:
     * once more from the sticking impulse's direction, then the scan. */
    if (have_stick && (stick[1] != 0.0 || stick[2] != 0.0)) {
        double ws[2] = {-stick[1], -stick[2]};
        if (prescale) {
            double big = fabs(ws[0]) > fabs(ws[1]) ? fabs(ws[0]) : fabs(ws[1]);
            ws[0] /= big, ws[1] /= big;
        }
        if ((ws[0] != w0[0] || ws[1] != w0[1]) && newton_sliding(A, v, mu, ws, x)) {
            return NSCD_OK;
        }
    }
    double th0 = atan2(w0[1], w0[0]);
    if (find_sliding(A, v, mu, th0, 16, x) || find_sliding(A, v, mu, th0, 512, x)) {
        return NSCD_OK;
    }
    return NSCD_ERR_NOT_CONVERGED;
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
    return coulomb_sliding(A, v, mu, stick, have_stick, true, x);
}

/* The local Coulomb problem's cases that need no iteration, with A^-1
 * given: take-off, frictionless, sticking. true when x holds the answer;
 * false when the contact slides, stick then holding the sticking impulse
 * -A^-1 v (outside the cone). */
static bool coulomb_inv_direct(const double A[9], const double Ai[9], double v0, double v1,
                               double v2, double mu, double x[3], double stick[3]) {
    if (v0 >= 0.0) { /* take-off */
        x[0] = x[1] = x[2] = 0.0;
        return true;
    }
    if (mu == 0.0) { /* frictionless: u_n = 0 */
        x[0] = -v0 / A[0];
        x[1] = x[2] = 0.0;
        return true;
    }
    stick[0] = -(Ai[0] * v0 + Ai[1] * v1 + Ai[2] * v2);
    stick[1] = -(Ai[3] * v0 + Ai[4] * v1 + Ai[5] * v2);
    stick[2] = -(Ai[6] * v0 + Ai[7] * v1 + Ai[8] * v2);
    if (in_disc(stick[1], stick[2], mu * stick[0])) {
        x[0] = stick[0], x[1] = stick[1], x[2] = stick[2];
        return true;
    }
    return false;
}

nscd_status nscd__fc3d_local_coulomb_inv(const double A[9], const double Ai[9], double v0,
                                         double v1, double v2, double mu, double x[3]) {
    double stick[3];
    if (coulomb_inv_direct(A, Ai, v0, v1, v2, mu, x, stick)) {
        return NSCD_OK;
    }
    const double v[3] = {v0, v1, v2};
    return coulomb_sliding(A, v, mu, stick, true, false, x);
}

nscd_status nscd__fc3d_local_coulomb_step(const double A[9], const double Ai[9], double v0,
                                          double v1, double v2, double mu, double x[3],
                                          double *resid) {
    *resid = 0.0;
    double stick[3];
    if (coulomb_inv_direct(A, Ai, v0, v1, v2, mu, x, stick)) {
        return NSCD_OK;
    }
    const double v[3] = {v0, v1, v2};
    /* sliding: one step from the current slip direction (the impulse's
     * friction opposes it), or from the sticking impulse's */
    double w0x = -stick[1], w0y = -stick[2];
    if (x[0] > 0.0 && (x[1] != 0.0 || x[2] != 0.0)) {
        w0x = -x[1], w0y = -x[2];
    }
    if (halley_once(A, v, mu, w0x, w0y, x, resid)) {
        return NSCD_OK;
    }
    *resid = 0.0;
    return coulomb_sliding(A, v, mu, stick, true, false, x);
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
