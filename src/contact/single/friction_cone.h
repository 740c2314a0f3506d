/* The friction cone K_mu = { x : ||x_t|| <= mu x_n } (normal first) and the
 * natural map of De Saxce's complementarity function. */
#ifndef NSCD_CONTACT_FRICTION_CONE_H
#define NSCD_CONTACT_FRICTION_CONE_H

/* p = Euclidean projection of x onto K_mu (mu >= 0; mu = 0 is the ray x_t = 0,
 * x_n >= 0). p may alias x. */
void nscd__cone_project(const double x[3], double mu, double p[3]);

/* x made admissible without moving its normal impulse: x_n clamped at 0 and
 * x_t cut radially to ||x_t|| <= mu x_n (not the Euclidean projection: a
 * warm start or a block update that lowered x_n keeps the direction of its
 * friction). In place. */
void nscd__cone_cut(double x[3], double mu);
/* De Saxce's modified velocity u~ = u + mu ||u_t|| e_n. */
void nscd__desaxce_velocity(const double u[3], double mu, double ut[3]);

/* Natural-map residual of Coulomb's law for one contact with impulse scale s > 0:
 * e = s r - P_K(s r - u~). Zero exactly when K ∋ r ⊥ u~ ∈ K^*. Returns ||e||^2. */
double nscd__coulomb_residual2(const double r[3], const double u[3], double mu, double s);

/* The same for the cone cut by a lower bound on the normal impulse, the set
 * C = K_mu ∩ { x : x_n >= lower } (lower >= 0, in units of s r):
 * e = s r - P_C(s r - u~), zero exactly when C ∋ r and -u~ is in its normal
 * cone at s r. lower = 0 gives nscd__coulomb_residual2(). */
double nscd__coulomb_residual2_bounded(const double r[3], const double u[3], double mu, double s,
                                       double lower);

#endif
