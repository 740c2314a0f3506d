/* Re-entrancy (docs/hostile_input.md): a handle destroyed inside one of its
 * own callbacks (a time stepper's on_step, the event-driven stepper's
 * on_event, a system's force callback, the log hook of a world step) is
 * freed when the running call returns, which then returns
 * NSCD_ERR_STALE_HANDLE; a nested advance or step of the same handle fails
 * with NSCD_ERR_STATE and changes nothing. Run under ASan or valgrind, a
 * use after free or a leak in any of these fails the test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "nscd/event_driven.h"
#include "nscd/system.h"
#include "nscd/time_stepping.h"
#include "world_bodies.h"
#include "nscd/world.h"

/* ------------------------------------------------------------ a 1-dof oscillator */

/* What a callback does when it is called for the `at`-th time. */
enum { DESTROY_STEPPER, DESTROY_SYSTEM, NESTED_ADVANCE, NOTHING };

typedef struct scene {
    nscd_system *system;
    nscd_time_stepping *ts;
    nscd_event_driven *ed;
    int action;
    int at;          /* 1-based call count at which to act */
    int calls;       /* calls of the callback so far */
    int calls_after; /* calls after the action (the call must stop) */
    nscd_status nested;
    double t_action; /* the time at which the callback acted */
} scene;

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

/* The same spring, and the scene's action at its at-th evaluation. */
static nscd_status spring_that_acts(void *u, double t, const double *q, const double *v,
                                    double *h) {
    scene *s = u;
    if (++s->calls == s->at) {
        s->t_action = t;
        if (s->action == DESTROY_SYSTEM) {
            nscd_system_destroy(s->system);
        } else if (s->action == NESTED_ADVANCE) {
            s->nested = nscd_time_stepping_advance(s->ts, t + 1.0, NULL);
        }
    }
    return spring(NULL, t, q, v, h);
}

static nscd_system *oscillator(scene *s, nscd_forces_fn forces) {
    nscd_system_desc d;
    nscd_system_desc_init(&d, sizeof d);
    d.n_dof = 1, d.mass = unit_mass, d.forces = forces, d.user = s;
    nscd_system *sys = NULL;
    assert_int_equal(nscd_system_create(&d, &sys), NSCD_OK);
    double q0 = 1.0, v0 = 0.0;
    assert_int_equal(nscd_system_set_state(sys, 0.0, &q0, &v0), NSCD_OK);
    return sys;
}

static void act(scene *s, double t) {
    if (s->calls > s->at) {
        s->calls_after++;
        return;
    }
    if (s->calls != s->at) {
        return;
    }
    s->t_action = t;
    switch (s->action) {
    case DESTROY_STEPPER:
        if (s->ts != NULL) {
            nscd_time_stepping_destroy(s->ts);
        } else {
            nscd_event_driven_destroy(s->ed);
        }
        break;
    case DESTROY_SYSTEM: nscd_system_destroy(s->system); break;
    case NESTED_ADVANCE:
        s->nested = s->ts != NULL ? nscd_time_stepping_advance(s->ts, t + 1.0, NULL)
                                  : nscd_event_driven_advance(s->ed, t + 1.0, NULL);
        break;
    default: break;
    }
}

static int32_t on_step(void *user, const nscd_time_stepping_report *report) {
    scene *s = user;
    s->calls++;
    act(s, report->t);
    return 0;
}

static nscd_time_stepping *stepper(scene *s, nscd_system *sys, double dt) {
    nscd_time_stepping_options o;
    nscd_time_stepping_options_init(&o, sizeof o);
    o.dt = dt;
    o.on_step = on_step, o.on_step_user = s;
    nscd_time_stepping *ts = NULL;
    assert_int_equal(nscd_time_stepping_create(sys, &o, &ts), NSCD_OK);
    return ts;
}

/* on_step destroys its own stepper at the third step: the advance stops
 * there (t = 3 dt, no further callback) and frees the stepper on return. */
static void time_stepper_destroyed_in_on_step(void **state) {
    (void)state;
    scene s = {.action = DESTROY_STEPPER, .at = 3};
    s.system = oscillator(&s, spring);
    s.ts = stepper(&s, s.system, 0.01);
    assert_int_equal(nscd_time_stepping_advance(s.ts, 1.0, NULL), NSCD_ERR_STALE_HANDLE);
    assert_int_equal(s.calls, 3);
    double t = -1.0;
    assert_int_equal(nscd_system_get_state(s.system, &t, NULL, NULL), NSCD_OK);
    assert_true(fabs(t - 0.03) < 1e-12 && t == s.t_action);
    nscd_system_destroy(s.system); /* the stepper is gone already: no double free */
}

/* on_step destroys the stepper's system: the advance stops after that
 * step, frees the system on return; the stepper sees a stale handle. */
static void system_destroyed_in_on_step(void **state) {
    (void)state;
    scene s = {.action = DESTROY_SYSTEM, .at = 2};
    s.system = oscillator(&s, spring);
    s.ts = stepper(&s, s.system, 0.01);
    assert_int_equal(nscd_time_stepping_advance(s.ts, 1.0, NULL), NSCD_ERR_STALE_HANDLE);
    assert_int_equal(s.calls, 2);
    assert_int_equal(nscd_time_stepping_advance(s.ts, 2.0, NULL), NSCD_ERR_STALE_HANDLE);
    assert_non_null(strstr(nscd_time_stepping_last_error(s.ts), "destroyed"));
    nscd_time_stepping_destroy(s.ts);
}

/* A nested advance of the stepper from its own on_step is refused with
 * NSCD_ERR_STATE and a message naming the call; the outer advance goes on
 * to t_end as if nothing happened. */
static void nested_advance_in_on_step(void **state) {
    (void)state;
    scene s = {.action = NESTED_ADVANCE, .at = 2};
    s.system = oscillator(&s, spring);
    s.ts = stepper(&s, s.system, 0.01);
    assert_int_equal(nscd_time_stepping_advance(s.ts, 0.1, NULL), NSCD_OK);
    assert_int_equal(s.nested, NSCD_ERR_STATE);
    assert_int_equal(s.calls, 10);
    double t = -1.0;
    assert_int_equal(nscd_system_get_state(s.system, &t, NULL, NULL), NSCD_OK);
    assert_true(fabs(t - 0.1) < 1e-12);
    nscd_time_stepping_destroy(s.ts);
    nscd_system_destroy(s.system);
}

/* The system's own force callback destroys the system during a step: the
 * step completes on the living system, the advance stops and frees it. */
static void system_destroyed_in_its_force_callback(void **state) {
    (void)state;
    scene s = {.action = DESTROY_SYSTEM, .at = 5};
    s.system = oscillator(&s, spring_that_acts);
    scene observer = {.action = NOTHING, .at = -1};
    s.ts = stepper(&observer, s.system, 0.01);
    assert_int_equal(nscd_time_stepping_advance(s.ts, 1.0, NULL), NSCD_ERR_STALE_HANDLE);
    assert_true(observer.calls < 10); /* stopped right after the step of the destroy */
    assert_int_equal(nscd_time_stepping_advance(s.ts, 2.0, NULL), NSCD_ERR_STALE_HANDLE);
    nscd_time_stepping_destroy(s.ts);
}

/* A nested advance from the system's force callback is refused too. */
static void nested_advance_in_force_callback(void **state) {
    (void)state;
    scene s = {.action = NESTED_ADVANCE, .at = 3};
    s.system = oscillator(&s, spring_that_acts);
    scene observer = {.action = NOTHING, .at = -1};
    s.ts = stepper(&observer, s.system, 0.01);
    assert_int_equal(nscd_time_stepping_advance(s.ts, 0.05, NULL), NSCD_OK);
    assert_int_equal(s.nested, NSCD_ERR_STATE);
    nscd_time_stepping_destroy(s.ts);
    nscd_system_destroy(s.system);
}

/* ------------------------------------------------------------ event-driven */

static nscd_status height_event(void *u, double t, const double *q, const double *v, double *val) {
    (void)u, (void)t, (void)v;
    val[0] = q[0] - 0.5;
    return NSCD_OK;
}

static int32_t on_event(void *user, const nscd_event_info *info) {
    scene *s = user;
    s->calls++;
    act(s, info->t);
    return NSCD_EVENT_CONTINUE;
}

static nscd_event_driven *event_stepper(scene *s, nscd_system *sys) {
    nscd_event_driven_options o;
    nscd_event_driven_options_init(&o, sizeof o);
    o.n_user_events = 1, o.user_events = height_event;
    o.on_event = on_event, o.on_event_user = s;
    nscd_event_driven *ed = NULL;
    assert_int_equal(nscd_event_driven_create(sys, &o, &ed), NSCD_OK);
    return ed;
}

/* q = cos 2t crosses 1/2 first at t = π/6: the stepper or its system
 * destroyed at the second crossing (t = 5π/6) stops the advance there. */
static void event_driven_destroyed_in_on_event(void **state) {
    (void)state;
    for (int action = DESTROY_STEPPER; action <= DESTROY_SYSTEM; ++action) {
        scene s = {.action = action, .at = 2};
        s.system = oscillator(&s, spring);
        s.ed = event_stepper(&s, s.system);
        assert_int_equal(nscd_event_driven_advance(s.ed, 10.0, NULL), NSCD_ERR_STALE_HANDLE);
        assert_int_equal(s.calls, 2);
        assert_int_equal(s.calls_after, 0);
        assert_true(fabs(s.t_action - 5.0 * acos(-1.0) / 6.0) < 1e-6);
        if (action == DESTROY_STEPPER) {
            double t = -1.0;
            assert_int_equal(nscd_system_get_state(s.system, &t, NULL, NULL), NSCD_OK);
            assert_true(fabs(t - s.t_action) < 1e-9);
            nscd_system_destroy(s.system);
        } else {
            assert_int_equal(nscd_event_driven_advance(s.ed, 20.0, NULL), NSCD_ERR_STALE_HANDLE);
            nscd_event_driven_destroy(s.ed);
        }
    }
}

static void event_driven_nested_advance(void **state) {
    (void)state;
    scene s = {.action = NESTED_ADVANCE, .at = 1};
    s.system = oscillator(&s, spring);
    s.ed = event_stepper(&s, s.system);
    assert_int_equal(nscd_event_driven_advance(s.ed, 10.0, NULL), NSCD_OK);
    assert_int_equal(s.nested, NSCD_ERR_STATE);
    assert_int_equal(s.calls, 7); /* the 7 crossings before 10 s, none lost */
    nscd_event_driven_destroy(s.ed);
    nscd_system_destroy(s.system);
}

/* ------------------------------------------------------------ world */

typedef struct world_scene {
    nscd_world *world;
    nscd_time_stepping *ts;
    int action; /* 0 destroy the world, 1 destroy the stepper, 2 step the world */
    int calls, logs;
    nscd_status nested;
} world_scene;

static nscd_world *sphere_on_floor(nscd_log_fn log, void *log_user, double tolerance) {
    nscd_world_desc d;
    nscd_world_desc_init(&d, sizeof d);
    d.log = log, d.log_user = log_user;
    d.tolerance = tolerance;
    d.on_unconverged = NSCD_UNCONVERGED_FAIL; /* the log hook runs on the failure */
    d.max_sweeps = 1;
    nscd_world *w = NULL;
    assert_int_equal(nscd_world_create(&d, &w), NSCD_OK);
    world_floor(w);
    world_sphere(w, 0.0, 0.0, 0.4, 0.5); /* resting on the floor: a contact every step */
    return w;
}

static int32_t world_on_step(void *user, const nscd_time_stepping_report *report) {
    (void)report;
    world_scene *s = user;
    if (++s->calls == 2) {
        if (s->action == 0) {
            nscd_world_destroy(s->world);
        } else if (s->action == 1) {
            nscd_time_stepping_destroy(s->ts);
        } else {
            s->nested = nscd_world_step(s->world, NULL);
        }
    }
    return 0;
}

/* A time stepper driving a world: on_step destroys the world, or the
 * stepper, or steps the world (NSCD_ERR_STATE, the world untouched). */
static void world_stepper_callbacks(void **state) {
    (void)state;
    for (int action = 0; action < 3; ++action) {
        world_scene s = {.action = action};
        s.world = sphere_on_floor(NULL, NULL, 0.0);
        nscd_time_stepping_options o;
        nscd_time_stepping_options_init(&o, sizeof o);
        o.dt = 0.01;
        o.on_step = world_on_step, o.on_step_user = &s;
        assert_int_equal(nscd_time_stepping_create_world(s.world, &o, &s.ts), NSCD_OK);
        nscd_status rc = nscd_time_stepping_advance(s.ts, 0.1, NULL);
        if (action == 0) {
            assert_int_equal(rc, NSCD_ERR_STALE_HANDLE);
            assert_int_equal(s.calls, 2);
            assert_int_equal(nscd_time_stepping_advance(s.ts, 0.2, NULL), NSCD_ERR_STALE_HANDLE);
            nscd_time_stepping_destroy(s.ts);
        } else if (action == 1) {
            assert_int_equal(rc, NSCD_ERR_STALE_HANDLE);
            assert_int_equal(s.calls, 2);
            assert_true(fabs(nscd_world_time(s.world) - 0.02) < 1e-12);
            nscd_world_destroy(s.world);
        } else {
            assert_int_equal(rc, NSCD_OK);
            assert_int_equal(s.nested, NSCD_ERR_STATE);
            assert_non_null(strstr(nscd_world_last_error(s.world), "nscd_world_step"));
            assert_true(fabs(nscd_world_time(s.world) - 0.1) < 1e-12); /* no extra step */
            nscd_time_stepping_destroy(s.ts);
            nscd_world_destroy(s.world);
        }
    }
}

static void destroying_log(void *user, int32_t level, const char *message) {
    (void)level, (void)message;
    world_scene *s = user;
    s->logs++;
    if (s->action == 0) {
        nscd_world_destroy(s->world);
    } else if (s->action == 2) {
        s->nested = nscd_world_step(s->world, NULL);
    }
}

/* The world's log hook, called by a step that did not converge (one sweep,
 * a tolerance no sweep reaches), destroys the world: the step returns
 * NSCD_ERR_STALE_HANDLE and the world is freed. A step from the hook is
 * refused (NSCD_ERR_STATE), without a second log line (no recursion). */
static void world_destroyed_in_log_during_step(void **state) {
    (void)state;
    world_scene s = {.action = 0};
    s.world = sphere_on_floor(destroying_log, &s, 1e-300);
    assert_int_equal(nscd_world_step(s.world, NULL), NSCD_ERR_STALE_HANDLE);
    assert_int_equal(s.logs, 1);

    world_scene n = {.action = 2};
    n.world = sphere_on_floor(destroying_log, &n, 1e-300);
    assert_int_equal(nscd_world_step(n.world, NULL), NSCD_ERR_NOT_CONVERGED);
    assert_int_equal(n.nested, NSCD_ERR_STATE);
    assert_int_equal(n.logs, 1);
    nscd_world_destroy(n.world);
}

/* Outside a step, a destroy from the log hook is refused: the failing
 * call still uses the world after the hook returns. The world stays valid
 * and says so; destroyed afterwards, nothing leaks. */
static void world_destroy_refused_in_log_outside_step(void **state) {
    (void)state;
    world_scene s = {.action = 0};
    s.world = sphere_on_floor(destroying_log, &s, 0.0);
    nscd_body_desc b;
    nscd_body_desc_init(&b, sizeof b);
    b.mass = -1.0;
    nscd_shape_desc sh;
    nscd_shape_desc_init(&sh, sizeof sh);
    nscd_body_id id = 0;
    assert_int_not_equal(nscd_world_add_body(s.world, &b, &sh, 1, &id), NSCD_OK);
    assert_int_equal(s.logs, 1);
    assert_non_null(strstr(nscd_world_last_error(s.world), "refused"));
    s.action = 3; /* the hook does nothing from now on */
    assert_int_equal(nscd_world_step(s.world, NULL), NSCD_OK);
    nscd_world_destroy(s.world);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(time_stepper_destroyed_in_on_step),
        cmocka_unit_test(system_destroyed_in_on_step),
        cmocka_unit_test(nested_advance_in_on_step),
        cmocka_unit_test(system_destroyed_in_its_force_callback),
        cmocka_unit_test(nested_advance_in_force_callback),
        cmocka_unit_test(event_driven_destroyed_in_on_event),
        cmocka_unit_test(event_driven_nested_advance),
        cmocka_unit_test(world_stepper_callbacks),
        cmocka_unit_test(world_destroyed_in_log_during_step),
        cmocka_unit_test(world_destroy_refused_in_log_outside_step),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
