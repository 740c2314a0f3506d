/* Event location: watch functions sampled on the step's interpolant, then
 * bracketed roots refined by the Illinois variant of regula falsi.
 *
 * A watch is a scalar whose crossing is an event: the gap of an open contact
 * (falling to zero: impact or compliant onset), the normal force of a closed
 * or compliant contact (falling to zero: release or separation; a closed
 * contact with friction also fires when it starts or stops sliding), or a user
 * event function (any sign change). A watch only fires after it was armed,
 * i.e. after it was seen strictly on its safe side; this is what keeps a
 * contact that has just bounced (g = 0, dg/dt > 0) from firing again. */
#include <math.h>
#include <string.h>

#include "core/bracket.h"
#include "core/check.h"
#include "integrators/event_driven/event_driven_impl.h"

#define NO_CROSSING 2.0
#define MAX_ROOT_ITERATIONS 200

static int is_contact_watch(const nscd_event_driven *ed, int32_t w) {
    return w < ed->model->n_contacts;
}

/* Value of contact i's watch; for an open contact also its rate dg/dt
 * (ed->watch_rate[i]; NaN for the others). */
static nscd_status contact_watch(nscd_event_driven *ed, int32_t i, double t, const double *y,
                                 double *value) {
    nscd__model *m = ed->model;
    const double *q = y, *v = y + m->n_q;
    ed->watch_rate[i] = NAN;
    switch (m->contacts[i].state.mode) {
    case NSCD_CONTACT_CLOSED: return nscd__dynamics_closed_watch(&ed->dynamics, i, t, q, v, value);
    case NSCD_CONTACT_COMPLIANT:
        return nscd__dynamics_compliant_force(&ed->dynamics, i, t, q, v, value);
    default: {
        nscd_status rc = nscd__dynamics_onset_gap(&ed->dynamics, i, t, q, value);
        ed->watch_rate[i] = nscd__rows_dot(&ed->dynamics.entry, 0, v);
        return rc;
    }
    }
}

nscd_status nscd__watch_values(nscd_event_driven *ed, double t, const double *y, double *values) {
    nscd__model *m = ed->model;
    if (ed->dynamics.n_closed > 0) { /* the forces of closed contacts come with the accelerations */
        nscd_status rc = nscd__dynamics_rhs(&ed->dynamics, t, y, ed->ydot);
        if (rc != NSCD_OK) {
            return rc;
        }
    }
    for (int32_t i = 0; i < m->n_contacts; ++i) {
        nscd_status rc = contact_watch(ed, i, t, y, &values[i]);
        if (rc != NSCD_OK) {
            return rc;
        }
    }
    int32_t n_user = ed->options.n_user_events;
    if (n_user > 0) {
        nscd_status rc = ed->options.user_events(ed->options.user_events_user, t, y, y + m->n_q,
                                                 ed->user_values);
        if (rc != NSCD_OK) {
            return nscd__fail(&ed->diag, NSCD_ERR_CALLBACK, "user event callback returned %d",
                              (int)rc);
        }
        /* as for every other callback: a NaN would never compare as crossed,
         * so the event would silently be lost */
        if (!nscd__all_finite(ed->user_values, (size_t)n_user)) {
            return nscd__fail(&ed->diag, NSCD_ERR_NOT_FINITE,
                              "user event callback gave non-finite values at t = %.17g", t);
        }
        memcpy(values + m->n_contacts, ed->user_values, (size_t)n_user * sizeof(double));
    }
    return NSCD_OK;
}

/* A contact watch is armed by a value seen > 0 and then fires at <= 0. An
 * open contact that starts a step touching (-tolerance < g <= 0 with the
 * persistent gap tolerance, or 0 < g <= tolerance at rest: beside a
 * neighbour, or just bounced off)
 * is armed at once with the threshold -tolerance, so that a touching contact
 * that starts to penetrate is never missed; a value seen > 0 later, while
 * the gap moves faster than zeno_velocity (a flight, not the rounding noise
 * of touching neighbours, which read +-1e-17 at rest), moves its threshold
 * back to 0. */
static int touching_open_contact(const nscd_event_driven *ed, int32_t w) {
    const nscd__contact_slot *slot = &ed->model->contacts[w];
    return slot->state.mode == NSCD_CONTACT_OPEN && !nscd__slot_compliant(slot);
}

/* Sign a watch must have been seen with before it can fire (0: none yet);
 * sets the watch's threshold. */
static int32_t arm(nscd_event_driven *ed, int32_t w, double value) {
    ed->threshold[w] = 0.0;
    if (!is_contact_watch(ed, w)) {
        return value > 0.0 ? 1 : (value < 0.0 ? -1 : 0);
    }
    const double tolerance = ed->options.persistent_gap_tolerance;
    int resting = fabs(ed->watch_rate[w]) <= ed->options.zeno_velocity;
    if (value > 0.0 && !(touching_open_contact(ed, w) && resting && value <= tolerance)) {
        return 1;
    }
    if (touching_open_contact(ed, w) && value > -tolerance) {
        ed->threshold[w] = -tolerance;
        return 1;
    }
    return 0;
}

/* The watch value shifted so that its crossing is a change of sign. */
static double watch_level(const nscd_event_driven *ed, int32_t w, double value) {
    return value - ed->threshold[w];
}

static int watch_crossed(const nscd_event_driven *ed, int32_t w, double value) {
    int32_t sign = ed->armed[w];
    if (sign == 0) {
        return 0;
    }
    double level = watch_level(ed, w, value);
    if (!is_contact_watch(ed, w)) {
        return level * (double)sign <= 0.0;
    }
    /* a gap that grows is not landing: below the rounding of the
     * interpolant (the first samples of a step) it may still read <= 0 */
    return level <= 0.0 && !(ed->watch_rate[w] > 0.0);
}

void nscd__watch_arm(nscd_event_driven *ed) {
    for (int32_t w = 0; w < ed->n_watches; ++w) {
        ed->armed[w] = arm(ed, w, ed->watch_start[w]);
        ed->rate_left[w] = is_contact_watch(ed, w) ? ed->watch_rate[w] : NAN;
        ed->dip_right[w] = NO_CROSSING;
        ed->watch_left[w] = ed->watch_start[w];
        ed->left[w] = 0.0;
        ed->right[w] = NO_CROSSING;
    }
}

void nscd__interpolate(nscd_event_driven *ed, double theta, double *out) {
    if (ed->options.method == NSCD_ED_RK4_LINEAR) { /* seed 000, eq. 11 */
        for (int32_t i = 0; i < ed->n; ++i) {
            out[i] = ed->y[i] + theta * (ed->y_end[i] - ed->y[i]);
        }
    } else {
        nscd__dopri5_dense(&ed->dopri, theta, out);
    }
}

/* Watch values at t + theta h on the interpolant (into watch_tmp). */
static nscd_status sample(nscd_event_driven *ed, double t, double h, double theta) {
    nscd__interpolate(ed, theta, ed->y_tmp);
    return nscd__watch_values(ed, t + theta * h, ed->y_tmp, ed->watch_tmp);
}

/* A gap that falls at the left end of its bracket and rises at a sample
 * may have dipped below its threshold in between and come back (a rocking
 * body's corner grazing the floor): a dip to look at. Found only by the
 * crossing test, such an impact would be missed and the corner would sink. */
static int dips(const nscd_event_driven *ed, int32_t w) {
    /* slower than zeno_velocity it is at rest, a matter of contact modes */
    return is_contact_watch(ed, w) && ed->armed[w] != 0 &&
           ed->rate_left[w] < -ed->options.zeno_velocity && ed->watch_rate[w] > 0.0;
}

/* Updates the brackets with a sample at theta; returns 1 if a watch crossed. */
static int update_brackets(nscd_event_driven *ed, double theta) {
    int crossed = 0;
    for (int32_t w = 0; w < ed->n_watches; ++w) {
        double value = ed->watch_tmp[w];
        if (ed->right[w] != NO_CROSSING) {
            continue;
        }
        if (watch_crossed(ed, w, value)) {
            ed->right[w] = theta;
            crossed = 1;
        } else if (dips(ed, w)) {
            ed->dip_right[w] = theta; /* looked at by find_dip(); left stays */
            ed->dip_value[w] = value;
        } else {
            if (ed->armed[w] == 0 || (ed->threshold[w] < 0.0 && value > 0.0 &&
                                      fabs(ed->watch_rate[w]) > ed->options.zeno_velocity)) {
                ed->armed[w] = arm(ed, w, value); /* or the threshold back to 0 */
            }
            ed->left[w] = theta;
            ed->watch_left[w] = value;
            ed->rate_left[w] = is_contact_watch(ed, w) ? ed->watch_rate[w] : NAN;
        }
    }
    return crossed;
}

/* The bottom of a dip of watch w between left[w] (falling) and dip_right[w]
 * (rising), where its rate vanishes, found by the Illinois iteration on the
 * rate; if the gap there is past its threshold the dip is a crossing with
 * the bracket [left, bottom]; otherwise dip_right becomes the left end. */
static nscd_status find_dip(nscd_event_driven *ed, int32_t w, double t, double h, int *crossed) {
    double a = ed->left[w], b = ed->dip_right[w];
    nscd__bracket br = nscd__bracket_make(a, ed->rate_left[w], b, ed->watch_rate[w]);
    const double width = ed->options.event_time_tolerance / h;
    double bottom = b, value = ed->dip_value[w], rate = NAN;
    for (int it = 0; it < MAX_ROOT_ITERATIONS && br.b - br.a > width; ++it) {
        double m = it % 4 == 3 ? 0.5 * (br.a + br.b) : nscd__bracket_trial(&br);
        nscd_status rc = sample(ed, t, h, m);
        if (rc != NSCD_OK) {
            return rc;
        }
        value = ed->watch_tmp[w];
        rate = ed->watch_rate[w];
        if (watch_crossed(ed, w, value)) {
            bottom = m;
            break;
        }
        nscd__bracket_update(&br, m, rate, rate < 0.0);
        bottom = m;
    }
    *crossed = watch_crossed(ed, w, value);
    if (*crossed) {
        ed->right[w] = bottom;
    } else {
        ed->left[w] = ed->dip_right[w];
        ed->watch_left[w] = ed->dip_value[w];
        ed->rate_left[w] = 1.0; /* rising */
    }
    ed->dip_right[w] = NO_CROSSING;
    return NSCD_OK;
}

/* Looks into the dips the last sample revealed; 1 in *crossed if one was a
 * crossing. */
static nscd_status find_dips(nscd_event_driven *ed, double t, double h, int *crossed) {
    for (int32_t w = 0; w < ed->n_watches; ++w) {
        if (ed->dip_right[w] != NO_CROSSING) {
            int dip_crossed = 0;
            nscd_status rc = find_dip(ed, w, t, h, &dip_crossed);
            if (rc != NSCD_OK) {
                return rc;
            }
            *crossed |= dip_crossed;
        }
    }
    return NSCD_OK;
}

/* Sample positions in (0, 1]: quarters, preceded by a geometric sequence
 * towards 0 while some watch is not armed (a contact that has just been
 * released may cross again very soon, e.g. the last bounces before rest). */
static int32_t sample_points(const nscd_event_driven *ed, double *theta) {
    int32_t count = 0;
    if (ed->options.method == NSCD_ED_RK4_LINEAR) {
        theta[count++] = 1.0; /* seed 000, eq. 9: the sign test at the step ends */
        return count;
    }
    int unarmed = 0; /* or armed only at a threshold below 0 */
    for (int32_t w = 0; w < ed->n_watches; ++w) {
        unarmed |= ed->armed[w] == 0 || ed->threshold[w] < 0.0;
    }
    if (unarmed) {
        for (int k = 40; k >= 3; --k) {
            theta[count++] = ldexp(1.0, -k);
        }
    }
    for (int k = 1; k <= 4; ++k) {
        theta[count++] = 0.25 * k;
    }
    return count;
}

/* Illinois iteration on one watch's bracket until it is narrower than the
 * event time tolerance; leaves the right end (first point past the event). */
static nscd_status refine_root(nscd_event_driven *ed, int32_t w, double t, double h) {
    nscd_status rc = sample(ed, t, h, ed->right[w]);
    if (rc != NSCD_OK) {
        return rc;
    }
    nscd__bracket br = nscd__bracket_make(ed->left[w], watch_level(ed, w, ed->watch_left[w]),
                                          ed->right[w], watch_level(ed, w, ed->watch_tmp[w]));
    const double width = ed->options.event_time_tolerance / h;
    for (int it = 0; it < MAX_ROOT_ITERATIONS && br.b - br.a > width; ++it) {
        /* a bisection every fourth trial bounds the work on awkward watches */
        double m = it % 4 == 3 ? 0.5 * (br.a + br.b) : nscd__bracket_trial(&br);
        rc = sample(ed, t, h, m);
        if (rc != NSCD_OK) {
            return rc;
        }
        double fm = ed->watch_tmp[w];
        nscd__bracket_update(&br, m, watch_level(ed, w, fm), !watch_crossed(ed, w, fm));
    }
    ed->right[w] = br.b;
    return NSCD_OK;
}

/* Seed 000, eq. 10: the root of the straight line through the end values. */
static void secant_root(nscd_event_driven *ed, int32_t w) {
    double f0 = watch_level(ed, w, ed->watch_left[w]), f1 = watch_level(ed, w, ed->watch_tmp[w]);
    ed->right[w] = f0 != f1 ? f0 / (f0 - f1) : 1.0;
}

/* Whether the gap of open contact watch w may have crossed its threshold
 * between the last accepted sample (left[w]) and the sample in watch_tmp at
 * theta, though neither a crossing nor a dip shows: the end at theta reads
 * below the threshold but rising (by more than the gap tolerance), or both
 * read above it and the ends' tangents point below the threshold within the
 * interval, or the cubic Hermite interpolant of the two values and rates
 * dips below it. A gap that oscillates faster than the
 * samples (a corner of a body spinning at hundreds of rad/s, whose flight at
 * constant angular velocity the integrator takes in long exact steps)
 * aliases otherwise: both samples read clear and the corner's pass through
 * the floor between them is missed. A gap in free fall (g'' <= 0) never
 * asks: a concave gap lies below its tangents and above no cubic dip that
 * its end values do not show. */
static int unresolved(const nscd_event_driven *ed, int32_t w, double theta, double h) {
    if (!is_contact_watch(ed, w) || ed->armed[w] != 1 || ed->right[w] != NO_CROSSING ||
        ed->dip_right[w] != NO_CROSSING) {
        return 0;
    }
    double ra = ed->rate_left[w], rb = ed->watch_rate[w];
    double la = watch_level(ed, w, ed->watch_left[w]), lb = watch_level(ed, w, ed->watch_tmp[w]);
    if (!isfinite(ra) || !isfinite(rb) || !(la > 0.0)) {
        return 0;
    }
    if (!(lb > 0.0)) { /* below, and rising: it went down in between, and */
        return !watch_crossed(ed, w, ed->watch_tmp[w]) && !dips(ed, w) &&
               lb < -ed->options.persistent_gap_tolerance; /* not by round-off */
    }
    if (fmax(fabs(ra), fabs(rb)) <= ed->options.zeno_velocity) {
        return 0; /* at rest: a matter of contact modes, as for dips() */
    }
    /* below the gap tolerance, not by the rounding of touching neighbours */
    const double depth = -ed->options.persistent_gap_tolerance;
    const double dt = (theta - ed->left[w]) * h;
    if (la + fmin(ra, 0.0) * dt < depth || lb - fmax(rb, 0.0) * dt < depth) {
        return 1;
    }
    for (int k = 1; k < 16; ++k) { /* the Hermite cubic at 15 interior points */
        double x = k / 16.0, x2 = x * x, x3 = x2 * x;
        double value = (2.0 * x3 - 3.0 * x2 + 1.0) * la + (x3 - 2.0 * x2 + x) * dt * ra +
                       (3.0 * x2 - 2.0 * x3) * lb + (x3 - x2) * dt * rb;
        if (value < depth) {
            return 1;
        }
    }
    return 0;
}

/* Samples between the last accepted one and theta that the watches ask
 * for, at most this many per step (then the fixed samples go on). */
#define MAX_REFINED_SAMPLES 1024

nscd_status nscd__locate_event(nscd_event_driven *ed, double t, double h, double *theta) {
    double points[64];
    int32_t count = sample_points(ed, points);
    *theta = NO_CROSSING;
    /* the samples still to take, the nearest last: the fixed points and,
     * pushed above them, the midpoints of intervals a watch did not resolve */
    double pending[64 + 64];
    int32_t n_pending = 0;
    for (int32_t j = count - 1; j >= 0; --j) {
        pending[n_pending++] = points[j];
    }
    const double width = ed->options.event_time_tolerance / h;
    double last = 0.0; /* the last accepted sample */
    int32_t refined = 0;
    while (n_pending > 0) {
        double point = pending[--n_pending];
        nscd_status rc = sample(ed, t, h, point);
        if (rc != NSCD_OK) {
            return rc;
        }
        if (ed->options.method != NSCD_ED_RK4_LINEAR && refined < MAX_REFINED_SAMPLES &&
            point - last > width && n_pending < (int32_t)(sizeof pending / sizeof pending[0]) - 1) {
            int ask = 0;
            for (int32_t w = 0; w < ed->n_watches && !ask; ++w) {
                ask = unresolved(ed, w, point, h);
            }
            if (ask) { /* take the midpoint first, this point again after it */
                pending[n_pending++] = point;
                pending[n_pending++] = 0.5 * (last + point);
                ++refined;
                continue;
            }
        }
        last = point;
        int crossed = update_brackets(ed, point);
        rc = find_dips(ed, t, h, &crossed);
        if (rc != NSCD_OK) {
            return rc;
        }
        if (crossed) {
            break;
        }
    }
    for (int32_t w = 0; w < ed->n_watches; ++w) {
        if (ed->right[w] == NO_CROSSING) {
            continue;
        }
        if (ed->options.method == NSCD_ED_RK4_LINEAR) {
            secant_root(ed, w);
        } else {
            nscd_status rc = refine_root(ed, w, t, h);
            if (rc != NSCD_OK) {
                return rc;
            }
        }
        *theta = fmin(*theta, ed->right[w]);
    }
    /* every watch whose root lies within the time tolerance of the first fires */
    for (int32_t w = 0; w < ed->n_watches; ++w) {
        ed->firing[w] = ed->right[w] != NO_CROSSING &&
                        (ed->right[w] - *theta) * h <= ed->options.event_time_tolerance;
    }
    return NSCD_OK;
}
