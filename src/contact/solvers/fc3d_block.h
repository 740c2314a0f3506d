/* The one home of the fc3d diagonal-block classification and of the block
 * solves that depend on it (docs/fc3d.md, "Non-symmetric and semi-definite
 * diagonal blocks").
 *
 * A diagonal block A = W_jj of a Delassus matrix from a real simulation is
 * symmetric only to the simulation's rounding (relative asymmetry up to 1e-2)
 * and may be singular (redundant contacts). With S = (A + A')/2 its symmetric
 * part, s = trace(A)/3 its scale and lambda_min the smallest eigenvalue of S:
 *
 *   regular       lambda_min >  NSCD__FC3D_PD_TOL  * s   (x'Ax > 0: A is invertible)
 *   semidefinite  lambda_min >= -NSCD__FC3D_PSD_TOL * s, and not regular:
 *                 solved by proximal steps with rho = NSCD__FC3D_PROX * s
 *   refused       NaN/inf entries, s <= 0 (zero block), or lambda_min < -NSCD__FC3D_PSD_TOL * s
 *
 * Regular blocks are solved as given (no symmetrisation): Coulomb's law by the
 * regime enumeration of fc3d_local.c, which never assumes symmetry; maximum
 * dissipation, when A is not exactly symmetric, by a projection iteration on
 * the block's variational inequality (nscd__fc3d_local_mdp_general). */
#ifndef NSCD_CONTACT_FC3D_BLOCK_H
#define NSCD_CONTACT_FC3D_BLOCK_H

#include <stdint.h>

#include "nscd/fc3d.h"
#include "nscd/status.h"

/* Relative tolerances of the classification (see the file comment). */
#define NSCD__FC3D_PD_TOL 1e-8
#define NSCD__FC3D_PSD_TOL 1e-10
/* Largest number of projection steps of nscd__fc3d_local_mdp_general. */
#define NSCD__FC3D_MDP_STEPS 2000
/* nscd__fc3d_local_mdp_general stops at the analytic solver's accuracy after
 * NSCD__FC3D_MDP_STALLS steps below NSCD__FC3D_MDP_FLOOR of the iterate that do
 * not shrink the smallest step so far. */
#define NSCD__FC3D_MDP_STALLS 4
#define NSCD__FC3D_MDP_FLOOR 1e-6
/* Proximal parameter of semi-definite blocks, relative to s = trace/3. */
#define NSCD__FC3D_PROX 1e-6

/* What the classification found for one block. */
typedef struct nscd__fc3d_block_class {
    int32_t kind;          /* a nscd_fc3d_block_kind value */
    double scale;          /* s = trace(A)/3 */
    double asymmetry;      /* max_ab |A_ab - A_ba| / s (NaN when s <= 0 or not finite) */
    double min_eigenvalue; /* lambda_min((A + A')/2) / s (NaN as above) */
} nscd__fc3d_block_class;

/* Classifies one 3x3 row-major block. */
nscd__fc3d_block_class nscd__fc3d_block_classify(const double A[9]);

/* The status a solve returns for a block of this kind: NSCD_OK for regular and
 * semidefinite, NSCD_ERR_NOT_FINITE, NSCD_ERR_NOT_SPD otherwise. */
nscd_status nscd__fc3d_block_status(int32_t kind);

/* The strict test of the callers whose block solver needs a symmetric block
 * (the impact solver's cut-cone Coulomb law, the time stepper's choice of
 * the fc3d solver): NSCD_OK when the block is symmetric to 1e-10 relative and
 * its LDL' pivots exceed 1e-14 max |A_aa|; NSCD_ERR_NOT_SPD otherwise. */
nscd_status nscd__fc3d_check_diag_block(const double A[9]);

/* One block solve of a sweep, for a block of kind `kind` (regular or
 * semidefinite), law `law`, local free velocity v and friction mu; x in: the
 * block's current impulse, out: the new one (unchanged on failure).
 * - regular, Coulomb: nscd__fc3d_local_coulomb(A, v) (exact, A as given);
 * - regular, maximum dissipation: nscd_mdp_single_contact when A is stored
 *   exactly symmetric, else nscd__fc3d_local_mdp_general(rho = 0);
 * - semidefinite: one proximal step with rho = NSCD__FC3D_PROX * s: the block
 *   problem of A + rho I with v - rho x (Coulomb), or
 *   nscd__fc3d_local_mdp_general(rho) (maximum dissipation). A fixed point
 *   (x out = x in) is a solution of the block problem of A itself. */
nscd_status nscd__fc3d_block_solve(int32_t kind, int32_t law, const double A[9], const double v[3],
                                   double mu, double x[3]);

/* Maximum dissipation for a block A with positive definite symmetric part
 * (or with a proximal term rho > 0): the solution y of the variational
 * inequality
 *
 *   y in F,   (z - y)'(A y + v + rho (y - x)) >= 0  for all z in F,
 *
 * F = { z in K_mu : (A z + v)_n >= 0 ⊥ z_n >= 0, (A z)_n >= 0 } the feasible set
 * of eq. (5) of seed 002 (it depends on A's first row only). For a symmetric
 * A and rho = 0 this is nscd_mdp_single_contact(A, -v). Solved by projection
 * steps in the metric G = (A + A')/2 + rho I with the step 1/(1 + k^2),
 * k = the skew part's size in that metric on the plane u_n = 0; each step is
 * one call of the analytic solver on an SPD block with A's first row. The
 * steps contract by k / sqrt(1 + k^2) < 1. x in: the prox centre and the
 * start; out: y. The steps stop at 1e-13 of the iterate (Banach's bound) or
 * when they stall below NSCD__FC3D_MDP_FLOOR of it (the analytic solver's
 * own error on a degenerate conic, about sqrt(eps) relative: steps that no
 * longer shrink). NSCD_ERR_NOT_CONVERGED when
 * NSCD__FC3D_MDP_STEPS steps were not enough (a skew part k >~ 10:
 * contraction 0.995 per step),
 * NSCD_ERR_NOT_SPD when A's normal entry is not positive. */
nscd_status nscd__fc3d_local_mdp_general(const double A[9], const double v[3], double mu,
                                         double rho, double x[3]);

/* Copies diagonal block j of some matrix into A. */
typedef void (*nscd__fc3d_diag_getter)(const void *matrix, int32_t j, double A[9]);

/* Classifies the n diagonal blocks given by `get`; writes kind[j] (0 regular,
 * 1 semidefinite) when kind is not NULL and fills `report` (may be NULL; the
 * full current struct, message included). Returns the status of the first
 * refused block (NSCD_OK when none). */
nscd_status nscd__fc3d_classify_rows(int32_t n, nscd__fc3d_diag_getter get, const void *matrix,
                                     int8_t *kind, nscd_fc3d_block_report *report);

#endif
