/* The event-driven stepper against analytic solutions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <string.h>

#include "models.h"

#define G 9.81
#define PI 3.14159265358979323846

static nscd_event_driven *stepper(nscd_system *sys, event_log *log, int32_t policy) {
    nscd_event_driven_options opt;
    nscd_event_driven_options_init(&opt, sizeof opt);
    opt.on_event = log_event;
    opt.on_event_user = log;
    opt.zeno_policy = policy;
    nscd_event_driven *ed = NULL;
    assert_int_equal(nscd_event_driven_create(sys, &opt, &ed), NSCD_OK);
    return ed;
}

static void bouncing_ball_matches_analytic(void **state) {
    (void)state;
    const double h0 = 1.0, e = 0.8;
    ball_model b = {1.0, G, 0.0, 0.0, 1};
    nscd_system *sys = NULL;
    assert_int_equal(make_ball(&b, h0, e, &sys), NSCD_OK);
    static event_log log;
    memset(&log, 0, sizeof log);
    nscd_event_driven *ed = stepper(sys, &log, NSCD_ZENO_PERSISTENT_CONTACT);
    nscd_event_driven_stats stats = {.struct_size = sizeof stats};
    assert_int_equal(nscd_event_driven_advance(ed, 6.0, &stats), NSCD_OK);

    double t1 = sqrt(2.0 * h0 / G), v1 = G * t1, t_exact = t1, speed = v1, rest = NAN;
    int impacts = 0;
    for (int k = 0; k < log.count; ++k) {
        if (log.type[k] == NSCD_EVENT_CONTACT_CLOSED) {
            rest = log.t[k];
            continue;
        }
        assert_int_equal(log.type[k], NSCD_EVENT_IMPACT);
        assert_true(fabs(log.t[k] - t_exact) < 1e-8);
        assert_true(fabs(log.after[k] + e * log.before[k]) <= 1e-12 * fabs(log.before[k]));
        if (impacts < 20) { /* velocities are exact while they dwarf the event tolerance */
            assert_true(fabs(-log.before[k] - speed) < 1e-9 * v1);
        }
        t_exact += 2.0 * e * speed / G;
        speed *= e;
        impacts++;
    }
    assert_true(impacts > 50);
    assert_true(fabs(rest - (t1 + 2.0 * v1 * e / (G * (1.0 - e)))) < 1e-6);
    assert_int_equal(stats.impacts, impacts);
    double t, q, v;
    int32_t mode;
    nscd_system_get_state(sys, &t, &q, &v);
    assert_true(t == 6.0 && fabs(q) < 1e-9 && fabs(v) < 1e-9);
    assert_int_equal(nscd_system_get_contact(sys, 0, NULL, NULL, &mode), NSCD_OK);
    assert_int_equal(mode, NSCD_CONTACT_CLOSED);
    nscd_event_driven_destroy(ed);
    nscd_system_destroy(sys);
}

static void zeno_stop_policy_stops_cleanly(void **state) {
    (void)state;
    ball_model b = {1.0, G, 0.0, 0.0, 1};
    nscd_system *sys = NULL;
    assert_int_equal(make_ball(&b, 1.0, 0.8, &sys), NSCD_OK);
    static event_log log;
    memset(&log, 0, sizeof log);
    nscd_event_driven *ed = stepper(sys, &log, NSCD_ZENO_STOP);
    assert_int_equal(nscd_event_driven_advance(ed, 10.0, NULL), NSCD_ERR_ZENO);
    assert_int_equal(log.type[log.count - 1], NSCD_EVENT_ZENO_STOP);
    double t, t1 = sqrt(2.0 / G), v1 = G * t1;
    nscd_system_get_state(sys, &t, NULL, NULL);
    assert_true(fabs(t - (t1 + 2.0 * v1 * 0.8 / (G * 0.2))) < 1e-6);
    assert_true(strstr(nscd_event_driven_last_error(ed), "accumulate") != NULL);
    assert_true(strstr(nscd_system_last_error(sys), "accumulate") != NULL);
    nscd_event_driven_destroy(ed);
    nscd_system_destroy(sys);
}

/* Rigid bar (height y, angle th) with both ends as contacts. */
typedef struct bar {
    double m, inertia, half;
} bar;

static nscd_status bar_mass(void *user, const double *q, double *M) {
    (void)q;
    const bar *b = user;
    M[0] = b->m, M[1] = 0.0, M[2] = 0.0, M[3] = b->inertia;
    return NSCD_OK;
}

static nscd_status bar_forces(void *user, double t, const double *q, const double *v, double *h) {
    (void)t, (void)q, (void)v;
    h[0] = -((const bar *)user)->m * G;
    h[1] = 0.0;
    return NSCD_OK;
}

static nscd_status bar_ends(void *user, int32_t i, double t, const double *q, double *gap,
                            double *w, double *wt) {
    (void)t, (void)wt;
    double s = i == 0 ? -1.0 : 1.0, a = ((const bar *)user)->half;
    *gap = q[0] + s * a * sin(q[1]);
    w[0] = 1.0;
    w[1] = s * a * cos(q[1]);
    return NSCD_OK;
}

static nscd_system *make_bar(bar *b, double e, double angle) {
    nscd_system_desc d;
    nscd_system_desc_init(&d, sizeof d);
    d.n_dof = 2, d.n_contacts = 2, d.user = b;
    d.mass = bar_mass, d.forces = bar_forces, d.contact = bar_ends;
    nscd_system *sys = NULL;
    assert_int_equal(nscd_system_create(&d, &sys), NSCD_OK);
    nscd_contact_law *law = NULL;
    assert_int_equal(nscd_contact_law_create_newton(e, NULL, &law), NSCD_OK);
    nscd_contact_desc c;
    nscd_contact_desc_init(&c, sizeof c);
    c.law = law;
    assert_int_equal(nscd_system_set_contact(sys, 0, &c), NSCD_OK);
    assert_int_equal(nscd_system_set_contact(sys, 1, &c), NSCD_OK);
    nscd_contact_law_destroy(law);
    double q[2] = {0.5 + b->half * fabs(sin(angle)), angle}, v[2] = {0.0, 0.0};
    assert_int_equal(nscd_system_set_state(sys, 0.0, q, v), NSCD_OK);
    return sys;
}

static void simultaneous_impacts_form_one_lcp(void **state) {
    (void)state;
    bar b = {2.0, 0.1, 0.5};
    const double e = 0.6;
    nscd_system *sys = make_bar(&b, e, 0.0);
    static event_log log;
    memset(&log, 0, sizeof log);
    nscd_event_driven *ed = stepper(sys, &log, NSCD_ZENO_PERSISTENT_CONTACT);
    log.stop_at = 1;
    assert_int_equal(nscd_event_driven_advance(ed, 1.0, NULL), NSCD_OK);
    assert_int_equal(log.type[0], NSCD_EVENT_IMPACT);
    assert_int_equal(log.contacts[0], 2); /* both ends in one impact */
    double t, q[2], v[2], t1 = sqrt(2.0 * 0.5 / G);
    nscd_system_get_state(sys, &t, q, v);
    assert_true(fabs(t - t1) < 1e-10);
    assert_true(fabs(v[0] - e * G * t1) < 1e-9); /* bounces straight up */
    assert_true(fabs(v[1]) < 1e-12);             /* without spinning */
    assert_true(fabs(log.impulse[0] - b.m * (1.0 + e) * G * t1 / 2.0) < 1e-9);
    nscd_event_driven_destroy(ed);
    nscd_system_destroy(sys);
}

static void tilted_bar_hits_one_end(void **state) {
    (void)state;
    bar b = {2.0, 0.1, 0.5};
    nscd_system *sys = make_bar(&b, 0.5, 0.2);
    static event_log log;
    memset(&log, 0, sizeof log);
    log.stop_at = 1;
    nscd_event_driven *ed = stepper(sys, &log, NSCD_ZENO_PERSISTENT_CONTACT);
    assert_int_equal(nscd_event_driven_advance(ed, 1.0, NULL), NSCD_OK);
    assert_int_equal(log.contacts[0], 1);
    assert_true(fabs(log.t[0] - sqrt(2.0 * 0.5 / G)) < 1e-10);
    assert_true(fabs(log.after[0] + 0.5 * log.before[0]) < 1e-12);
    nscd_event_driven_destroy(ed);
    nscd_system_destroy(sys);
}

static void persistent_contact_releases_when_force_vanishes(void **state) {
    (void)state;
    ball_model b = {1.0, G, 2.0 * G, 0.0, 1}; /* pull 2 m g t: force vanishes at t = 0.5 */
    nscd_system *sys = NULL;
    assert_int_equal(make_ball(&b, 0.0, 0.5, &sys), NSCD_OK);
    static event_log log;
    memset(&log, 0, sizeof log);
    nscd_event_driven *ed = stepper(sys, &log, NSCD_ZENO_PERSISTENT_CONTACT);
    assert_int_equal(nscd_event_driven_advance(ed, 1.0, NULL), NSCD_OK);
    int opened = -1;
    for (int k = 0; k < log.count; ++k) {
        opened = log.type[k] == NSCD_EVENT_CONTACT_OPENED ? k : opened;
    }
    assert_true(opened >= 0);
    assert_true(fabs(log.t[opened] - 0.5) < 1e-10);
    double q, v;
    nscd_system_get_state(sys, NULL, &q, &v);
    assert_true(fabs(q - G / 24.0) < 1e-9); /* y = g (t - 1/2)^3 / 3 */
    assert_true(fabs(v - G / 4.0) < 1e-9);  /* dy/dt = g (t - 1/2)^2 */
    nscd_event_driven_destroy(ed);
    nscd_system_destroy(sys);
}

/* Harmonic oscillator without contacts: smooth accuracy of DOPRI5. */
static nscd_status unit_mass(void *u, const double *q, double *m) {
    (void)u, (void)q;
    m[0] = 1.0;
    return NSCD_OK;
}
static nscd_status spring(void *u, double t, const double *q, const double *v, double *h) {
    (void)u, (void)t, (void)v;
    h[0] = -4.0 * q[0];
    return NSCD_OK;
}
static nscd_status height_event(void *u, double t, const double *q, const double *v, double *val) {
    (void)u, (void)t, (void)v;
    val[0] = q[0] - 0.5;
    return NSCD_OK;
}

static void oscillator_and_user_events(void **state) {
    (void)state;
    nscd_system_desc d;
    nscd_system_desc_init(&d, sizeof d);
    d.n_dof = 1, d.mass = unit_mass, d.forces = spring;
    nscd_system *sys = NULL;
    assert_int_equal(nscd_system_create(&d, &sys), NSCD_OK);
    double q0 = 1.0, v0 = 0.0;
    assert_int_equal(nscd_system_set_state(sys, 0.0, &q0, &v0), NSCD_OK);
    static event_log log;
    memset(&log, 0, sizeof log);
    nscd_event_driven_options opt;
    nscd_event_driven_options_init(&opt, sizeof opt);
    opt.n_user_events = 1, opt.user_events = height_event;
    opt.on_event = log_event, opt.on_event_user = &log;
    nscd_event_driven *ed = NULL;
    assert_int_equal(nscd_event_driven_create(sys, &opt, &ed), NSCD_OK);
    assert_int_equal(nscd_event_driven_advance(ed, 10.0, NULL), NSCD_OK);
    double q, v;
    nscd_system_get_state(sys, NULL, &q, &v);
    assert_true(fabs(q - cos(20.0)) < 1e-8 && fabs(v + 2.0 * sin(20.0)) < 2e-8);
    /* cos(2 t) = 1/2 at t = pi/6 + k pi and 5 pi/6 + k pi: 7 crossings before 10 s */
    assert_int_equal(log.count, 7);
    for (int k = 0; k < log.count; ++k) {
        double expected = (k % 2 == 0 ? PI / 6.0 : 5.0 * PI / 6.0) + (k / 2) * PI;
        assert_int_equal(log.type[k], NSCD_EVENT_USER);
        assert_true(fabs(log.t[k] - expected) < 1e-10);
    }
    nscd_event_driven_destroy(ed);
    nscd_system_destroy(sys);
}

static void handler_can_stop_or_fail(void **state) {
    (void)state;
    ball_model b = {1.0, G, 0.0, 0.0, 1};
    nscd_system *sys = NULL;
    assert_int_equal(make_ball(&b, 1.0, 0.8, &sys), NSCD_OK);
    static event_log log;
    memset(&log, 0, sizeof log);
    log.stop_at = 3;
    nscd_event_driven *ed = stepper(sys, &log, NSCD_ZENO_PERSISTENT_CONTACT);
    nscd_event_driven_stats stats = {.struct_size = sizeof stats};
    assert_int_equal(nscd_event_driven_advance(ed, 10.0, &stats), NSCD_OK);
    assert_int_equal(stats.stopped, 1);
    assert_true(stats.t == log.t[2] && stats.impacts == 3);
    assert_int_equal(stats.struct_size, sizeof stats); /* reusable for the next call */
    assert_int_equal(nscd_event_driven_advance(ed, log.t[2], &stats), NSCD_OK);
    log.fail_at = 4;
    assert_int_equal(nscd_event_driven_advance(ed, 10.0, NULL), NSCD_ERR_CALLBACK);
    assert_true(strstr(nscd_event_driven_last_error(ed), "handler") != NULL);
    nscd_event_driven_destroy(ed);
    nscd_system_destroy(sys);
}

static void failing_callback_keeps_consistent_state(void **state) {
    (void)state;
    ball_model b = {1.0, G, 0.0, 0.3, 1};
    nscd_system *sys = NULL;
    assert_int_equal(make_ball(&b, 1.0, 0.8, &sys), NSCD_OK);
    nscd_event_driven *ed = NULL;
    assert_int_equal(nscd_event_driven_create(sys, NULL, &ed), NSCD_OK);
    assert_int_equal(nscd_event_driven_advance(ed, 1.0, NULL), NSCD_ERR_CALLBACK);
    double t, q, v;
    nscd_system_get_state(sys, &t, &q, &v);
    assert_true(t > 0.0 && t <= 0.3);
    assert_true(fabs(q - (1.0 - 0.5 * G * t * t)) < 1e-12 && fabs(v + G * t) < 1e-12);
    assert_true(strstr(nscd_system_last_error(sys), "forces callback returned 42") != NULL);
    nscd_event_driven_destroy(ed);
    nscd_system_destroy(sys);
}

static void invalid_options_and_arguments(void **state) {
    (void)state;
    ball_model b = {1.0, G, 0.0, 0.0, 1};
    nscd_system *sys = NULL;
    assert_int_equal(make_ball(&b, 1.0, 0.8, &sys), NSCD_OK);
    nscd_event_driven_options opt;
    nscd_event_driven *ed = (nscd_event_driven *)&opt; /* must stay untouched */
    nscd_event_driven_options_init(&opt, sizeof opt);
    opt.method = 7;
    assert_int_equal(nscd_event_driven_create(sys, &opt, &ed), NSCD_ERR_INVALID_ARGUMENT);
    nscd_event_driven_options_init(&opt, sizeof opt);
    opt.relative_tolerance = NAN;
    assert_int_equal(nscd_event_driven_create(sys, &opt, &ed), NSCD_ERR_NOT_FINITE);
    nscd_event_driven_options_init(&opt, sizeof opt);
    opt.event_time_tolerance = -1.0;
    assert_int_equal(nscd_event_driven_create(sys, &opt, &ed), NSCD_ERR_OUT_OF_RANGE);
    nscd_event_driven_options_init(&opt, sizeof opt);
    opt.n_user_events = 1;
    assert_int_equal(nscd_event_driven_create(sys, &opt, &ed), NSCD_ERR_INVALID_ARGUMENT);
    opt.struct_size = 3;
    assert_int_equal(nscd_event_driven_create(sys, &opt, &ed), NSCD_ERR_STRUCT_SIZE);
    assert_true(ed == (nscd_event_driven *)&opt);
    assert_int_equal(nscd_event_driven_create(NULL, NULL, &ed), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_event_driven_options_init(&opt, 5), NSCD_ERR_STRUCT_SIZE);

    assert_int_equal(nscd_event_driven_create(sys, NULL, &ed), NSCD_OK);
    assert_int_equal(nscd_event_driven_advance(NULL, 1.0, NULL), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_event_driven_advance(ed, NAN, NULL), NSCD_ERR_NOT_FINITE);
    assert_int_equal(nscd_event_driven_advance(ed, -1.0, NULL), NSCD_ERR_INVALID_ARGUMENT);
    nscd_event_driven_stats bad = {.struct_size = 1};
    assert_int_equal(nscd_event_driven_advance(ed, 1.0, &bad), NSCD_ERR_STRUCT_SIZE);
    double t, q;
    nscd_system_get_state(sys, &t, &q, NULL);
    assert_true(t == 0.0 && q == 1.0); /* nothing moved */
    nscd_event_driven_destroy(ed);
    nscd_event_driven_destroy(NULL);
    nscd_system_destroy(sys);
}

static void results_are_deterministic(void **state) {
    (void)state;
    double final[2][2];
    for (int run = 0; run < 2; ++run) {
        ball_model b = {1.0, G, 0.0, 0.0, 1};
        nscd_system *sys = NULL;
        assert_int_equal(make_ball(&b, 1.0, 0.7, &sys), NSCD_OK);
        nscd_event_driven *ed = NULL;
        assert_int_equal(nscd_event_driven_create(sys, NULL, &ed), NSCD_OK);
        assert_int_equal(nscd_event_driven_advance(ed, 1.234, NULL), NSCD_OK);
        nscd_system_get_state(sys, NULL, &final[run][0], &final[run][1]);
        nscd_event_driven_destroy(ed);
        nscd_system_destroy(sys);
    }
    assert_memory_equal(final[0], final[1], sizeof final[0]);
}

static void rk4_linear_interpolation_method(void **state) {
    (void)state;
    ball_model b = {1.0, G, 0.0, 0.0, 1};
    nscd_system *sys = NULL;
    assert_int_equal(make_ball(&b, 1.0, 0.8, &sys), NSCD_OK);
    static event_log log;
    memset(&log, 0, sizeof log);
    log.stop_at = 1;
    nscd_event_driven_options opt;
    nscd_event_driven_options_init(&opt, sizeof opt);
    opt.method = NSCD_ED_RK4_LINEAR;
    opt.on_event = log_event, opt.on_event_user = &log;
    nscd_event_driven *ed = NULL;
    assert_int_equal(nscd_event_driven_create(sys, &opt, &ed), NSCD_OK);
    assert_int_equal(nscd_event_driven_advance(ed, 1.0, NULL), NSCD_OK);
    /* linear interpolation of a parabola over h = 1e-4: error <= g h^2 / (8 v) */
    double t1 = sqrt(2.0 / G), err = fabs(log.t[0] - t1);
    assert_true(err < G * 1e-8 / (8.0 * G * t1) * 1.01 && err > 1e-12);
    nscd_event_driven_destroy(ed);
    nscd_system_destroy(sys);
}

/* RK4 with a fixed step far too large for the forces: every stage is finite
 * but their weighted sum overflows. Regression (found by
 * tests/fuzz/fuzz_event_driven.c): the step was accepted, and advance
 * returned OK with q = v = inf (or later failed with a NaN state). */
static nscd_status huge_force(void *u, double t, const double *q, const double *v, double *h) {
    (void)u, (void)t, (void)q, (void)v;
    h[0] = 0.5 * DBL_MAX;
    return NSCD_OK;
}

static void rk4_divergence_keeps_a_finite_state(void **state) {
    (void)state;
    nscd_system_desc desc;
    nscd_system_desc_init(&desc, sizeof desc);
    desc.n_dof = 1;
    desc.mass = unit_mass;
    desc.forces = huge_force;
    nscd_system *sys = NULL;
    assert_int_equal(nscd_system_create(&desc, &sys), NSCD_OK);
    double q = 0.0, v = 0.0, t = -1.0;
    assert_int_equal(nscd_system_set_state(sys, 0.0, &q, &v), NSCD_OK);
    nscd_event_driven_options opt;
    nscd_event_driven_options_init(&opt, sizeof opt);
    opt.method = NSCD_ED_RK4_LINEAR;
    opt.fixed_step = 1.0;
    nscd_event_driven *ed = NULL;
    assert_int_equal(nscd_event_driven_create(sys, &opt, &ed), NSCD_OK);
    assert_int_equal(nscd_event_driven_advance(ed, 10.0, NULL), NSCD_ERR_NOT_FINITE);
    assert_true(strstr(nscd_event_driven_last_error(ed), "diverged") != NULL);
    assert_int_equal(nscd_system_get_state(sys, &t, &q, &v), NSCD_OK);
    assert_true(t == 0.0 && q == 0.0 && v == 0.0); /* the last consistent state */
    nscd_event_driven_destroy(ed);
    nscd_system_destroy(sys);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bouncing_ball_matches_analytic),
        cmocka_unit_test(zeno_stop_policy_stops_cleanly),
        cmocka_unit_test(simultaneous_impacts_form_one_lcp),
        cmocka_unit_test(tilted_bar_hits_one_end),
        cmocka_unit_test(persistent_contact_releases_when_force_vanishes),
        cmocka_unit_test(oscillator_and_user_events),
        cmocka_unit_test(handler_can_stop_or_fail),
        cmocka_unit_test(failing_callback_keeps_consistent_state),
        cmocka_unit_test(invalid_options_and_arguments),
        cmocka_unit_test(results_are_deterministic),
        cmocka_unit_test(rk4_linear_interpolation_method),
        cmocka_unit_test(rk4_divergence_keeps_a_finite_state),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
