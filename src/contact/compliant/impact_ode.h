/* Integration of the 1-dof direct central impact (seed 001, eqs. 4 and 20)
 * in dimensionless form:
 *
 *     x'' = -f(x, x'),   x(0) = 0,   x'(0) = 1,
 *
 * until separation: in the restitution phase (x' < 0) the contact force f
 * reaches zero (eq. 20) or the penetration x returns to zero, whichever comes
 * first. Used by the public impact simulator and by the c_opt solver. */
#ifndef NSCD_CONTACT_IMPACT_ODE_H
#define NSCD_CONTACT_IMPACT_ODE_H

#include <stdint.h>

#include "nscd/status.h"

/* Dimensionless contact force (> 0 pushes apart) at penetration x and rate p.
 * It is only called with x >= 0. */
typedef double (*nscd__impact_force_fn)(void *ctx, double x, double p);

typedef struct nscd__impact_outcome {
    double e_out;           /* -x'(separation), eq. 22 */
    double duration;        /* time of separation */
    double max_penetration; /* x where x' = 0 */
    double residual;        /* x at separation */
    double peak_force;      /* largest f reached */
    int64_t steps;          /* accepted steps */
} nscd__impact_outcome;

/* Integrates with an adaptive Dormand-Prince 5(4) scheme to the relative
 * tolerance `tol` (1e-14 <= tol <= 1e-3); the separation is located by
 * re-stepping from the last accepted state. Returns NSCD_OK,
 * NSCD_ERR_MAX_STEPS, NSCD_ERR_STEP_TOO_SMALL or NSCD_ERR_NOT_FINITE. */
nscd_status nscd__impact_integrate(nscd__impact_force_fn force, void *ctx, double tol,
                                   nscd__impact_outcome *out);

#endif
