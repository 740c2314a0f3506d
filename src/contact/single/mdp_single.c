/* Analytic maximum-dissipation impulse of a single contact
 * (Preclik, Eibl, Rüde, Sect. 3.2 and the structogram of Fig. 5).
 *
 * Notation (paper): N = A_nn, a = (A_nt, A_no), s = ||a||, alpha0 = atan2(A_no, A_nt).
 * On the plane of maximum compression a_n'x = b_n the tangential impulse y = x_to
 * minimises 1/2 y'Ah y - y'bh (Ah, bh: Schur complement, Sect. 3.2) over the conic
 * section ||y|| <= mu (b_n - a'y) / N. We work in the tangential frame rotated by
 * alpha0, so that a = (s, 0) and beta = alpha - alpha0; then
 *   f_r(beta) = N + mu s cos(beta),  r(beta) = mu b_n / f_r(beta)   (eq. 6 and after).
 * The derivative of the objective along the boundary is r/f_r^2 times
 *   g(beta) = (N u_perp + mu s e_2)' (mu b_n Ah u - f_r(beta) bh),  u = (cos, sin),
 * a trigonometric polynomial of degree 2, i.e. eq. (8): c0 + c1 cos(alpha + phi1)
 * + c2 cos(2 alpha + phi2); c0 of appendix A is exactly our constant term and the
 * unit tests check c1, c2, phi1, phi2 against appendix A. Its roots come from a
 * quartic (tan half-angle substitution, see polynomial.c). */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include "contact/single/delassus3.h"
#include "contact/single/mdp_single.h"
#include "contact/single/polynomial.h"
#include "nscd/single_contact.h"

/* The problem on the plane of maximum compression, in the rotated frame. */
typedef struct reduced {
    double N, s, mu, bn;
    double ca, sa;  /* cos(alpha0), sin(alpha0) */
    double P, Q, S; /* rotated Ah = [[P, Q], [Q, S]] */
    double e, h;    /* rotated bh */
} reduced;

static void make_reduced(const double A[9], const double b[3], double mu, reduced *p) {
    double N = A[0], at = A[1], ao = A[2];
    double s = nscd__norm2(at, ao);
    p->N = N;
    p->s = s;
    p->mu = mu;
    p->bn = b[0];
    p->ca = (s > 0.0) ? at / s : 1.0;
    p->sa = (s > 0.0) ? ao / s : 0.0;
    /* Schur complement of N (Sect. 3.2) */
    double htt = A[4] - at * at / N, hto = A[5] - at * ao / N, hoo = A[8] - ao * ao / N;
    double bt = b[1] - at * b[0] / N, bo = b[2] - ao * b[0] / N;
    double c = p->ca, sn = p->sa;
    p->P = c * c * htt + 2.0 * c * sn * hto + sn * sn * hoo;
    p->S = sn * sn * htt - 2.0 * c * sn * hto + c * c * hoo;
    p->Q = c * sn * (hoo - htt) + (c * c - sn * sn) * hto;
    p->e = c * bt + sn * bo;
    p->h = -sn * bt + c * bo;
}

/* Objective of the reduced problem at w (rotated frame). */
static double reduced_objective(const reduced *p, double w0, double w1) {
    return 0.5 * (p->P * w0 * w0 + 2.0 * p->Q * w0 * w1 + p->S * w1 * w1) - p->e * w0 - p->h * w1;
}

/* Back to 3D: x_n = r / mu on the boundary (= (b_n - a'y)/N there, without the
 * cancellation), y = R(alpha0) w. */
static void to_impulse(const reduced *p, double xn, double w0, double w1, double x[3]) {
    x[0] = xn;
    x[1] = p->ca * w0 - p->sa * w1;
    x[2] = p->sa * w0 + p->ca * w1;
}

/* Fourier coefficients of g(beta) (derivation in the file comment). */
static void stationarity_coefficients(const reduced *p, double k[5]) {
    double N = p->N, K = p->mu * p->bn, m = p->mu * p->s;
    double P = p->P, Q = p->Q, S = p->S, e = p->e, h = p->h;
    k[0] = -1.5 * N * m * h;
    k[1] = m * K * Q - N * N * h - m * m * h;
    k[2] = m * K * S + N * N * e;
    k[3] = N * K * Q - 0.5 * m * N * h;
    k[4] = 0.5 * N * K * (S - P) + 0.5 * m * N * e;
}

/* Point of the conic boundary at angle beta: w and objective; false if beta is
 * outside the interval I of eq. (6) (f_r <= 0: no boundary point there). */
static bool boundary_point(const reduced *p, double c, double sn, double w[2], double *obj) {
    double f = p->N + p->mu * p->s * c;
    if (!(f > 0.0)) {
        return false;
    }
    double r = p->mu * p->bn / f;
    w[0] = r * c;
    w[1] = r * sn;
    *obj = reduced_objective(p, w[0], w[1]);
    return isfinite(*obj);
}

/* KKT certificate of the convex problem: at the boundary point w the gradient
 * Ah w - bh must be a non-positive multiple of the outward normal
 * w/||w|| + (mu/N) a of the constraint ||y|| + (mu/N) a'y <= mu b_n / N. */
static bool is_kkt_point(const reduced *p, const double w[2]) {
    double g0 = p->P * w[0] + p->Q * w[1] - p->e;
    double g1 = p->Q * w[0] + p->S * w[1] - p->h;
    double nw = nscd__norm2(w[0], w[1]);
    if (!(nw > 0.0)) {
        return false;
    }
    double n0 = w[0] / nw + p->mu * p->s / p->N, n1 = w[1] / nw;
    double gnorm = nscd__norm2(g0, g1), nnorm = nscd__norm2(n0, n1);
    double scale = gnorm * nnorm;
    double dot = g0 * n0 + g1 * n1, cross = g0 * n1 - g1 * n0;
    /* tolerances far above rounding, far below any wrong stationary point */
    return dot <= 1e-7 * scale && fabs(cross) <= 1e-6 * scale;
}

static bool refine_on_boundary(const reduced *p, const double k[5], double c, double s,
                               double w[2]);

/* Objective at the boundary angle beta (INFINITY outside I). */
static double objective_at(const reduced *p, double beta) {
    double w[2], obj;
    return boundary_point(p, cos(beta), sin(beta), w, &obj) ? obj : INFINITY;
}

/* Rare fallback when the polynomial candidates fail the certificate: sampling of the
 * admissible angles (uniform, plus angles where f_r is log-spaced above its minimum,
 * which resolve the far parts of eccentric ellipses and of hyperbola branches), then
 * Halley refinement from the best sample, or golden-section search if that fails. */
static void minimise_by_sampling(const reduced *p, const double k[5], double w_best[2]) {
    const double pi = 3.14159265358979323846;
    double m = p->mu * p->s, fmin = p->N - m, fmax = p->N + m;
    enum { n_uniform = 128, n_log = 64 };
    double beta[n_uniform + 4 * n_log];
    int n = 0;
    for (int i = 0; i < n_uniform; ++i) {
        beta[n++] = -pi + (i + 0.5) * (2.0 * pi / n_uniform);
    }
    if (m > 0.0) {
        double f0 = fmin > 0.0 ? fmin : 0.0, span = fmax - f0;
        for (int i = 0; i < n_log; ++i) { /* f_r - f0 from 1e-16 span to span */
            double f = f0 + span * pow(10.0, -16.0 * (double)i / (n_log - 1));
            double cb = (f - p->N) / m;
            if (cb >= -1.0 && cb <= 1.0) {
                double b0 = acos(cb);
                beta[n++] = b0;
                beta[n++] = -b0;
            }
        }
    }
    double best = INFINITY, beta_best = 0.0;
    for (int i = 0; i < n; ++i) {
        double f = objective_at(p, beta[i]);
        if (f < best) {
            best = f;
            beta_best = beta[i];
        }
    }
    if (refine_on_boundary(p, k, cos(beta_best), sin(beta_best), w_best)) {
        return;
    }
    /* bracket: the nearest sample angles on either side */
    double a = -pi, c = pi;
    for (int i = 0; i < n; ++i) {
        if (beta[i] < beta_best && beta[i] > a) {
            a = beta[i];
        }
        if (beta[i] > beta_best && beta[i] < c) {
            c = beta[i];
        }
    }
    const double ratio = 0.6180339887498949;
    for (int it = 0; it < 200 && c - a > 1e-16 * (1.0 + fabs(a)); ++it) {
        double x1 = c - ratio * (c - a), x2 = a + ratio * (c - a);
        if (objective_at(p, x2) < objective_at(p, x1)) {
            a = x1;
        } else {
            c = x2;
        }
    }
    double b = 0.5 * (a + c), obj;
    if (!(objective_at(p, b) <= best) || !boundary_point(p, cos(b), sin(b), w_best, &obj)) {
        boundary_point(p, cos(beta_best), sin(beta_best), w_best, &obj);
    }
}

/* g, g' and g'' at the angle with (cos, sin) = (c, s). */
static double trig2_derivatives(const double k[5], double c, double s, double *d1, double *d2) {
    double c2 = c * c - s * s, s2 = 2.0 * s * c;
    *d1 = -k[1] * s + k[2] * c - 2.0 * k[3] * s2 + 2.0 * k[4] * c2;
    *d2 = -k[1] * c - k[2] * s - 4.0 * k[3] * c2 - 4.0 * k[4] * s2;
    return k[0] + k[1] * c + k[2] * s + k[3] * c2 + k[4] * s2;
}

/* Halley's method on g(beta) of eq. (8) from the angle (c, s). Angles are updated by
 * the Cayley rotation (1 + i d/2)/(1 - i d/2), which turns by 2 atan(d/2) = d + O(d^3)
 * without trigonometric functions. The result is accepted only with a strict KKT
 * certificate: a stationary point with a positive multiplier is the global minimum of
 * the convex problem. */
static bool refine_on_boundary(const reduced *p, const double k[5], double c, double s,
                               double w[2]) {
    double step = 1.0;
    /* cubic convergence: once a step is below 1e-6 the next one (the last) is at
     * rounding level */
    bool last = false;
    for (int it = 0; it < 16 && !last; ++it) {
        last = fabs(step) <= 1e-6;
        double d1, d2, g = trig2_derivatives(k, c, s, &d1, &d2);
        if (!(d1 > 0.0)) { /* minima of f_obj are where g goes from - to + */
            return false;
        }
        double den = 2.0 * d1 * d1 - g * d2;
        step = (den > d1 * d1) ? -2.0 * g * d1 / den : -g / d1; /* Halley, else Newton */
        step = step > 0.5 ? 0.5 : (step < -0.5 ? -0.5 : step);
        double q = 0.25 * step * step, inv = 1.0 / (1.0 + q);
        double rc = (1.0 - q) * inv, rs = step * inv;
        double cn = c * rc - s * rs;
        s = s * rc + c * rs;
        c = cn;
    }
    double obj;
    if (fabs(step) > 1e-12 || !boundary_point(p, c, s, w, &obj)) {
        return false;
    }
    double g0 = p->P * w[0] + p->Q * w[1] - p->e, g1 = p->Q * w[0] + p->S * w[1] - p->h;
    double n0 = c + p->mu * p->s / p->N, n1 = s; /* outward normal, w / ||w|| = (c, s) */
    double scale = nscd__norm2(g0, g1) * nscd__norm2(n0, n1);
    double dot = g0 * n0 + g1 * n1, cross = g0 * n1 - g1 * n0;
    return dot <= -1e-10 * scale && fabs(cross) <= 1e-9 * scale;
}

/* Fast path of the sliding case: refine from the point where the segment from 0
 * (inside the conic section) to the unconstrained minimum x0 leaves it; false sends
 * the caller to the quartic. */
static bool newton_on_boundary(const reduced *p, const double k[5], const double x0[3],
                               double w[2]) {
    double y0 = p->ca * x0[1] + p->sa * x0[2], y1 = -p->sa * x0[1] + p->ca * x0[2];
    double ny = nscd__norm2(y0, y1);
    return ny > 0.0 && refine_on_boundary(p, k, y0 / ny, y1 / ny, w);
}

/* The boundary of the conic section parametrised by t = w_1 (the component across a),
 * t = c0 tau with c0 = K / N: from N ||w|| + m w_0 = K (K = mu b_n, m = mu ||a||),
 *   near branch  w_0 = c0 N (1 - tau^2) / (m + rho),    rho = sqrt(N^2 + (m^2 - N^2) tau^2),
 *   far branch   w_0 = -c0 N (m + rho) / (N^2 - m^2)     (ellipses only),
 * both free of cancellation (|tau| > 1 is scaled by 1/|tau| against overflow). Unlike
 * the angle of eq. (6), whose f_r = N + m cos(beta) is lost to rounding far out on a
 * hyperbola's branch (b_n tiny, or the minimum far away), this resolves every point.
 * False outside the ellipse's range of t. */
static bool boundary_at_t(const reduced *p, double c0, double tau, double t, int far, double w[2]) {
    double N = p->N, m = p->mu * p->s, d2 = (m - N) * (m + N), at = fabs(tau);
    double w0;
    if (at <= 1.0) {
        double r2 = N * N + d2 * tau * tau;
        if (!(r2 >= 0.0)) {
            return false;
        }
        double rho = sqrt(r2);
        w0 = far ? -c0 * N * (m + rho) / (-d2) : c0 * N * (1.0 - at) * (1.0 + at) / (m + rho);
    } else {
        double u = 1.0 / at, r2 = N * N * u * u + d2;
        if (!(r2 >= 0.0)) {
            return false;
        }
        double rho = sqrt(r2); /* rho / |tau| */
        w0 = far ? -N * (c0 * m + fabs(t) * rho) / (-d2)
                 : N * fabs(t) * (u - 1.0) * (u + 1.0) / (m * u + rho);
    }
    if (far && !(d2 < 0.0)) {
        return false;
    }
    w[0] = w0;
    w[1] = t;
    return isfinite(w0) && isfinite(t);
}

/* Objective at sigma (tau = sinh sigma, t = c0 tau) on a branch; INFINITY when
 * undefined. Where tau overflows (c0 = mu b_n / A_nn may be as small as 1e-300) t is
 * formed as exp(|sigma| + log c0) / 2 - ..., which stays finite. */
static double objective_at_sigma(const reduced *p, double c0, double sigma, int far, double w[2]) {
    double tau = sinh(sigma), t = c0 * tau; /* exact under the scaling A -> 4A, b -> 16b */
    if (!isfinite(t)) {
        double lc = log(c0), as = fabs(sigma);
        t = copysign(0.5 * (exp(as + lc) - exp(lc - as)), sigma);
    }
    if (!boundary_at_t(p, c0, tau, t, far, w)) {
        return INFINITY;
    }
    double f = reduced_objective(p, w[0], w[1]);
    return isfinite(f) ? f : INFINITY;
}

/* Degenerate conics (a hyperbola, or close to the parabola): a global 1-D
 * minimisation of the objective along the boundary in the variable sigma of t = c0
 * sinh(sigma), which is uniform in log |t| from the vertex's scale c0 out to the
 * largest |t| where the objective can be negative (2 ||bh|| / lambda_min(Ah)); the two
 * best local minima of the samples are refined by golden-section search. Replaces w
 * when it finds a lower objective (the candidate of eq. 8 misses the far parts of a
 * branch, and its KKT certificate is flat there). */
static void polish_degenerate(const reduced *p, double w[2]) {
    double N = p->N, m = p->mu * p->s, K = p->mu * p->bn;
    double c0 = K / N;
    if (!(c0 > 0.0) || !isfinite(c0)) {
        return;
    }
    double tr = p->P + p->S, det = p->P * p->S - p->Q * p->Q;
    double lmax = 0.5 * tr + nscd__norm2(0.5 * (p->P - p->S), p->Q);
    double lmin = fmax(det / lmax, 1e-16 * lmax);
    double W = 2.0 * nscd__norm2(p->e, p->h) / lmin;
    double T = W;
    if (m < N) { /* the ellipse's range of t */
        T = fmin(T, K / sqrt((N - m) * (N + m)));
    }
    double ratio = T / c0;
    /* asinh(T / c0), also where the ratio overflows (asinh x = log 2x for large x) */
    double smax = isfinite(ratio) ? asinh(ratio) : log(2.0) + log(T) - log(c0);
    smax = fmin(smax, 1500.0) * (1.0 + 1e-12);
    if (!(smax > 0.0)) {
        return;
    }
    int n = 256 + (int)(8.0 * smax);
    double best_f = reduced_objective(p, w[0], w[1]);
    if (!isfinite(best_f)) {
        best_f = INFINITY;
    }
    for (int far = 0; far <= (m < N ? 1 : 0); ++far) {
        /* the two lowest local minima among the samples */
        double f_prev = INFINITY, f_cur = INFINITY, wt[2];
        int cand[2] = {-1, -1};
        double cf[2] = {INFINITY, INFINITY};
        for (int i = 0; i <= n + 1; ++i) {
            double f_next = (i <= n)
                                ? objective_at_sigma(p, c0, -smax + 2.0 * smax * i / n, far, wt)
                                : INFINITY;
            if (i >= 1 && f_cur <= f_prev && f_cur <= f_next && f_cur < INFINITY) {
                int j = i - 1;
                if (f_cur < cf[0]) {
                    cf[1] = cf[0], cand[1] = cand[0];
                    cf[0] = f_cur, cand[0] = j;
                } else if (f_cur < cf[1]) {
                    cf[1] = f_cur, cand[1] = j;
                }
            }
            f_prev = f_cur;
            f_cur = f_next;
        }
        for (int c = 0; c < 2; ++c) {
            if (cand[c] < 0) {
                continue;
            }
            double a = -smax + 2.0 * smax * (cand[c] - 1) / n;
            double b = -smax + 2.0 * smax * (cand[c] + 1) / n;
            const double g = 0.6180339887498949;
            double x1 = b - g * (b - a), x2 = a + g * (b - a);
            double f1 = objective_at_sigma(p, c0, x1, far, wt);
            double f2 = objective_at_sigma(p, c0, x2, far, wt);
            for (int it = 0; it < 200 && b - a > 4.0 * DBL_EPSILON * (1.0 + fabs(a)); ++it) {
                if (f2 < f1) {
                    a = x1, x1 = x2, f1 = f2;
                    x2 = a + g * (b - a);
                    f2 = objective_at_sigma(p, c0, x2, far, wt);
                } else {
                    b = x2, x2 = x1, f2 = f1;
                    x1 = b - g * (b - a);
                    f1 = objective_at_sigma(p, c0, x1, far, wt);
                }
            }
            double sb = f1 <= f2 ? x1 : x2;
            double f = objective_at_sigma(p, c0, sb, far, wt);
            if (f < best_f) {
                best_f = f;
                w[0] = wt[0], w[1] = wt[1];
            }
        }
    }
}

/* The sliding result: on a degenerate conic (a hyperbola, or an ellipse within 10 %
 * of the parabola: m > 0.9 N) the candidate is checked against a global search along
 * the boundary (polish_degenerate) unless the strict certificate of the fast path
 * holds at a point where the angle resolves the boundary (f_r >= 1e-2 N: far out on
 * a branch, f_r -> 0, the gradient is nearly parallel to the normal over a long
 * stretch and the certificate cannot tell the optimum); then back to 3D. */
static void finish_sliding(const reduced *p, double w[2], bool certified, double x[3]) {
    double m = p->mu * p->s;
    if (m > 0.9 * p->N) {
        double nw = nscd__norm2(w[0], w[1]);
        double fr = nw > 0.0 ? p->N + m * w[0] / nw : 0.0;
        if (!certified || !(fr >= 1e-2 * p->N)) {
            polish_degenerate(p, w);
        }
    }
    double r = nscd__norm2(w[0], w[1]);
    to_impulse(p, r / p->mu, w[0], w[1], x);
}

/* General case b_n > 0, mu > 0, unconstrained minimum outside the cone:
 * minimum of f_obj over the roots of eq. (8) in I (structogram, last box). */
static void solve_sliding(const reduced *p, const double x0[3], int method, double x[3]) {
    double k[5], t[4], w_best[2] = {0.0, 0.0};
    stationarity_coefficients(p, k);
    if (method == NSCD__MDP_AUTO && newton_on_boundary(p, k, x0, w_best)) {
        finish_sliding(p, w_best, true, x);
        return;
    }
    double best = INFINITY;
    if (method != NSCD__MDP_SAMPLING) {
        /* Select among the unpolished roots, then polish only the winner: the
         * objective is stationary there, so root errors enter it squared. */
        nscd__trig2_form form;
        int n = nscd__trig2_quartic(k, &form, t);
        double t_best = 0.0;
        for (int i = 0; i < n; ++i) {
            double c, s, w[2], obj;
            nscd__trig2_angle(&form, t[i], &c, &s);
            if (boundary_point(p, c, s, w, &obj) && obj < best) {
                best = obj;
                t_best = t[i];
            }
        }
        if (best < INFINITY) {
            double c, s, obj;
            nscd__trig2_angle(&form, nscd__trig2_polish(&form, t_best), &c, &s);
            if (!boundary_point(p, c, s, w_best, &obj)) {
                best = INFINITY;
            }
        }
    }
    if (!(best < INFINITY) || !is_kkt_point(p, w_best)) {
        minimise_by_sampling(p, k, w_best);
    }
    finish_sliding(p, w_best, false, x);
}

/* b_n = 0, mu > 0, A_nn <= mu ||a||, unconstrained minimum outside the cone:
 * the feasible set is the wedge between the rays at beta = +-dalpha (a degenerate
 * hyperbola; a single ray for the parabola), eq. (9). The paper picks one ray by
 * the side of x_0; we minimise on both rays and keep the lower value, which is
 * right for any anisotropic Ah. */
static void solve_degenerate_wedge(const reduced *p, double x[3]) {
    double m = p->mu * p->s;
    double cb = fmax(-1.0, -p->N / m);
    /* sin(dalpha) = sqrt((1 - cb)(1 + cb)) with 1 + cb = (m - N)/m free of cancellation */
    double sb = sqrt(fmax(0.0, (1.0 - cb) * (m - p->N) / m));
    double best = 0.0, w_best[2] = {0.0, 0.0};
    for (int side = -1; side <= 1; side += 2) {
        double v0 = cb, v1 = side * sb;
        double curv = p->P * v0 * v0 + 2.0 * p->Q * v0 * v1 + p->S * v1 * v1;
        double r = fmax(0.0, (p->e * v0 + p->h * v1) / curv);
        double obj = reduced_objective(p, r * v0, r * v1);
        if (obj < best) {
            best = obj;
            w_best[0] = r * v0;
            w_best[1] = r * v1;
        }
    }
    double r = nscd__norm2(w_best[0], w_best[1]);
    to_impulse(p, r / p->mu, w_best[0], w_best[1], x);
}

void nscd__mdp_solve_factored(const double S[9], const double L[9], const double b[3], double mu,
                              double x[3]) {
    nscd__mdp_solve_method(S, L, b, mu, NSCD__MDP_AUTO, x);
}

void nscd__mdp_solve_method(const double S[9], const double L[9], const double b[3], double mu,
                            int method, double x[3]) {
    double bn = b[0];
    if (bn < 0.0) { /* separating: the pressure condition forces x = 0 */
        x[0] = x[1] = x[2] = 0.0;
        return;
    }
    if (mu == 0.0) { /* the conic section is the single point (b_n / A_nn, 0, 0) */
        x[0] = bn / S[0];
        x[1] = x[2] = 0.0;
        return;
    }
    double x0[3];
    nscd__delassus3_solve(L, b, x0);
    if (x0[0] >= 0.0 && nscd__norm2(x0[1], x0[2]) <= mu * x0[0]) { /* P1: sticking */
        x[0] = x0[0], x[1] = x0[1], x[2] = x0[2];
        return;
    }
    reduced p;
    make_reduced(S, b, mu, &p);
    if (bn == 0.0) {
        if (p.N > mu * p.s) { /* P2: degenerate ellipse, a single point */
            x[0] = x[1] = x[2] = 0.0;
        } else {
            solve_degenerate_wedge(&p, x);
        }
        return;
    }
    solve_sliding(&p, x0, method, x);
}

nscd_status nscd_mdp_single_contact(const double A[9], const double b[3], double mu, double x[3]) {
    nscd_status st = nscd__single_contact_args(A, b, mu, x);
    if (st != NSCD_OK) {
        return st;
    }
    double S[9], L[9], out[3];
    st = nscd__delassus3_factor(A, S, L);
    if (st != NSCD_OK) {
        return st;
    }
    nscd__mdp_solve_factored(S, L, b, mu, out);
    x[0] = out[0], x[1] = out[1], x[2] = out[2];
    return NSCD_OK;
}

void nscd__mdp_eq8_coefficients(const double A[9], const double b[3], double mu, double k[5],
                                double *alpha0) {
    reduced p;
    make_reduced(A, b, mu, &p);
    stationarity_coefficients(&p, k);
    *alpha0 = atan2(p.sa, p.ca);
}
