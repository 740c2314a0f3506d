/* Internals of the mixed framework of seed 003 (Fig. 4, Sect. 2.3–2.5)
 * shared by its files: mixed_step.c (the step: closed set, start, new-impact
 * test and impulsive correction), mixed_stage.c (one implicit stage with its
 * closed-contact forces), generalized_alpha.c, bathe.c, ed_alpha.c (the base
 * schemes). docs/time_stepping.md, "The α schemes". */
#ifndef NSCD_INTEGRATORS_MIXED_IMPL_H
#define NSCD_INTEGRATORS_MIXED_IMPL_H

#include <stdint.h>

#include "integrators/time_stepping/time_stepping_impl.h"

/* The closed set I_1^i of a step (eq. 41): every equality entry, and each
 * contact with g(q_i) <= 0 or that carried a normal force or impulse in the
 * previous step (hysteresis, as the Moreau schemes'). */
typedef struct nscd__ts_closed {
    int32_t n;        /* entries in the set */
    int32_t *entries; /* their model indices, ascending */
    /* The part the acceleration-level law applies to: equalities and the
     * closed contacts that do not separate at the step's start (ġ_N(q_i,
     * v_i) <= 0, or a normal force in the previous step). A closed contact
     * that separates (just after an impact) must get no force from
     * 0 <= g̈ ⊥ λ: it would hold the body down (index set I_2 of event-driven
     * schemes). */
    int32_t n_resting;
    int32_t *resting;
} nscd__ts_closed;

/* The resting part of a closed set as a set of its own. */
static inline nscd__ts_closed nscd__ts_resting(const nscd__ts_closed *closed) {
    nscd__ts_closed r = {closed->n_resting, closed->resting, closed->n_resting, closed->resting};
    return r;
}

/* One implicit stage of a base scheme: with the unknown acceleration a,
 *
 *     v = v_pred + gamma_p a,   q = q_base "+" (dq_pred + beta_p a),
 *     M(q) a = h(t, q, v) + H(q)' λ,
 *
 * and the closed entries' law on λ at the velocity level (on v) or at the
 * acceleration level (on a). */
typedef struct nscd__ts_stage {
    double t;              /* time of the stage */
    double gamma_p;        /* γ' > 0 */
    double beta_p;         /* β' >= 0 */
    const double *q_base;  /* n_q */
    const double *dq_pred; /* n_v: velocity-space increment from q_base */
    const double *v_pred;  /* n_v */
    double *a;             /* n_v: in the first iterate, out the solution */
    double *v;             /* n_v out */
    double *dq;            /* n_v out: dq_pred + beta_p a */
    double *q;             /* n_q out */
    double *force;         /* 3 n_contacts: λ per entry (in: warm start) */
} nscd__ts_stage;

/* Solves one stage by the iteration on nonlinear forces of eq. (55): the
 * effective matrix M + γ' C + β' K (M alone without Jacobians) at each
 * iterate, until |v^{k+1} - v^k| <= newton_tolerance (1 + |v|);
 * NSCD_ERR_NOT_CONVERGED after max_newton_iterations updates. Adds its
 * updates to ts->report.newton_iterations and its local solver iterations
 * to ts->report.iterations. */
nscd_status nscd__ts_stage_solve(nscd_time_stepping *ts, const nscd__ts_closed *closed,
                                 nscd__ts_stage *stage);

/* The arena arrays of one stage (n_v, n_q and 3 n_contacts sized). */
nscd_status nscd__ts_stage_alloc(nscd_time_stepping *ts, nscd__ts_stage *stage);

/* Ḣ v of the closed entries' rows at (t, q) along v into hv (one value per
 * row of the model's entries, NSCD__MAX_ENTRY_ROWS per entry): 0 for rows
 * that do not change (bitwise: the rows are equal), else the central
 * difference (H(q + εv) - H(q - εv)) v / (2ε). */
nscd_status nscd__ts_rows_rate(nscd_time_stepping *ts, const nscd__ts_closed *closed, double t,
                               const double *q, const double *v, double *hv);

/* Adds the Ḣ v of the rows of a local problem to its c (acceleration
 * level). */
void nscd__ts_add_rows_rate(const nscd__ts_local *local, const double *hv);

/* Writes the solution of a local problem per entry (normal, tangents; an
 * equality's first three rows), scaled by `scale`, into values (3 per
 * entry of local->model, zero for the others). */
void nscd__ts_store_entry_values(const nscd__ts_local *local, double scale, int32_t n_entries,
                                 double *values);

/* The base schemes: one step from (t_i, q_i, v_i^+, a_i, A_i) to q_{i+1},
 * v_{i+1}^- (in the model's state), a_{i+1}, A_{i+1} and the forces of the
 * last stage (ts->alpha's staged arrays). */
/* The model the impulsive correction works on (impulse_subspace.c): the
 * model itself, or with impulse_velocities = K > 0 a proxy in *s whose mass
 * solve is [M_KK^-1 B_K; 0] (the impulses move the first K velocities only).
 * *s must outlive the correction's local problem. */
typedef struct nscd__impulse_subspace {
    nscd__model model;
    nscd__model *real;
    nscd__arena *arena;
    nscd_diag *diag;
    int32_t k;
} nscd__impulse_subspace;

nscd__model *nscd__impulse_subspace_model(nscd_time_stepping *ts, nscd__impulse_subspace *s);

nscd_status nscd__generalized_alpha_stages(nscd_time_stepping *ts, const nscd__ts_closed *closed,
                                           double dt);
nscd_status nscd__bathe_stages(nscd_time_stepping *ts, const nscd__ts_closed *closed, double dt);
nscd_status nscd__ed_alpha_stages(nscd_time_stepping *ts, const nscd__ts_closed *closed, double dt);

#endif
