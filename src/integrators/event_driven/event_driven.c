/* The event-driven stepper: public API and the integration loop.
 *
 * Each pass of the loop first settles the contacts at the current instant
 * (closing contacts impact, closed contacts pulled apart release), then
 * takes one smooth step: an adaptive Dormand–Prince step (or a fixed RK4
 * step) followed by event location on the step's interpolant. A step that
 * contains an event is cut at the event, the event is handled and the loop
 * goes on from there. */
#include <math.h>
#include <string.h>

#include "core/check.h"
#include "core/memory.h"
#include "core/struct_sizes.h"
#include "models/system.h"
#include "integrators/event_driven/event_driven_impl.h"

/* Events at one instant beyond this many mean the events themselves
 * accumulate (e.g. open-close-open cycles): reported as Zeno. */
#define MAX_EVENTS_PER_INSTANT 1000

/* Largest n_user_events (documented in event_driven.h). Like the system's
 * 2^20 contacts, it keeps n_contacts + n_user_events and every array length
 * derived from it far inside int32 and the work arrays below a few hundred MB. */
#define MAX_USER_EVENTS (1 << 20)

/* The documented defaults, in a complete struct of the current size. */
static void option_defaults(nscd_event_driven_options *options) {
    memset(options, 0, sizeof *options);
    options->method = NSCD_ED_DOPRI5;
    options->relative_tolerance = 1e-10;
    options->absolute_tolerance = 1e-12;
    options->min_step = 1e-14;
    options->fixed_step = 1e-4;
    options->event_time_tolerance = 1e-12;
    options->zeno_policy = NSCD_ZENO_PERSISTENT_CONTACT;
    options->zeno_velocity = 1e-8;
    options->zeno_min_interval = 1e-9;
    options->zeno_max_close_impacts = 8;
    options->persistent_gap_tolerance = 1e-10;
    options->max_steps = 100000000;
}

nscd_status nscd_event_driven_options_init(nscd_event_driven_options *options, size_t struct_size) {
    nscd_event_driven_options defaults;
    option_defaults(&defaults);
    return nscd__struct_init(options, struct_size, &defaults, sizeof defaults,
                             NSCD__EVENT_DRIVEN_OPTIONS_SIZE_0_1);
}

static nscd_status validate_options(const nscd_event_driven_options *o) {
    const double reals[] = {o->relative_tolerance,
                            o->absolute_tolerance,
                            o->initial_step,
                            o->max_step,
                            o->min_step,
                            o->fixed_step,
                            o->event_time_tolerance,
                            o->zeno_velocity,
                            o->zeno_min_interval,
                            o->persistent_gap_tolerance};
    if (!nscd__all_finite(reals, sizeof reals / sizeof reals[0])) {
        return NSCD_ERR_NOT_FINITE;
    }
    if ((o->method != NSCD_ED_DOPRI5 && o->method != NSCD_ED_RK4_LINEAR) ||
        (o->zeno_policy != NSCD_ZENO_PERSISTENT_CONTACT && o->zeno_policy != NSCD_ZENO_STOP) ||
        o->n_user_events < 0 || o->n_user_events > MAX_USER_EVENTS ||
        (o->n_user_events > 0 && o->user_events == NULL)) {
        return NSCD_ERR_INVALID_ARGUMENT;
    }
    /* initial_step = 0 means automatic; a given one must be a step the
     * controller may take (>= min_step). */
    if (!(o->relative_tolerance > 0.0) || !(o->absolute_tolerance > 0.0) || o->initial_step < 0.0 ||
        (o->initial_step > 0.0 && o->initial_step < o->min_step) || o->max_step < 0.0 ||
        !(o->min_step > 0.0) || !(o->fixed_step > 0.0) || !(o->event_time_tolerance > 0.0) ||
        o->zeno_velocity < 0.0 || o->zeno_min_interval < 0.0 || o->zeno_max_close_impacts < 1 ||
        !(o->persistent_gap_tolerance > 0.0) || o->max_steps < 1) {
        return NSCD_ERR_OUT_OF_RANGE;
    }
    return NSCD_OK;
}

/* ------------------------------------------------------------ memory */

/* Every work array of the stepper with its length, for allocation and release. */
/* clang-format off */
#define ARRAYS(X)                                                                                 \
    X(y, double, n) X(y_end, double, n) X(y_tmp, double, n) X(ydot, double, n)                    \
    X(watch_start, double, nw) X(watch_tmp, double, nw) X(watch_left, double, nw)                 \
    X(left, double, nw) X(right, double, nw) X(threshold, double, nw) X(watch_rate, double, nw)   \
    X(rate_left, double, nw) X(dip_right, double, nw) X(dip_value, double, nw)                    \
    X(armed, int32_t, nw) X(firing, int32_t, nw)                                                  \
    X(user_values, double, nu) X(impact_contacts, int32_t, nc) X(impulse, double, nc)             \
    X(velocity_before, double, nc) X(velocity_after, double, nc)                                  \
    X(v_before, double, nv) X(last_impact, double, nc)                                            \
    X(close_impacts, int32_t, nc) X(rates, double, nc) X(gaps, double, nc)                        \
    X(impacting, int32_t, nc) X(impact_list, int32_t, nc)                                         \
    X(rest, int32_t, nc) X(mode_before, int32_t, nc) X(slip_before, int32_t, nc)                  \
    X(direction_before, double, 2 * nc) X(slip_stopped, int32_t, nc) X(inverse_mass, double, nc)
/* clang-format on */

/* Releases the stepper without touching its model, which may be gone. */
static void free_stepper(nscd_event_driven *ed) {
    const nscd_allocator *a = &ed->allocator;
    size_t n = (size_t)ed->n, nw = (size_t)ed->n_watches;
    size_t nu = (size_t)ed->options.n_user_events, nc = (size_t)ed->n_contacts;
    size_t nv = (size_t)ed->n_v;
    nscd__model_detach(&ed->link);
#define FREE_ARRAY(name, type, count) nscd__free(a, ed->name, (count) * sizeof(type));
    ARRAYS(FREE_ARRAY)
#undef FREE_ARRAY
    nscd__dynamics_destroy(&ed->dynamics);
    if (ed->impact_work.n_v > 0) {
        nscd__impact_work_destroy(a, &ed->impact_work);
    }
    nscd__arena_release(&ed->arena);
    nscd__dopri5_destroy(a, &ed->dopri);
    nscd__rk4_destroy(a, &ed->rk4);
    nscd_allocator copy = *a;
    nscd__free(&copy, ed, sizeof *ed);
}

static nscd_status allocate_arrays(nscd_event_driven *ed) {
    const nscd_allocator *a = &ed->allocator;
    size_t n = (size_t)ed->n, nw = (size_t)ed->n_watches;
    size_t nu = (size_t)ed->options.n_user_events, nc = (size_t)ed->n_contacts;
    size_t nv = (size_t)ed->n_v;
    int ok = 1;
#define ALLOC_ARRAY(name, type, count)                                                             \
    ok &= (ed->name = nscd__alloc_array(a, (count), sizeof(type))) != NULL;
    ARRAYS(ALLOC_ARRAY)
#undef ALLOC_ARRAY
    if (!ok || nscd__dynamics_create(ed->model, &ed->dynamics) != NSCD_OK ||
        nscd__impact_work_create(ed->model, &ed->arena, &ed->impact_work) != NSCD_OK ||
        nscd__dopri5_create(a, ed->n, &ed->dopri) != NSCD_OK ||
        nscd__rk4_create(a, ed->n, &ed->rk4) != NSCD_OK) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    return NSCD_OK;
}

static nscd_status ode_rhs(void *context, double t, const double *y, double *ydot) {
    nscd_event_driven *ed = context;
    return nscd__dynamics_rhs(&ed->dynamics, t, y, ydot);
}

nscd_status nscd_event_driven_create(nscd_system *system, const nscd_event_driven_options *options,
                                     nscd_event_driven **stepper) {
    if (system == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    return nscd__event_driven_create(nscd__system_model(system), options, stepper);
}

nscd_status nscd__event_driven_create(nscd__model *model, const nscd_event_driven_options *options,
                                      nscd_event_driven **stepper) {
    if (model == NULL || stepper == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    if (model->update_entries != NULL) { /* its arrays follow a fixed entry set */
        return NSCD_ERR_UNSUPPORTED;
    }
    nscd_event_driven_options opt;
    option_defaults(&opt);
    if (options != NULL) { /* an older, shorter struct: defaults for the rest */
        nscd_status rc =
            nscd__struct_read(&opt, sizeof opt, options, NSCD__EVENT_DRIVEN_OPTIONS_SIZE_0_1);
        if (rc == NSCD_OK) {
            rc = validate_options(&opt);
        }
        if (rc != NSCD_OK) {
            return rc;
        }
    }
    nscd_event_driven *ed = nscd__alloc(model->allocator, sizeof *ed);
    if (ed == NULL) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    ed->options = opt;
    ed->model = model;
    ed->n_contacts = model->n_contacts;
    ed->n_v = model->n_v;
    ed->allocator = *model->allocator;
    nscd__arena_init(&ed->arena, &ed->allocator);
    ed->diag.log = model->diag->log;
    ed->diag.log_user = model->diag->log_user;
    ed->n = model->n_q + model->n_v;
    ed->n_watches = model->n_contacts + opt.n_user_events;
    ed->ode.f = ode_rhs;
    ed->ode.context = ed;
    ed->ode.n = ed->n;
    if (allocate_arrays(ed) != NSCD_OK) {
        free_stepper(ed);
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    /* a slide slower than this starts (or ends) along its reference direction */
    ed->dynamics.slip_velocity = opt.zeno_velocity;
    nscd__model_attach(model, &ed->link);
    for (int32_t i = 0; i < model->n_contacts; ++i) {
        ed->last_impact[i] = -INFINITY;
    }
    *stepper = ed;
    return NSCD_OK;
}

void nscd_event_driven_destroy(nscd_event_driven *stepper) {
    /* from a callback of its own advance: freed when the advance returns */
    if (stepper != NULL && !nscd__diag_keep_alive(&stepper->diag, "nscd_event_driven_destroy")) {
        free_stepper(stepper);
    }
}

const char *nscd_event_driven_last_error(const nscd_event_driven *stepper) {
    return stepper == NULL ? "null stepper handle" : stepper->diag.last_error;
}

/* ------------------------------------------------------------ smooth steps */

/* Starting step of Hairer's dopri5 (HNW I, Sect. II.4): a step whose
 * Euler error estimate matches the tolerance. */
static nscd_status initial_step(nscd_event_driven *ed, double t, double span, double *h) {
    const nscd_event_driven_options *o = &ed->options;
    if (o->initial_step > 0.0) {
        *h = o->initial_step;
        return NSCD_OK;
    }
    double d0 = 0.0, d1 = 0.0, d2 = 0.0;
    for (int32_t i = 0; i < ed->n; ++i) {
        double sc = o->absolute_tolerance + o->relative_tolerance * fabs(ed->y[i]);
        d0 += (ed->y[i] / sc) * (ed->y[i] / sc);
        d1 += (ed->dopri.k[0][i] / sc) * (ed->dopri.k[0][i] / sc);
    }
    double h0 = (d0 < 1e-10 || d1 < 1e-10) ? 1e-6 : 0.01 * sqrt(d0 / d1);
    h0 = fmin(h0, span);
    for (int32_t i = 0; i < ed->n; ++i) {
        ed->y_tmp[i] = ed->y[i] + h0 * ed->dopri.k[0][i];
    }
    nscd_status rc = ode_rhs(ed, t + h0, ed->y_tmp, ed->ydot);
    if (rc != NSCD_OK) {
        return rc;
    }
    for (int32_t i = 0; i < ed->n; ++i) {
        double sc = o->absolute_tolerance + o->relative_tolerance * fabs(ed->y[i]);
        double diff = (ed->ydot[i] - ed->dopri.k[0][i]) / sc;
        d2 += diff * diff;
    }
    d1 = sqrt(d1 / ed->n);
    d2 = sqrt(d2 / ed->n) / h0;
    double big = fmax(d1, d2);
    double h1 = big <= 1e-15 ? fmax(1e-6, 1e-3 * h0) : pow(0.01 / big, 0.2);
    /* Never below min_step: with huge forces or velocities the sums above
     * overflow and the guess became 0 (or NaN), a step that was then accepted
     * forever without moving t. Starting at min_step, the error control
     * shrinks the step if it must, and fails once it falls below min_step. */
    *h = fmax(fmin(100.0 * h0, h1), o->min_step);
    return NSCD_OK;
}

/* Moves (t, y) to the event at theta of the step of size h and handles it. */
static nscd_status go_to_event(nscd_event_driven *ed, double *t, double h, double theta) {
    nscd__interpolate(ed, theta, ed->y_tmp);
    memcpy(ed->y, ed->y_tmp, (size_t)ed->n * sizeof(double));
    *t += theta * h;
    ed->fsal_valid = 0;
    return nscd__handle_events(ed, *t, ed->y);
}

/* Watch values at the step start, and arming. */
static nscd_status start_watches(nscd_event_driven *ed, double t) {
    nscd_status rc = nscd__watch_values(ed, t, ed->y, ed->watch_start);
    if (rc == NSCD_OK) {
        nscd__watch_arm(ed);
    }
    return rc;
}

static nscd_status dopri_step(nscd_event_driven *ed, double *t, double t_end) {
    const nscd_event_driven_options *o = &ed->options;
    nscd_status rc = NSCD_OK;
    if (!ed->fsal_valid) {
        rc = ode_rhs(ed, *t, ed->y, ed->dopri.k[0]);
        ed->fsal_valid = rc == NSCD_OK;
    }
    if (rc == NSCD_OK && !(ed->step > 0.0)) {
        rc = initial_step(ed, *t, t_end - *t, &ed->step);
    }
    if (rc == NSCD_OK) {
        rc = start_watches(ed, *t);
    }
    for (;;) {
        if (rc != NSCD_OK) {
            return rc;
        }
        double h = fmin(ed->step, t_end - *t), error = 0.0;
        if (o->max_step > 0.0) {
            h = fmin(h, o->max_step);
        }
        rc = nscd__dopri5_step(&ed->dopri, &ed->ode, *t, ed->y, h, o->relative_tolerance,
                               o->absolute_tolerance, &error);
        if (rc != NSCD_OK) {
            return rc;
        }
        /* A step whose error estimate or end state overflowed (inf or NaN)
         * tells nothing about the right size: reject it and shrink fastest. */
        int overflow = !isfinite(error) || !nscd__all_finite(ed->dopri.y1, (size_t)ed->n);
        double factor = overflow ? 0.2 : error > 0.0 ? 0.9 * pow(error, -0.2) : 5.0;
        if (overflow || !(error <= 1.0)) {
            ed->stats.steps_rejected++;
            ed->step = h * fmax(0.2, fmin(factor, 0.9));
            if (ed->step < o->min_step) {
                return nscd__fail(&ed->diag, NSCD_ERR_STEP_TOO_SMALL,
                                  "step %.3g below min_step at t = %.17g%s", ed->step, *t,
                                  overflow ? " (the state or its error overflows)" : "");
            }
            continue;
        }
        /* A step below the ulp of t leaves t unchanged: the state would move
         * while time stands still, so it is no progress but a failure. */
        if (h != t_end - *t && *t + h == *t) {
            return nscd__fail(&ed->diag, NSCD_ERR_STEP_TOO_SMALL,
                              "step %.3g does not advance t = %.17g", h, *t);
        }
        ed->stats.steps_accepted++;
        ed->step = h * fmin(5.0, fmax(0.2, factor));
        nscd__dopri5_prepare_dense(&ed->dopri, ed->y, h);
        double theta = 2.0;
        rc = nscd__locate_event(ed, *t, h, &theta);
        if (rc != NSCD_OK) {
            return rc;
        }
        if (theta <= 1.0) {
            return go_to_event(ed, t, h, theta);
        }
        *t = (h == t_end - *t) ? t_end : *t + h;
        memcpy(ed->y, ed->dopri.y1, (size_t)ed->n * sizeof(double));
        double *swap = ed->dopri.k[0]; /* first same as last */
        ed->dopri.k[0] = ed->dopri.k[6];
        ed->dopri.k[6] = swap;
        return ed->dynamics.n_closed > 0 ? nscd__project_closed(ed, *t, ed->y) : NSCD_OK;
    }
}

static nscd_status rk4_step(nscd_event_driven *ed, double *t, double t_end) {
    double h = fmin(ed->options.fixed_step, t_end - *t), theta = 2.0;
    if (h != t_end - *t && *t + h == *t) { /* below the ulp of t: no progress */
        return nscd__fail(&ed->diag, NSCD_ERR_STEP_TOO_SMALL,
                          "fixed step %.3g does not advance t = %.17g", h, *t);
    }
    nscd_status rc = start_watches(ed, *t);
    if (rc == NSCD_OK) {
        rc = nscd__rk4_step(&ed->rk4, &ed->ode, *t, ed->y, h, ed->y_end);
    }
    /* a fixed step too large for the dynamics diverges: finite stages may still
     * sum to inf or NaN, which must not become the state */
    if (rc == NSCD_OK && !nscd__all_finite(ed->y_end, (size_t)ed->n)) {
        rc = nscd__fail(&ed->diag, NSCD_ERR_NOT_FINITE,
                        "RK4 step of %g s from t = %.17g diverged (fixed_step too large?)", h, *t);
    }
    if (rc == NSCD_OK) {
        ed->stats.steps_accepted++;
        rc = nscd__locate_event(ed, *t, h, &theta);
    }
    if (rc != NSCD_OK) {
        return rc;
    }
    if (theta <= 1.0) {
        return go_to_event(ed, t, h, theta);
    }
    *t = (h == t_end - *t) ? t_end : *t + h;
    memcpy(ed->y, ed->y_end, (size_t)ed->n * sizeof(double));
    return ed->dynamics.n_closed > 0 ? nscd__project_closed(ed, *t, ed->y) : NSCD_OK;
}

/* ------------------------------------------------------------ advance */

static nscd_status integrate(nscd_event_driven *ed, double *t, double t_end) {
    int64_t budget = ed->options.max_steps;
    double instant = NAN;
    int64_t events_at_instant = 0;
    while (!ed->stop) {
        int64_t events = ed->stats.events;
        nscd_status rc = nscd__settle_contacts(ed, *t, ed->y);
        if (rc != NSCD_OK || ed->stop || *t >= t_end) {
            return rc;
        }
        if (--budget < 0) {
            return nscd__fail(&ed->diag, NSCD_ERR_MAX_STEPS, "%lld steps reached at t = %.17g",
                              (long long)ed->options.max_steps, *t);
        }
        rc = ed->options.method == NSCD_ED_RK4_LINEAR ? rk4_step(ed, t, t_end)
                                                      : dopri_step(ed, t, t_end);
        if (rc == NSCD_OK && (ed->diag.doomed || ed->model->diag->doomed)) {
            rc = nscd__fail(&ed->diag, NSCD_ERR_STALE_HANDLE,
                            "the %s was destroyed inside a callback; the advance stopped at "
                            "t = %.17g",
                            ed->diag.doomed ? "stepper" : "stepper's system", *t);
        }
        if (rc != NSCD_OK) {
            return rc;
        }
        events_at_instant = *t == instant ? events_at_instant + (ed->stats.events - events) : 0;
        instant = *t;
        if (events_at_instant > MAX_EVENTS_PER_INSTANT) {
            return nscd__fail(&ed->diag, NSCD_ERR_ZENO, "events accumulate at t = %.17g", *t);
        }
    }
    return NSCD_OK;
}

static nscd_status advance(nscd_event_driven *ed, double t_end, nscd_event_driven_stats *stats) {
    nscd__model *m = ed->model;
    if (stats != NULL && !nscd__struct_size_ok(stats->struct_size,
                                               NSCD__EVENT_DRIVEN_STATS_SIZE_0_1, sizeof *stats)) {
        return nscd__fail(&ed->diag, NSCD_ERR_STRUCT_SIZE, "stats struct_size %u",
                          (unsigned)stats->struct_size);
    }
    if (!isfinite(t_end)) {
        return nscd__fail(&ed->diag, NSCD_ERR_NOT_FINITE, "t_end is not finite");
    }
    double t = *m->t;
    if (t_end < t) {
        return nscd__fail(&ed->diag, NSCD_ERR_INVALID_ARGUMENT, "t_end %.17g before t %.17g", t_end,
                          t);
    }
    memset(&ed->stats, 0, sizeof ed->stats);
    ed->stats.struct_size = (uint32_t)sizeof ed->stats;
    ed->stop = 0;
    ed->fsal_valid = 0;
    memcpy(ed->y, m->q, (size_t)m->n_q * sizeof(double));
    memcpy(ed->y + m->n_q, m->v, (size_t)m->n_v * sizeof(double));
    nscd__dynamics_update_modes(&ed->dynamics);
    int64_t evaluations = ed->dynamics.evaluations;

    nscd__diag_clear(m->diag); /* integration acts on the system: so does its message */
    nscd_status rc = integrate(ed, &t, t_end);

    /* the state is consistent after every step and event: keep it */
    memcpy(m->q, ed->y, (size_t)m->n_q * sizeof(double));
    memcpy(m->v, ed->y + m->n_q, (size_t)m->n_v * sizeof(double));
    *m->t = t;
    ed->stats.t = t;
    ed->stats.stopped = ed->stop;
    ed->stats.rhs_evaluations = ed->dynamics.evaluations - evaluations;
    ed->stats.workspace_peak_bytes = (int64_t)(ed->arena.peak + ed->dynamics.arena.peak);
    if (stats != NULL) { /* only the fields the caller's release has */
        nscd__struct_write(stats, &ed->stats, sizeof ed->stats, NSCD__EVENT_DRIVEN_STATS_SIZE_0_1);
    }
    if (rc != NSCD_OK) { /* both handles tell what went wrong, wherever it was noticed */
        if (ed->diag.last_error[0] == '\0') {
            memcpy(ed->diag.last_error, m->diag->last_error, sizeof ed->diag.last_error);
        } else {
            memcpy(m->diag->last_error, ed->diag.last_error, sizeof ed->diag.last_error);
        }
    }
    return rc;
}

nscd_status nscd_event_driven_advance(nscd_event_driven *stepper, double t_end,
                                      nscd_event_driven_stats *stats) {
    if (stepper == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd_event_driven *ed = stepper;
    nscd__diag_clear(&ed->diag); /* the message describes this call */
    if (ed->link.model == NULL) {
        return nscd__fail(&ed->diag, NSCD_ERR_STALE_HANDLE, "the stepper's system was destroyed");
    }
    /* Re-entrancy (docs/hostile_input.md): as nscd_time_stepping_advance */
    nscd__model *m = ed->model;
    if (!nscd__diag_enter(&ed->diag, "nscd_event_driven_advance")) {
        return NSCD_ERR_STATE;
    }
    if (!nscd__diag_enter(m->diag, "nscd_event_driven_advance")) {
        memcpy(ed->diag.last_error, m->diag->last_error, sizeof ed->diag.last_error);
        nscd__diag_leave(&ed->diag);
        return NSCD_ERR_STATE;
    }
    nscd_status rc = advance(ed, t_end, stats);
    if (nscd__diag_leave(m->diag)) {
        m->destroy_owner(m->self); /* clears ed->link: later calls see a stale handle */
        rc = NSCD_ERR_STALE_HANDLE;
    }
    if (nscd__diag_leave(&ed->diag)) {
        free_stepper(ed);
        return NSCD_ERR_STALE_HANDLE;
    }
    return rc;
}

/* The forces getters' start: an empty message, a live system, and the
 * system's current state copied to ed->y_tmp (its dynamics' modes updated). */
static nscd_status force_query(nscd_event_driven *ed) {
    nscd__model *m = ed->model;
    ed->diag.last_error[0] = '\0';
    if (ed->link.model == NULL) {
        return nscd__fail(&ed->diag, NSCD_ERR_STALE_HANDLE, "the stepper's system was destroyed");
    }
    memcpy(ed->y_tmp, m->q, (size_t)m->n_q * sizeof(double));
    memcpy(ed->y_tmp + m->n_q, m->v, (size_t)m->n_v * sizeof(double));
    nscd__dynamics_update_modes(&ed->dynamics);
    return NSCD_OK;
}

/* A failure noticed by the system (its callbacks) is told by the stepper too. */
static nscd_status force_failed(nscd_event_driven *ed, nscd_status rc) {
    if (ed->diag.last_error[0] == '\0') {
        memcpy(ed->diag.last_error, ed->model->diag->last_error, sizeof ed->diag.last_error);
    }
    return rc;
}

nscd_status nscd_event_driven_get_contact_force(nscd_event_driven *stepper, int32_t index,
                                                double *normal, double *tangent) {
    if (stepper == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd_event_driven *ed = stepper;
    nscd__model *m = ed->model;
    nscd_status rc = force_query(ed);
    if (rc != NSCD_OK) {
        return rc;
    }
    /* the generic system's equalities follow its contacts: not contacts */
    if (index < 0 || index >= m->n_contacts || m->contacts[index].kind == NSCD__ENTRY_EQUALITY) {
        return nscd__fail(&ed->diag, NSCD_ERR_INDEX, "contact %d is not a contact", (int)index);
    }
    const nscd__contact_slot *slot = &m->contacts[index];
    double *y = ed->y_tmp, force = 0.0;
    if (slot->state.mode == NSCD_CONTACT_CLOSED) {
        rc = nscd__dynamics_rhs(&ed->dynamics, *m->t, y, ed->ydot);
        force = ed->dynamics.lambda[index];
    } else if (slot->state.mode == NSCD_CONTACT_COMPLIANT) {
        rc = nscd__dynamics_compliant_force(&ed->dynamics, index, *m->t, y, y + m->n_q, &force);
    }
    if (rc != NSCD_OK) {
        return force_failed(ed, rc);
    }
    if (normal != NULL) {
        *normal = force;
    }
    for (int32_t k = 0; tangent != NULL && k < slot->n_tangent; ++k) {
        int closed = slot->state.mode == NSCD_CONTACT_CLOSED;
        tangent[k] = closed ? ed->dynamics.lambda_t[2 * index + k] : 0.0;
    }
    return NSCD_OK;
}

/* The entry of equality `index` (the index-th equality entry), or -1. */
static int32_t equality_entry(const nscd__model *m, int32_t index) {
    for (int32_t i = 0, k = 0; i < m->n_contacts && index >= 0; ++i) {
        if (m->contacts[i].kind == NSCD__ENTRY_EQUALITY && k++ == index) {
            return i;
        }
    }
    return -1;
}

nscd_status nscd_event_driven_get_equality_force(nscd_event_driven *stepper, int32_t index,
                                                 double *lambda) {
    if (stepper == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd_event_driven *ed = stepper;
    nscd__model *m = ed->model;
    nscd_status rc = force_query(ed);
    if (rc != NSCD_OK) {
        return rc;
    }
    int32_t entry = equality_entry(m, index);
    if (entry < 0) {
        return nscd__fail(&ed->diag, NSCD_ERR_INDEX, "no equality constraint %d", (int)index);
    }
    rc = nscd__dynamics_rhs(&ed->dynamics, *m->t, ed->y_tmp, ed->ydot);
    if (rc != NSCD_OK) {
        return force_failed(ed, rc);
    }
    if (lambda != NULL) {
        *lambda = ed->dynamics.lambda[entry];
    }
    return NSCD_OK;
}
