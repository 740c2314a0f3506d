/* Internals of the event-driven stepper, shared by its three files:
 * event_driven.c (API and integration loop), event_location.c (watch
 * functions and root finding) and event_handling.c (impacts, mode changes,
 * Zeno detection). */
#ifndef NSCD_INTEGRATORS_EVENT_DRIVEN_IMPL_H
#define NSCD_INTEGRATORS_EVENT_DRIVEN_IMPL_H

#include <stdint.h>

#include "contact/impacts/impact.h"
#include "core/arena.h"
#include "core/diag.h"
#include "core/model.h"
#include "integrators/event_driven/dynamics.h"
#include "integrators/ode/ode.h"
#include "nscd/event_driven.h"

struct nscd_event_driven {
    nscd_event_driven_options options;
    nscd__model *model;    /* valid while link.model is set */
    nscd__model_link link; /* cleared when the model's owner is destroyed */
    int32_t n_contacts;    /* the model's sizes at creation (for release) */
    int32_t n_v;
    nscd__arena arena; /* per-instant workspace: impact rows, M^-1 W', W */
    nscd_allocator allocator;
    nscd_diag diag;
    nscd__dynamics dynamics;
    nscd__impact_work impact_work;
    nscd__dopri5 dopri;
    nscd__rk4 rk4;
    nscd__ode ode;
    int32_t n;         /* n_q + n_v */
    int32_t n_watches; /* n_contacts + n_user_events */

    double *y;           /* state at the start of the current step */
    double *y_end;       /* state at the end of the current step (RK4) */
    double *y_tmp;       /* interpolated state */
    double *ydot;        /* scratch derivative */
    double *watch_start; /* watch values at the step start */
    double *watch_tmp;   /* watch values at a sample */
    double *watch_left;  /* watch values at the left end of each bracket */
    double *left;        /* left end (theta) of each watch's bracket, or -1 */
    double *right;       /* right end (theta) of each watch's bracket, or 2 when none */
    int32_t *armed;      /* sign a watch had before a crossing; 0 = not armed */
    double *threshold;   /* a watch crosses at this value (0, or below for touching contacts) */
    double *watch_rate;  /* dg/dt of open contacts at the last sample (NaN for others) */
    double *rate_left;   /* that rate at the left end of each bracket */
    double *dip_right;   /* right end of a dip to look at, or 2 when none */
    double *dip_value;   /* the watch value there */
    int32_t *firing;     /* 1 for the watches that fire at the current event */
    double *user_values; /* n_user_events */

    /* one impact: contacts, rows (in the arena), results */
    int32_t *impact_contacts;
    nscd__rows *impact_rows;
    double *impulse, *velocity_before, *velocity_after;
    double *v_before;

    /* one instant: the touching contacts are impact_contacts[0..count) */
    double *rates;            /* their normal gap velocities */
    double *gaps;             /* their gaps */
    int32_t *impacting;       /* 1 for the open ones that approached at this instant */
    int32_t *impact_list;     /* the contacts of one impact (those not separating) */
    int32_t *rest;            /* the touching contacts at rest (contact indices) */
    int32_t *mode_before;     /* every contact's mode before the instant */
    int32_t *slip_before;     /* and its slip state */
    double *direction_before; /* and its slip direction (2 per contact) */
    int32_t *slip_stopped;    /* 1 when a sliding contact stopped during the instant */
    int impact_at_instant;    /* velocities jumped at the current instant */
    double *inverse_mass;     /* w M^-1 w' of each contact at rest */

    /* Zeno bookkeeping, per contact */
    double *last_impact;
    int32_t *close_impacts;

    double step;    /* next step size to try (DOPRI) */
    int fsal_valid; /* dopri.k[0] holds f(t, y) */
    nscd_event_driven_stats stats;
    int stop; /* set by a handler asking to stop */
};

/* Creates a stepper for any model (nscd_event_driven_create() passes the
 * system's). The stepper refers to the model until it is destroyed; when
 * the model's owner goes first, the stepper's calls fail with
 * NSCD_ERR_STALE_HANDLE and nscd_event_driven_destroy() still works. The
 * entry set must be fixed (update_entries == NULL, else
 * NSCD_ERR_UNSUPPORTED): the stepper sizes its per-contact arrays once. */
nscd_status nscd__event_driven_create(nscd__model *model, const nscd_event_driven_options *options,
                                      nscd_event_driven **stepper);

/* --- event_location.c */
/* Values of all watches at (t, y): gaps of open contacts, forces of closed
 * and compliant contacts, user event functions. */
nscd_status nscd__watch_values(nscd_event_driven *ed, double t, const double *y, double *values);
/* Arms the watches from their values at the step start (watch_start). */
void nscd__watch_arm(nscd_event_driven *ed);
/* Finds the earliest event in the step [t, t + h] whose interpolant is ready.
 * On return *theta is the event position in [0, 1] (or > 1 when none) and
 * ed->firing marks the watches that fire there. */
nscd_status nscd__locate_event(nscd_event_driven *ed, double t, double h, double *theta);
/* State at t + theta h by the method's interpolant. */
void nscd__interpolate(nscd_event_driven *ed, double theta, double *out);

/* --- event_handling.c */
/* Handles the firing watches (ed->firing) at (t, y): impacts, contact mode
 * changes, user events; y is updated by impacts. */
nscd_status nscd__handle_events(nscd_event_driven *ed, double t, double *y);
/* Contacts that are closing at the current state (g <= 0 and approaching)
 * or closed contacts whose force went negative: handled before a step. */
nscd_status nscd__settle_contacts(nscd_event_driven *ed, double t, double *y);
/* --- contact_modes.c */
/* Stage 2 of an instant: modes of the n_rest touching contacts at rest
 * (ed->rest) so that closed ones push (and stick inside or slide on the
 * friction cone) and open ones do not start to penetrate. ed->firing marks
 * closed contacts whose watch fired. */
nscd_status nscd__decide_contact_modes(nscd_event_driven *ed, double t, const double *y,
                                       int32_t n_rest);

/* Keeps closed contacts on g = 0 (position and velocity projection). */
nscd_status nscd__project_closed(nscd_event_driven *ed, double t, double *y);
/* Reports an event to the user's handler; returns NSCD_ERR_CALLBACK on a
 * negative or undefined answer and sets ed->stop on NSCD_EVENT_STOP. */
nscd_status nscd__report(nscd_event_driven *ed, const nscd_event_info *info);

#endif
