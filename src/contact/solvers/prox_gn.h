/* The prox formulation of a local contact problem solved by a nonsmooth
 * Gauss–Newton method (seed 003, eqs. 42–45 for forces, 51–54 for impulses;
 * docs/time_stepping.md, "Prox Gauss–Newton local solver").
 *
 * The problem: find P (m values) with u = W P + c and, row by row,
 *   - a contact's normal row a:   0 <= u_a  _|_  P_a >= 0,
 *   - its k = 1 or 2 tangent rows T (right after it): Coulomb's law,
 *     |P_T| <= mu P_a, and P_T = -mu P_a u_T / |u_T| when u_T != 0,
 *   - an equality row:            u_a = 0 (P_a of either sign),
 * written as the root of
 *   f_a = P_a - proj_{R+}(P_a - r_a u_a),
 *   f_T = P_T - proj_{D(mu P_a+)}(P_T - r_a u_T),   D(rho): the disk |x| <= rho,
 *   f_a = r_a u_a on equality rows,
 * with r_a > 0 per row (a contact's tangent rows use its normal's r: the disk
 * projection needs one r for all of them, or P_T would not oppose u_T).
 *
 * Each iteration takes the Gauss–Newton step P -= pinv(J) f (LAPACK dgelsd,
 * minimum norm: redundant rows, e.g. four corners on three dofs, give a
 * singular J) with the exact generalized Jacobian J of f, not the paper's
 * simplified one (eqs. 45, 54 drop the derivative of the disk projection
 * when sliding), and a backtracking line search on |f|. Memory: O(m^2), all
 * from the caller's arena; m is at most NSCD__PROX_MAX_ROWS.
 *
 * Residual: max_a |f_a| / r_a. Where the law is active it is |u_a| (or the
 * distance of u_T to the cone's answer), elsewhere |P_a| / r_a: with
 * r_a = prox_r / W_aa both are velocities, so the tolerance is one on the
 * constraint velocities, whatever the masses (|f| alone, in the units of P,
 * would let a light body keep a velocity error W_aa |f|). At least one step
 * is taken even when the start meets the tolerance (a warm start from the
 * last step's impulses often does): it polishes the start to the root of
 * its piece, exact for resting contacts, so that velocity errors within the
 * tolerance do not pile up into creep over many steps. */
#ifndef NSCD_CONTACT_PROX_GN_H
#define NSCD_CONTACT_PROX_GN_H

#include <stdint.h>

#include "core/arena.h"
#include "nscd/status.h"

/* Largest problem: the dense J and W are m x m. */
#define NSCD__PROX_MAX_ROWS 1024

/* What each row is. */
typedef enum nscd__prox_row {
    NSCD__PROX_NORMAL = 0,   /* a contact's normal row */
    NSCD__PROX_TANGENT = 1,  /* a tangent row, after its normal and earlier tangents */
    NSCD__PROX_EQUALITY = 2, /* u = 0 */
} nscd__prox_row;

typedef struct nscd__prox_problem {
    int32_t m;              /* rows, 0 .. NSCD__PROX_MAX_ROWS */
    const double *W;        /* m x m, row-major */
    const double *c;        /* m */
    const int32_t *kind;    /* m: nscd__prox_row */
    const int32_t *n_tan;   /* m: on a normal row, its tangent rows that follow (0..2) */
    const double *mu;       /* m: on a normal row, the friction coefficient (>= 0) */
    const double *r;        /* m: the prox parameter of each row (> 0) */
    int32_t max_iterations; /* Gauss–Newton steps, >= 1 */
    double tolerance;       /* on the residual max_a |f_a| / r_a, > 0 */
} nscd__prox_problem;

typedef struct nscd__prox_info {
    int32_t iterations; /* Gauss–Newton steps taken */
    int32_t converged;  /* 1 when the residual <= tolerance */
    double residual;    /* max_a |f_a| / r_a at the returned P */
} nscd__prox_info;

/* Solves the problem from the start P (m values, e.g. a warm start or 0);
 * P receives the last iterate. NSCD_OK when converged,
 * NSCD_ERR_NOT_CONVERGED after max_iterations steps (P and info still
 * filled), NSCD_ERR_INVALID_ARGUMENT (m out of range, a bad row pattern,
 * r <= 0 or mu < 0), NSCD_ERR_NOT_FINITE (a value that is not finite),
 * NSCD_ERR_OUT_OF_MEMORY, NSCD_ERR_SINGULAR (dgelsd failed). */
nscd_status nscd__prox_gauss_newton(const nscd__prox_problem *problem, nscd__arena *arena,
                                    double *P, nscd__prox_info *info);

#endif
