/* The one interface through which steppers see a mechanical system.
 *
 * The generic Lagrangian system (core/system.c) and the rigid-body world
 * both provide it, so every stepper drives either. */
#ifndef NSCD_CORE_MODEL_H
#define NSCD_CORE_MODEL_H

#include <stdint.h>

#include "core/diag.h"
#include "core/law.h"
#include "nscd/host.h"
#include "nscd/system.h" /* nscd_contact_mode */

/* Per-contact settings and state kept by a model. A slot whose law has
 * ops == NULL uses the default: Newton restitution with e = 0. */
typedef struct nscd__contact_slot {
    nscd_contact_law law;
    double friction;
    int32_t n_tangent;
    int32_t mode; /* nscd_contact_mode */
    int32_t slip; /* closed frictional contact: 0 sticks; slides with one tangential row
                   * in direction -1/+1, with two tangential rows (slip = 1) along
                   * slip_direction */
    /* Closed contact that slides: the unit sliding direction in the tangent
     * plane, in the coordinates of the tangential rows (planar: {slip, 0}).
     * Set by the mode decision at the start of every step (the direction of
     * s = W_T v, or of the sliding that starts from rest); within the step the
     * friction follows s itself and this is only the reference of the stop
     * watch (integrators/dynamics.c). */
    double slip_direction[2];
    nscd__law_memory memory;
} nscd__contact_slot;

typedef struct nscd__model {
    void *self;
    int32_t n_q; /* positions */
    int32_t n_v; /* velocities */
    int32_t n_contacts;
    double *t, *q, *v; /* the state, owned by the model */
    nscd__contact_slot *contacts;
    nscd_diag *diag; /* where failures are recorded */
    const nscd_allocator *allocator;

    /* X = M(q)^-1 B for nrhs columns; B and X are n_v x nrhs, row-major, and
     * may not alias. */
    nscd_status (*mass_solve)(void *self, const double *q, int32_t nrhs, const double *B,
                              double *X);
    /* y = M(q) x; NSCD_ERR_UNSUPPORTED when the model has no mass matrix. */
    nscd_status (*mass_times)(void *self, const double *q, const double *x, double *y);
    /* h(q, v, t) */
    nscd_status (*forces)(void *self, double t, const double *q, const double *v, double *h);
    /* dq/dt for velocity v */
    void (*position_rate)(void *self, const double *q, const double *v, double *qdot);
    /* q_out = q "+" dq: moves q along a velocity-space increment dq (n_v) */
    void (*displace)(void *self, const double *q, const double *dq, double *q_out);
    /* gap, normal row (n_v) and, when the slot has tangents, tangential rows */
    nscd_status (*contact)(void *self, int32_t index, double t, const double *q, double *gap,
                           double *w_normal, double *w_tangent);
} nscd__model;

#endif
