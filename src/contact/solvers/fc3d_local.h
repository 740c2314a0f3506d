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
