/* The one interface through which steppers see a mechanical system (model
 * interface v2, docs/architecture.md).
 *
 * A model owns its state (t, q, v) and a set of constraint entries. Each
 * entry is a unilateral contact or an equality (bilateral) constraint with a
 * persistent 64-bit key, its settings (law, friction, tangential rows) and
 * its step state (mode, slip, law memory, last impulses). At (t, q) the
 * model gives an entry's gap and its rows, block-sparse (core/rows.h): a
 * contact of the generic system is one dense block of n_v columns, a world
 * contact two blocks of 6. The mass matrix is block diagonal over
 * n_mass_blocks ranges of velocities (one range for the generic system, one
 * per body in a world); every row block lies inside one mass block, so
 * M^-1 H' has the pattern of H and a world applies M^-1 body by body.
 *
 * The generic Lagrangian system (models/system.c) implements it today; the
 * rigid-body world will, and every stepper drives either. */
#ifndef NSCD_CORE_MODEL_H
#define NSCD_CORE_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "core/diag.h"
#include "core/law.h"
#include "core/rows.h"
#include "nscd/host.h"
#include "nscd/types.h" /* nscd_contact_mode */

/* Kinds of constraint entries. */
typedef enum nscd__entry_kind {
    NSCD__ENTRY_UNILATERAL = 0, /* contact: g >= 0, lambda_N >= 0, friction */
    NSCD__ENTRY_EQUALITY = 1    /* bilateral: g = 0, multipliers of either sign */
} nscd__entry_kind;

/* What a step changes of one entry; saved and restored with the model state
 * (nscd__model_save) so that a step can be rejected and retried. */
typedef struct nscd__entry_state {
    int32_t mode; /* nscd_contact_mode */
    int32_t slip; /* closed frictional contact: 0 sticks; slides with one tangential row
                   * in direction -1/+1, with two tangential rows (slip = 1) along
                   * slip_direction */
    /* Closed contact that slides: the unit sliding direction in the tangent
     * plane, in the coordinates of the tangential rows (planar: {slip, 0}).
     * Set by the mode decision at the start of every step (the direction of
     * s = W_T v, or of the sliding that starts from rest); within the step the
     * friction follows s itself and this is only the reference of the stop
     * watch (integrators/event_driven/dynamics.c). */
    double slip_direction[2];
    nscd__law_memory memory;
    /* Last impulses (normal, tangents) of the entry: the warm start of
     * iterative solvers (time steppers); the event-driven stepper leaves it. */
    double impulse[3];
} nscd__entry_state;

/* One constraint entry: settings (set by the model's owner) and step state.
 * A slot whose law has ops == NULL uses the default: Newton restitution
 * with e = 0. */
typedef struct nscd__contact_slot {
    uint64_t key; /* persistent: the same contact keeps it while it exists */
    int32_t kind; /* nscd__entry_kind */
    nscd_contact_law law;
    double friction;
    int32_t n_tangent;
    /* e_T of Newton's law with friction: xi_T = u+_T + e_T u-_T (impact_friction.c) */
    double tangential_restitution;
    nscd__entry_state state;
    /* A persistent contact (the world's clearance gaps with the energy
     * form, docs/joints.md): under the midpoint rule its normal row holds
     * w (v_{k+1} + e v_k) >= e start_approach, i.e. the bias is
     * e (w v_k - start_approach), with start_approach = min(w_k v_k, 0) the
     * approach already present at the step's start (rows w_k at q_k): the
     * mean velocity is held (the curvature between q_k and q_M made up for)
     * while an approach at q_k (an impact, an external kick) stays plastic.
     * The impulse's work over the step, P w (v_{k+1} + v_k) / 2 =
     * P start_approach / 2 with e = 1, is never positive. 0 elsewhere. */
    int32_t mean_velocity;
    double start_approach;
    /* 1 for a gap of a clearance joint (the world, docs/joints.md): the
     * AUTO choice of the time steppers keeps such active sets off the
     * block Gauss–Seidel (NSCD_TS_SOLVER_BLOCK_GS), whose impulses on
     * redundant closed gaps (a slider's corners) are not the pivoting
     * solvers'. 0 elsewhere. */
    int32_t clearance;
} nscd__contact_slot;

/* The slot's questions, answered here once for every stepper and impact rule. */

/* The restitution coefficient e of the slot's law; 0 for a slot without
 * law (the default: Newton's law with e = 0) or a law without one. */
static inline double nscd__slot_restitution(const nscd__contact_slot *slot) {
    if (slot->law.ops == NULL || slot->law.ops->restitution == NULL) {
        return 0.0;
    }
    return slot->law.ops->restitution(&slot->law);
}

/* e of a contact taking part in an impact: a persistent (closed) contact
 * stays closed and a plastic projection restitutes nothing (e = 0). */
static inline double nscd__slot_impact_restitution(const nscd__contact_slot *slot, int plastic) {
    return plastic || slot->state.mode == NSCD_CONTACT_CLOSED ? 0.0 : nscd__slot_restitution(slot);
}

/* A unilateral contact with friction (mu > 0 and at least one tangent). */
static inline int nscd__slot_frictional(const nscd__contact_slot *slot) {
    return slot->kind == NSCD__ENTRY_UNILATERAL && slot->friction > 0.0 && slot->n_tangent >= 1;
}

/* Tangential rows of the slot that are real (0, 1 or 2; the local
 * problems' other tangents are dummy rows). */
static inline int32_t nscd__slot_real_tangents(const nscd__contact_slot *slot) {
    return nscd__slot_frictional(slot) ? (slot->n_tangent < 2 ? slot->n_tangent : 2) : 0;
}

/* A compliant law (a force law of the penetration, no impact). */
static inline int nscd__slot_compliant(const nscd__contact_slot *slot) {
    return slot->law.ops != NULL && slot->law.ops->kind == NSCD_LAW_COMPLIANT;
}

typedef struct nscd__model {
    void *self;
    int32_t n_q; /* positions */
    int32_t n_v; /* velocities */
    int32_t n_contacts;
    /* Largest row width (velocities touched) of any entry: sizes row buffers. */
    int32_t row_width;
    /* M is block diagonal over n_mass_blocks consecutive ranges of
     * velocities starting at mass_block_start[b] (n_mass_blocks + 1 offsets,
     * the last is n_v). */
    int32_t n_mass_blocks;
    const int32_t *mass_block_start;
    double *t, *q, *v; /* the state, owned by the model */
    nscd__contact_slot *contacts;
    nscd_diag *diag; /* where failures are recorded */
    const nscd_allocator *allocator;

    /* X = M_bb(q)^-1 B for mass block b and nrhs columns; B and X are
     * width_b x nrhs, row-major, and may not alias. */
    nscd_status (*mass_solve)(void *self, const double *q, int32_t block, int32_t nrhs,
                              const double *B, double *X);
    /* y = M(q) x (full vectors); NSCD_ERR_UNSUPPORTED when the model has no
     * mass matrix. */
    nscd_status (*mass_times)(void *self, const double *q, const double *x, double *y);
    /* h(q, v, t) */
    nscd_status (*forces)(void *self, double t, const double *q, const double *v, double *h);
    /* dq/dt for velocity v */
    void (*position_rate)(void *self, const double *q, const double *v, double *qdot);
    /* q_out = q "+" dq: moves q along a velocity-space increment dq (n_v) */
    void (*displace)(void *self, const double *q, const double *dq, double *q_out);
    /* Gap and rows of entry `index` at (t, q): rows->values has room for
     * NSCD__MAX_ENTRY_ROWS x row_width doubles; the model sets the pattern
     * and fills 1 + n_tangent rows for a contact (normal first, then the
     * tangents), its equations for an equality. */
    nscd_status (*entry)(void *self, int32_t index, double t, const double *q, double *gap,
                         nscd__rows *rows);
    /* Refreshes the entry set at (t, q) (contacts appear and vanish; keys
     * persist and so does the state of the entries that remain). NULL for
     * models whose set is fixed, like the generic system. */
    nscd_status (*update_entries)(void *self, double t, const double *q);
    /* The steppers that refer to the model (nscd__model_attach). */
    struct nscd__model_link *links;
    /* Appended with the global form of problem assembly (contact/assembly/assembly.h):
     * writes M_bb(q) of mass block `block`, width_b x width_b, row-major and
     * symmetric. Optional: NULL (or NSCD_ERR_UNSUPPORTED, e.g. a generic
     * system given only mass_solve) when the model cannot give M itself;
     * the global form then fails with NSCD_ERR_UNSUPPORTED. */
    nscd_status (*mass_block)(void *self, const double *q, int32_t block, double *M_bb);
    /* Appended for implicit steppers: the force Jacobians at (t, q, v),
     * K = -dh/dq and C = -dh/dv, n_v x n_v, row-major (the sign of
     * nscd_matrix_fn: a spring h = -k q has K = k). K or C may be NULL when
     * not wanted. Optional: NULL, or NSCD_ERR_UNSUPPORTED (nothing written)
     * when a wanted matrix is unknown, e.g. a generic system given no
     * stiffness callback; a stepper then falls back to an explicit
     * treatment of h or fails. */
    nscd_status (*tangent)(void *self, double t, const double *q, const double *v, double *K,
                           double *C);
    /* Appended for models whose entry set changes (update_entries != NULL):
     * after an update, entry_previous[e] is the index entry e had before it
     * (-1 for a new entry), n_contacts values, so that a stepper carries its
     * own per-entry arrays (active, loaded, forces) across the update. */
    const int32_t *entry_previous;
    /* Appended for models that mirror the state of an owner (a world's
     * bodies live in the world's arrays; docs/world.md): pull_state reads
     * the owner's current t, q, v into the model before a step (n_q, n_v and
     * the mass blocks may change: bodies come and go), push_state writes
     * them back after an accepted step (an error there, e.g. a joint
     * projection that did not converge, fails the step's call with the state
     * written). NULL for models whose state is their own (the generic system). */
    nscd_status (*pull_state)(void *self);
    nscd_status (*push_state)(void *self);
    /* Appended for rigid bodies (the world; docs/world.md, "Free rotation"):
     * the gyroscopic torque -ω × Iω is not in forces() but here, integrated
     * over a step of length dt so that it adds no energy (the explicit form
     * adds energy at every step). The Moreau steppers call it on the free
     * velocity v_free = v + dt M^-1 h, with the positions q of M (q_k for
     * Moreau–Jean, q_M for the midpoint rule: a rotation about ω leaves the
     * body-frame ω unchanged, so both see the body-frame velocity of v).
     * NULL for models without it (the generic system). */
    void (*free_rotation)(void *self, const double *q, double dt, double *v_free);
    /* Appended for re-entrancy (docs/hostile_input.md): frees the model's
     * owner (a system, a world) whose destroy a callback asked for while a
     * stepper was advancing it (diag->doomed); the stepper calls it when
     * its advance returns. */
    void (*destroy_owner)(void *self);
    /* Appended for the matrix-free block Gauss–Seidel of the time steppers
     * (NSCD_TS_SOLVER_BLOCK_GS, docs/time_stepping.md): 1 when every mass
     * block is a rigid body (6 velocities, v then ω, M_b = diag(m I, I_b))
     * and every entry's rows are those of points or joints on at most two
     * of them (the world), so that the AUTO choice of the Moreau–Jean
     * stepper may take that solver; 0 elsewhere (the generic system). */
    int32_t rigid_bodies;
} nscd__model;

/* A stepper's reference to a model. The owner of the model (a system)
 * clears every link when it is destroyed (nscd__model_release), so a stepper
 * that outlives it finds link->model == NULL and fails with
 * NSCD_ERR_STALE_HANDLE instead of touching freed memory. The link lives in
 * the stepper; not thread-safe, like every call on one handle. */
typedef struct nscd__model_link {
    nscd__model *model;
    struct nscd__model_link *prev, *next;
} nscd__model_link;

void nscd__model_attach(nscd__model *model, nscd__model_link *link);
/* The stepper goes: unlinks it (nothing when the model is gone). */
void nscd__model_detach(nscd__model_link *link);
/* The model goes: every stepper's link is cleared. */
void nscd__model_release(nscd__model *model);

/* Everything a step changes: t, q, v and every entry's state. n_q, n_v and
 * n_entries are the capacities allocated. */
typedef struct nscd__model_state {
    double t;
    double *q, *v;
    nscd__entry_state *entries;
    int32_t n_q, n_v, n_entries;
} nscd__model_state;

nscd_status nscd__model_state_create(const nscd__model *model, nscd__model_state *state);
void nscd__model_state_destroy(const nscd__model *model, nscd__model_state *state);
/* Grows `state` to the model's current sizes (a model whose sizes or entry
 * set changed); its content is lost when it grows. */
nscd_status nscd__model_state_fit(const nscd__model *model, nscd__model_state *state);
/* Copies the model's step state into `state` (capacities at least the
 * model's sizes) and back. Restore writes the model's current sizes: it
 * must come before anything changes the sizes or the entry set since the
 * save (a stepper updates the entry set before it saves, never inside a
 * step; integrators/time_stepping/time_stepping.c). */
void nscd__model_save(const nscd__model *model, nscd__model_state *state);
void nscd__model_restore(nscd__model *model, const nscd__model_state *state);

/* Velocities of mass block b: [mass_block_start[b], mass_block_start[b + 1]). */
static inline int32_t nscd__mass_block_width(const nscd__model *model, int32_t b) {
    return model->mass_block_start[b + 1] - model->mass_block_start[b];
}
/* The mass block holding velocity index `column` (binary search). */
int32_t nscd__mass_block_of(const nscd__model *model, int32_t column);

#endif
