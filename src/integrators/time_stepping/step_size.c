/* Variable step size for the time steppers (docs/variable_step.md; seed
 * 004, Sect. 2.1.4). The paper makes h a variable of its NLP (25) with
 * h_min <= h <= h_max and lets an SQP choose it; its objective is flat in h
 * in free flight and in persistent contact, so the SQP's choice there is
 * arbitrary. What matters is that a step does not jump over the instant a
 * gap closes. The deterministic rule here:
 *
 *   h = h_max, unless an open contact (g > 0, no normal impulse in the
 *   previous step) is predicted to close sooner: then h = the smallest
 *   time to contact s > 0 of g + s ġ + s² g̈ / 2 = 0, where ġ = W_N v_k
 *   and g̈ = W_N M^-1 h(t_k, q_k, v_k) is the free-flight gap acceleration
 *   (the curvature term dW_N/dt v is left out: it only moves the
 *   prediction, never the admissibility of the step). A contact predicted
 *   to close sooner than h_min does not limit h: it is closed within the
 *   resolution, and the step's local problem catches it (the semi-implicit
 *   gap bias brings it to g = 0 at the step's end, Moreau–Jean's active set
 *   stops it at once), moving it by at most its gap. Shortening to h_min
 *   instead would let a resting redundant set, whose unloaded members sit
 *   at g = +1e-17 by rounding, hold the step at h_min (seen: 20 of 70
 *   steps of a seated prism). So h >= h_min always. The step that would
 *   leave less than h_min before t_end is stretched to land on t_end (when
 *   that is at most h_max) or shortened to leave exactly h_min. */
#include <math.h>

#include "core/check.h"
#include "integrators/time_stepping/time_stepping_impl.h"

/* Smallest s > 0 with g + s rate + s^2 acc / 2 = 0 for g > 0, INFINITY
 * when the free-flight parabola never reaches 0. The roots of
 * (acc/2) s^2 + rate s + g in the cancellation-free form q / A, g / q. */
static double time_to_contact(double g, double rate, double acc) {
    if (acc == 0.0) {
        return rate < 0.0 ? -g / rate : INFINITY;
    }
    double disc = rate * rate - 2.0 * acc * g;
    if (disc < 0.0) {
        return INFINITY; /* acc > 0: the gap turns before it closes */
    }
    double q = -0.5 * (rate + copysign(sqrt(disc), rate));
    double roots[2] = {q / (0.5 * acc), q != 0.0 ? g / q : INFINITY};
    double s = INFINITY;
    for (int k = 0; k < 2; ++k) {
        s = roots[k] > 0.0 && roots[k] < s ? roots[k] : s;
    }
    return s;
}

/* The free-flight acceleration a = M^-1 h(t_k, q_k, v_k) into ts->v_mid. */
static nscd_status free_acceleration(nscd_time_stepping *ts) {
    nscd__model *m = ts->model;
    nscd_status rc = nscd__ts_forces_at(ts, *m->t, m->q);
    nscd__response response;
    double none = 0.0;
    if (rc == NSCD_OK) {
        rc = nscd__response_build(m, &ts->arena, m->q, ts->h, 0, NULL, &response);
    }
    if (rc == NSCD_OK) {
        nscd__response_acceleration(&response, &none, ts->v_mid);
    }
    return rc;
}

/* The earliest predicted contact among the open contacts, capped at
 * dt_max; *predicted counts those predicted within dt_max. */
static nscd_status earliest_contact(nscd_time_stepping *ts, double *h, int32_t *predicted) {
    nscd__model *m = ts->model;
    nscd__ts_local scratch = {0};
    nscd__rows *rows = NULL;
    double *gaps = NULL;
    nscd_status rc = nscd__ts_gather(ts, *m->t, m->q, &rows, &gaps, &scratch);
    if (rc == NSCD_OK) {
        rc = free_acceleration(ts);
    }
    *h = ts->options.dt_max;
    *predicted = 0;
    for (int32_t e = 0; rc == NSCD_OK && e < m->n_contacts; ++e) {
        if (m->contacts[e].kind != NSCD__ENTRY_UNILATERAL || !(gaps[e] > 0.0) || ts->loaded[e]) {
            continue; /* equalities, closed and loaded contacts do not limit h */
        }
        double s = time_to_contact(gaps[e], nscd__rows_dot(&rows[e], 0, m->v),
                                   nscd__rows_dot(&rows[e], 0, ts->v_mid));
        *predicted += s < ts->options.dt_max;
        if (s >= ts->options.dt_min) { /* sooner: closed within the resolution (see above) */
            *h = fmin(*h, s);
        }
    }
    return rc;
}

/* The last steps before t_end: land on it, and leave no step below dt_min
 * when that is possible. */
static double land_on_end(const nscd_time_stepping_options *o, double remaining, double h,
                          int32_t *rule) {
    if (remaining <= h || (remaining - h < o->dt_min && remaining <= o->dt_max)) {
        *rule = NSCD_TS_STEP_END;
        return remaining;
    }
    if (remaining - h < o->dt_min) { /* shorten: the next step is dt_min */
        *rule = NSCD_TS_STEP_END;
        return fmax(remaining - o->dt_min, o->dt_min);
    }
    return h;
}

nscd_status nscd__ts_choose_step(nscd_time_stepping *ts, double t_end, double *t_next,
                                 int32_t *rule, int32_t *predicted) {
    const nscd_time_stepping_options *o = &ts->options;
    double t = *ts->model->t, h = o->dt_max;
    nscd__arena_reset(&ts->arena);
    nscd_status rc = earliest_contact(ts, &h, predicted);
    if (rc != NSCD_OK) {
        return rc;
    }
    *rule = h < o->dt_max ? NSCD_TS_STEP_CONTACT : NSCD_TS_STEP_MAX;
    h = land_on_end(o, t_end - t, h, rule);
    *t_next = *rule == NSCD_TS_STEP_END && h == t_end - t ? t_end : t + h;
    return NSCD_OK;
}
