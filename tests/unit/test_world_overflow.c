/* Overflow in the world (issue 25, case 7): dt = 1e200 was accepted and a
 * step returned NSCD_OK with positions at -inf. Now a dt whose g dt²
 * overflows is refused at creation, and a step that would give a body a
 * non-finite velocity, position or orientation fails with
 * NSCD_ERR_NOT_FINITE, names the step, the body and its user id, and
 * leaves the world as it was. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "nscd/time_stepping.h"
#include "nscd/world.h"

static nscd_status create(double dt, nscd_world **w) {
    nscd_world_desc d;
    nscd_world_desc_init(&d, sizeof d);
    d.dt = dt;
    return nscd_world_create(&d, w);
}

/* |g| dt² overflows from dt = sqrt(DBL_MAX / 9.81) ≈ 4.3e153 on. */
static void unrepresentable_dt_is_refused_at_creation(void **state) {
    (void)state;
    double refused[] = {1e200, 1e300, 1e154, DBL_MAX};
    for (size_t k = 0; k < sizeof refused / sizeof refused[0]; ++k) {
        nscd_world *w = NULL;
        assert_int_equal(create(refused[k], &w), NSCD_ERR_OUT_OF_RANGE);
        assert_null(w);
    }
    double accepted[] = {1e-3, 1.0, 1e150, 1e-300};
    for (size_t k = 0; k < sizeof accepted / sizeof accepted[0]; ++k) {
        nscd_world *w = NULL;
        assert_int_equal(create(accepted[k], &w), NSCD_OK);
        nscd_world_destroy(w);
    }
}

static nscd_body_id add_sphere(nscd_world *w, const double v[3], const double om[3],
                               uint64_t user_id, double mass) {
    nscd_body_desc b;
    nscd_body_desc_init(&b, sizeof b);
    b.mass = mass; /* 0: from the density */
    for (int k = 0; mass > 0.0 && k < 3; ++k) {
        b.inertia[k] = 0.1 * mass; /* 2/5 m r² */
    }
    memcpy(b.velocity, v, sizeof b.velocity);
    memcpy(b.angular_velocity, om, sizeof b.angular_velocity);
    b.user_id = user_id;
    nscd_shape_desc s;
    nscd_shape_desc_init(&s, sizeof s);
    s.radius = 0.5;
    nscd_body_id id = 0;
    assert_int_equal(nscd_world_add_body(w, &b, &s, 1, &id), NSCD_OK);
    return id;
}

typedef struct snapshot {
    double x[3], q[4], v[3], om[3], t;
} snapshot;

static snapshot take(const nscd_world *w, nscd_body_id id) {
    snapshot s;
    assert_int_equal(nscd_world_get_body(w, id, s.x, s.q, s.v, s.om), NSCD_OK);
    s.t = nscd_world_time(w);
    return s;
}

/* A step that would overflow a position (x + dt v), an orientation (|ω|²
 * overflows, so the rotation angle is not finite) or a velocity (an applied
 * force) is refused; the message names the body by id and user id; the
 * world is unchanged, bit for bit, and a sane neighbour did not move. */
static void overflowing_step_is_refused_and_changes_nothing(void **state) {
    (void)state;
    for (int kind = 0; kind < 3; ++kind) {
        nscd_world *w = NULL;
        assert_int_equal(create(kind == 0 ? 1e10 : 1e-3, &w), NSCD_OK);
        double zero[3] = {0.0, 0.0, 0.0}, far[3] = {0.0, 0.0, 0.0};
        nscd_body_id calm = add_sphere(w, zero, zero, 7, 0.0);
        double v[3] = {kind == 0 ? 1e300 : 0.0, 0.0, 0.0};
        double om[3] = {kind == 1 ? 1e200 : 0.0, 0.0, 0.0};
        far[0] = 10.0;
        nscd_body_id wild = add_sphere(w, v, om, 4242, kind == 2 ? 1e-4 : 0.0);
        assert_int_equal(nscd_world_set_body(w, wild, far, NULL, NULL, NULL), NSCD_OK);
        if (kind == 2) {
            double force[3] = {0.0, 1e308, 0.0};
            assert_int_equal(nscd_world_set_applied_force(w, wild, force, NULL), NSCD_OK);
            /* dt F / m = 1e-3 * 1e308 / 1e-4 overflows */
        }
        snapshot before = take(w, wild), calm_before = take(w, calm);
        nscd_status rc = nscd_world_step(w, NULL);
        assert_int_equal(rc, NSCD_ERR_NOT_FINITE);
        const char *message = nscd_world_last_error(w);
        char expected[64];
        snprintf(expected, sizeof expected, "body %llu (user id 4242)", (unsigned long long)wild);
        assert_non_null(strstr(message, expected));
        assert_non_null(strstr(message, "step "));
        snapshot after = take(w, wild), calm_after = take(w, calm);
        assert_memory_equal(&before, &after, sizeof before);
        assert_memory_equal(&calm_before, &calm_after, sizeof calm_before);
        nscd_world_destroy(w);
    }
}

/* The reproducer of the issue, at the largest dt still accepted: a body
 * falls for as long as its position stays finite, then the step is refused;
 * no step ever reports NSCD_OK with a non-finite state. */
static void long_fall_never_reports_infinity(void **state) {
    (void)state;
    nscd_world *w = NULL;
    assert_int_equal(create(1e150, &w), NSCD_OK);
    double zero[3] = {0.0, 0.0, 0.0};
    nscd_body_id id = add_sphere(w, zero, zero, 1, 0.0);
    nscd_status rc = NSCD_OK;
    int steps = 0;
    while (rc == NSCD_OK && steps < 100000) {
        nscd_world_step_report r;
        r.struct_size = sizeof r;
        rc = nscd_world_step(w, &r);
        snapshot s = take(w, id);
        assert_true(isfinite(s.x[2]) && isfinite(s.v[2]));
        if (rc == NSCD_OK) {
            assert_true(isfinite(r.merit));
            ++steps;
        }
    }
    assert_int_equal(rc, NSCD_ERR_NOT_FINITE);
    /* x_n = -g dt² n(n+1)/2 overflows near n = sqrt(2 DBL_MAX / (g dt²)) ≈ 6000 */
    double n_overflow = sqrt(2.0 * (DBL_MAX / (9.81 * 1e300)));
    assert_true(fabs(steps - n_overflow) < 2.0);
    nscd_world_destroy(w);
}

/* The same body driven by a time stepper: the advance fails (its own
 * finiteness check) and no body is left non-finite. */
static void time_stepper_on_the_world_never_reports_infinity(void **state) {
    (void)state;
    nscd_world *w = NULL;
    assert_int_equal(create(1e-3, &w), NSCD_OK);
    double v[3] = {1e300, 0.0, 0.0}, zero[3] = {0.0, 0.0, 0.0};
    nscd_body_id id = add_sphere(w, v, zero, 4242, 0.0);
    nscd_time_stepping_options o;
    nscd_time_stepping_options_init(&o, sizeof o);
    o.dt = 1e10;
    nscd_time_stepping *ts = NULL;
    assert_int_equal(nscd_time_stepping_create_world(w, &o, &ts), NSCD_OK);
    nscd_status rc = nscd_time_stepping_advance(ts, 1e11, NULL);
    assert_int_not_equal(rc, NSCD_OK);
    snapshot s = take(w, id);
    assert_true(isfinite(s.x[0]) && isfinite(s.v[0]));
    printf("# time stepper: %s: %s\n", nscd_status_string(rc), nscd_time_stepping_last_error(ts));
    nscd_time_stepping_destroy(ts);
    nscd_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(unrepresentable_dt_is_refused_at_creation),
        cmocka_unit_test(overflowing_step_is_refused_and_changes_nothing),
        cmocka_unit_test(long_fall_never_reports_infinity),
        cmocka_unit_test(time_stepper_on_the_world_never_reports_infinity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
