/* Impact resolution: the velocity jump of a set of simultaneously impacting
 * (or persistently closed) contacts of a model. */
#ifndef NSCD_CONTACT_IMPACT_H
#define NSCD_CONTACT_IMPACT_H

#include <stdint.h>

#include "contact/assembly/assembly.h"
#include "contact/solvers/fc3d_internal.h"
#include "core/arena.h"
#include "core/model.h"

/* Tangential impulses reported per contact in nscd__impact_work::impulse_tangent. */
#define NSCD__IMPACT_TANGENTS 2

/* Scratch memory for impacts of up to `capacity` contacts of a model. The
 * arrays sized by the contacts are allocated once (nscd__impact_work_create,
 * at stepper creation); what grows with the model's size (the rows, M^-1 H')
 * comes from the caller's per-step arena, which the caller resets between
 * impacts. A frictional impact of k contacts has 3k local rows
 * H = [W_N; W_T] (normal first, then two tangents per contact). */
typedef struct nscd__impact_work {
    int32_t capacity;
    int32_t n_v;
    nscd__arena *arena; /* the caller's per-step workspace */
    double *delassus;   /* (3 capacity)^2: W M^-1 W' (frictional: H M^-1 H') */
    double *rhs;        /* capacity */
    double *dv;         /* n_v */
    double *extra;      /* capacity: second impulse vector (Poisson's restitution phase) */
    int32_t *pivots;    /* capacity */
    /* M^-1 W' (frictional: M^-1 H') of the last impact, in the arena. */
    nscd__response response;

    /* Frictional impacts (contact/impacts/impact_friction.c). */
    double *local_v;      /* 3 capacity: u- = H v- */
    double *local_q;      /* 3 capacity: free velocity of an fc3d problem */
    double *local_r;      /* 3 capacity: impulse (Newton; Poisson's expansion) */
    double *local_rc;     /* 3 capacity: Poisson's compression impulse */
    double *local_u;      /* 3 capacity: W r + q of the last fc3d solve */
    double *mu;           /* capacity: friction coefficients (0: frictionless) */
    double *shift;        /* capacity: lower bounds of the expansion's normal impulses */
    nscd__fc3d_work fc3d; /* the fc3d solver's block copy of W and iterates */
    /* Options of the fc3d solves: Coulomb, Gauss–Seidel, tolerance 1e-10,
     * 10000 sweeps, no warm start (the Poisson expansion starts from e P_c). */
    nscd_fc3d_options fc3d_options;
    /* Energy check: an impact whose kinetic energy change dT exceeds
     * energy_tolerance * energy_reference (+ rounding) fails. Default 1e-9. */
    double energy_tolerance;
    /* Tangential impulses of the last impact, NSCD__IMPACT_TANGENTS x capacity:
     * contact r of the impact at [2 r] and [2 r + 1], along the model's
     * tangential rows; zero beyond the contact's n_tangent, for frictionless
     * impacts and plastic projections (Routh: [0] = T). */
    double *impulse_tangent;
    /* What the last frictional impact did (for callers and tests). */
    nscd_fc3d_info fc3d_info; /* its last fc3d solve */
    double energy_change;     /* dT = r'(u- + W r / 2) */
    double energy_reference;  /* sum_j u-_j' W_jj^-1 u-_j / 2 */
} nscd__impact_work;

nscd_status nscd__impact_work_create(const nscd__model *model, nscd__arena *arena,
                                     nscd__impact_work *work);
void nscd__impact_work_destroy(const nscd_allocator *allocator, nscd__impact_work *work);

/* One impact problem. `rows` holds the rows of the `count` contacts at q
 * (their entry rows: normal first, then the tangential rows); the outputs
 * are per contact. The tangential impulses are in work->impulse_tangent (a
 * member here would break the positional initialisers of the callers under
 * -Wmissing-field-initializers). */
typedef struct nscd__impact {
    int32_t count;
    const int32_t *contacts;
    const nscd__rows *rows;
    int plastic; /* 1: ignore the laws and make every gap velocity zero (bilateral) */
    double *impulse;
    double *velocity_before;
    double *velocity_after;
    double t; /* time of the impact */
} nscd__impact;

/* Applies the impact to velocities v (in: before, out: after) at positions q.
 *
 * Laws (dispatch on the contacts' impact_rule, see docs/frictional_impacts.md):
 * - A plastic impact solves W v+ = 0 (bilateral, used to close contacts),
 *   also for frictional contacts.
 * - Frictionless Newton contacts are solved together as the LCP
 *       P >= 0 _|_ W v+ + e min(W v-, 0) >= 0   with   v+ = v- + M^-1 W' P,
 *   frictionless Poisson contacts by two LCPs (contact/impacts/impact_poisson.c):
 *   these results are unchanged by friction support.
 * - When some contact has friction > 0 and n_tangent >= 1 (Newton or Poisson
 *   rule), contact/impacts/impact_friction.c solves the impact with Coulomb friction
 *   on the local velocities u = H v, H = [W_N; W_T]: Newton as Moreau's
 *   law (fc3d on xi = u+ + e_N min(u-_N, 0), tangential restitution 0),
 *   Poisson as Pfeiffer and Glocker's compression and expansion phases.
 *   Planar contacts get a dummy second tangent. The impact fails (v
 *   unchanged) when fc3d does not converge, or with NSCD_ERR_UNSUPPORTED
 *   when the result would create kinetic energy.
 * - One Routh contact: Routh's planar method (contact/impacts/impact_routh.c);
 *   several contacts with the Routh rule are NSCD_ERR_UNSUPPORTED (Routh's
 *   method has no multi-contact form; use Poisson or Newton with friction).
 * Persistent (closed) contacts take part with e = 0 under any rule; other
 * mixtures of rules are NSCD_ERR_UNSUPPORTED. */
nscd_status nscd__resolve_impact(nscd__model *model, nscd__impact_work *work, const double *q,
                                 const nscd__impact *impact, double *v);

/* Builds M^-1 W' (work->response) and G = W M^-1 W' (work->delassus,
 * row-major) for the normal rows of `count` contacts (their entry rows) at q. */
nscd_status nscd__impact_delassus(nscd__model *model, nscd__impact_work *work, const double *q,
                                  int32_t count, const nscd__rows *rows);

/* Solves G x = b (k x k, row-major; b replaced by x) for the impulses of
 * equations on the rows of an impact (a plastic impact, a position
 * projection): by LU as before when G is regular, else (G symmetric
 * positive semidefinite of lower rank by core/redundant.h: dependent rows)
 * the least-D-norm solution, NSCD_ERR_SINGULAR when there is none. G may be
 * overwritten. Takes its work from work->arena. */
nscd_status nscd__impact_equations(nscd__impact_work *work, int32_t k, double *G, double *b);

#endif
