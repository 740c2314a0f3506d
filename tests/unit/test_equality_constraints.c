/* Equality (bilateral) constraints of the generic system through the public
 * API: a pendulum in Cartesian coordinates held on its circle by an equality
 * constraint against the same pendulum in reduced coordinates, their
 * multipliers, and bad input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "models/system.h"
#include "nscd/nscd.h"

#define G 9.81
#define LENGTH 1.0
#define MASS 1.5
#define WALL 0.3 /* x of the wall the bob hits */
#define THETA0 -0.6
#define E 0.8
#define T_END 10.0

/* What the Cartesian callbacks do: fail or give NaN on request. */
typedef struct pendulum_user {
    int nan_equality;
    int fail_equality;
    int equality_calls;
} pendulum_user;

/* ------------------------------------------------------------ Cartesian pendulum */

static nscd_status c_mass(void *user, const double *q, double *m) {
    (void)user, (void)q;
    m[0] = m[3] = MASS;
    m[1] = m[2] = 0.0;
    return NSCD_OK;
}

static nscd_status c_forces(void *user, double t, const double *q, const double *v, double *h) {
    (void)user, (void)t, (void)q, (void)v;
    h[0] = 0.0;
    h[1] = -MASS * G;
    return NSCD_OK;
}

/* The wall x <= WALL. */
static nscd_status c_wall(void *user, int32_t index, double t, const double *q, double *gap,
                          double *w_normal, double *w_tangent) {
    (void)user, (void)index, (void)t, (void)w_tangent;
    *gap = WALL - q[0];
    w_normal[0] = -1.0;
    w_normal[1] = 0.0;
    return NSCD_OK;
}

/* (|r|^2 - L^2) / 2L: the distance to the circle, to first order. */
static nscd_status c_circle(void *user, int32_t index, double t, const double *q, double *g,
                            double *w) {
    pendulum_user *u = user;
    (void)index, (void)t;
    u->equality_calls++;
    if (u->fail_equality) {
        return (nscd_status)7;
    }
    *g = u->nan_equality ? NAN : (q[0] * q[0] + q[1] * q[1] - LENGTH * LENGTH) / (2.0 * LENGTH);
    w[0] = q[0] / LENGTH;
    w[1] = q[1] / LENGTH;
    return NSCD_OK;
}

static nscd_system_desc cartesian_desc(pendulum_user *u) {
    nscd_system_desc d;
    nscd_system_desc_init(&d, sizeof d);
    d.n_dof = 2;
    d.n_contacts = 1;
    d.n_equalities = 1;
    d.user = u;
    d.mass = c_mass;
    d.forces = c_forces;
    d.contact = c_wall;
    d.equality = c_circle;
    return d;
}

static nscd_system *cartesian_pendulum(pendulum_user *u, const nscd_contact_law *law) {
    nscd_system_desc d = cartesian_desc(u);
    nscd_system *sys = NULL;
    assert_int_equal(nscd_system_create(&d, &sys), NSCD_OK);
    nscd_contact_desc c;
    nscd_contact_desc_init(&c, sizeof c);
    c.law = law;
    assert_int_equal(nscd_system_set_contact(sys, 0, &c), NSCD_OK);
    const double q[2] = {LENGTH * sin(THETA0), -LENGTH * cos(THETA0)}, v[2] = {0.0, 0.0};
    assert_int_equal(nscd_system_set_state(sys, 0.0, q, v), NSCD_OK);
    return sys;
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

/* ------------------------------------------------------------ event logs */

/* Events, and at impacts the wall's (contact 0's) gap velocity after. */
typedef struct wall_log {
    int count, equality_in_impacts;
    int32_t type[256];
    double t[256], wall_after[256];
} wall_log;

static int32_t log_wall(void *user, const nscd_event_info *info) {
    wall_log *log = user;
    if (log->count < 256) {
        log->type[log->count] = info->type;
        log->t[log->count] = info->t;
        log->wall_after[log->count] = NAN;
        for (int32_t k = 0; info->type == NSCD_EVENT_IMPACT && k < info->n_contacts; ++k) {
            if (info->contacts[k] == 0) {
                log->wall_after[log->count] = info->gap_velocity_after[k];
            }
            log->equality_in_impacts += info->contacts[k] == 1; /* equality 0 */
        }
    }
    log->count++;
    return NSCD_EVENT_CONTINUE;
}

static nscd_event_driven *logging_stepper(nscd_system *sys, wall_log *log) {
    nscd_event_driven_options opt;
    nscd_event_driven_options_init(&opt, sizeof opt);
    opt.on_event = log_wall;
    opt.on_event_user = log;
    nscd_event_driven *ed = NULL;
    assert_int_equal(nscd_event_driven_create(sys, &opt, &ed), NSCD_OK);
    return ed;
}

static void assert_same_events(const wall_log *a, const wall_log *b) {
    int impacts = 0;
    for (int k = 0; k < b->count; ++k) {
        impacts += b->type[k] == NSCD_EVENT_IMPACT;
    }
    print_message("# %d impacts, %d events\n", impacts, b->count);
    assert_true(impacts >= 3);
    assert_int_equal(a->count, b->count);
    for (int k = 0; k < b->count && k < 256; ++k) {
        assert_int_equal(a->type[k], b->type[k]);
        assert_true(fabs(a->t[k] - b->t[k]) < 1e-8);
        if (b->type[k] == NSCD_EVENT_IMPACT) {
            assert_true(fabs(a->wall_after[k] - b->wall_after[k]) < 1e-7);
        }
    }
}

/* ------------------------------------------------------------ tests */

/* The Cartesian pendulum (generic system, one equality) moves like the
 * reduced one: the same events at the same times (1e-8), the same final
 * angle and rate (1e-7), and the bob stays on its circle (1e-9). */
static void cartesian_pendulum_matches_reduced_coordinates(void **state) {
    (void)state;
    nscd_contact_law *law = NULL;
    assert_int_equal(nscd_contact_law_create_newton(E, NULL, &law), NSCD_OK);
    static wall_log reduced_log, cartesian_log;
    memset(&reduced_log, 0, sizeof reduced_log);
    memset(&cartesian_log, 0, sizeof cartesian_log);

    nscd_system *sys = reduced_pendulum(law);
    nscd_event_driven *ed = logging_stepper(sys, &reduced_log);
    assert_int_equal(nscd_event_driven_advance(ed, T_END, NULL), NSCD_OK);
    double theta = 0.0, omega = 0.0;
    assert_int_equal(nscd_system_get_state(sys, NULL, &theta, &omega), NSCD_OK);
    nscd_event_driven_destroy(ed);
    nscd_system_destroy(sys);

    pendulum_user u = {0, 0, 0};
    sys = cartesian_pendulum(&u, law);
    ed = logging_stepper(sys, &cartesian_log);
    nscd_status rc = nscd_event_driven_advance(ed, T_END, NULL);
    if (rc != NSCD_OK) {
        print_message("%s: %s\n", nscd_status_string(rc), nscd_event_driven_last_error(ed));
    }
    assert_int_equal(rc, NSCD_OK);
    assert_same_events(&cartesian_log, &reduced_log);
    assert_true(cartesian_log.equality_in_impacts > 0); /* listed as n_contacts + 0 */

    double q[2], v[2], g = 1.0, rate = 1.0;
    assert_int_equal(nscd_system_get_state(sys, NULL, q, v), NSCD_OK);
    assert_true(fabs(hypot(q[0], q[1]) - LENGTH) < 1e-9);
    assert_true(fabs(atan2(q[0], -q[1]) - theta) < 1e-7);
    assert_true(fabs((q[0] * v[1] - q[1] * v[0]) / (LENGTH * LENGTH) - omega) < 1e-7);
    assert_int_equal(nscd_system_get_equality(sys, 0, &g, &rate), NSCD_OK);
    assert_true(fabs(g) < 1e-9 && fabs(rate) < 1e-7);
    print_message("# final angle %.10f (reduced %.10f), radius drift %.2e\n", atan2(q[0], -q[1]),
                  theta, fabs(hypot(q[0], q[1]) - LENGTH));
    nscd_event_driven_destroy(ed);
    nscd_system_destroy(sys);
    nscd_contact_law_destroy(law);
}

/* The multiplier holds the bob on the circle: at rest at THETA0 the radial
 * balance gives lambda = -m g cos(theta) (w = r / L points outwards), and
 * after a free swing lambda = -m (L omega^2 + g cos theta). */
static void equality_force_is_the_rod_tension(void **state) {
    (void)state;
    pendulum_user u = {0, 0, 0};
    nscd_system *sys = cartesian_pendulum(&u, NULL);
    nscd_event_driven *ed = NULL;
    assert_int_equal(nscd_event_driven_create(sys, NULL, &ed), NSCD_OK);
    double lambda = 0.0;
    assert_int_equal(nscd_event_driven_get_equality_force(ed, 0, &lambda), NSCD_OK);
    assert_true(fabs(lambda + MASS * G * cos(THETA0)) < 1e-12);

    assert_int_equal(nscd_event_driven_advance(ed, 0.3, NULL), NSCD_OK); /* before the wall */
    double q[2], v[2];
    assert_int_equal(nscd_system_get_state(sys, NULL, q, v), NSCD_OK);
    double theta = atan2(q[0], -q[1]), omega = (q[0] * v[1] - q[1] * v[0]) / (LENGTH * LENGTH);
    assert_int_equal(nscd_event_driven_get_equality_force(ed, 0, &lambda), NSCD_OK);
    double tension = -MASS * (LENGTH * omega * omega + G * cos(theta));
    print_message("# lambda %.12f, analytic %.12f\n", lambda, tension);
    assert_true(fabs(lambda - tension) < 1e-6);

    /* equality indices are not contacts, and out of range is refused */
    double normal = 5.0;
    assert_int_equal(nscd_event_driven_get_contact_force(ed, 1, &normal, NULL), NSCD_ERR_INDEX);
    assert_true(normal == 5.0);
    assert_int_equal(nscd_event_driven_get_equality_force(ed, 1, &lambda), NSCD_ERR_INDEX);
    assert_int_equal(nscd_event_driven_get_equality_force(ed, -1, &lambda), NSCD_ERR_INDEX);
    assert_int_equal(nscd_event_driven_get_equality_force(NULL, 0, &lambda), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_event_driven_get_equality_force(ed, 0, NULL), NSCD_OK);
    nscd_event_driven_destroy(ed);
    nscd_system_destroy(sys);
}

/* Equalities are not contacts: the sizes and the contact calls ignore them,
 * and they stay held (closed entries after the contacts) when the state is
 * set again. */
static void equalities_are_not_contacts(void **state) {
    (void)state;
    pendulum_user u = {0, 0, 0};
    nscd_system *sys = cartesian_pendulum(&u, NULL);
    int32_t n_dof = 0, n_contacts = 0;
    assert_int_equal(nscd_system_get_sizes(sys, &n_dof, &n_contacts), NSCD_OK);
    assert_int_equal(n_dof, 2);
    assert_int_equal(n_contacts, 1);
    double gap = 0.0;
    assert_int_equal(nscd_system_get_contact(sys, 1, &gap, NULL, NULL), NSCD_ERR_INDEX);
    nscd_contact_desc c;
    nscd_contact_desc_init(&c, sizeof c);
    assert_int_equal(nscd_system_set_contact(sys, 1, &c), NSCD_ERR_INDEX);
    assert_int_equal(nscd_system_get_equality(sys, 1, &gap, NULL), NSCD_ERR_INDEX);
    assert_int_equal(nscd_system_get_equality(sys, -1, &gap, NULL), NSCD_ERR_INDEX);

    const double q[2] = {0.0, -2.0 * LENGTH}, v[2] = {1.0, 0.5};
    assert_int_equal(nscd_system_set_state(sys, 0.0, q, v), NSCD_OK);
    double g = 0.0, rate = 0.0;
    assert_int_equal(nscd_system_get_equality(sys, 0, &g, &rate), NSCD_OK);
    assert_true(g == 1.5 && rate == -1.0); /* (4 - 1) / 2 and (0, -2) . (1, 0.5) */
    const nscd__model *m = nscd__system_model(sys);
    assert_int_equal(m->n_contacts, 2);
    assert_int_equal(m->contacts[1].kind, NSCD__ENTRY_EQUALITY);
    assert_int_equal(m->contacts[1].key, 1);
    assert_int_equal(m->contacts[1].state.mode, NSCD_CONTACT_CLOSED);
    assert_int_equal(m->contacts[0].state.mode, NSCD_CONTACT_OPEN);
    nscd_system_destroy(sys);
}

/* Bad descs are refused with a clear status and no handle; a NaN or a
 * failure of the equality callback is reported and changes nothing. */
static void bad_equalities_are_refused(void **state) {
    (void)state;
    pendulum_user u = {0, 0, 0};
    nscd_system *sentinel = (nscd_system *)&u, *sys = sentinel;
    nscd_system_desc d = cartesian_desc(&u);
    d.n_equalities = -1;
    assert_int_equal(nscd_system_create(&d, &sys), NSCD_ERR_INVALID_ARGUMENT);
    d.n_equalities = 1;
    d.equality = NULL;
    assert_int_equal(nscd_system_create(&d, &sys), NSCD_ERR_NULL_POINTER);
    assert_true(sys == sentinel);
    d.n_equalities = 0; /* no equalities: no callback needed */
    assert_int_equal(nscd_system_create(&d, &sys), NSCD_OK);
    assert_int_equal(nscd_system_get_equality(sys, 0, NULL, NULL), NSCD_ERR_INDEX);
    nscd_system_destroy(sys);

    sys = cartesian_pendulum(&u, NULL);
    double g = 3.0, rate = 4.0, t0 = 0.0, q0[2], v0[2];
    assert_int_equal(nscd_system_get_state(sys, &t0, q0, v0), NSCD_OK);
    u.nan_equality = 1;
    assert_int_equal(nscd_system_get_equality(sys, 0, &g, &rate), NSCD_ERR_NOT_FINITE);
    assert_true(g == 3.0 && rate == 4.0);
    assert_non_null(strstr(nscd_system_last_error(sys), "equality 0"));
    nscd_event_driven *ed = NULL;
    assert_int_equal(nscd_event_driven_create(sys, NULL, &ed), NSCD_OK);
    assert_int_equal(nscd_event_driven_advance(ed, 1.0, NULL), NSCD_ERR_NOT_FINITE);
    u.nan_equality = 0;
    u.fail_equality = 1;
    assert_int_equal(nscd_system_get_equality(sys, 0, &g, &rate), NSCD_ERR_CALLBACK);
    assert_int_equal(nscd_event_driven_advance(ed, 1.0, NULL), NSCD_ERR_CALLBACK);
    double lambda = 9.0;
    assert_int_equal(nscd_event_driven_get_equality_force(ed, 0, &lambda), NSCD_ERR_CALLBACK);
    assert_true(lambda == 9.0);
    double t = 1.0, q[2], v[2];
    assert_int_equal(nscd_system_get_state(sys, &t, q, v), NSCD_OK);
    assert_true(t == t0);
    assert_memory_equal(q, q0, sizeof q);
    assert_memory_equal(v, v0, sizeof v);
    u.fail_equality = 0; /* recovers */
    assert_int_equal(nscd_event_driven_advance(ed, 0.1, NULL), NSCD_OK);
    nscd_event_driven_destroy(ed);
    nscd_system_destroy(sys);
}

/* ------------------------------------------------------------ double pendulum on a rough wall */

/* Two point masses on massless rods (seed 000's chain, issue 28): bob 2
 * hits the rough wall x <= CHAIN_WALL under Newton's law with Coulomb
 * friction. Reduced: the absolute angles (th1, th2); Cartesian: the bobs'
 * (x1, y1, x2, y2) held by two equality constraints. */
#define M1 1.0
#define M2 0.5
#define L1 0.6
#define L2 0.4
#define CHAIN_WALL 0.45
#define CHAIN_MU 0.3
#define CHAIN_E 0.5

static nscd_status dp_mass(void *user, const double *q, double *m) {
    (void)user;
    double c = M2 * L1 * L2 * cos(q[0] - q[1]);
    m[0] = (M1 + M2) * L1 * L1;
    m[1] = m[2] = c;
    m[3] = M2 * L2 * L2;
    return NSCD_OK;
}

static nscd_status dp_forces(void *user, double t, const double *q, const double *v, double *h) {
    (void)user, (void)t;
    double s = M2 * L1 * L2 * sin(q[0] - q[1]);
    h[0] = -s * v[1] * v[1] - (M1 + M2) * G * L1 * sin(q[0]);
    h[1] = s * v[0] * v[0] - M2 * G * L2 * sin(q[1]);
    return NSCD_OK;
}

static nscd_status dp_wall(void *user, int32_t index, double t, const double *q, double *gap,
                           double *w_normal, double *w_tangent) {
    (void)user, (void)index, (void)t;
    *gap = CHAIN_WALL - L1 * sin(q[0]) - L2 * sin(q[1]);
    w_normal[0] = -L1 * cos(q[0]);
    w_normal[1] = -L2 * cos(q[1]);
    w_tangent[0] = L1 * sin(q[0]); /* d y2 / d th: upwards along the wall */
    w_tangent[1] = L2 * sin(q[1]);
    return NSCD_OK;
}

static nscd_status dc_mass(void *user, const double *q, double *m) {
    (void)user, (void)q;
    memset(m, 0, 16 * sizeof(double));
    m[0] = m[5] = M1;
    m[10] = m[15] = M2;
    return NSCD_OK;
}

static nscd_status dc_forces(void *user, double t, const double *q, const double *v, double *h) {
    (void)user, (void)t, (void)q, (void)v;
    h[0] = h[2] = 0.0;
    h[1] = -M1 * G;
    h[3] = -M2 * G;
    return NSCD_OK;
}

static nscd_status dc_wall(void *user, int32_t index, double t, const double *q, double *gap,
                           double *w_normal, double *w_tangent) {
    (void)user, (void)index, (void)t;
    *gap = CHAIN_WALL - q[2];
    memset(w_normal, 0, 4 * sizeof(double));
    memset(w_tangent, 0, 4 * sizeof(double));
    w_normal[2] = -1.0;
    w_tangent[3] = 1.0;
    return NSCD_OK;
}

static nscd_status dc_rods(void *user, int32_t index, double t, const double *q, double *g,
                           double *w) {
    (void)user, (void)t;
    memset(w, 0, 4 * sizeof(double));
    if (index == 0) {
        *g = (q[0] * q[0] + q[1] * q[1] - L1 * L1) / (2.0 * L1);
        w[0] = q[0] / L1;
        w[1] = q[1] / L1;
        return NSCD_OK;
    }
    double dx = q[2] - q[0], dy = q[3] - q[1];
    *g = (dx * dx + dy * dy - L2 * L2) / (2.0 * L2);
    w[0] = -dx / L2, w[1] = -dy / L2, w[2] = dx / L2, w[3] = dy / L2;
    return NSCD_OK;
}

/* The planar chain with its first rod given twice: dependent equality rows
 * (G_EE of rank 2 of 3), solved for the least-norm multipliers. */
static nscd_status dc_rods_twice(void *user, int32_t index, double t, const double *q, double *g,
                                 double *w) {
    return dc_rods(user, index == 2 ? 0 : index, t, q, g, w);
}

/* The same chain in space: (x1, y1, z1, x2, y2, z2), the rods and z1 = z2 =
 * 0 as four equalities, and a wall with two tangents, y and z: the joints
 * hold the z tangent, so its friction impulse is the joints' (zero). */
static nscd_status ds_mass(void *user, const double *q, double *m) {
    (void)user, (void)q;
    memset(m, 0, 36 * sizeof(double));
    m[0] = m[7] = m[14] = M1;
    m[21] = m[28] = m[35] = M2;
    return NSCD_OK;
}

static nscd_status ds_forces(void *user, double t, const double *q, const double *v, double *h) {
    (void)user, (void)t, (void)q, (void)v;
    memset(h, 0, 6 * sizeof(double));
    h[1] = -M1 * G;
    h[4] = -M2 * G;
    return NSCD_OK;
}

static nscd_status ds_wall(void *user, int32_t index, double t, const double *q, double *gap,
                           double *w_normal, double *w_tangent) {
    (void)user, (void)index, (void)t;
    *gap = CHAIN_WALL - q[3];
    memset(w_normal, 0, 6 * sizeof(double));
    memset(w_tangent, 0, 12 * sizeof(double));
    w_normal[3] = -1.0;
    w_tangent[4] = 1.0;
    w_tangent[6 + 5] = 1.0;
    return NSCD_OK;
}

static nscd_status ds_joints(void *user, int32_t index, double t, const double *q, double *g,
                             double *w) {
    (void)user, (void)t;
    memset(w, 0, 6 * sizeof(double));
    if (index >= 2) { /* the plane z = 0 */
        *g = q[3 * (index - 2) + 2];
        w[3 * (index - 2) + 2] = 1.0;
        return NSCD_OK;
    }
    const double *a = index == 0 ? NULL : q, *b = index == 0 ? q : q + 3;
    double L = index == 0 ? L1 : L2, d[3];
    for (int i = 0; i < 3; ++i) {
        d[i] = b[i] - (a != NULL ? a[i] : 0.0);
    }
    *g = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] - L * L) / (2.0 * L);
    for (int i = 0; i < 3; ++i) {
        w[3 * index + i] = d[i] / L;
        if (index == 1) {
            w[i] = -d[i] / L;
        }
    }
    return NSCD_OK;
}

/* Impacts and the kinetic energy across each (from the event's q and v). */
typedef struct chain_log {
    int reduced, impacts, equality_in_impacts;
    double t[64], energy_before[64], energy_after[64];
} chain_log;

enum { CHAIN_PLANE = 0, CHAIN_REDUCED = 1, CHAIN_SPACE = 2, CHAIN_TWICE = 3 };

static double chain_kinetic(int reduced, const double *q, const double *v) {
    if (reduced == CHAIN_SPACE) {
        return 0.5 * (M1 * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) +
                      M2 * (v[3] * v[3] + v[4] * v[4] + v[5] * v[5]));
    }
    if (reduced == CHAIN_REDUCED) {
        double m[4];
        dp_mass(NULL, q, m);
        return 0.5 * (m[0] * v[0] * v[0] + 2.0 * m[1] * v[0] * v[1] + m[3] * v[1] * v[1]);
    }
    return 0.5 * (M1 * (v[0] * v[0] + v[1] * v[1]) + M2 * (v[2] * v[2] + v[3] * v[3]));
}

static int32_t log_chain(void *user, const nscd_event_info *info) {
    chain_log *log = user;
    if (info->type == NSCD_EVENT_IMPACT && log->impacts < 64) {
        int k = log->impacts++;
        log->t[k] = info->t;
        log->energy_before[k] = chain_kinetic(log->reduced, info->q, info->v_before);
        log->energy_after[k] = chain_kinetic(log->reduced, info->q, info->v_after);
        for (int32_t j = 0; j < info->n_contacts; ++j) {
            log->equality_in_impacts += info->contacts[j] >= 1; /* equalities 0, 1 */
        }
    }
    return NSCD_EVENT_CONTINUE;
}

static nscd_system *chain(int reduced, const nscd_contact_law *law, double mu) {
    nscd_system_desc d;
    nscd_system_desc_init(&d, sizeof d);
    int space = reduced == CHAIN_SPACE, twice = reduced == CHAIN_TWICE;
    reduced = reduced == CHAIN_REDUCED;
    d.n_dof = reduced ? 2 : space ? 6 : 4;
    d.n_contacts = 1;
    d.n_equalities = reduced ? 0 : space ? 4 : twice ? 3 : 2;
    d.mass = reduced ? dp_mass : space ? ds_mass : dc_mass;
    d.forces = reduced ? dp_forces : space ? ds_forces : dc_forces;
    d.contact = reduced ? dp_wall : space ? ds_wall : dc_wall;
    d.equality = reduced ? NULL : space ? ds_joints : twice ? dc_rods_twice : dc_rods;
    nscd_system *sys = NULL;
    assert_int_equal(nscd_system_create(&d, &sys), NSCD_OK);
    nscd_contact_desc c;
    nscd_contact_desc_init(&c, sizeof c);
    c.law = law;
    c.friction = mu;
    c.n_tangent = space ? 2 : 1;
    assert_int_equal(nscd_system_set_contact(sys, 0, &c), NSCD_OK);
    const double th1 = -0.9, th2 = -1.3;
    if (reduced) {
        const double q[2] = {th1, th2}, v[2] = {0.0, 0.0};
        assert_int_equal(nscd_system_set_state(sys, 0.0, q, v), NSCD_OK);
    } else if (space) {
        double x1 = L1 * sin(th1), y1 = -L1 * cos(th1);
        const double q[6] = {x1, y1, 0.0, x1 + L2 * sin(th2), y1 - L2 * cos(th2), 0.0};
        const double v[6] = {0};
        assert_int_equal(nscd_system_set_state(sys, 0.0, q, v), NSCD_OK);
    } else {
        double x1 = L1 * sin(th1), y1 = -L1 * cos(th1);
        const double q[4] = {x1, y1, x1 + L2 * sin(th2), y1 - L2 * cos(th2)}, v[4] = {0};
        assert_int_equal(nscd_system_set_state(sys, 0.0, q, v), NSCD_OK);
    }
    return sys;
}

static void run_chain(int reduced, const nscd_contact_law *law, double mu, double t_end,
                      chain_log *log, double *x2, double *y2) {
    memset(log, 0, sizeof *log);
    log->reduced = reduced;
    nscd_system *sys = chain(reduced, law, mu);
    nscd_event_driven_options opt;
    nscd_event_driven_options_init(&opt, sizeof opt);
    opt.on_event = log_chain;
    opt.on_event_user = log;
    nscd_event_driven *ed = NULL;
    assert_int_equal(nscd_event_driven_create(sys, &opt, &ed), NSCD_OK);
    nscd_status rc = nscd_event_driven_advance(ed, t_end, NULL);
    if (rc != NSCD_OK) {
        print_message("%s: %s\n", nscd_status_string(rc), nscd_event_driven_last_error(ed));
    }
    assert_int_equal(rc, NSCD_OK);
    double q[6];
    assert_int_equal(nscd_system_get_state(sys, NULL, q, NULL), NSCD_OK);
    if (reduced == CHAIN_SPACE) {
        *x2 = q[3];
        *y2 = q[4];
        assert_true(fabs(q[2]) < 1e-12 && fabs(q[5]) < 1e-12);
    } else if (reduced == CHAIN_REDUCED) {
        *x2 = L1 * sin(q[0]) + L2 * sin(q[1]);
        *y2 = -L1 * cos(q[0]) - L2 * cos(q[1]);
    } else {
        *x2 = q[2];
        *y2 = q[3];
        assert_true(fabs(hypot(q[0], q[1]) - L1) < 1e-8);
        assert_true(fabs(hypot(q[2] - q[0], q[3] - q[1]) - L2) < 1e-8);
    }
    nscd_event_driven_destroy(ed);
    nscd_system_destroy(sys);
}

/* Frictional impacts with equality entries (issue 28): the Cartesian chain,
 * whose impacts condense its two rods out of the contact problem, hits the
 * rough wall at the times the reduced chain does (1e-7 s) and ends where it
 * does (1e-6 m; the chain is chaotic, so the run stops after three
 * impacts), under Newton's and Poisson's laws; no impact of either gains
 * kinetic energy, and friction matters (without it bob 2 ends elsewhere).
 * The chain in space, held in its plane by two more equalities, with a
 * wall tangent the joints hold, ends there too, and so does the planar
 * chain with one rod given twice (dependent equality rows). */
static void chain_frictional_impacts_match_reduced_coordinates(void **state) {
    (void)state;
    for (int poisson = 0; poisson < 2; ++poisson) {
        nscd_contact_law *law = NULL;
        assert_int_equal(poisson ? nscd_contact_law_create_poisson(CHAIN_E, NULL, &law)
                                 : nscd_contact_law_create_newton(CHAIN_E, NULL, &law),
                         NSCD_OK);
        static chain_log reduced, cartesian, smooth, spatial, twice;
        double xr, yr, xc, yc, xs, ys, x3, y3, xt, yt;
        run_chain(CHAIN_REDUCED, law, CHAIN_MU, 4.0, &reduced, &xr, &yr);
        run_chain(CHAIN_PLANE, law, CHAIN_MU, 4.0, &cartesian, &xc, &yc);
        run_chain(CHAIN_PLANE, law, 0.0, 4.0, &smooth, &xs, &ys);
        run_chain(CHAIN_SPACE, law, CHAIN_MU, 4.0, &spatial, &x3, &y3);
        run_chain(CHAIN_TWICE, law, CHAIN_MU, 4.0, &twice, &xt, &yt);
        print_message("# %s: %d impacts (reduced %d), first at %.9f s; bob 2 at (%.9f, %.9f), "
                      "reduced (%.9f, %.9f), frictionless (%.6f, %.6f)\n",
                      poisson ? "Poisson" : "Newton", cartesian.impacts, reduced.impacts,
                      cartesian.t[0], xc, yc, xr, yr, xs, ys);
        assert_true(reduced.impacts >= 3);
        assert_int_equal(cartesian.impacts, reduced.impacts);
        assert_true(cartesian.equality_in_impacts > 0);
        for (int k = 0; k < reduced.impacts && k < 64; ++k) {
            assert_true(fabs(cartesian.t[k] - reduced.t[k]) < 1e-7);
            for (int which = 0; which < 2; ++which) {
                const chain_log *log = which ? &cartesian : &reduced;
                assert_true(log->energy_after[k] <= log->energy_before[k] * (1.0 + 1e-12));
            }
            assert_true(fabs(cartesian.energy_after[k] - reduced.energy_after[k]) <
                        1e-7 * reduced.energy_before[k]);
        }
        assert_true(fabs(xc - xr) < 1e-6 && fabs(yc - yr) < 1e-6);
        assert_true(hypot(xs - xc, ys - yc) > 1e-2);
        print_message("#   in space (z held by joints): %d impacts, bob 2 at (%.9f, %.9f)\n",
                      spatial.impacts, x3, y3);
        assert_int_equal(spatial.impacts, reduced.impacts);
        assert_true(fabs(x3 - xr) < 1e-6 && fabs(y3 - yr) < 1e-6);
        print_message("#   a rod given twice: %d impacts, bob 2 at (%.9f, %.9f)\n", twice.impacts,
                      xt, yt);
        assert_int_equal(twice.impacts, reduced.impacts);
        assert_true(fabs(xt - xr) < 1e-6 && fabs(yt - yr) < 1e-6);
        nscd_contact_law_destroy(law);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cartesian_pendulum_matches_reduced_coordinates),
        cmocka_unit_test(equality_force_is_the_rod_tension),
        cmocka_unit_test(equalities_are_not_contacts),
        cmocka_unit_test(bad_equalities_are_refused),
        cmocka_unit_test(chain_frictional_impacts_match_reduced_coordinates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
