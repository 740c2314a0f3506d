/* All solutions of the impulsive Coulomb law of one contact (paper Fig. 1, Sect. 4.1).
 *
 * With u = A x - b, a Coulomb solution is one of
 *   - no contact: x = 0, valid when u_n = -b_n >= 0;
 *   - sticking:   u = 0, x = A^-1 b inside the cone;
 *   - sliding:    x_n > 0, u_n = 0 and x_to = -mu x_n d where d = u_to/||u_to||.
 * For sliding write d = (cos th, sin th) and w(th) = (1, -mu cos th, -mu sin th), so
 * x = x_n w. Then u_n = 0 gives x_n = b_n / D(th) with D = a_n'w, and u_to must be a
 * positive multiple of d: d x (D u_to) = d x (b_n A_to w - D b_to) = 0. That cross
 * product is a trigonometric polynomial of degree 2 in th, hence a quartic after the
 * half-angle substitution (the polynomial approach of Bonnefon and Daviet, written in
 * the slip angle). Its real roots are filtered by x_n > 0 and d'u_to > 0.
 * For b_n = 0 the sliding solutions need D(th) = 0 instead (x_n is then free and
 * found from the tangential equations). */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "contact/single/delassus3.h"
#include "contact/single/polynomial.h"
#include "nscd/single_contact.h"

enum { max_found = 6 };

typedef struct solution_list {
    double x[max_found][3];
    double obj[max_found];
    int n;
    double scale; /* impulse scale for duplicate detection */
} solution_list;

static double objective(const double A[9], const double b[3], const double x[3]) {
    double q = 0.0;
    for (int i = 0; i < 3; ++i) {
        double Ax = A[3 * i] * x[0] + A[3 * i + 1] * x[1] + A[3 * i + 2] * x[2];
        q += x[i] * (0.5 * Ax - b[i]);
    }
    return q;
}

static void add_solution(solution_list *list, const double A[9], const double b[3],
                         const double x[3]) {
    double nx = nscd__norm3(x[0], x[1], x[2]);
    for (int i = 0; i < list->n; ++i) {
        double d = nscd__norm3(x[0] - list->x[i][0], x[1] - list->x[i][1], x[2] - list->x[i][2]);
        double ni = nscd__norm3(list->x[i][0], list->x[i][1], list->x[i][2]);
        /* duplicates are judged against the solutions' own size, not ||A^-1 b|| */
        if (d <= 1e-9 * fmax(fmax(nx, ni), list->scale)) {
            return;
        }
    }
    if (list->n < max_found) {
        memcpy(list->x[list->n], x, sizeof list->x[0]);
        list->obj[list->n] = objective(A, b, x);
        list->n++;
    }
}

/* The sliding candidate x = x_n w(th): accepted when x_n > 0, u_n = 0 and
 * u_to = lambda d with lambda > 0, all to a tolerance relative to the candidate's
 * own scale (A x and b), never to ||A^-1 b||. */
static void try_sliding(solution_list *list, const double A[9], const double b[3], double mu,
                        double xn, double c, double s) {
    if (!(xn > 0.0) || !isfinite(xn)) {
        return;
    }
    double x[3] = {xn, -mu * xn * c, -mu * xn * s};
    double un = A[0] * x[0] + A[1] * x[1] + A[2] * x[2] - b[0];
    double ut = A[3] * x[0] + A[4] * x[1] + A[5] * x[2] - b[1];
    double uo = A[6] * x[0] + A[7] * x[1] + A[8] * x[2] - b[2];
    double lambda = ut * c + uo * s, off = ut * s - uo * c;
    double vscale =
        nscd__norm2(b[1], b[2]) + fabs(b[0]) + (A[0] + A[4] + A[8]) * nscd__norm2(x[0], mu * xn);
    if (!isfinite(vscale)) {
        return;
    }
    /* u_n = a_n'x - b_n against the rounding of its own terms (not against b_to: for a
     * tiny b_n the normal equation is the one that decides) */
    double nscale = fabs(A[0] * x[0]) + fabs(A[1] * x[1]) + fabs(A[2] * x[2]) + fabs(b[0]);
    if (lambda > 1e-12 * vscale && fabs(off) <= 1e-8 * vscale && fabs(un) <= 1e-10 * nscale) {
        add_solution(list, A, b, x);
    }
}

/* The sliding equations at the slip angle (c, s) = (cos th, sin th):
 *   D x_n = b_n            (u_n = 0; D = a_n'w)
 *   q x_n = p              (d x u_to = 0; q = d x A_to w, p = d x b_to)
 * At a root of G = b_n q - D p they agree. x_n = b_n / D loses every digit where D
 * is small (next to the cone's boundary of a hyperbola or parabola, and for b_n
 * tiny against b_to, where a root sits next to a zero of D); p / q loses them where
 * q is small against the rounding of its terms (for b_n tiny, the roots where d is
 * parallel to b_to have p = 0 to rounding). Each equation's relative error is about
 * eps times (the size of its terms) / |its coefficient|; the better one is used. */
static double sliding_xn(const double A[9], const double b[3], double mu, double c, double s) {
    double w1 = -mu * c, w2 = -mu * s;
    double D = A[0] + A[1] * w1 + A[2] * w2;
    double m0 = A[3] + A[4] * w1 + A[5] * w2, m1 = A[6] + A[7] * w1 + A[8] * w2;
    double q = c * m1 - s * m0, p = c * b[2] - s * b[1];
    double x1 = b[0] / D, x2 = p / q;
    double terms1 = fabs(A[0]) + mu * (fabs(A[1]) + fabs(A[2]));
    double terms2 = fabs(A[3]) + fabs(A[6]) + mu * (fabs(A[4]) + 2.0 * fabs(A[5]) + fabs(A[8])) +
                    nscd__norm2(b[1], b[2]) / fmax(fabs(x1), fabs(x2));
    /* the better conditioned equation decides, also the sign: next to a zero of D
     * the sign of b_n / D is rounding noise, and taking whichever of the two is
     * positive accepted such noise as a solution (x_n = 1.4e-284 at D = 7e-17 in
     * the problem of sliding_general's seeds) */
    double xn = terms1 * fabs(q) <= terms2 * fabs(D) ? x1 : x2;
    return isfinite(xn) && xn > 0.0 ? xn : NAN;
}

/* Root of the trigonometric polynomial g(th) = k0 + k1 cos + k2 sin + k3 cos 2th +
 * k4 sin 2th, refined in th directly (no half-angle substitution): safeguarded Newton
 * within [lo, hi] when g changes sign there (bisection when a step leaves the bracket),
 * plain Newton from th otherwise. */
static double refine_angle(const double k[5], double th, double lo, double hi, bool bracket,
                           int max_it) {
    double glo = 0.0;
    if (bracket) {
        glo = nscd__trig2_eval(k, cos(lo), sin(lo), NULL);
    }
    for (int it = 0; it < max_it; ++it) {
        double d, g = nscd__trig2_eval(k, cos(th), sin(th), &d);
        if (g == 0.0) {
            return th;
        }
        if (bracket) {
            if ((g < 0.0) == (glo < 0.0)) {
                lo = th, glo = g;
            } else {
                hi = th;
            }
        }
        double step = (d != 0.0) ? -g / d : INFINITY;
        double next = th + step;
        if (bracket && !(next > fmin(lo, hi) && next < fmax(lo, hi))) {
            next = 0.5 * (lo + hi);
        } else if (!bracket && !(fabs(step) < 0.5)) {
            return th; /* Newton leaves: no root nearby */
        }
        if (next == th || fabs(next - th) <= 2.0 * DBL_EPSILON * (1.0 + fabs(th)) ||
            (bracket && fabs(hi - lo) <= 4.0 * DBL_EPSILON * (1.0 + fabs(th)))) {
            return next;
        }
        th = next;
    }
    return th;
}

/* A refined slip angle th: a candidate only if g vanishes there to rounding (an
 * unbracketed Newton run from a dip of |g| may stop short of a root). */
static void try_angle(solution_list *list, const double A[9], const double b[3], double mu,
                      const double k[5], double th) {
    double c = cos(th), s = sin(th);
    double kscale = fabs(k[0]) + fabs(k[1]) + fabs(k[2]) + fabs(k[3]) + fabs(k[4]);
    if (!(fabs(nscd__trig2_eval(k, c, s, NULL)) <= 1e-12 * kscale)) {
        return;
    }
    try_sliding(list, A, b, mu, sliding_xn(A, b, mu, c, s), c, s);
}

/* b_n != 0: roots of the cross-product condition (file comment). Candidates: the
 * quartic's roots (every polished root, also near-double ones) and, when the conic
 * is degenerate (mu ||a|| > 0.9 A_nn: a hyperbola, or within 10 % of the parabola),
 * every sign change of g on a grid of 256 slip angles, plus the minima of |g| on that
 * grid small enough to hide a close pair of roots; each is refined in the angle itself
 * (not through the half-angle substitution) and accepted when g vanishes to rounding
 * and the sliding equations hold to rounding (try_angle, try_sliding), so that no
 * root is lost when the conic degenerates. */
static nscd_status sliding_general(solution_list *list, const double A[9], const double b[3],
                                   double mu) {
    double N = A[0], Ant = A[1], Ano = A[2], Att = A[4], Ato = A[5], Aoo = A[8];
    double bn = b[0], bt = b[1], bo = b[2];
    /* v = b_n A_to w - D b_to = alpha + beta cos + gamma sin (componentwise) */
    double al1 = bn * Ant - N * bt, be1 = mu * (Ant * bt - bn * Att),
           ga1 = mu * (Ano * bt - bn * Ato);
    double al2 = bn * Ano - N * bo, be2 = mu * (Ant * bo - bn * Ato),
           ga2 = mu * (Ano * bo - bn * Aoo);
    /* G = cos v2 - sin v1 */
    double k[5] = {0.5 * (be2 - ga1), al2, -al1, 0.5 * (be2 + ga1), 0.5 * (ga2 - be1)};
    double term_scale =
        (fabs(bn) + nscd__norm2(bt, bo)) * (N + mu * (fabs(Ant) + fabs(Ano) + Att + Aoo));
    double kmax = 0.0;
    for (int i = 0; i < 5; ++i) {
        kmax = fmax(kmax, fabs(k[i]));
    }
    if (kmax <= 1e-13 * term_scale) {
        return NSCD_ERR_UNSUPPORTED; /* every slip direction satisfies it: a continuum */
    }
    const double pi = 3.14159265358979323846;
    double cs[8];
    int n = nscd__trig2_roots(k, 0, cs);
    for (int i = 0; i < n; ++i) {
        try_angle(list, A, b, mu, k,
                  refine_angle(k, atan2(cs[2 * i + 1], cs[2 * i]), 0.0, 0.0, false, 8));
    }
    if (!(mu * nscd__norm2(Ant, Ano) > 0.9 * N)) {
        return NSCD_OK; /* an ellipse well away from the parabola: the quartic suffices */
    }
    enum { n_grid = 256 };
    double ksum = fabs(k[0]) + fabs(k[1]) + fabs(k[2]) + fabs(k[3]) + fabs(k[4]);
    double g[n_grid + 2];
    /* the grid's angles by rotation from -pi (error about n_grid eps, harmless for
     * a sign test); cos and sin of 2 pi / 256 */
    const double cd = 0.99969881869620424, sd = 0.024541228522912288;
    double cj = -1.0, sj = 0.0;
    for (int j = 0; j < n_grid; ++j) {
        g[j] = nscd__trig2_eval(k, cj, sj, NULL);
        double cn = cj * cd - sj * sd;
        sj = sj * cd + cj * sd;
        cj = cn;
    }
    g[n_grid] = g[0];
    g[n_grid + 1] = g[1];
    for (int j = 0; j < n_grid; ++j) {
        double lo = -pi + 2.0 * pi * j / n_grid, hi = lo + 2.0 * pi / n_grid, th;
        bool change = (g[j] < 0.0) != (g[j + 1] < 0.0) || g[j] == 0.0;
        /* a pair of roots inside a cell of width h needs |g| <= max|g''| h^2 / 8 <=
         * 4 sum|k| h^2 / 8 = 3e-4 sum|k| at the nearest grid point (6e-4: margin) */
        bool dip = fabs(g[j + 1]) < fabs(g[j]) && fabs(g[j + 1]) < fabs(g[j + 2]) &&
                   fabs(g[j + 1]) <= 2e-3 * ksum;
        if (change) {
            th = refine_angle(k, 0.5 * (lo + hi), lo, hi, true, 100);
        } else if (dip) {
            /* a minimum of |g| at hi: a close pair of roots may hide around it;
             * Newton from both sides */
            for (int side = -1; side <= 1; side += 2) {
                th = refine_angle(k, hi + side * 0.25 * (hi - lo), 0.0, 0.0, false, 30);
                try_angle(list, A, b, mu, k, th);
            }
            continue;
        } else {
            continue;
        }
        try_angle(list, A, b, mu, k, th);
    }
    /* G = b_n q - D p: for b_n tiny against b_to its roots are those of D p moved
     * by O(b_n), and a root next to a zero of p (d parallel to b_to) and one next
     * to a zero of D can be closer than the quartic and the grid resolve (3.5e-10
     * rad apart, x_n = 2.9e-291, in a fuzzer's problem with b_n = 1e-300). The
     * zeros of p and of D themselves, and Newton from them, find each of such a
     * pair (the seed itself too: there G is zero to rounding, and its slope
     * D p' so small that Newton's step is rounding noise of 1e-7 rad). */
    double seeds[4];
    int n_seeds = 0;
    if (nscd__norm2(bt, bo) > 0.0) {
        seeds[n_seeds++] = atan2(bo, bt);
        seeds[n_seeds++] = atan2(-bo, -bt);
    }
    double sa = nscd__norm2(Ant, Ano);
    if (mu * sa >= N) {
        double a0 = atan2(Ano, Ant), da = acos(fmin(1.0, N / (mu * sa)));
        seeds[n_seeds++] = a0 - da;
        seeds[n_seeds++] = a0 + da;
    }
    for (int i = 0; i < n_seeds; ++i) {
        try_angle(list, A, b, mu, k, seeds[i]);
        try_angle(list, A, b, mu, k, refine_angle(k, seeds[i], 0.0, 0.0, false, 30));
    }
    return NSCD_OK;
}

/* b_n = 0: D(th) = 0, then x_n A_to w - lambda d = b_to for (x_n, lambda). */
static nscd_status sliding_grazing(solution_list *list, const double A[9], const double b[3],
                                   double mu) {
    double N = A[0], sa = nscd__norm2(A[1], A[2]);
    if (mu * sa < N) {
        return NSCD_OK; /* D > 0 for every direction */
    }
    double a0 = atan2(A[2], A[1]), da = acos(fmin(1.0, N / (mu * sa)));
    for (int side = -1; side <= 1; side += 2) {
        double th = a0 + side * da, c = cos(th), s = sin(th);
        double w[3] = {1.0, -mu * c, -mu * s};
        double m0 = A[3] * w[0] + A[4] * w[1] + A[5] * w[2];
        double m1 = A[6] * w[0] + A[7] * w[1] + A[8] * w[2];
        /* [m0 -c; m1 -s] (x_n, lambda) = (b_t, b_o) */
        double det = -m0 * s + c * m1;
        double mscale = nscd__norm2(m0, m1);
        if (fabs(det) <= 1e-12 * mscale) {
            double cross = m0 * b[2] - m1 * b[1]; /* consistent iff b_to parallel to m */
            if (fabs(cross) <= 1e-12 * mscale * nscd__norm2(b[1], b[2])) {
                return NSCD_ERR_UNSUPPORTED;
            }
            continue;
        }
        double xn = (-b[1] * s + c * b[2]) / det;
        try_sliding(list, A, b, mu, xn, c, s);
        if (da == 0.0) {
            break;
        }
    }
    return NSCD_OK;
}

static void sort_sliding(solution_list *list, int first) {
    for (int i = first + 1; i < list->n; ++i) {
        for (int j = i; j > first && list->obj[j] < list->obj[j - 1]; --j) {
            double tx[3], to = list->obj[j];
            memcpy(tx, list->x[j], sizeof tx);
            memcpy(list->x[j], list->x[j - 1], sizeof tx);
            list->obj[j] = list->obj[j - 1];
            memcpy(list->x[j - 1], tx, sizeof tx);
            list->obj[j - 1] = to;
        }
    }
}

nscd_status nscd_coulomb_single_contact_all(const double A[9], const double b[3], double mu,
                                            double *solutions, int32_t max_solutions,
                                            int32_t *n_solutions) {
    nscd_status st = nscd__single_contact_args(A, b, mu, n_solutions);
    if (st != NSCD_OK) {
        return st;
    }
    if (max_solutions < 0) {
        return NSCD_ERR_OUT_OF_RANGE;
    }
    if (solutions == NULL && max_solutions > 0) {
        return NSCD_ERR_NULL_POINTER;
    }
    double S[9], L[9], x0[3];
    st = nscd__delassus3_factor(A, S, L);
    if (st != NSCD_OK) {
        return st;
    }
    nscd__delassus3_solve(L, b, x0);
    solution_list list = {.n = 0};
    list.scale = 0.0;
    static const double zero[3] = {0.0, 0.0, 0.0};
    if (b[0] <= 0.0) {
        add_solution(&list, S, b, zero);
    }
    if (mu == 0.0) { /* frictionless: the scalar LCP has exactly one solution */
        if (b[0] > 0.0) {
            double x[3] = {b[0] / S[0], 0.0, 0.0};
            add_solution(&list, S, b, x);
        }
    } else {
        if (x0[0] > 0.0 && nscd__norm2(x0[1], x0[2]) <= mu * x0[0]) {
            add_solution(&list, S, b, x0);
        }
        int first_sliding = list.n;
        st = (b[0] != 0.0) ? sliding_general(&list, S, b, mu) : sliding_grazing(&list, S, b, mu);
        if (st != NSCD_OK) {
            return st;
        }
        sort_sliding(&list, first_sliding);
    }
    if (list.n > max_solutions) {
        *n_solutions = list.n;
        return NSCD_ERR_BUFFER_TOO_SMALL;
    }
    for (int i = 0; i < list.n; ++i) {
        memcpy(solutions + 3 * i, list.x[i], sizeof list.x[0]);
    }
    *n_solutions = list.n;
    return NSCD_OK;
}
