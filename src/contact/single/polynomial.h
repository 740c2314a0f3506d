/* Real roots of low-degree polynomials and of degree-2 trigonometric
 * polynomials, for the single-contact solvers (quartic of eq. 8 of the
 * maximum-dissipation paper, Bonnefon-style quartic of the Coulomb law). */
#ifndef NSCD_CONTACT_POLYNOMIAL_H
#define NSCD_CONTACT_POLYNOMIAL_H

/* All four complex roots of c[4] t^4 + c[3] t^3 + c[2] t^2 + c[1] t + c[0]
 * (c[4] != 0) by Ferrari's method with a Newton-polished resolvent cubic.
 * Writes re[4], im[4]; roots of a real quartic come in conjugate pairs. */
void nscd__quartic_roots(const double c[5], double re[4], double im[4]);

/* Value of the quartic at t. */
double nscd__quartic_eval(const double c[5], double t);

/* Candidate roots of the trigonometric polynomial
 *   g(theta) = k[0] + k[1] cos(theta) + k[2] sin(theta) + k[3] cos(2 theta) + k[4] sin(2 theta).
 * Each candidate is written as a unit vector (cos theta, sin theta) into cs[2 i], cs[2 i + 1].
 * The angle is shifted so that the substitution t = tan(gamma / 2) gives a quartic whose
 * leading coefficient is the largest of |g| at 8 equally spaced angles (never small relative
 * to the coefficients, by Parseval), then the real parts of the 4 complex roots are polished
 * by Newton's method on the quartic (roots with an imaginary part above 1e-2 (1 + |re|)
 * are skipped). With `only_real` = 0 every polished root is returned (a superset of
 * the real roots, safe for minimisation over the roots); with 1 only those where g
 * vanishes to rounding accuracy.
 * Returns the number of candidates (0..4), or -1 when all k are zero (g vanishes identically). */
int nscd__trig2_roots(const double k[5], int only_real, double cs[8]);

/* The quartic of nscd__trig2_roots() and its angle shift (cos, sin of rho). */
typedef struct nscd__trig2_form {
    double q[5];
    double cr, sr;
} nscd__trig2_form;

/* First half of nscd__trig2_roots(): builds the quartic and writes the real parts of
 * its near-real roots (unpolished) to t; returns their number, or -1 as there. */
int nscd__trig2_quartic(const double k[5], nscd__trig2_form *form, double t[4]);
/* Newton polish of a root t of the quartic. */
double nscd__trig2_polish(const nscd__trig2_form *form, double t);
/* Angle (cos, sin) of the quartic variable t. */
void nscd__trig2_angle(const nscd__trig2_form *form, double t, double *c, double *s);

/* g(theta) and g'(theta) at (c, s) = (cos theta, sin theta). */
double nscd__trig2_eval(const double k[5], double c, double s, double *derivative);

#endif
