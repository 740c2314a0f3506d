/* Single-contact block solvers used by the fc3d sweeps: given the 3x3 diagonal
 * block A = W_jj (SPD) and the local free velocity v = q_j + sum_{k!=j} W_jk r_k,
 * each returns the block's impulse x with u = A x + v obeying its friction law. */
#ifndef NSCD_CONTACT_FC3D_LOCAL_H
#define NSCD_CONTACT_FC3D_LOCAL_H

#include <stdbool.h>

#include "nscd/status.h"

/* x: in, the current impulse of the block (used to choose among several
 * Coulomb solutions: the one nearest to it); out, the new impulse. Unchanged
 * on failure. */
typedef nscd_status (*nscd__fc3d_local_fn)(const double A[9], const double v[3], double mu,
                                           double x[3]);

/* Coulomb's law (De Saxce form): take-off when v_n >= 0, else sticking
 * x = -A^-1 v when it lies in the cone, else sliding on the cone boundary,
 * found as a root of a function of the slip angle (sampling + safeguarded
 * Newton). NSCD_ERR_NOT_CONVERGED when no sliding root was found. */
nscd_status nscd__fc3d_local_coulomb(const double A[9], const double v[3], double mu, double x[3]);

/* The inverse of a 3x3 matrix by its adjugate (the arithmetic of the
 * sticking solve of nscd__fc3d_local_coulomb); false, Ai unset, when A is
 * singular or the inverse is not finite. */
bool nscd__fc3d_inverse3(const double A[9], double Ai[9]);

/* nscd__fc3d_local_coulomb with Ai = A^-1 given (nscd__fc3d_inverse3): the
 * sticking impulse is -Ai v, a product instead of a solve (the sweeps
 * solve each block many times with the same A). The same law and the same
 * branches; the sticking impulse differs from the solve's by rounding. v
 * = (v0, v1, v2) by value: the caller has just computed it, and reading it
 * back from memory as one wide load would stall on the narrow stores. */
nscd_status nscd__fc3d_local_coulomb_inv(const double A[9], const double Ai[9], double v0,
                                         double v1, double v2, double mu, double x[3]);

/* The world sweeps' block update under Coulomb's law
 * (nscd__fc3d_local_coulomb_inv's law and branches; docs/world.md, "The
 * sweeps' sliding step"): take-off, frictionless and sticking exactly as
 * there; a sliding block takes one Halley step on the slip angle from its
 * current slip direction (-x_t, x its impulse on entry; the sticking
 * impulse's direction when x has none) instead of iterating to the root:
 * x on the cone's boundary with u_n = 0 and a slip w.u_t >= 0, its
 * direction one cubic-order step nearer the root. Its fixed points (the
 * step leaves x unchanged) are exactly the roots of
 * nscd__fc3d_local_coulomb_inv, so sweeps converged to them solve the same
 * law. *resid: the residual of the start, |w x u_t| at the slip direction
 * of x on entry (m/s; 0 when it passed the exact solve's stopping test and
 * x is that solve's root), for the sweeps' merit. When the step cannot be
 * taken, or its end has D <= 0 or w.u_t < 0, the exact solve
 * (nscd__fc3d_local_coulomb_inv's) and *resid = 0. */
nscd_status nscd__fc3d_local_coulomb_step(const double A[9], const double Ai[9], double v0,
                                          double v1, double v2, double mu, double x[3],
                                          double *resid);

/* Coulomb's law with a lower bound s >= 0 on the normal impulse (the
 * restitution phase of Poisson's law with friction): x_n >= s, u_n >= 0,
 * (x_n - s) u_n = 0, ||x_t|| <= mu x_n and x_t = -mu x_n u_t / ||u_t|| when
 * u_t != 0; equivalently K_mu ∩ {x_n >= s} ∋ x with -u~ in its normal cone.
 * s = 0 is nscd__fc3d_local_coulomb(). For s > 0: x_n = s with the tangential
 * part solving Tresca's problem on the disc of radius mu s when that leaves
 * u_n >= 0; else sticking when -A^-1 v qualifies; else the x_n = t > s at
 * which that Tresca state has u_n = 0 (bracketed, Illinois regula falsi).
 * NSCD_ERR_NOT_CONVERGED when u_n < 0 for every t (a jam). */
nscd_status nscd__fc3d_local_coulomb_shifted(const double A[9], const double v[3], double mu,
                                             double s, double x[3]);

/* Maximum dissipation, eq. (5) of seed 002: nscd_mdp_single_contact(A, -v, mu, x). */
nscd_status nscd__fc3d_local_mdp(const double A[9], const double v[3], double mu, double x[3]);

#endif
