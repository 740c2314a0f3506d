/* Optimal damping of the Hertz spring + linear damper (seed 001, Sects. 3-4).
 *
 * In the scaled variables x = delta/delta0, tau = t v/delta0 with
 * delta0 = (m v^2/k)^(1/(n+1)) the impact ODE (eq. 8) becomes
 *
 *     x'' + zeta x' + x^n = 0,   x(0) = 0, x'(0) = 1,
 *     separation: zeta x' + x^n = 0 (eq. 20),
 *
 * with zeta = c / S and S = [k v^(n-1) m^n]^(1/(n+1)). So e_out depends on
 * zeta and n only and c_opt = zeta(e, n) S; the paper's slack variable of
 * eq. 34 is lambda = e zeta ((n+1)/2)^(-n/(n+1)). */
#ifndef NSCD_CONTACT_COPT_H
#define NSCD_CONTACT_COPT_H

#include "nscd/status.h"

/* alpha(n) and beta(n) of eqs. 46-47. */
double nscd__copt_alpha(double n);
double nscd__copt_beta(double n);
/* S = [k v^(n-1) m^n]^(1/(n+1)), the damping scale of eqs. 34 and 49. */
double nscd__copt_scale(double m, double k, double n, double v);
/* Dimensionless closed form alpha (e^beta - 1) of eq. 49. */
double nscd__copt_zeta_closed_form(double e, double n);
/* Dimensionless exact optimum from the committed table (copt_table.c);
 * e in (0, 1], n in [1, 2]. */
double nscd__copt_zeta_table(double e, double n);

/* e_out of the dimensionless Hertz-damper impact for damping zeta >= 0,
 * integrated to relative tolerance tol. */
nscd_status nscd__hertz_damper_restitution(double zeta, double n, double tol, double *e_out);
/* zeta with e_out(zeta, n) = e, by root finding on the integrated impact
 * (slow; the reference the table is generated from and tested against). */
nscd_status nscd__copt_zeta_solve(double e, double n, double tol, double *zeta);

#endif
