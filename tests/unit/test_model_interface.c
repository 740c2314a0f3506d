/* The model interface v2 through the stepper: equality (bilateral) entries,
 * steps rejected and retried from a saved state, and the lifetime rule of a
 * stepper whose system is destroyed first. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "core/memory.h"
#include "integrators/event_driven/event_driven_impl.h"
#include "models.h"
#include "models/system.h"

#define G 9.81
#define LENGTH 1.0
#define MASS 1.5
#define WALL 0.3 /* x of the wall the bob hits */
#define THETA0 -0.6
#define E 0.8
#define T_END 10.0

/* ------------------------------------------------------------ Cartesian pendulum */

/* A point mass at (x, y) held on the circle x^2 + y^2 = L^2 by an equality
 * entry (0), beside a wall x <= WALL (unilateral entry 1, Newton e). */
typedef struct cartesian {
    nscd__model model;
    double t, q[2], v[2];
    nscd__contact_slot entries[2];
    int32_t mass_blocks[2];
    nscd_diag diag;
    nscd_allocator allocator;
} cartesian;

static nscd_status c_mass_solve(void *self, const double *q, int32_t block, int32_t nrhs,
                                const double *B, double *X) {
    (void)self, (void)q, (void)block;
    for (int32_t i = 0; i < 2 * nrhs; ++i) {
        X[i] = B[i] / MASS;
    }
    return NSCD_OK;
}

static nscd_status c_mass_times(void *self, const double *q, const double *x, double *y) {
    (void)self, (void)q;
    y[0] = MASS * x[0];
    y[1] = MASS * x[1];
    return NSCD_OK;
}

static nscd_status c_forces(void *self, double t, const double *q, const double *v, double *h) {
    (void)self, (void)t, (void)q, (void)v;
    h[0] = 0.0;
    h[1] = -MASS * G;
    return NSCD_OK;
}

static void c_rate(void *self, const double *q, const double *v, double *qdot) {
    (void)self, (void)q;
    qdot[0] = v[0];
    qdot[1] = v[1];
}

static void c_displace(void *self, const double *q, const double *dq, double *q_out) {
    (void)self;
    q_out[0] = q[0] + dq[0];
    q_out[1] = q[1] + dq[1];
}

static nscd_status c_entry(void *self, int32_t index, double t, const double *q, double *gap,
                           nscd__rows *rows) {
    (void)self, (void)t;
    nscd__rows_dense(rows, 1, 2, rows->values);
    if (index == 0) { /* (|r|^2 - L^2) / 2L: the distance to the circle, to first order */
        *gap = (q[0] * q[0] + q[1] * q[1] - LENGTH * LENGTH) / (2.0 * LENGTH);
        rows->values[0] = q[0] / LENGTH;
        rows->values[1] = q[1] / LENGTH;
    } else {
        *gap = WALL - q[0];
        rows->values[0] = -1.0;
        rows->values[1] = 0.0;
    }
    return NSCD_OK;
}

static void cartesian_init(cartesian *c, const nscd_contact_law *law) {
    memset(c, 0, sizeof *c);
    c->allocator = nscd__allocator_resolve(NULL);
    c->mass_blocks[1] = 2;
    nscd__model *m = &c->model;
    *m = (nscd__model){.self = c,
                       .n_q = 2,
                       .n_v = 2,
                       .n_contacts = 2,
                       .row_width = 2,
                       .n_mass_blocks = 1,
                       .mass_block_start = c->mass_blocks,
                       .t = &c->t,
                       .q = c->q,
                       .v = c->v,
                       .contacts = c->entries,
                       .diag = &c->diag,
                       .allocator = &c->allocator,
                       .mass_solve = c_mass_solve,
                       .mass_times = c_mass_times,
                       .forces = c_forces,
                       .position_rate = c_rate,
                       .displace = c_displace,
                       .entry = c_entry};
    c->entries[0].key = 0;
    c->entries[0].kind = NSCD__ENTRY_EQUALITY;
    c->entries[0].state.mode = NSCD_CONTACT_CLOSED;
    c->entries[1].key = 1;
    c->entries[1].law = *law;
    c->q[0] = LENGTH * sin(THETA0);
    c->q[1] = -LENGTH * cos(THETA0);
}

/* ------------------------------------------------------------ reduced pendulum */

static nscd_status r_mass(void *user, const double *q, double *mass) {
    (void)user, (void)q;
    mass[0] = MASS * LENGTH * LENGTH;
    return NSCD_OK;
}

static nscd_status r_forces(void *user, double t, const double *q, const double *v, double *h) {
    (void)user, (void)t, (void)v;
    h[0] = -MASS * G * LENGTH * sin(q[0]);
    return NSCD_OK;
}

static nscd_status r_contact(void *user, int32_t index, double t, const double *q, double *gap,
                             double *w_normal, double *w_tangent) {
    (void)user, (void)index, (void)t, (void)w_tangent;
    *gap = WALL - LENGTH * sin(q[0]);
    w_normal[0] = -LENGTH * cos(q[0]);
    return NSCD_OK;
}

static nscd_system *reduced_pendulum(const nscd_contact_law *law) {
    nscd_system_desc d;
    nscd_system_desc_init(&d, sizeof d);
    d.n_dof = 1;
    d.n_contacts = 1;
    d.mass = r_mass;
    d.forces = r_forces;
    d.contact = r_contact;
    nscd_system *sys = NULL;
    assert_int_equal(nscd_system_create(&d, &sys), NSCD_OK);
    nscd_contact_desc c;
    nscd_contact_desc_init(&c, sizeof c);
    c.law = law;
    assert_int_equal(nscd_system_set_contact(sys, 0, &c), NSCD_OK);
    const double q = THETA0, v = 0.0;
    assert_int_equal(nscd_system_set_state(sys, 0.0, &q, &v), NSCD_OK);
    return sys;
}

/* Events, and at impacts the gap velocity of the wall (the entry whose
 * index is the last of the impact's: the reduced model's only contact, the
 * Cartesian model's entry 1) after the impact. */
typedef struct wall_log {
    int count;
    int32_t type[256];
    double t[256], wall_after[256];
} wall_log;

static int32_t log_wall(void *user, const nscd_event_info *info) {
    wall_log *log = user;
    if (log->count < 256) {
        log->type[log->count] = info->type;
        log->t[log->count] = info->t;
        log->wall_after[log->count] =
            info->type == NSCD_EVENT_IMPACT ? info->gap_velocity_after[info->n_contacts - 1] : NAN;
    }
    log->count++;
    return NSCD_EVENT_CONTINUE;
}

static nscd_event_driven_options logging(wall_log *log) {
    nscd_event_driven_options opt;
    nscd_event_driven_options_init(&opt, sizeof opt);
    opt.on_event = log_wall;
    opt.on_event_user = log;
    return opt;
}

/* The same pendulum in reduced coordinates (theta, generic system) and in
 * Cartesian coordinates held on the circle by an equality entry: the same
 * impacts at the same times, theta' -> -e theta' at each, and the bob
 * stays on the circle. The impacts of the Cartesian model solve the mixed
 * LCP (equality rows condensed out). */
static void equality_pendulum_matches_reduced_coordinates(void **state) {
    (void)state;
    nscd_contact_law *law = NULL;
    assert_int_equal(nscd_contact_law_create_newton(E, NULL, &law), NSCD_OK);
    static wall_log reduced_log, cartesian_log;
    memset(&reduced_log, 0, sizeof reduced_log);
    memset(&cartesian_log, 0, sizeof cartesian_log);

    nscd_system *sys = reduced_pendulum(law);
    nscd_event_driven_options opt = logging(&reduced_log);
    nscd_event_driven *ed = NULL;
    assert_int_equal(nscd_event_driven_create(sys, &opt, &ed), NSCD_OK);
    assert_int_equal(nscd_event_driven_advance(ed, T_END, NULL), NSCD_OK);
    double theta = 0.0, omega = 0.0;
    assert_int_equal(nscd_system_get_state(sys, NULL, &theta, &omega), NSCD_OK);
    nscd_event_driven_destroy(ed);
    nscd_system_destroy(sys);

    static cartesian c;
    cartesian_init(&c, law);
    opt = logging(&cartesian_log);
    assert_int_equal(nscd__event_driven_create(&c.model, &opt, &ed), NSCD_OK);
    nscd_status rc = nscd_event_driven_advance(ed, T_END, NULL);
    if (rc != NSCD_OK) {
        print_message("%s: %s\n", nscd_status_string(rc), nscd_event_driven_last_error(ed));
    }
    assert_int_equal(rc, NSCD_OK);
    nscd_event_driven_destroy(ed);

    int impacts = 0;
    for (int k = 0; k < reduced_log.count; ++k) {
        impacts += reduced_log.type[k] == NSCD_EVENT_IMPACT;
    }
    print_message("# %d impacts, %d events\n", impacts, reduced_log.count);
    assert_true(impacts >= 3);
    assert_int_equal(cartesian_log.count, reduced_log.count);
    for (int k = 0; k < reduced_log.count; ++k) {
        assert_int_equal(cartesian_log.type[k], reduced_log.type[k]);
        assert_true(fabs(cartesian_log.t[k] - reduced_log.t[k]) < 1e-8);
        if (reduced_log.type[k] == NSCD_EVENT_IMPACT) {
            assert_true(fabs(cartesian_log.wall_after[k] - reduced_log.wall_after[k]) < 1e-7);
        }
    }
    double radius = hypot(c.q[0], c.q[1]);
    assert_true(fabs(radius - LENGTH) < 1e-9);
    assert_true(fabs(atan2(c.q[0], -c.q[1]) - theta) < 1e-7);
    assert_true(fabs((c.q[0] * c.v[1] - c.q[1] * c.v[0]) / (LENGTH * LENGTH) - omega) < 1e-7);
    nscd_contact_law_destroy(law);
}

/* Advances a fresh stepper of the model to t_end. */
static nscd_event_driven_stats advance_fresh(nscd__model *model, double t_end) {
    nscd_event_driven *ed = NULL;
    assert_int_equal(nscd__event_driven_create(model, NULL, &ed), NSCD_OK);
    nscd_event_driven_stats stats = {.struct_size = sizeof stats};
    assert_int_equal(nscd_event_driven_advance(ed, t_end, &stats), NSCD_OK);
    nscd_event_driven_destroy(ed);
    return stats;
}

/* A step can be rejected: the saved model state (t, q, v and every entry's
 * mode, slip and law memory) restored, the same advance gives bitwise the
 * same result, impacts and equality forces included. (A stepper's own
 * adaptive state, the next step size and the Zeno counters, is not model
 * state: the retry here uses fresh steppers, as a time stepper retrying a
 * step with the same step size would.) */
static void rejected_step_is_retried_bitwise(void **state) {
    (void)state;
    nscd_contact_law *law = NULL;
    assert_int_equal(nscd_contact_law_create_newton(E, NULL, &law), NSCD_OK);
    static cartesian c;
    cartesian_init(&c, law);
    advance_fresh(&c.model, 0.5);
    nscd__model_state saved;
    assert_int_equal(nscd__model_state_create(&c.model, &saved), NSCD_OK);
    nscd__model_save(&c.model, &saved);
    nscd_event_driven_stats first = advance_fresh(&c.model, 3.0);
    assert_true(first.impacts >= 1);
    double q[2], v[2];
    memcpy(q, c.q, sizeof q);
    memcpy(v, c.v, sizeof v);
    nscd__entry_state after[2] = {c.entries[0].state, c.entries[1].state};

    nscd__model_restore(&c.model, &saved);
    assert_true(c.t == 0.5);
    nscd_event_driven_stats again = advance_fresh(&c.model, 3.0);
    assert_memory_equal(q, c.q, sizeof q);
    assert_memory_equal(v, c.v, sizeof v);
    assert_memory_equal(after, &c.entries[0].state, sizeof after[0]);
    assert_memory_equal(after + 1, &c.entries[1].state, sizeof after[1]);
    assert_int_equal(first.impacts, again.impacts);
    assert_int_equal(first.steps_accepted, again.steps_accepted);
    nscd__model_state_destroy(&c.model, &saved);
    nscd_contact_law_destroy(law);
}

/* The lifetime rule: a stepper refers to its system; destroying the system
 * first leaves the stepper unusable but safe (NSCD_ERR_STALE_HANDLE, and
 * nscd_event_driven_destroy still releases it; valgrind sees no access to
 * freed memory). */
static void stepper_outliving_its_system_is_stale(void **state) {
    (void)state;
    nscd_contact_law *law = NULL;
    assert_int_equal(nscd_contact_law_create_newton(E, NULL, &law), NSCD_OK);
    nscd_system *sys = reduced_pendulum(law);
    nscd_event_driven *ed = NULL, *other = NULL;
    assert_int_equal(nscd_event_driven_create(sys, NULL, &ed), NSCD_OK);
    assert_int_equal(nscd_event_driven_create(sys, NULL, &other), NSCD_OK);
    nscd_event_driven_destroy(other); /* unlinks itself from the system */
    assert_int_equal(nscd_event_driven_advance(ed, 0.1, NULL), NSCD_OK);
    nscd_system_destroy(sys);
    assert_int_equal(nscd_event_driven_advance(ed, 0.2, NULL), NSCD_ERR_STALE_HANDLE);
    assert_non_null(strstr(nscd_event_driven_last_error(ed), "destroyed"));
    double normal = 0.0;
    assert_int_equal(nscd_event_driven_get_contact_force(ed, 0, &normal, NULL),
                     NSCD_ERR_STALE_HANDLE);
    nscd_event_driven_destroy(ed);
    nscd_contact_law_destroy(law);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(equality_pendulum_matches_reduced_coordinates),
        cmocka_unit_test(rejected_step_is_retried_bitwise),
        cmocka_unit_test(stepper_outliving_its_system_is_stale),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
