/* Hostile and degenerate input (issue 8): sizes beyond the documented limits,
 * absurd magnitudes, NaN from callbacks, undocumented return values, and the
 * last-error messages. Every test here failed on the code before the fix. */
#define _POSIX_C_SOURCE 200809L /* alarm(): a hang must fail the test, not stall ctest */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "models.h"

#define G 9.81

/* ------------------------------------------------ item 5: fc3d dense size */

/* n above the dense limit (16384) must be refused before q, mu, r are read:
 * the arrays here hold one contact only, reading 3n values runs off the stack. */
static void fc3d_dense_refuses_large_n_before_reading_arrays(void **state) {
    (void)state;
    double W[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, q[3] = {-1, 0, 0}, mu[1] = {0.5};
    double r[3] = {0, 0, 0}, u[3] = {7, 7, 7};
    const int32_t sizes[] = {16385, 1 << 20, 1 << 26, INT32_MAX};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
        assert_int_equal(nscd_fc3d_solve_dense(sizes[k], W, q, mu, NULL, r, u, NULL),
                         NSCD_ERR_INVALID_ARGUMENT);
    }
    assert_true(u[0] == 7.0 && r[0] == 0.0); /* nothing written */
    /* the limit itself is still a size, not an error of its own: n = 1 works */
    assert_int_equal(nscd_fc3d_solve_dense(1, W, q, mu, NULL, r, u, NULL), NSCD_OK);
    assert_true(r[0] == 1.0 && u[0] == 0.0);
}

/* ------------------------------------------------ item 6: n_user_events bound */

static nscd_status no_events(void *user, double t, const double *q, const double *v,
                             double *values) {
    (void)user, (void)t, (void)q, (void)v, (void)values;
    return NSCD_OK;
}

static void user_event_count_is_bounded(void **state) {
    (void)state;
    ball_model b = {1.0, G, 0.0, 0.0, 1};
    nscd_system *sys = NULL;
    assert_int_equal(make_ball(&b, 1.0, 0.8, &sys), NSCD_OK);
    nscd_event_driven_options opt;
    nscd_event_driven_options_init(&opt, sizeof opt);
    opt.user_events = no_events;
    nscd_event_driven *ed = (nscd_event_driven *)&opt; /* must stay untouched */
    /* one contact + INT32_MAX events overflowed int32 (UBSan) and asked for tens of GB */
    const int32_t too_many[] = {INT32_MAX, INT32_MAX - 1, (1 << 20) + 1};
    for (size_t k = 0; k < sizeof too_many / sizeof too_many[0]; ++k) {
        opt.n_user_events = too_many[k];
        assert_int_equal(nscd_event_driven_create(sys, &opt, &ed), NSCD_ERR_INVALID_ARGUMENT);
        assert_true(ed == (nscd_event_driven *)&opt);
    }
    opt.n_user_events = 1 << 20; /* the documented maximum */
    assert_int_equal(nscd_event_driven_create(sys, &opt, &ed), NSCD_OK);
    nscd_event_driven_destroy(ed);
    nscd_system_destroy(sys);
}

/* ------------------------------------------------ item 7: huge forces, tiny steps */

/* A ball falling at 1e200 m/s under a force of +-1e300 N: the impact comes
 * after ~1e-200 s, far below min_step. The stepper used to accept steps of
 * size 0 (its starting-step estimate overflowed) and spun until max_steps
 * (1e8 by default) with t stuck at 0. Now it never hangs:
 * - h = -1e300 keeps the ball bouncing on time scales below min_step: it
 *   fails with NSCD_ERR_STEP_TOO_SMALL after a handful of steps;
 * - h = +1e300 throws the ball up after the impact, and the exact state at
 *   t = 1 (q = 5e299, v = 1e300 plus terms ~1e200 below their ulp) is
 *   reached in a few steps and is right to rounding. */
static void huge_force_and_velocity_never_hang(void **state) {
    (void)state;
    alarm(120); /* the old code needed ~10 minutes here; a hang now kills the test */
    const double forces[] = {-1e300, 1e300};
    for (int k = 0; k < 2; ++k) {
        ball_model b = {1.0, -forces[k], 0.0, 0.0, 1}; /* h = -m g = forces[k] */
        nscd_system *sys = NULL;
        assert_int_equal(make_ball(&b, 1.0, 0.5, &sys), NSCD_OK);
        double q0 = 1.0, v0 = -1e200;
        assert_int_equal(nscd_system_set_state(sys, 0.0, &q0, &v0), NSCD_OK);
        nscd_event_driven *ed = NULL;
        assert_int_equal(nscd_event_driven_create(sys, NULL, &ed), NSCD_OK);
        nscd_event_driven_stats stats = {.struct_size = sizeof stats};
        nscd_status rc = nscd_event_driven_advance(ed, 1.0, &stats);
        print_message("h = %g: %s; %lld accepted, %lld rejected steps\n", forces[k],
                      nscd_event_driven_last_error(ed), (long long)stats.steps_accepted,
                      (long long)stats.steps_rejected);
        assert_true(stats.steps_accepted + stats.steps_rejected < 1000);
        double t, q, v;
        nscd_system_get_state(sys, &t, &q, &v);
        assert_true(isfinite(t) && isfinite(q) && isfinite(v)); /* a consistent state is kept */
        assert_true(stats.t == t);
        if (forces[k] < 0.0) {
            assert_int_equal(rc, NSCD_ERR_STEP_TOO_SMALL);
            assert_non_null(strstr(nscd_event_driven_last_error(ed), "min_step"));
        } else {
            assert_int_equal(rc, NSCD_OK);
            assert_true(t == 1.0 && fabs(q / 5e299 - 1.0) < 1e-12 && fabs(v / 1e300 - 1.0) < 1e-12);
        }
        nscd_event_driven_destroy(ed);
        nscd_system_destroy(sys);
    }
    alarm(0);
}

/* h = -1e308, v0 = -1e300: even a step of min_step overflows the velocity.
 * Such a step is rejected (its error estimate is meaningless), and the call
 * fails at once, the state untouched. */
static void overflowing_step_is_rejected(void **state) {
    (void)state;
    alarm(120);
    ball_model b = {1.0, 1e308, 0.0, 0.0, 1};
    nscd_system *sys = NULL;
    assert_int_equal(make_ball(&b, 1.0, 0.5, &sys), NSCD_OK);
    double q0 = 1.0, v0 = -1e300;
    assert_int_equal(nscd_system_set_state(sys, 0.0, &q0, &v0), NSCD_OK);
    nscd_event_driven *ed = NULL;
    assert_int_equal(nscd_event_driven_create(sys, NULL, &ed), NSCD_OK);
    nscd_event_driven_stats stats = {.struct_size = sizeof stats};
    assert_int_equal(nscd_event_driven_advance(ed, 1.0, &stats), NSCD_ERR_STEP_TOO_SMALL);
    assert_non_null(strstr(nscd_event_driven_last_error(ed), "overflow"));
    assert_true(stats.steps_accepted == 0 && stats.steps_rejected < 100);
    double t, q, v;
    nscd_system_get_state(sys, &t, &q, &v);
    assert_true(t == 0.0 && q == q0 && v == v0);
    nscd_event_driven_destroy(ed);
    nscd_system_destroy(sys);
    alarm(0);
}

/* A step below the ulp of t does not move t: it must not count as progress.
 * At t = 1e20 (ulp 16384 s) a falling ball cannot be integrated at all. */
static void step_below_ulp_of_t_is_too_small(void **state) {
    (void)state;
    alarm(120);
    const int32_t methods[] = {NSCD_ED_DOPRI5, NSCD_ED_RK4_LINEAR};
    for (int k = 0; k < 2; ++k) {
        ball_model b = {1.0, G, 0.0, 0.0, 1};
        nscd_system *sys = NULL;
        assert_int_equal(make_ball(&b, 1.0, 0.8, &sys), NSCD_OK);
        double t0 = 1e20, q0 = 1.0, v0 = 0.0;
        assert_int_equal(nscd_system_set_state(sys, t0, &q0, &v0), NSCD_OK);
        nscd_event_driven_options opt;
        nscd_event_driven_options_init(&opt, sizeof opt);
        opt.method = methods[k];
        nscd_event_driven *ed = NULL;
        assert_int_equal(nscd_event_driven_create(sys, &opt, &ed), NSCD_OK);
        nscd_event_driven_stats stats = {.struct_size = sizeof stats};
        double t_end = nextafter(nextafter(t0, INFINITY), INFINITY); /* two ulps later */
        assert_int_equal(nscd_event_driven_advance(ed, t_end, &stats), NSCD_ERR_STEP_TOO_SMALL);
        assert_true(strstr(nscd_event_driven_last_error(ed), "does not advance") != NULL);
        assert_int_equal(stats.steps_accepted, 0);
        double t, q;
        nscd_system_get_state(sys, &t, &q, NULL);
        assert_true(t == t0 && q == q0);
        nscd_event_driven_destroy(ed);
        nscd_system_destroy(sys);
    }
    alarm(0);
}

/* ------------------------------------------------ item 8: Kelvin-Voigt, huge xi */

/* For xi >> 1, e = ((xi - s)/(xi + s))^(xi/s), s = sqrt(xi^2 - 1), and
 * (xi - s)(xi + s) = 1 give e = (xi + s)^(-2 xi/s). With eps = 1/xi^2:
 * xi/s = 1 + eps/2 + O(eps^2), ln(xi + s) = ln(2 xi) - eps/4 + O(eps^2), so
 *   e = 1/(4 xi^2) exp(-eps (ln(2 xi) - 1/2)) (1 + O(eps^2 ln xi)),
 * which tends to 0 like 1/(4 xi^2); it underflows to 0 beyond xi ~ 1e162. The
 * code used to square xi and returned NaN from xi ~ 1e154 on. */
static void kelvin_voigt_overdamped_limit(void **state) {
    (void)state;
    const double xis[] = {1e4, 1e8, 1e100, 1e153, 1e154, 1e155, 1e160, 1e200, 1e300, DBL_MAX};
    double last = 1.0;
    for (size_t k = 0; k < sizeof xis / sizeof xis[0]; ++k) {
        double xi = xis[k], e = NAN;
        assert_int_equal(nscd_kelvin_voigt_restitution(xi, &e), NSCD_OK);
        if (!(isfinite(e) && e >= 0.0 && e <= last)) { /* finite, monotone towards 0 */
            fail_msg("xi = %g: e = %g after %g", xi, e, last);
        }
        last = e;
        /* analytic value, computed as a product so that it does not overflow */
        double expected = (0.5 / xi) * (0.5 / xi) * exp(-(log(2.0) + log(xi) - 0.5) / xi / xi);
        double tol = 1e-12 * expected + 8.0 * DBL_TRUE_MIN; /* subnormal results near 1e-308 */
        if (!(fabs(e - expected) <= tol)) {
            fail_msg("xi = %g: e = %.17g, expected %.17g", xi, e, expected);
        }
    }
}

/* ------------------------------------------------ item 9: NaN user events */

static nscd_status nan_event(void *user, double t, const double *q, const double *v,
                             double *values) {
    (void)q, (void)v;
    const double *after = user;
    values[0] = t > *after ? NAN : 1.0;
    return NSCD_OK;
}

static void nan_from_user_event_is_not_finite(void **state) {
    (void)state;
    const double afters[] = {-1.0, 0.05}; /* NaN from the start, or later in the run */
    for (int k = 0; k < 2; ++k) {
        ball_model b = {1.0, G, 0.0, 0.0, 1};
        nscd_system *sys = NULL;
        assert_int_equal(make_ball(&b, 1.0, 0.8, &sys), NSCD_OK);
        nscd_event_driven_options opt;
        nscd_event_driven_options_init(&opt, sizeof opt);
        opt.n_user_events = 1, opt.user_events = nan_event;
        opt.user_events_user = (void *)&afters[k];
        nscd_event_driven *ed = NULL;
        assert_int_equal(nscd_event_driven_create(sys, &opt, &ed), NSCD_OK);
        assert_int_equal(nscd_event_driven_advance(ed, 1.0, NULL), NSCD_ERR_NOT_FINITE);
        assert_true(strstr(nscd_event_driven_last_error(ed), "user event") != NULL);
        double t;
        nscd_system_get_state(sys, &t, NULL, NULL);
        assert_true(t <= 0.05 + 1e-9);
        nscd_event_driven_destroy(ed);
        nscd_system_destroy(sys);
    }
}

/* ------------------------------------------------ item 10a: Routh needs n_tangent 1 */

static void routh_law_needs_one_tangent_row(void **state) {
    (void)state;
    ball_model b = {1.0, G, 0.0, 0.0, 1};
    nscd_system *sys = NULL;
    assert_int_equal(make_ball(&b, 1.0, 0.8, &sys), NSCD_OK); /* Newton e = 0.8 */
    nscd_contact_law *routh = NULL;
    assert_int_equal(nscd_contact_law_create_routh(0.5, NULL, &routh), NSCD_OK);
    nscd_contact_desc c;
    nscd_contact_desc_init(&c, sizeof c);
    c.law = routh;
    c.friction = 0.3;
    for (int32_t n_tangent = 0; n_tangent <= 2; n_tangent += 2) {
        c.n_tangent = n_tangent;
        assert_int_equal(nscd_system_set_contact(sys, 0, &c), NSCD_ERR_INVALID_ARGUMENT);
        assert_non_null(strstr(nscd_system_last_error(sys), "n_tangent"));
    }
    /* nothing changed: the contact still bounces with Newton's e = 0.8 */
    static event_log log;
    memset(&log, 0, sizeof log);
    log.stop_at = 1;
    nscd_event_driven_options opt;
    nscd_event_driven_options_init(&opt, sizeof opt);
    opt.on_event = log_event, opt.on_event_user = &log;
    nscd_event_driven *ed = NULL;
    assert_int_equal(nscd_event_driven_create(sys, &opt, &ed), NSCD_OK);
    assert_int_equal(nscd_event_driven_advance(ed, 1.0, NULL), NSCD_OK);
    assert_int_equal(log.type[0], NSCD_EVENT_IMPACT);
    assert_true(fabs(log.after[0] + 0.8 * log.before[0]) < 1e-12 * fabs(log.before[0]));
    nscd_event_driven_destroy(ed);
    c.n_tangent = 1;
    assert_int_equal(nscd_system_set_contact(sys, 0, &c), NSCD_OK);
    nscd_contact_law_destroy(routh);
    nscd_system_destroy(sys);
}

/* ------------------------------------------------ item 10b: one status prefix */

typedef struct log_sink {
    int count;
    char last[512];
} log_sink;

static void keep_log(void *user, int32_t level, const char *message) {
    log_sink *sink = user;
    (void)level;
    sink->count++;
    strncpy(sink->last, message, sizeof sink->last - 1);
}

/* Number of times `needle` occurs in `text`. */
static int occurrences(const char *text, const char *needle) {
    int count = 0;
    for (const char *p = strstr(text, needle); p != NULL; p = strstr(p + 1, needle)) {
        count++;
    }
    return count;
}

static void error_messages_name_the_status_once(void **state) {
    (void)state;
    static log_sink sink;
    memset(&sink, 0, sizeof sink);
    nscd_system_desc d;
    nscd_system_desc_init(&d, sizeof d);
    d.n_dof = 1, d.n_contacts = 1, d.mass = ball_mass, d.forces = ball_forces;
    d.contact = ball_floor, d.log = keep_log, d.log_user = &sink;
    ball_model b = {1.0, G, 0.0, 0.0, 1};
    d.user = &b;
    nscd_system *sys = NULL;
    assert_int_equal(nscd_system_create(&d, &sys), NSCD_OK);
    nscd_contact_desc c;
    nscd_contact_desc_init(&c, sizeof c);
    c.friction = -1.0;
    assert_int_equal(nscd_system_set_contact(sys, 0, &c), NSCD_ERR_OUT_OF_RANGE);
    /* callers print nscd_status_string(status) next to the message: the
     * message itself says what went wrong, not which status came back */
    const char *name = nscd_status_string(NSCD_ERR_OUT_OF_RANGE);
    const char *message = nscd_system_last_error(sys);
    assert_non_null(strstr(message, "friction"));
    assert_int_equal(occurrences(message, name), 0);
    /* the log hook has no status code: its line names the status, once */
    assert_int_equal(sink.count, 1);
    assert_int_equal(occurrences(sink.last, name), 1);
    assert_non_null(strstr(sink.last, message));

    /* a failure deep in the stepper, reported on both handles */
    b.fail_after = 0.1;
    double q0 = 1.0, v0 = 0.0;
    assert_int_equal(nscd_system_set_state(sys, 0.0, &q0, &v0), NSCD_OK);
    nscd_event_driven *ed = NULL;
    assert_int_equal(nscd_event_driven_create(sys, NULL, &ed), NSCD_OK);
    assert_int_equal(nscd_event_driven_advance(ed, 1.0, NULL), NSCD_ERR_CALLBACK);
    name = nscd_status_string(NSCD_ERR_CALLBACK);
    assert_int_equal(occurrences(nscd_event_driven_last_error(ed), name), 0);
    assert_int_equal(occurrences(nscd_system_last_error(sys), name), 0);
    assert_non_null(strstr(nscd_event_driven_last_error(ed), "forces callback returned 42"));
    assert_int_equal(occurrences(sink.last, name), 1);
    nscd_event_driven_destroy(ed);
    nscd_system_destroy(sys);
}

/* ------------------------------------------------ item 10c: last_error is current */

static void last_error_is_cleared_by_the_next_call(void **state) {
    (void)state;
    ball_model b = {1.0, G, 0.0, 0.0, 1};
    nscd_system *sys = NULL;
    assert_int_equal(make_ball(&b, 1.0, 0.8, &sys), NSCD_OK);
    nscd_contact_desc c;
    nscd_contact_desc_init(&c, sizeof c);
    double q0 = NAN, v0 = 0.0, energy = 0.0, gap = 0.0;

    /* each fallible call on the system: fail, then succeed */
    c.friction = -1.0;
    assert_int_equal(nscd_system_set_contact(sys, 0, &c), NSCD_ERR_OUT_OF_RANGE);
    assert_string_not_equal(nscd_system_last_error(sys), "");
    c.friction = 0.0;
    assert_int_equal(nscd_system_set_contact(sys, 0, &c), NSCD_OK);
    assert_string_equal(nscd_system_last_error(sys), "");

    assert_int_equal(nscd_system_set_state(sys, 0.0, &q0, &v0), NSCD_ERR_NOT_FINITE);
    assert_string_not_equal(nscd_system_last_error(sys), "");
    q0 = 1.0;
    assert_int_equal(nscd_system_set_state(sys, 0.0, &q0, &v0), NSCD_OK);
    assert_string_equal(nscd_system_last_error(sys), "");

    assert_int_equal(nscd_system_get_contact(sys, 5, &gap, NULL, NULL), NSCD_ERR_INDEX);
    assert_string_not_equal(nscd_system_last_error(sys), "");
    assert_int_equal(nscd_system_get_contact(sys, 0, &gap, NULL, NULL), NSCD_OK);
    assert_string_equal(nscd_system_last_error(sys), "");

    assert_int_equal(nscd_system_kinetic_energy(sys, NULL), NSCD_ERR_NULL_POINTER);
    assert_string_not_equal(nscd_system_last_error(sys), "");
    assert_int_equal(nscd_system_kinetic_energy(sys, &energy), NSCD_OK);
    assert_string_equal(nscd_system_last_error(sys), "");

    /* the stepper: a failed advance, then a good one */
    nscd_event_driven *ed = NULL;
    assert_int_equal(nscd_event_driven_create(sys, NULL, &ed), NSCD_OK);
    nscd_event_driven_stats bad = {.struct_size = 1};
    assert_int_equal(nscd_event_driven_advance(ed, 0.1, &bad), NSCD_ERR_STRUCT_SIZE);
    assert_string_not_equal(nscd_event_driven_last_error(ed), "");
    assert_int_equal(nscd_event_driven_advance(ed, -1.0, NULL), NSCD_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(nscd_event_driven_last_error(ed), "before"));
    assert_int_equal(nscd_event_driven_advance(ed, 0.1, NULL), NSCD_OK);
    assert_string_equal(nscd_event_driven_last_error(ed), "");
    nscd_event_driven_destroy(ed);
    nscd_system_destroy(sys);
}

/* ------------------------------------------------ item 10d: on_event answers */

static int32_t answer_two(void *user, const nscd_event_info *info) {
    (void)info;
    int *calls = user;
    ++*calls;
    return 2; /* neither NSCD_EVENT_CONTINUE nor NSCD_EVENT_STOP nor negative */
}

static void unknown_handler_answer_is_a_callback_error(void **state) {
    (void)state;
    ball_model b = {1.0, G, 0.0, 0.0, 1};
    nscd_system *sys = NULL;
    assert_int_equal(make_ball(&b, 1.0, 0.8, &sys), NSCD_OK);
    int calls = 0;
    nscd_event_driven_options opt;
    nscd_event_driven_options_init(&opt, sizeof opt);
    opt.on_event = answer_two, opt.on_event_user = &calls;
    nscd_event_driven *ed = NULL;
    assert_int_equal(nscd_event_driven_create(sys, &opt, &ed), NSCD_OK);
    assert_int_equal(nscd_event_driven_advance(ed, 1.0, NULL), NSCD_ERR_CALLBACK);
    assert_int_equal(calls, 1);
    assert_non_null(strstr(nscd_event_driven_last_error(ed), "returned 2"));
    double t;
    nscd_system_get_state(sys, &t, NULL, NULL);
    assert_true(fabs(t - sqrt(2.0 / G)) < 1e-9); /* stopped at the first impact */
    nscd_event_driven_destroy(ed);
    nscd_system_destroy(sys);
}

/* ------------------------------------------------ item 10e: initial_step >= min_step */

static void initial_step_below_min_step_is_out_of_range(void **state) {
    (void)state;
    ball_model b = {1.0, G, 0.0, 0.0, 1};
    nscd_system *sys = NULL;
    assert_int_equal(make_ball(&b, 1.0, 0.8, &sys), NSCD_OK);
    nscd_event_driven_options opt;
    nscd_event_driven_options_init(&opt, sizeof opt);
    nscd_event_driven *ed = NULL;
    opt.min_step = 1e-6;
    opt.initial_step = 1e-7;
    assert_int_equal(nscd_event_driven_create(sys, &opt, &ed), NSCD_ERR_OUT_OF_RANGE);
    assert_null(ed);
    opt.initial_step = 1e-6; /* equal is fine, and 0 means automatic */
    assert_int_equal(nscd_event_driven_create(sys, &opt, &ed), NSCD_OK);
    nscd_event_driven_destroy(ed);
    opt.initial_step = 0.0;
    assert_int_equal(nscd_event_driven_create(sys, &opt, &ed), NSCD_OK);
    nscd_event_driven_destroy(ed);
    nscd_system_destroy(sys);
}

/* ------------------------------------------------ item 10f: fc3d options, NaN */

/* One convention across the option validators: NaN or infinity in a real
 * option is NSCD_ERR_NOT_FINITE (status.h: "an input value is NaN or
 * infinite"), a finite value outside its range NSCD_ERR_OUT_OF_RANGE. */
static void non_finite_options_are_not_finite(void **state) {
    (void)state;
    double W[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, q[3] = {-1, 0, 0}, mu[1] = {0.5};
    double r[3] = {0, 0, 0}, u[3];
    const double bad[] = {NAN, INFINITY, -INFINITY};
    for (size_t k = 0; k < 3; ++k) {
        for (int field = 0; field < 3; ++field) {
            nscd_fc3d_options o;
            nscd_fc3d_options_init(&o, sizeof o);
            double *target = field == 0   ? &o.tolerance
                             : field == 1 ? &o.relaxation
                                          : &o.jacobi_weight;
            *target = bad[k];
            assert_int_equal(nscd_fc3d_solve_dense(1, W, q, mu, &o, r, u, NULL),
                             NSCD_ERR_NOT_FINITE);
            *target = -1.0;
            assert_int_equal(nscd_fc3d_solve_dense(1, W, q, mu, &o, r, u, NULL),
                             NSCD_ERR_OUT_OF_RANGE);
        }
    }
    ball_model b = {1.0, G, 0.0, 0.0, 1};
    nscd_system *sys = NULL;
    assert_int_equal(make_ball(&b, 1.0, 0.8, &sys), NSCD_OK);
    nscd_event_driven_options opt;
    nscd_event_driven *ed = NULL;
    nscd_event_driven_options_init(&opt, sizeof opt);
    opt.min_step = NAN;
    assert_int_equal(nscd_event_driven_create(sys, &opt, &ed), NSCD_ERR_NOT_FINITE);
    nscd_event_driven_options_init(&opt, sizeof opt);
    opt.initial_step = INFINITY;
    assert_int_equal(nscd_event_driven_create(sys, &opt, &ed), NSCD_ERR_NOT_FINITE);
    nscd_system_destroy(sys);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fc3d_dense_refuses_large_n_before_reading_arrays),
        cmocka_unit_test(user_event_count_is_bounded),
        cmocka_unit_test(huge_force_and_velocity_never_hang),
        cmocka_unit_test(overflowing_step_is_rejected),
        cmocka_unit_test(step_below_ulp_of_t_is_too_small),
        cmocka_unit_test(kelvin_voigt_overdamped_limit),
        cmocka_unit_test(nan_from_user_event_is_not_finite),
        cmocka_unit_test(routh_law_needs_one_tangent_row),
        cmocka_unit_test(error_messages_name_the_status_once),
        cmocka_unit_test(last_error_is_cleared_by_the_next_call),
        cmocka_unit_test(unknown_handler_answer_is_a_callback_error),
        cmocka_unit_test(initial_step_below_min_step_is_out_of_range),
        cmocka_unit_test(non_finite_options_are_not_finite),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
