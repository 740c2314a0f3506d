/* Impact rules beside Newton's LCP (contact/impacts/impact.c dispatches on the law's
 * impact_rule): Poisson's kinetic restitution, Routh's frictional impact and
 * the frictional impacts of several contacts (docs/frictional_impacts.md). */
#ifndef NSCD_CONTACT_IMPACT_RULES_H
#define NSCD_CONTACT_IMPACT_RULES_H

#include "contact/impacts/impact.h"

/* Positions in the impact of its equality entries (model kind
 * NSCD__ENTRY_EQUALITY; *n_e of them, into E) and of its other entries (*n_u,
 * into U), each in the impact's order. */
void nscd__impact_split_rows(const nscd__model *model, const nscd__impact *impact, int32_t *E,
                             int32_t *n_e, int32_t *U, int32_t *n_u);

/* The LCP of an impact whose equality entries (model kind
 * NSCD__ENTRY_EQUALITY) hold with impulses of either sign: u = G P + c with
 * u_E = 0 and 0 <= P_U _|_ u_U >= 0 over the unilateral rows U. The
 * equality rows are condensed out (Schur complement of G_EE, which must be
 * regular: NSCD_ERR_SINGULAR otherwise); without equalities this is
 * nscd_lcp_solve_dense() itself. G is k x k row-major. */
nscd_status nscd__impact_lcp(nscd__model *model, nscd__impact_work *work,
                             const nscd__impact *impact, const double *G, const double *c,
                             double *P);

/* Frictionless Poisson restitution for any number of simultaneous contacts:
 * a compression LCP, then a restitution LCP that applies at least e times the
 * compression impulse at every contact (closed contacts take part with e = 0). */
nscd_status nscd__resolve_poisson(nscd__model *model, nscd__impact_work *work, const double *q,
                                  const nscd__impact *impact, double *v);

/* Routh's planar frictional impact of one contact (nscd_routh_impact() with
 * G = [W_T; W_N] M^-1 [W_T; W_N]'). Several contacts: NSCD_ERR_UNSUPPORTED,
 * because Routh's method does not define how the normal impulses of several
 * contacts grow together (docs/routh_impact.md, "Several contacts"); the
 * message names the Poisson and Newton laws with friction instead. */
nscd_status nscd__resolve_routh(nscd__model *model, nscd__impact_work *work, const double *q,
                                const nscd__impact *impact, double *v);

/* 1 when a non-plastic impact has a contact that takes part with Coulomb
 * friction: its slot has friction > 0 and n_tangent >= 1 (closed contacts
 * included; they act with e = 0). */
int nscd__impact_has_friction(const nscd__model *model, const nscd__impact *impact);

/* Frictional impact of the `count` contacts of `impact` under the Newton or
 * the Poisson rule (`rule`), on the local rows H = [W_N; W_T] (3 per contact:
 * the normal row impact->rows, the model's tangential rows at impact->t,
 * zero rows with unit-scaled diagonal as dummies for missing tangents).
 * With W = H M^-1 H', u- = H v-, E = diag(e) on the normal rows (e = 0 for
 * closed contacts) and fc3d(W, q; s) the Coulomb problem of nscd_fc3d_*
 * (K ∋ r ⊥ u~ ∈ K*, u = W r + q) with lower bounds s of the normal impulses:
 *   Newton (Moreau):      r = fc3d(W, u- + E min(u-_N, 0); 0),
 *   Poisson (Pfeiffer–Glocker): P_c = fc3d(W, u-; 0), u_c = u- + W P_c,
 *                         P_e = fc3d(W, u_c; E P_c,N), r = P_c + P_e;
 * then v+ = v- + M^-1 H' r. Frictionless contacts of the impact have mu = 0.
 * Equality entries of the impact (joints) are condensed out of W (their
 * velocities after the impact are zero, their impulses of either sign
 * follow from r); tangents the joints hold take no friction impulse, and a
 * contact normal they hold is NSCD_ERR_SINGULAR.
 * Fails, leaving v and the outputs unchanged, with fc3d's status when it does
 * not converge, and with NSCD_ERR_UNSUPPORTED when r'(u- + W r / 2) exceeds
 * work->energy_tolerance times the contacts' energy (kinetic energy would be
 * created). Sets work->energy_change, energy_reference and fc3d_info. */
nscd_status nscd__resolve_friction(nscd__model *model, nscd__impact_work *work, const double *q,
                                   const nscd__impact *impact, int32_t rule, double *v);

#endif
