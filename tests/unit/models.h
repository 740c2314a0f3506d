/* Small mechanical models shared by the unit tests (header-only, test code). */
#ifndef NSCD_TEST_MODELS_H
#define NSCD_TEST_MODELS_H

#include <math.h>
#include <string.h>

#include "nscd/nscd.h"

/* Point mass above a floor (gap = height), optionally with a vertical pull
 * F(t) = pull_rate * t and a failing callback after fail_after seconds. */
typedef struct ball_model {
    double mass, g, pull_rate, fail_after;
    int mass_sign;
} ball_model;

static inline nscd_status ball_mass(void *user, const double *q, double *m) {
    (void)q;
    const ball_model *b = user;
    m[0] = b->mass_sign < 0 ? -b->mass : b->mass;
    return NSCD_OK;
}

static inline nscd_status ball_forces(void *user, double t, const double *q, const double *v,
                                      double *h) {
    (void)q, (void)v;
    const ball_model *b = user;
    if (b->fail_after > 0.0 && t > b->fail_after) {
        return 42; /* any non-zero value is an error */
    }
    h[0] = -b->mass * b->g + b->pull_rate * t;
    return NSCD_OK;
}

static inline nscd_status ball_floor(void *user, int32_t index, double t, const double *q,
                                     double *gap, double *w_normal, double *w_tangent) {
    (void)user, (void)index, (void)t, (void)w_tangent;
    *gap = q[0];
    w_normal[0] = 1.0;
    return NSCD_OK;
}

/* Creates a ball system at height h0 with Newton restitution e. */
static inline nscd_status make_ball(ball_model *b, double h0, double e, nscd_system **sys) {
    nscd_system_desc desc;
    nscd_system_desc_init(&desc, sizeof desc);
    desc.n_dof = 1;
    desc.n_contacts = 1;
    desc.user = b;
    desc.mass = ball_mass;
    desc.forces = ball_forces;
    desc.contact = ball_floor;
    nscd_status rc = nscd_system_create(&desc, sys);
    if (rc != NSCD_OK) {
        return rc;
    }
    nscd_contact_law *law = NULL;
    rc = nscd_contact_law_create_newton(e, NULL, &law);
    nscd_contact_desc contact;
    nscd_contact_desc_init(&contact, sizeof contact);
    contact.law = law;
    if (rc == NSCD_OK) {
        rc = nscd_system_set_contact(*sys, 0, &contact);
    }
    nscd_contact_law_destroy(law);
    double v0 = 0.0;
    if (rc == NSCD_OK) {
        rc = nscd_system_set_state(*sys, 0.0, &h0, &v0);
    }
    if (rc != NSCD_OK) {
        nscd_system_destroy(*sys);
        *sys = NULL;
    }
    return rc;
}

/* Event log filled by an on_event handler. */
typedef struct event_log {
    int count;
    int32_t type[4096];
    double t[4096];
    double before[4096], after[4096], impulse[4096];
    int32_t contacts[4096];
    int stop_at; /* return NSCD_EVENT_STOP at this event number (1-based), 0 = never */
    int fail_at; /* return -1 at this event number, 0 = never */
} event_log;

static inline int32_t log_event(void *user, const nscd_event_info *info) {
    event_log *log = user;
    if (log->count < 4096) {
        int k = log->count;
        log->type[k] = info->type;
        log->t[k] = info->t;
        log->contacts[k] = info->n_contacts;
        log->before[k] = info->gap_velocity_before ? info->gap_velocity_before[0] : NAN;
        log->after[k] = info->gap_velocity_after ? info->gap_velocity_after[0] : NAN;
        log->impulse[k] = info->impulse ? info->impulse[0] : NAN;
    }
    log->count++;
    if (log->fail_at == log->count) {
        return -1;
    }
    return log->stop_at == log->count ? NSCD_EVENT_STOP : NSCD_EVENT_CONTINUE;
}

/* A planar block (x, y, phi), half sizes BLOCK_HALF_W x BLOCK_HALF_H and
 * mass BLOCK_MASS, on the floor y = 0 under gravity g tilted by alpha (a
 * slope), with n_corners contacts (friction mu, one tangent) at x offsets
 * along its bottom edge. */
#define BLOCK_HALF_W 0.5
#define BLOCK_HALF_H 0.25
#define BLOCK_MASS 2.0

typedef struct block_model {
    double alpha, mu, g;
    int32_t n_corners;
    double offset[4];
} block_model;

static inline nscd_status block_mass(void *user, const double *q, double *m) {
    (void)user, (void)q;
    memset(m, 0, 9 * sizeof(double));
    m[0] = m[4] = BLOCK_MASS;
    m[8] =
        BLOCK_MASS * (4.0 * BLOCK_HALF_W * BLOCK_HALF_W + 4.0 * BLOCK_HALF_H * BLOCK_HALF_H) / 12.0;
    return NSCD_OK;
}

static inline nscd_status block_forces(void *user, double t, const double *q, const double *v,
                                       double *h) {
    (void)t, (void)q, (void)v;
    const block_model *b = user;
    h[0] = BLOCK_MASS * b->g * sin(b->alpha);
    h[1] = -BLOCK_MASS * b->g * cos(b->alpha);
    h[2] = 0.0;
    return NSCD_OK;
}

static inline nscd_status block_contact(void *user, int32_t i, double t, const double *q,
                                        double *gap, double *wn, double *wt) {
    (void)t;
    const block_model *b = user;
    double s = b->offset[i], c = cos(q[2]), sn = sin(q[2]);
    *gap = q[1] + s * sn - BLOCK_HALF_H * c;
    wn[0] = 0.0, wn[1] = 1.0, wn[2] = s * c + BLOCK_HALF_H * sn;
    wt[0] = 1.0, wt[1] = 0.0, wt[2] = -s * sn + BLOCK_HALF_H * c;
    return NSCD_OK;
}

/* Creates the block system, resting flat on its corners at rest. */
static inline nscd_status make_block_system(block_model *b, nscd_system **sys) {
    nscd_system_desc desc;
    nscd_system_desc_init(&desc, sizeof desc);
    desc.n_dof = 3;
    desc.n_contacts = b->n_corners;
    desc.user = b;
    desc.mass = block_mass;
    desc.forces = block_forces;
    desc.contact = block_contact;
    nscd_status rc = nscd_system_create(&desc, sys);
    nscd_contact_desc contact;
    nscd_contact_desc_init(&contact, sizeof contact);
    contact.friction = b->mu;
    contact.n_tangent = 1;
    for (int32_t i = 0; rc == NSCD_OK && i < b->n_corners; ++i) {
        rc = nscd_system_set_contact(*sys, i, &contact);
    }
    double q[3] = {0.0, BLOCK_HALF_H, 0.0}, v[3] = {0.0, 0.0, 0.0};
    if (rc == NSCD_OK) {
        rc = nscd_system_set_state(*sys, 0.0, q, v);
    }
    return rc;
}

/* ------------------------------------------------------------ Cartesian pendulum */

/* A unit point mass at (x, y) on a rod of length 1 to the origin, held by an
 * equality entry g = |q| - 1, gravity 9.81 in -y; released from the
 * horizontal (1, 0) at rest. */
static inline nscd_status pendulum_mass(void *u, const double *q, double *m) {
    (void)u, (void)q;
    m[0] = 1.0, m[1] = 0.0, m[2] = 0.0, m[3] = 1.0;
    return NSCD_OK;
}

static inline nscd_status pendulum_forces(void *u, double t, const double *q, const double *v,
                                          double *h) {
    (void)u, (void)t, (void)q, (void)v;
    h[0] = 0.0, h[1] = -9.81;
    return NSCD_OK;
}

static inline nscd_status pendulum_rod(void *u, int32_t i, double t, const double *q, double *g,
                                       double *rows) {
    (void)u, (void)i, (void)t;
    double len = sqrt(q[0] * q[0] + q[1] * q[1]);
    *g = len - 1.0;
    rows[0] = q[0] / len, rows[1] = q[1] / len;
    return NSCD_OK;
}

static inline nscd_status make_cartesian_pendulum(nscd_system **sys) {
    nscd_system_desc d;
    nscd_system_desc_init(&d, sizeof d);
    d.n_dof = 2;
    d.mass = pendulum_mass;
    d.forces = pendulum_forces;
    d.n_equalities = 1;
    d.equality = pendulum_rod;
    nscd_status rc = nscd_system_create(&d, sys);
    double q[2] = {1.0, 0.0}, v[2] = {0.0, 0.0};
    if (rc == NSCD_OK) {
        rc = nscd_system_set_state(*sys, 0.0, q, v);
    }
    return rc;
}

#endif
