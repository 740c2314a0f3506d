/* Smooth dynamics of a model between events: accelerations with persistent
 * (closed) contacts held by bilateral forces and compliant contact forces. */
#ifndef NSCD_INTEGRATORS_DYNAMICS_H
#define NSCD_INTEGRATORS_DYNAMICS_H

#include <stdint.h>

#include "core/arena.h"
#include "core/least_squares.h"
#include "core/model.h"

typedef struct nscd__dynamics {
    nscd__model *model;
    nscd_allocator allocator; /* the model's, and its sizes at creation: release */
    int32_t n_q, n_v, n_contacts, row_width;
    int32_t n_closed;
    int32_t *closed;      /* indices of the closed contacts (n_contacts) */
    double *lambda;       /* normal force of each contact (n_contacts); 0 unless closed */
    double *lambda_t;     /* tangential forces of each closed frictional contact along its
                           * rows W_T1, W_T2: lambda_t[2 i + k] (2 n_contacts) */
    double *direction;    /* unit friction direction d of each sliding contact at the last
                           * evaluation, lambda_T = -mu lambda_N d (2 n_contacts) */
    double slip_velocity; /* tangential speed below which a slide counts as starting or
                           * stopping: the friction direction leans on slip_direction */
    /* The rows of the contact queried last (nscd__dynamics_contact and the
     * functions built on it): normal row first, then the tangential rows;
     * values hold NSCD__MAX_ENTRY_ROWS x row_width doubles. */
    nscd__rows entry;
    double *h;       /* n_v: forces, then M^-1-free part of an evaluation */
    double *shifted; /* n_q: positions moved along dq/dt for dW/dt */
    double *qdot;    /* n_q */
    nscd__least_squares least_squares;
    /* Per-evaluation workspace: the rows, Delassus matrix and forces of the
     * closed contacts (sized by them, not by every contact of the model). */
    nscd__arena arena;
    /* The closed contacts' problem of the last evaluation (in the arena). */
    int32_t n_rows;         /* constraint rows (>= n_closed) */
    nscd__rows *rows;       /* constraint rows C */
    nscd__rows *force_rows; /* force rows F */
    int32_t *row_contact;   /* contact of each row */
    int32_t *row_tangent;   /* k for a sticking contact's tangential row W_Tk, 0 for a normal row */
    double *bias;           /* right-hand side, then the multiplier of each force row */
    double *row_values;     /* the rows' values: C_k, then F_k, row_width each */
    int64_t evaluations;
    /* A probe force added to h in nscd__dynamics_rhs(): probe_force along
     * row probe_row of contact probe_contact - 1 (0: none). The contact-mode
     * decision measures the contact accelerations' response to unit contact
     * forces with it (integrators/event_driven/contact_modes.c). */
    int32_t probe_contact, probe_row;
    double probe_force;
} nscd__dynamics;

nscd_status nscd__dynamics_create(nscd__model *model, nscd__dynamics *dyn);
void nscd__dynamics_destroy(nscd__dynamics *dyn);

/* Refreshes the list of closed contacts from the model's contact modes. */
void nscd__dynamics_update_modes(nscd__dynamics *dyn);

/* Gap and rows of contact `index` (into dyn->entry). */
nscd_status nscd__dynamics_contact(nscd__dynamics *dyn, int32_t index, double t, const double *q,
                                   double *gap);

/* Gap whose zero crossing is the onset of contact `index`: g itself, or for a
 * compliant law with a permanent indentation (seed 001, Sect. 3) g + dent,
 * so that the next contact begins when the penetration reaches the dent.
 * The contact's rows are left in dyn->entry. */
nscd_status nscd__dynamics_onset_gap(nscd__dynamics *dyn, int32_t index, double t, const double *q,
                                     double *gap);

/* Effective mass 1/(w M^-1 w') at q of the normal row w in dyn->entry (0
 * when w = 0). */
nscd_status nscd__dynamics_effective_mass(nscd__dynamics *dyn, const double *q, double *mass);

/* Compliant normal force of contact `index` at (q, v): f >= 0 pushes apart.
 * The contact's rows are left in dyn->entry. */
nscd_status nscd__dynamics_compliant_force(nscd__dynamics *dyn, int32_t index, double t,
                                           const double *q, const double *v, double *force);

/* y' = (dq/dt, dv/dt) for y = (q, v); also fills dyn->lambda (and
 * dyn->lambda_t) of the closed contacts (their normal forces, which must
 * stay >= 0, and their friction forces). */
nscd_status nscd__dynamics_rhs(nscd__dynamics *dyn, double t, const double *y, double *ydot);

/* 1 when a closed contact carries Coulomb friction: friction > 0 and one
 * (planar) or two tangential rows (slot->state.slip then says whether it sticks or
 * slides, slot->state.slip_direction which way). */
int nscd__dynamics_frictional(const nscd__contact_slot *slot);

/* Sliding velocity s = W_T v of contact `index` at (q, v): slot->n_tangent
 * components (0, 1 or 2; the others are set to 0). The rows are left in
 * dyn->entry. */
nscd_status nscd__dynamics_slip_velocity(nscd__dynamics *dyn, int32_t index, double t,
                                         const double *q, const double *v, double s[2]);

/* The watch of closed contact `index` after nscd__dynamics_rhs() at (q, v):
 * > 0 while the contact stays as it is; it falls to 0 when the normal force
 * vanishes, when a sticking contact's force reaches Coulomb's cone
 * (mu lambda_N - ||lambda_T||), or when a sliding contact stops
 * (s . slot->state.slip_direction, the direction fixed at the step start). */
nscd_status nscd__dynamics_closed_watch(nscd__dynamics *dyn, int32_t index, double t,
                                        const double *q, const double *v, double *value);

/* Normal and tangential accelerations of contact `index` (tangent[k] along
 * W_Tk, 0 beyond its n_tangent rows), W dv/dt + (dW/dt) v, for the
 * derivative `ydot` that nscd__dynamics_rhs() returned at y (its dq/dt is
 * reused). The rows are left in dyn->entry. */
nscd_status nscd__dynamics_contact_acceleration(nscd__dynamics *dyn, int32_t index, double t,
                                                const double *y, const double *ydot, double *normal,
                                                double tangent[2]);

/* Plastic velocity projection of the closed contacts at y: the smallest
 * change of v in the kinetic metric, v += M^-1 C' P, that makes C v = 0 for
 * their constraint rows C (normal rows, and the tangential rows of sticking
 * contacts). A projection in the kinetic metric never adds energy. */
nscd_status nscd__dynamics_project_velocity(nscd__dynamics *dyn, double t, double *y);

#endif
