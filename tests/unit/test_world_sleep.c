/* Sleeping islands of nscd_world_step (nscd_world_desc::sleep; docs/world.md,
 * "Sleeping"): a box resting on the floor falls asleep once it has stayed
 * below the sleep speed for sleep_time, and its pose then stays bitwise
 * fixed while its contact still carries its weight; a ball dropped on a
 * sleeping stack wakes it and comes to rest on it (no passing through);
 * the API wakes an island (a velocity set, a load, nscd_world_wake_body);
 * a body whose support is removed, or whose kinematic support moves away,
 * wakes and falls; bad settings are refused with nothing created; a
 * checkpoint with sleeping bodies continues bitwise; threads 1, 2 and 3
 * give the same bits; the time steppers refuse a world with sleeping.
 *
 * The references are the free fall (a body left without support falls
 * as z(t) = z0 - g t²/2 to within the world's symplectic Euler's dt g t)
 * and rigid contact (a resting body's weight m g dt per step on its
 * support; no penetration beyond the solver's bound, the contact margin). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nscd/time_stepping.h"
#include "nscd/world.h"
#include "nscd/world_checkpoint.h"
#include "world_bodies.h"

#define G 9.81
#define HALF 0.01 /* half side of the boxes, m */
#define SLEEP_TIME 0.3

static nscd_world *make_world_threads(int32_t threads) {
    nscd_world_desc d;
    nscd_world_desc_init(&d, sizeof d);
    d.sleep = 1;
    d.sleep_time = SLEEP_TIME;
    d.threads = threads;
    nscd_world *w = NULL;
    assert_int_equal(nscd_world_create(&d, &w), NSCD_OK);
    const double point[3] = {0.0, 0.0, 0.0}, normal[3] = {0.0, 0.0, 1.0};
    nscd_body_id floor_id = 0;
    assert_int_equal(nscd_world_add_half_space(w, point, normal, NULL, NULL, &floor_id), NSCD_OK);
    return w;
}

static nscd_world *make_world(void) { return make_world_threads(0); }

static nscd_body_id add_box(nscd_world *w, int32_t type, double x, double y, double z) {
    nscd_body_desc b;
    nscd_body_desc_init(&b, sizeof b);
    b.type = type;
    b.position[0] = x, b.position[1] = y, b.position[2] = z;
    nscd_shape_desc s;
    nscd_shape_desc_init(&s, sizeof s);
    s.type = NSCD_SHAPE_BOX;
    s.half_extents[0] = s.half_extents[1] = s.half_extents[2] = HALF;
    nscd_body_id id = 0;
    assert_int_equal(nscd_world_add_body(w, &b, &s, 1, &id), NSCD_OK);
    return id;
}

static int32_t sleeping(const nscd_world *w, nscd_body_id id) {
    int32_t s = -1;
    assert_int_equal(nscd_world_body_sleeping(w, id, &s), NSCD_OK);
    return s;
}

static nscd_world_step_report step(nscd_world *w) {
    nscd_world_step_report r;
    memset(&r, 0, sizeof r);
    r.struct_size = sizeof r;
    assert_int_equal(nscd_world_step(w, &r), NSCD_OK);
    return r;
}

/* Steps until every dynamic body sleeps (at most `limit` steps); the steps taken. */
static int step_until_asleep(nscd_world *w, int32_t bodies, int limit) {
    for (int s = 1; s <= limit; ++s) {
        if (step(w).sleeping_bodies == bodies) {
            return s;
        }
    }
    return -1;
}

static double height(const nscd_world *w, nscd_body_id id) {
    double x[3];
    assert_int_equal(nscd_world_get_body(w, id, x, NULL, NULL, NULL), NSCD_OK);
    return x[2];
}

/* A box set on the floor: asleep after sleep_time (and not before), then
 * bitwise still; its contacts listed with its weight per step. */
static void box_falls_asleep_and_stays(void **state) {
    (void)state;
    nscd_world *w = make_world();
    nscd_body_id box = add_box(w, NSCD_BODY_DYNAMIC, 0.0, 0.0, HALF);
    int steps = step_until_asleep(w, 1, 2000);
    double dt = 1e-3;
    /* at rest from the start: asleep once the timer reaches sleep_time */
    assert_true(steps >= (int)(SLEEP_TIME / dt) - 1);
    assert_true(steps <= (int)(SLEEP_TIME / dt) + 50);
    assert_int_equal(sleeping(w, box), 1);
    double x0[3], q0[4], v[3], om[3];
    assert_int_equal(nscd_world_get_body(w, box, x0, q0, v, om), NSCD_OK);
    for (int k = 0; k < 3; ++k) {
        assert_true(v[k] == 0.0 && om[k] == 0.0); /* exactly */
    }
    double m = 0.0;
    assert_int_equal(nscd_world_get_body_mass(w, box, &m, NULL), NSCD_OK);
    for (int s = 0; s < 500; ++s) {
        nscd_world_step_report r = step(w);
        assert_int_equal(r.sleeping_bodies, 1);
        assert_int_equal(r.contacts, 0); /* nothing solved */
    }
    double x1[3], q1[4];
    assert_int_equal(nscd_world_get_body(w, box, x1, q1, v, om), NSCD_OK);
    assert_memory_equal(x0, x1, sizeof x0);
    assert_memory_equal(q0, q1, sizeof q0);
    /* its contacts are still listed, carrying its weight over a step */
    double impulse[3];
    assert_int_equal(nscd_world_get_body_contact_impulse(w, box, NULL, impulse, NULL), NSCD_OK);
    assert_true(fabs(impulse[2] - m * G * dt) < 1e-3 * m * G * dt);
    double ke = 1.0;
    assert_int_equal(nscd_world_kinetic_energy(w, &ke), NSCD_OK);
    assert_true(ke == 0.0);
    nscd_world_destroy(w);
}

/* Three boxes stacked asleep; a ball dropped from 5 cm above wakes them on
 * touching, does not pass through the top box, and everything sleeps again
 * with the ball on top. */
static void dropped_ball_wakes_stack(void **state) {
    (void)state;
    nscd_world *w = make_world();
    nscd_body_id stack[3];
    for (int k = 0; k < 3; ++k) {
        stack[k] = add_box(w, NSCD_BODY_DYNAMIC, 0.0, 0.0, HALF + 2.0 * HALF * k);
    }
    assert_true(step_until_asleep(w, 3, 3000) > 0);
    double top = height(w, stack[2]) + HALF, r = 0.005;
    nscd_body_id ball = world_sphere(w, 0.002, 0.001, top + 0.05 + r, r);
    bool woke = false;
    double lowest = 1.0;
    for (int s = 0; s < 3000; ++s) {
        nscd_world_step_report rep = step(w);
        lowest = fmin(lowest, height(w, ball) - r);
        if (!woke && sleeping(w, stack[0]) == 0) {
            woke = true;
            /* woken when the ball reached it: within a step's fall and the margin */
            assert_true(height(w, ball) - r - top < 2e-3);
            for (int k = 1; k < 3; ++k) {
                assert_int_equal(sleeping(w, stack[k]), 0); /* the whole island */
            }
        }
        if (woke && rep.sleeping_bodies == 4) {
            break;
        }
    }
    assert_true(woke);
    /* never through the top box: at most the contact margin deep */
    assert_true(lowest > top - 1e-3);
    assert_int_equal(sleeping(w, ball), 1);
    assert_true(fabs(height(w, ball) - r - (height(w, stack[2]) + HALF)) < 1e-3);
    nscd_world_destroy(w);
}

/* A velocity set on a sleeping body wakes its island (and it moves); so do
 * a load and nscd_world_wake_body. */
static void api_wakes_island(void **state) {
    (void)state;
    nscd_world *w = make_world();
    nscd_body_id low = add_box(w, NSCD_BODY_DYNAMIC, 0.0, 0.0, HALF);
    nscd_body_id high = add_box(w, NSCD_BODY_DYNAMIC, 0.0, 0.0, 3.0 * HALF);
    nscd_body_id apart = add_box(w, NSCD_BODY_DYNAMIC, 0.1, 0.0, HALF); /* its own island */
    assert_true(step_until_asleep(w, 3, 2000) > 0);
    const double up[3] = {0.0, 0.0, 0.5};
    assert_int_equal(nscd_world_set_body(w, low, NULL, NULL, up, NULL), NSCD_OK);
    assert_int_equal(sleeping(w, low), 0);
    assert_int_equal(sleeping(w, high), 0);
    assert_int_equal(sleeping(w, apart), 1); /* another island */
    double z = height(w, low);
    step(w);
    assert_true(height(w, low) > z); /* it moves up */
    assert_int_equal(step_until_asleep(w, 3, 3000) > 0, 1);
    assert_int_equal(nscd_world_wake_body(w, high), NSCD_OK);
    assert_int_equal(sleeping(w, low), 0);
    assert_int_equal(sleeping(w, apart), 1);
    assert_true(step_until_asleep(w, 3, 3000) > 0);
    const double push[3] = {1.0, 0.0, 0.0};
    assert_int_equal(nscd_world_set_applied_force(w, apart, push, NULL), NSCD_OK);
    assert_int_equal(sleeping(w, apart), 0);
    assert_int_equal(sleeping(w, low), 1);
    /* a static body added (it may overlap a sleeping one, which the
     * detection would not see) and a friction changed wake everything */
    assert_int_equal(nscd_world_set_applied_force(w, apart, NULL, NULL), NSCD_OK);
    assert_true(step_until_asleep(w, 3, 3000) > 0);
    add_box(w, NSCD_BODY_STATIC, 0.3, 0.0, HALF);
    assert_int_equal(sleeping(w, low) + sleeping(w, high) + sleeping(w, apart), 0);
    assert_true(step_until_asleep(w, 3, 3000) > 0);
    assert_int_equal(nscd_world_set_pair_friction(w, 0, 0, 0.1), NSCD_OK);
    assert_int_equal(sleeping(w, low) + sleeping(w, high) + sleeping(w, apart), 0);
    /* bad calls: nothing written, a status */
    int32_t s = 7;
    assert_int_equal(nscd_world_body_sleeping(w, 12345, &s), NSCD_ERR_STALE_HANDLE);
    assert_int_equal(s, 7);
    assert_int_equal(nscd_world_body_sleeping(w, low, NULL), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_world_body_sleeping(NULL, low, &s), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_world_wake_body(w, 12345), NSCD_ERR_STALE_HANDLE);
    assert_int_equal(nscd_world_wake_body(NULL, low), NSCD_ERR_NULL_POINTER);
    nscd_world_destroy(w);
}

/* z after falling freely for `steps` steps from rest at z0 (symplectic
 * Euler: v_k = -k g dt, z_k = z0 - g dt² k (k + 1) / 2). */
static double fallen(double z0, int steps) {
    double dt = 1e-3;
    return z0 - G * dt * dt * steps * (steps + 1) / 2.0;
}

/* A box asleep on a dynamic box: the lower one removed, the upper one wakes
 * and falls freely; asleep on a static pedestal: the same; asleep on a
 * kinematic platform that starts to sink: it wakes and follows. */
static void removed_support_wakes(void **state) {
    (void)state;
    nscd_world *w = make_world();
    nscd_body_id low = add_box(w, NSCD_BODY_DYNAMIC, 0.0, 0.0, HALF);
    nscd_body_id high = add_box(w, NSCD_BODY_DYNAMIC, 0.0, 0.0, 3.0 * HALF);
    nscd_body_id pedestal = add_box(w, NSCD_BODY_STATIC, 0.1, 0.0, HALF);
    nscd_body_id on_pedestal = add_box(w, NSCD_BODY_DYNAMIC, 0.1, 0.0, 3.0 * HALF);
    nscd_body_id platform = add_box(w, NSCD_BODY_KINEMATIC, -0.1, 0.0, 0.05);
    nscd_body_id on_platform = add_box(w, NSCD_BODY_DYNAMIC, -0.1, 0.0, 0.05 + 2.0 * HALF);
    assert_true(step_until_asleep(w, 4, 3000) > 0);
    double z_high = height(w, high), z_ped = height(w, on_pedestal);
    double z_plat = height(w, on_platform);
    assert_int_equal(nscd_world_remove_body(w, low), NSCD_OK);
    assert_int_equal(sleeping(w, high), 0);
    assert_int_equal(sleeping(w, on_pedestal), 1); /* not touched */
    assert_int_equal(nscd_world_remove_body(w, pedestal), NSCD_OK);
    assert_int_equal(sleeping(w, on_pedestal), 0);
    const double sink[3] = {0.0, 0.0, -0.2};
    assert_int_equal(nscd_world_set_body(w, platform, NULL, NULL, sink, NULL), NSCD_OK);
    for (int s = 1; s <= 20; ++s) {
        step(w);
        /* free fall, to the speculative contact's step of the first ones */
        assert_true(fabs(height(w, high) - fallen(z_high, s)) < 2e-6 * s);
        assert_true(fabs(height(w, on_pedestal) - fallen(z_ped, s)) < 2e-6 * s);
    }
    assert_int_equal(sleeping(w, on_platform), 0);
    assert_true(height(w, on_platform) < z_plat - 0.002); /* it follows its support down */
    /* the fallen boxes end on the floor */
    for (int s = 0; s < 1000; ++s) {
        step(w);
    }
    assert_true(fabs(height(w, high) - HALF) < 1e-3);
    assert_true(fabs(height(w, on_pedestal) - HALF) < 1e-3);
    nscd_world_destroy(w);
}

/* Bad sleep settings: refused with a status, no world made. */
static void bad_settings_refused(void **state) {
    (void)state;
    struct {
        double speed, time;
        int32_t sleep;
        nscd_status expected;
    } cases[] = {
        {NAN, 0.5, 1, NSCD_ERR_NOT_FINITE},        {0.01, NAN, 1, NSCD_ERR_NOT_FINITE},
        {INFINITY, 0.5, 1, NSCD_ERR_NOT_FINITE},   {0.01, INFINITY, 0, NSCD_ERR_NOT_FINITE},
        {-0.01, 0.5, 1, NSCD_ERR_OUT_OF_RANGE},    {0.01, -1.0, 1, NSCD_ERR_OUT_OF_RANGE},
        {0.01, 0.5, 2, NSCD_ERR_INVALID_ARGUMENT}, {0.01, 0.5, -1, NSCD_ERR_INVALID_ARGUMENT}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        nscd_world_desc d;
        nscd_world_desc_init(&d, sizeof d);
        d.sleep_speed = cases[k].speed;
        d.sleep_time = cases[k].time;
        d.sleep = cases[k].sleep;
        nscd_world *w = NULL;
        assert_int_equal(nscd_world_create(&d, &w), cases[k].expected);
        assert_null(w);
    }
    /* the defaults: off, 1 cm/s, 0.5 s */
    nscd_world_desc d;
    nscd_world_desc_init(&d, sizeof d);
    assert_int_equal(d.sleep, 0);
    assert_true(d.sleep_speed == 0.01 && d.sleep_time == 0.5);
    /* without sleeping nothing sleeps */
    d.sleep_time = 0.0;
    nscd_world *w = NULL;
    assert_int_equal(nscd_world_create(&d, &w), NSCD_OK);
    nscd_body_id box = add_box(w, NSCD_BODY_DYNAMIC, 0.0, 0.0, HALF);
    for (int s = 0; s < 50; ++s) {
        assert_int_equal(step(w).sleeping_bodies, 0);
    }
    assert_int_equal(sleeping(w, box), 0);
    nscd_world_destroy(w);
}

/* A small pile of boxes and balls dropped in a row: some asleep, some not. */
static nscd_world *pile(int32_t threads, nscd_body_id *ids, int n) {
    nscd_world *w = make_world_threads(threads);
    for (int k = 0; k < n; ++k) {
        double x = 0.025 * (k % 4) - 0.04, z = HALF + 0.025 * (k / 4) + 0.002 * (k % 3);
        ids[k] = k % 2 ? add_box(w, NSCD_BODY_DYNAMIC, x, 0.003 * (k % 3), z)
                       : world_sphere(w, x, 0.003 * (k % 3), z, 0.008);
    }
    return w;
}

static void same_state(const nscd_world *a, const nscd_world *b, const nscd_body_id *ids, int n) {
    for (int k = 0; k < n; ++k) {
        double xa[13], xb[13];
        assert_int_equal(nscd_world_get_body(a, ids[k], xa, xa + 3, xa + 7, xa + 10), NSCD_OK);
        assert_int_equal(nscd_world_get_body(b, ids[k], xb, xb + 3, xb + 7, xb + 10), NSCD_OK);
        assert_memory_equal(xa, xb, sizeof xa);
        assert_int_equal(sleeping(a, ids[k]), sleeping(b, ids[k]));
    }
}

/* A checkpoint taken with sleeping bodies continues bitwise, waking and
 * all (a ball dropped on the pile after the restart). */
static void checkpoint_round_trip(void **state) {
    (void)state;
    enum { N = 8 };
    nscd_body_id ids[N];
    nscd_world *a = pile(0, ids, N);
    int asleep = 0;
    for (int s = 0; s < 1500 && asleep == 0; ++s) {
        asleep = step(a).sleeping_bodies;
    }
    assert_true(asleep > 0);
    size_t size = 0;
    assert_int_equal(nscd_world_save_to_buffer(a, NULL, 0, NULL, 0, &size),
                     NSCD_ERR_BUFFER_TOO_SMALL);
    unsigned char *bytes = malloc(size);
    assert_non_null(bytes);
    assert_int_equal(nscd_world_save_to_buffer(a, NULL, 0, bytes, size, &size), NSCD_OK);
    nscd_world_desc d;
    nscd_world_desc_init(&d, sizeof d);
    nscd_world *b = NULL;
    assert_int_equal(nscd_world_create(&d, &b), NSCD_OK);
    assert_int_equal(nscd_world_load_from_buffer(b, bytes, size, NULL, 0, NULL), NSCD_OK);
    same_state(a, b, ids, N);
    /* and saves the same bytes */
    unsigned char *again = malloc(size);
    assert_non_null(again);
    size_t size2 = 0;
    assert_int_equal(nscd_world_save_to_buffer(b, NULL, 0, again, size, &size2), NSCD_OK);
    assert_int_equal(size2, size);
    assert_memory_equal(bytes, again, size);
    nscd_body_id ball_a = world_sphere(a, 0.0, 0.0, 0.12, 0.006);
    nscd_body_id ball_b = world_sphere(b, 0.0, 0.0, 0.12, 0.006);
    assert_true(ball_a == ball_b);
    for (int s = 0; s < 600; ++s) {
        nscd_world_step_report ra = step(a), rb = step(b);
        assert_int_equal(ra.sleeping_bodies, rb.sleeping_bodies);
    }
    same_state(a, b, ids, N);
    free(bytes);
    free(again);
    nscd_world_destroy(a);
    nscd_world_destroy(b);
}

/* Threads 1, 2 and 3: the same bits, sleeping included. */
static void threads_bitwise(void **state) {
    (void)state;
    enum { N = 12 };
    nscd_body_id ids[3][N];
    nscd_world *w[3];
    for (int t = 0; t < 3; ++t) {
        w[t] = pile(t + 1, ids[t], N);
    }
    int most = 0;
    for (int s = 0; s < 1200; ++s) {
        nscd_world_step_report r[3];
        for (int t = 0; t < 3; ++t) {
            r[t] = step(w[t]);
        }
        assert_int_equal(r[0].sleeping_bodies, r[1].sleeping_bodies);
        assert_int_equal(r[0].sleeping_bodies, r[2].sleeping_bodies);
        most = r[0].sleeping_bodies > most ? r[0].sleeping_bodies : most;
    }
    assert_true(most > 0);
    for (int t = 1; t < 3; ++t) {
        same_state(w[0], w[t], ids[0], N);
    }
    for (int t = 0; t < 3; ++t) {
        nscd_world_destroy(w[t]);
    }
}

/* The time steppers integrate every body: a world with sleeping refused. */
static void time_stepper_refuses_sleep(void **state) {
    (void)state;
    nscd_world *w = make_world();
    add_box(w, NSCD_BODY_DYNAMIC, 0.0, 0.0, HALF);
    nscd_time_stepping *ts = NULL;
    nscd_status rc = nscd_time_stepping_create_world(w, NULL, &ts);
    if (rc == NSCD_OK) {
        rc = nscd_time_stepping_advance(ts, 1e-3, NULL);
        nscd_time_stepping_destroy(ts);
    }
    assert_int_equal(rc, NSCD_ERR_UNSUPPORTED);
    assert_non_null(strstr(nscd_world_last_error(w), "sleep"));
    nscd_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(box_falls_asleep_and_stays),
        cmocka_unit_test(dropped_ball_wakes_stack),
        cmocka_unit_test(api_wakes_island),
        cmocka_unit_test(removed_support_wakes),
        cmocka_unit_test(bad_settings_refused),
        cmocka_unit_test(checkpoint_round_trip),
        cmocka_unit_test(threads_bitwise),
        cmocka_unit_test(time_stepper_refuses_sleep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
