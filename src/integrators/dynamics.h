/* Smooth dynamics of a model between events: accelerations with persistent
 * (closed) contacts held by bilateral forces and compliant contact forces. */
#ifndef NSCD_INTEGRATORS_DYNAMICS_H
#define NSCD_INTEGRATORS_DYNAMICS_H

#include <stdint.h>

#include "core/model.h"

typedef struct nscd__dynamics {
    nscd__model *model;
    int32_t n_closed;
    int32_t *closed;  /* indices of the closed contacts (n_contacts) */
    double *lambda;   /* normal force of each contact (n_contacts); 0 unless closed */
    double *h;        /* n_v */
    double *rows;     /* normal rows of the closed contacts (n_contacts x n_v) */
    double *row;      /* scratch row (n_v) */
    double *tangents; /* scratch tangential rows (2 x n_v) */
    double *rhs_in;   /* n_v x (1 + n_contacts): [h, W_C'] */
    double *rhs_out;  /* n_v x (1 + n_contacts): M^-1 [h, W_C'] */
    double *delassus; /* n_contacts x n_contacts */
    double *bias;     /* n_contacts */
    int32_t *pivots;  /* n_contacts */
    double *shifted;  /* n_q: positions moved along dq/dt for dW/dt */
    double *qdot;     /* n_q */
    int64_t evaluations;
} nscd__dynamics;

nscd_status nscd__dynamics_create(nscd__model *model, nscd__dynamics *dyn);
void nscd__dynamics_destroy(nscd__dynamics *dyn);

/* Refreshes the list of closed contacts from the model's contact modes. */
void nscd__dynamics_update_modes(nscd__dynamics *dyn);

/* Gap and normal row of contact `index` (the row goes to dyn->row). */
nscd_status nscd__dynamics_contact(nscd__dynamics *dyn, int32_t index, double t, const double *q,
                                   double *gap);

/* Compliant normal force of contact `index` at (q, v): f >= 0 pushes apart.
 * The contact's row is left in dyn->row. */
nscd_status nscd__dynamics_compliant_force(nscd__dynamics *dyn, int32_t index, double t,
                                           const double *q, const double *v, double *force);

/* y' = (dq/dt, dv/dt) for y = (q, v); also fills dyn->lambda of the closed
 * contacts (their bilateral forces, which must stay >= 0). */
nscd_status nscd__dynamics_rhs(nscd__dynamics *dyn, double t, const double *y, double *ydot);

#endif
