/* Internals of the time stepper, shared by its files: time_stepping.c (API
 * and the step loop), moreau_jean.c (one Moreau–Jean step and the pieces
 * both schemes share), moreau_midpoint.c (one midpoint step),
 * ts_local_solve.c (the local problem of one step) and the α schemes'
 * mixed framework (mixed_impl.h: mixed_step.c, mixed_stage.c,
 * generalized_alpha.c, bathe.c, ed_alpha.c). */
#ifndef NSCD_INTEGRATORS_TIME_STEPPING_IMPL_H
#define NSCD_INTEGRATORS_TIME_STEPPING_IMPL_H

#include <stdint.h>

#include "contact/assembly/assembly.h"
#include "core/arena.h"
#include "core/diag.h"
#include "core/model.h"
#include "nscd/time_stepping.h"

enum { NSCD__TS_HAS_K = 1, NSCD__TS_HAS_C = 2 };

/* Implicit forces: a copy of the model whose mass_solve applies W_it^-1
 * (W_it = M + θ dt C + θ² dt² K, one dense mass block) instead of M^-1, so
 * that the problem assembly builds v_free and H W_it^-1 H' unchanged. */
typedef struct nscd__ts_implicit {
    nscd__model proxy;  /* the model with mass_solve = W_it^-1; self = this */
    nscd__arena *arena; /* the stepper's per-step arena (solve scratch) */
    nscd_diag *diag;    /* the stepper's diagnostics */
    double *W;          /* n_v x n_v row-major W_it (arena) */
    double *K;          /* n_v x n_v row-major K, NULL when not given (arena) */
    double *M;          /* n_v x n_v row-major M of the same q (arena) */
    int32_t n;          /* n_v */
} nscd__ts_implicit;

/* What the α schemes (generalized-α, Bathe, ED-α) keep between steps, and
 * what a step stages until it is accepted (time_stepping.c commits it). */
typedef struct nscd__ts_alpha {
    double *acc;         /* n_v: a_i, the acceleration at the step's start */
    double *acc_aux;     /* n_v: A_i of generalized-α (eq. 21) */
    double *acc_new;     /* n_v: a_{i+1} of the current step */
    double *acc_aux_new; /* n_v: A_{i+1} of the current step */
    double *force_new;   /* 3 n_contacts: λ of the current step's last stage */
    int has_history;     /* acc, acc_aux belong to the model's current state */
} nscd__ts_alpha;

/* One row per nscd_ts_scheme (schemes.c): what the step loop and the
 * option checks need to know of a scheme, in place of switches over the
 * enum. A new scheme is a row there (docs/architecture.md, "Where does X
 * go"). */
struct nscd__ts_closed; /* alpha/mixed_impl.h */

typedef struct nscd__ts_scheme {
    const char *name;
    /* One step of size dt from the model's state (nscd__moreau_jean_step's
     * contract: fills ts->report; on failure the caller restores the saved
     * state). */
    nscd_status (*step)(nscd_time_stepping *ts, double dt);
    /* An accepted step's forces (and history) into the stepper:
     * nscd__ts_commit_staged or nscd__ts_commit_impulses. */
    void (*commit)(nscd_time_stepping *ts, double dt);
    /* The α schemes: the base scheme's stages inside nscd__alpha_step
     * (mixed_step.c); NULL for the others. */
    nscd_status (*stages)(nscd_time_stepping *ts, const struct nscd__ts_closed *closed, double dt);
    /* Capabilities (1: yes), the columns of schemes.c in this order. */
    uint8_t staged;             /* α: unknowns are accelerations and forces, staged
                                   until the step is accepted; a contact is loaded by
                                   its force too, and its step impulse adds dt λ_N */
    uint8_t acceleration_level; /* accepts NSCD_TS_LEVEL_ACCELERATION */
    uint8_t impulse_subspace;   /* accepts impulse_velocities > 0 */
    uint8_t implicit_forces;    /* accepts NSCD_TS_FORCES_IMPLICIT */
    uint8_t changing_entries;   /* drives a model whose entry set changes (a world) */
    /* seed 004's semi-implicit step: θ = 1, explicit forces at q_k, the
     * linearised gaps' biases g_k / dt (nscd__ts_local::gaps) */
    uint8_t linearised_gaps;
} nscd__ts_scheme;

/* The row of a scheme; NULL when `scheme` is no nscd_ts_scheme. */
const nscd__ts_scheme *nscd__ts_scheme_of(int32_t scheme);

struct nscd_time_stepping {
    nscd_time_stepping_options options;
    const nscd__ts_scheme *scheme; /* the row of options.scheme */
    nscd__model *model;            /* valid while link.model is set */
    nscd__model_link link;         /* cleared when the model's owner is destroyed */
    /* Capacities of the per-entry arrays (n_contacts + 1 each) and of the
     * n_q, n_v sized ones: the model's sizes at creation, grown when a model
     * whose entry set changes (update_entries) outgrows them. */
    int32_t n_contacts;
    int32_t n_q, n_v;
    int32_t end_n_q, end_n_v; /* sizes of end_q, end_v when has_end */
    int32_t *remap_flags;     /* n_contacts + 1: scratch of the entry remap */
    double *remap_values;     /* 3 (n_contacts + 1): the same */
    nscd_allocator allocator;
    nscd_diag diag;
    nscd__arena arena;       /* per-step workspace: rows, W, impulses */
    nscd__model_state saved; /* the state before the current step */
    int32_t *active;         /* n_contacts: 1 when active in the last accepted step */
    int32_t *active_before;  /* n_contacts: the same before the current step */
    /* n_contacts: 1 when the contact carried P_N > 0 in the last step and the
     * state is still the one that step left (end_q, end_v, end_t) */
    int32_t *loaded;
    double *end_q, *end_v, end_t;
    int has_end;            /* end_* hold the state after the last step */
    double *q_theta, *h;    /* n_q, n_v */
    double *v_free, *v_mid; /* n_v */
    /* 3 n_contacts: each entry's non-impulsive force at the end of the last
     * accepted step (normal, tangents); computed by each scheme's step */
    double *force;
    nscd_time_stepping_report report; /* of the last accepted step */
    int64_t steps;                    /* accepted since creation */
    /* The force Jacobians the model gives (moreau_jean_implicit.c): -1 not
     * probed yet, else NSCD__TS_HAS_K | NSCD__TS_HAS_C (0: explicit forces). */
    int32_t jacobians;
    nscd__ts_implicit implicit; /* W_it of the current step (implicit forces) */
    nscd__ts_alpha alpha;       /* history of the α schemes (mixed_step.c) */
};

/* The local problem of one step: the rows of the active entries, what each
 * row is, and the assembled W = H M^-1 H', c (dense for the LCP, block-CSR
 * in `form` for fc3d). */
typedef struct nscd__ts_local {
    nscd__model *model; /* whose entries `entries` index (set by the build) */
    /* set by the caller before the build: Newton's tangential law on the
     * tangential rows, bias e_T W_T v_k (the α schemes' impulsive correction) */
    int tangential_restitution;
    int32_t m;               /* rows */
    int32_t n_entries;       /* active entries */
    int32_t *entries;        /* n_entries: their model indices */
    int32_t *row_entry;      /* m: the entry of each row */
    int32_t *row_kind;       /* m: 0 normal, 1.. tangent a, -1 equality row, -2 dummy */
    nscd__rows *H;           /* m one-row views (LCP) */
    double *W;               /* m x m, row-major (LCP; NULL for fc3d) */
    double *c;               /* m: H v_free + bias */
    double *P;               /* m: impulses */
    double *mu;              /* n_entries (fc3d) */
    int fc3d;                /* 1: 3 rows per entry, fc3d solver on `form` */
    int32_t law;             /* nscd_fc3d_friction_law */
    nscd__response response; /* LCP: M^-1 H' */
    nscd__local_bsr form;    /* fc3d: W in block-CSR form, c = form.q, M^-1 H' */
    /* The prox solver (NSCD_TS_SOLVER_PROX) uses the dense W, response and mu
     * of the LCP path over every real row (normal, real tangents, equality
     * rows); prox = 1 then. */
    int prox;
    /* The paper's constant prox parameter in the units of P, given by the
     * scheme (NSCD_TS_PROX_R_PAPER): 0.1 dt for the impulses of the Moreau
     * schemes and HETS (Sect. 2.5), 0.1 for forces (Sect. 2.4.2). */
    double prox_r;
    /* The step size, set by the scheme: a loaded contact with a positive gap
     * stays active only while g <= dt W_ee P_N (nscd__ts_keep_loaded); 0
     * (unset) keeps every loaded contact. */
    double dt;
    /* Seed 004's linearised gaps (NSCD_TS_SEMI_IMPLICIT, eqs. 23-24): when
     * set, the gaps of every model entry at the step's start; the normal
     * rows and the rows of one-row equality entries get the bias
     * gaps[e] / dt instead of Newton's restitution bias. NULL otherwise. */
    const double *gaps;
    /* Set by the midpoint rule (rows at q_M): the persistent contacts
     * (nscd__contact_slot::mean_velocity) get their mean-velocity bias;
     * every other scheme holds them plastic (their rows are at q_k, where
     * there is no curvature to make up for). */
    int rows_at_midpoint;
    /* Set by the caller before the build (Moreau–Jean on the model itself):
     * NSCD_TS_SOLVER_BLOCK_GS may solve this problem (the matrix-free block
     * Gauss–Seidel of contact/solvers/block_gs.h, ts_local_solve.c). */
    int block_gs_allowed;
    /* 1: the problem is the block Gauss–Seidel's: `bgs` its arrays, three
     * rows per contact (normal, t, o) then an equality's rows; its solve
     * writes P and dv = M^-1 H' P (n_v), H holds every row. */
    int block_gs;
    struct nscd__bgs_problem *bgs;
    const double *bgs_v_free;
    double *dv;
    int32_t n_v;
} nscd__ts_local;

nscd_status nscd__time_stepping_create(nscd__model *model,
                                       const nscd_time_stepping_options *options,
                                       nscd_time_stepping **stepper);

/* Variable steps (step_size.c, docs/variable_step.md): the end t_next of
 * the step from the model's current state towards t_end by the rule of the
 * options dt_min, dt_max; *rule and *predicted receive the
 * nscd_ts_step_rule and the number of open contacts predicted to close
 * within dt_max. Uses the arena and ts->h, ts->v_mid as scratch; the state
 * is not changed. */
nscd_status nscd__ts_choose_step(nscd_time_stepping *ts, double t_end, double *t_next,
                                 int32_t *rule, int32_t *predicted);

/* One Moreau–Jean step of size dt from the model's state; on failure the
 * caller restores the saved state. Fills ts->report. */
nscd_status nscd__moreau_jean_step(nscd_time_stepping *ts, double dt);

/* Sets up the forces of one step at (t_k, q_k, v_k) (probing the model's
 * Jacobians at the first step): *solver receives the model whose mass_solve
 * applies W_it^-1, ts->model itself for explicit forces, else the adapter
 * ts->implicit.proxy with W_it = M + θ dt C + θ² dt² K. */
nscd_status nscd__mj_forces_setup(nscd_time_stepping *ts, double dt, nscd__model **solver);

/* One step of Moreau's midpoint rule (moreau_midpoint.c), same contract. */
nscd_status nscd__moreau_midpoint_step(nscd_time_stepping *ts, double dt);

/* One step of the half-explicit scheme HETS (hets.c), same contract. */
nscd_status nscd__hets_step(nscd_time_stepping *ts, double dt);

/* Pieces of a step shared by both schemes (moreau_jean.c). */

/* The loaded contacts (P_N > 0 in the stepper's previous step, ts->loaded)
 * that stay active although no other rule made them so (active[e] = 0 on
 * entry): those with g <= 0, and those whose gap the last step's normal
 * impulse would close within one step if released, g <= dt W_ee P_N
 * (W_ee = w M(q)^-1 w' over the normal row w at q). The first keeps a
 * resting contact whose gap rounds to +1e-17 (dropped, it would fall by
 * g dt^2, which the velocity level never corrects: creep); the bound keeps
 * a contact whose gap has grown, e.g. under a tilting box whose redundant
 * corners share the load, from holding the body in the air step after step
 * at u_N = 0 (seen: a box frozen on a corner 0.22 m above the floor).
 * Sets active[e] = 1 for those kept; dt <= 0 (a caller that did not set
 * nscd__ts_local.dt) keeps every loaded contact, the rule before the bound. */
nscd_status nscd__ts_keep_loaded(nscd_time_stepping *ts, const nscd__rows *all, const double *gaps,
                                 const double *q, double dt, int32_t *active);

/* Allocates the entry arrays of one step in the arena (*gaps, local->entries)
 * and gathers the rows and gaps of every entry at (t, q); a gap that is not
 * finite fails with NSCD_ERR_NOT_FINITE. */
nscd_status nscd__ts_gather(nscd_time_stepping *ts, double t, const double *q, nscd__rows **rows,
                            double **gaps, nscd__ts_local *local);

/* ts->h = h(t, q, v_k) with the model's callback; a callback failure becomes
 * NSCD_ERR_CALLBACK, values that are not finite NSCD_ERR_NOT_FINITE. */
nscd_status nscd__ts_forces_at(nscd_time_stepping *ts, double t, const double *q);

/* ts->v_free = v_k + dt W^-1 ts->h, W^-1 applied through solver->mass_solve
 * at q (W = M for explicit forces); uses ts->v_mid as scratch. */
nscd_status nscd__ts_free_velocity(nscd_time_stepping *ts, nscd__model *solver, const double *q,
                                   double dt);

/* The active set (equalities, contacts with g + gamma_dt W_N v_k <= 0 or
 * loaded in the previous step), the local problem at q for ts->v_free,
 * its solution (warm started) and the impulses into the entries' state. */
nscd_status nscd__ts_contact_impulses(nscd_time_stepping *ts, nscd__model *solver,
                                      const nscd__rows *rows, const double *gaps, double gamma_dt,
                                      const double *q, nscd__ts_local *local);

/* The end of a step from t of size dt, after the scheme updated q and v:
 * the model's time to t + dt, NSCD_ERR_NOT_FINITE when the step diverged,
 * and the report (largest penetration at the new state, counts of active
 * entries, rows and new contacts). */
nscd_status nscd__ts_finish_step(nscd_time_stepping *ts, const nscd__ts_local *local, double t,
                                 double dt);

/* The effective matrix W = M + c_C C + c_K K at (t, q, v) (the Jacobians
 * probed at the first call): *solver receives the model whose mass_solve
 * applies W^-1, ts->model itself when the model gives no Jacobians (or the
 * forces are explicit), else ts->implicit.proxy, with M in ts->implicit.M. */
nscd_status nscd__ts_effective_setup(nscd_time_stepping *ts, double t, const double *q,
                                     const double *v, double c_damping, double c_stiffness,
                                     nscd__model **solver);

/* The commit of an accepted step (time_stepping.c). The Moreau schemes'
 * and HETS's unknowns are impulses: their force is impulse / dt, and an
 * impact is a contact that became active in the step. The α schemes stage
 * their accelerations and forces until the step is accepted: a failed step
 * leaves the history and the forces as they were (dt unused). */
void nscd__ts_commit_impulses(nscd_time_stepping *ts, double dt);
void nscd__ts_commit_staged(nscd_time_stepping *ts, double dt);

/* One step of an α scheme (mixed_step.c, generalized_alpha.c, bathe.c,
 * ed_alpha.c), same contract as nscd__moreau_jean_step; the accelerations
 * and forces go to ts->alpha's staged arrays. */
nscd_status nscd__alpha_step(nscd_time_stepping *ts, double dt);

/* Implicit forces: h -= θ dt K v_k (the linearised θ-mean of the forces,
 * docs/time_stepping.md); nothing without K. */
void nscd__mj_implicit_rhs(const nscd_time_stepping *ts, double dt, double *h);

/* Chooses the solver and the rows of the active entries local->entries
 * (their rows in all[], indexed by entry) and assembles the local problem,
 * applying the inverse iteration matrix through solver->mass_solve, at
 * q for the free velocity v_free and the velocities v_k (the restitution
 * bias e min(W_N v_k, 0) of the normal rows; v_k = NULL: no bias, for the
 * non-impulsive stage of HETS): LCP: H, W (dense), c; fc3d:
 * the block-CSR form local->form (three rows per contact). */
nscd_status nscd__ts_local_build(nscd_time_stepping *ts, nscd__model *solver, const nscd__rows *all,
                                 const double *q, const double *v_free, const double *v_k,
                                 nscd__ts_local *local);

/* dv = M^-1 H' P for the solved local problem (n_v values). */
void nscd__ts_local_velocity(const nscd__ts_local *local, int32_t n_v, double *dv);

/* Solves the assembled local problem (local->W, local->c) for local->P with
 * the chosen solver; sets the report's iterations, residual and converged. */
nscd_status nscd__ts_local_solve(nscd_time_stepping *ts, nscd__ts_local *local);

#endif
