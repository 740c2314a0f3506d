/* Robust roots of quartics and of degree-2 trigonometric polynomials.
 *
 * The single-contact solvers only need the real roots, and they only use them
 * as candidates that are checked afterwards (feasibility, objective value), so
 * the policy here is: never lose a real root. Ferrari's closed form gives four
 * complex approximations; the real part of each one is then polished by Newton's
 * method on the polynomial itself, which restores full accuracy for simple
 * roots and keeps near-double roots (computed as a pair with a tiny imaginary
 * part) as candidates. */
#include "contact/single/polynomial.h"

#include <float.h>
#include <math.h>
#include <stddef.h>

double nscd__quartic_eval(const double c[5], double t) {
    return (((c[4] * t + c[3]) * t + c[2]) * t + c[1]) * t + c[0];
}

/* Largest real root of the monic cubic m^3 + a m^2 + b m + c0 (Cardano, or the
 * trigonometric form for three real roots), polished by two Newton steps. */
static double cubic_largest_root(double a, double b, double c0) {
    double P = b - a * a / 3.0;
    double Q = 2.0 * a * a * a / 27.0 - a * b / 3.0 + c0;
    double disc = 0.25 * Q * Q + P * P * P / 27.0;
    double y;
    if (disc > 0.0) {
        /* one real root; the sign choice avoids cancellation */
        double u = cbrt(-0.5 * Q - copysign(sqrt(disc), Q));
        y = (u != 0.0) ? u - P / (3.0 * u) : 0.0;
    } else if (P < 0.0) {
        double rho = sqrt(-P / 3.0);
        double arg = -0.5 * Q / (rho * rho * rho);
        arg = fmax(-1.0, fmin(1.0, arg));
        y = 2.0 * rho * cos(acos(arg) / 3.0);
    } else {
        y = 0.0; /* P = Q = 0: triple root */
    }
    double m = y - a / 3.0;
    for (int it = 0; it < 2; ++it) {
        double f = ((m + a) * m + b) * m + c0;
        double df = (3.0 * m + 2.0 * a) * m + b;
        if (df == 0.0 || !isfinite(f / df)) {
            break;
        }
        double step = f / df;
        m -= step;
        if (fabs(step) <= 4.0 * DBL_EPSILON * fabs(m)) {
            break;
        }
    }
    return m;
}

/* Roots of z^2 + p z + q (complex allowed), cancellation-free for real roots. */
static void quadratic_roots(double p, double q, double re[2], double im[2]) {
    double disc = p * p - 4.0 * q;
    if (disc >= 0.0) {
        double h = -0.5 * (p + copysign(sqrt(disc), p));
        re[0] = h;
        re[1] = (h != 0.0) ? q / h : 0.0;
        im[0] = im[1] = 0.0;
    } else {
        re[0] = re[1] = -0.5 * p;
        im[0] = 0.5 * sqrt(-disc);
        im[1] = -im[0];
    }
}

void nscd__quartic_roots(const double c[5], double re[4], double im[4]) {
    double B = c[3] / c[4], C = c[2] / c[4], D = c[1] / c[4], E = c[0] / c[4];
    /* depressed quartic z^4 + p z^2 + q z + r with t = z - B/4 */
    double B2 = B * B;
    double p = C - 0.375 * B2;
    double q = D - 0.5 * B * C + 0.125 * B2 * B;
    double r = E - 0.25 * B * D + B2 * C / 16.0 - 3.0 * B2 * B2 / 256.0;
    /* Ferrari: (z^2 + m)^2 = (2m - p) z^2 - q z + m^2 - r is a perfect square when
     * 8 m^3 - 4 p m^2 - 8 r m + 4 p r - q^2 = 0; its largest root has 2 m >= p. */
    double m = cubic_largest_root(-0.5 * p, -r, 0.5 * p * r - 0.125 * q * q);
    double sigma2 = fmax(0.0, 2.0 * m - p);
    double sigma = sqrt(sigma2);
    /* q / (2 sigma) = sign(q) sqrt(m^2 - r) by the resolvent; the second form is
     * the stable one when sigma is small (q close to 0, nearly biquadratic). */
    double half_q_over_sigma;
    if (sigma2 > 1e-8 * (fabs(m) + fabs(p))) {
        half_q_over_sigma = 0.5 * q / sigma;
    } else {
        half_q_over_sigma = copysign(sqrt(fmax(0.0, m * m - r)), q);
    }
    quadratic_roots(-sigma, m + half_q_over_sigma, re, im);
    quadratic_roots(sigma, m - half_q_over_sigma, re + 2, im + 2);
    for (int i = 0; i < 4; ++i) {
        re[i] -= 0.25 * B;
    }
}

double nscd__trig2_eval(const double k[5], double c, double s, double *derivative) {
    double c2 = c * c - s * s, s2 = 2.0 * s * c;
    if (derivative != NULL) {
        *derivative = -k[1] * s + k[2] * c - 2.0 * k[3] * s2 + 2.0 * k[4] * c2;
    }
    return k[0] + k[1] * c + k[2] * s + k[3] * c2 + k[4] * s2;
}

/* Newton's method on the quartic from t; returns the polished root (may be
 * non-finite when it diverges; the caller drops those). */
static double polish_quartic_root(const double c[5], double t) {
    for (int it = 0; it < 8; ++it) {
        double f = nscd__quartic_eval(c, t);
        double df = ((4.0 * c[4] * t + 3.0 * c[3]) * t + 2.0 * c[2]) * t + c[1];
        if (f == 0.0 || df == 0.0) {
            break;
        }
        double step = f / df;
        t -= step;
        if (!(fabs(step) > 2.0 * DBL_EPSILON * (1.0 + fabs(t)))) {
            break;
        }
    }
    return t;
}

int nscd__trig2_quartic(const double k[5], nscd__trig2_form *form, double t[4]) {
    /* |g| at the 8 angles j pi/4; the largest one goes to t = infinity */
    static const double h = 0.70710678118654752440;
    static const double cj[8] = {1.0, h, 0.0, -h, -1.0, -h, 0.0, h};
    static const double sj[8] = {0.0, h, 1.0, h, 0.0, -h, -1.0, -h};
    int jmax = 0;
    double gmax = -1.0;
    for (int j = 0; j < 8; ++j) {
        double g = fabs(nscd__trig2_eval(k, cj[j], sj[j], NULL));
        if (g > gmax) {
            gmax = g;
            jmax = j;
        }
    }
    if (gmax == 0.0) {
        return -1;
    }
    /* gamma = theta - rho with rho = jmax pi/4 - pi, so gamma = pi at angle jmax pi/4 */
    double cr = -cj[jmax], sr = -sj[jmax];
    double c2r = cr * cr - sr * sr, s2r = 2.0 * sr * cr;
    double a1 = k[1] * cr + k[2] * sr, b1 = -k[1] * sr + k[2] * cr;
    double a2 = k[3] * c2r + k[4] * s2r, b2 = -k[3] * s2r + k[4] * c2r;
    /* (1 + t^2)^2 g with cos = (1 - t^2)/(1 + t^2), sin = 2t/(1 + t^2) */
    double *q = form->q;
    q[4] = k[0] - a1 + a2;
    q[3] = 2.0 * b1 - 4.0 * b2;
    q[2] = 2.0 * k[0] - 6.0 * a2;
    q[1] = 2.0 * b1 + 4.0 * b2;
    q[0] = k[0] + a1 + a2;
    form->cr = cr;
    form->sr = sr;
    double re[4], im[4];
    nscd__quartic_roots(q, re, im);
    int n = 0;
    for (int i = 0; i < 4; ++i) {
        /* a real root comes out of Ferrari's formulas with at most a small spurious
         * imaginary part (about sqrt(eps) for a double root); skip clearly complex ones */
        if (fabs(im[i]) <= 1e-2 * (1.0 + fabs(re[i])) && isfinite(re[i])) {
            t[n++] = re[i];
        }
    }
    return n;
}

double nscd__trig2_polish(const nscd__trig2_form *form, double t) {
    return polish_quartic_root(form->q, t);
}

void nscd__trig2_angle(const nscd__trig2_form *form, double t, double *c, double *s) {
    double t2 = t * t, den = 1.0 / (1.0 + t2);
    double cg = (1.0 - t2) * den, sg = 2.0 * t * den;
    *c = cg * form->cr - sg * form->sr;
    *s = sg * form->cr + cg * form->sr;
}

int nscd__trig2_roots(const double k[5], int only_real, double cs[8]) {
    nscd__trig2_form form;
    double t[4];
    int m = nscd__trig2_quartic(k, &form, t);
    if (m < 0) {
        return -1;
    }
    double scale = fabs(k[0]) + fabs(k[1]) + fabs(k[2]) + fabs(k[3]) + fabs(k[4]);
    int n = 0;
    for (int i = 0; i < m; ++i) {
        double ti = nscd__trig2_polish(&form, t[i]), c, s;
        if (!isfinite(ti)) {
            continue;
        }
        nscd__trig2_angle(&form, ti, &c, &s);
        /* the trigonometric form is better scaled than the quartic near |t| >> 1 */
        if (only_real && !(fabs(nscd__trig2_eval(k, c, s, NULL)) <= 1e-9 * scale)) {
            continue;
        }
        cs[2 * n] = c;
        cs[2 * n + 1] = s;
        ++n;
    }
    return n;
}
