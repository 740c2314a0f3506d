/* The time stepper with Moreau–Jean's θ-method: convergence order on a
 * linear oscillator, energy of a bouncing ball, resting and sliding blocks
 * with friction, redundant contacts, an equality entry, bad input, handle
 * rules and determinism. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/memory.h"
#include "core/struct_sizes.h"
#include "integrators/time_stepping/time_stepping_impl.h"
#include "models.h"

#define G 9.81

/* The scheme of the steppers the helpers below create: the midpoint tests
 * run the same models as Moreau–Jean's. */
static int32_t test_scheme = NSCD_TS_MOREAU_JEAN;

/* ------------------------------------------------------------ oscillator */

/* Unit mass on a unit spring: q = cos t, v = -sin t from (1, 0). */
static nscd_status osc_mass(void *u, const double *q, double *m) {
    (void)u, (void)q;
    m[0] = 1.0;
    return NSCD_OK;
}

static nscd_status osc_forces(void *u, double t, const double *q, const double *v, double *h) {
    (void)u, (void)t, (void)v;
    h[0] = -q[0];
    return NSCD_OK;
}

typedef struct osc_watch {
    const nscd_system *system;
    double error; /* largest |q - cos t| + |v + sin t| over the steps */
} osc_watch;

static int32_t osc_step(void *user, const nscd_time_stepping_report *report) {
    osc_watch *w = user;
    double t = 0.0, q = 0.0, v = 0.0;
    nscd_system_get_state(w->system, &t, &q, &v);
    assert_true(t == report->t);
    w->error = fmax(w->error, fabs(q - cos(t)) + fabs(v + sin(t)));
    return 0;
}

static nscd_system *make_oscillator(void) {
    nscd_system_desc d;
    nscd_system_desc_init(&d, sizeof d);
    d.n_dof = 1;
    d.mass = osc_mass;
    d.forces = osc_forces;
    nscd_system *s = NULL;
    assert_int_equal(nscd_system_create(&d, &s), NSCD_OK);
    double q = 1.0, v = 0.0;
    assert_int_equal(nscd_system_set_state(s, 0.0, &q, &v), NSCD_OK);
    return s;
}

/* Largest error over [0, 2] with step dt and θ. */
static double oscillator_error(double theta, double dt) {
    nscd_system *s = make_oscillator();
    osc_watch w = {s, 0.0};
    nscd_time_stepping_options o;
    nscd_time_stepping_options_init(&o, sizeof o);
    o.dt = dt;
    o.theta = theta;
    o.scheme = test_scheme;
    o.on_step = osc_step;
    o.on_step_user = &w;
    nscd_time_stepping *ts = NULL;
    assert_int_equal(nscd_time_stepping_create(s, &o, &ts), NSCD_OK);
    nscd_time_stepping_stats st = {.struct_size = sizeof st};
    assert_int_equal(nscd_time_stepping_advance(ts, 2.0, &st), NSCD_OK);
    assert_true(st.t == 2.0);
    assert_true(llabs(st.steps - (int64_t)llround(2.0 / dt)) <= 1);
    nscd_time_stepping_destroy(ts);
    nscd_system_destroy(s);
    return w.error;
}

static void check_order(double theta, double expected) {
    double dt = 1e-2, e[4];
    for (int i = 0; i < 4; ++i, dt /= 2.0) {
        e[i] = oscillator_error(theta, dt);
    }
    double order = log(e[0] / e[3]) / log(8.0);
    printf("theta %.2f: errors %.3e %.3e %.3e %.3e, observed order %.3f\n", theta, e[0], e[1], e[2],
           e[3], order);
    assert_true(fabs(order - expected) <= 0.15);
}

static void oscillator_orders(void **state) {
    (void)state;
    check_order(0.5, 2.0);
    check_order(1.0, 1.0);
}

/* ------------------------------------------------------------ bouncing ball */

typedef struct ball_watch {
    const nscd_system *system;
    double e0, e_max, e_min, penetration;
} ball_watch;

static int32_t ball_step(void *user, const nscd_time_stepping_report *report) {
    ball_watch *w = user;
    double t, q, v;
    nscd_system_get_state(w->system, &t, &q, &v);
    double energy = 0.5 * v * v + G * q;
    w->e_max = fmax(w->e_max, energy);
    w->e_min = fmin(w->e_min, energy);
    w->penetration = fmax(w->penetration, report->max_penetration);
    assert_true(fabs(report->max_penetration - fmax(0.0, -q)) == 0.0);
    return 0;
}

static nscd_time_stepping *ball_stepper(nscd_system *s, ball_watch *w, double dt) {
    nscd_time_stepping_options o;
    nscd_time_stepping_options_init(&o, sizeof o);
    o.dt = dt;
    o.scheme = test_scheme;
    o.on_step = ball_step;
    o.on_step_user = w;
    nscd_time_stepping *ts = NULL;
    assert_int_equal(nscd_time_stepping_create(s, &o, &ts), NSCD_OK);
    return ts;
}

static void elastic_ball_energy_bounded(void **state) {
    (void)state;
    ball_model b = {.mass = 1.0, .g = G};
    nscd_system *s = NULL;
    assert_int_equal(make_ball(&b, 1.0, 1.0, &s), NSCD_OK);
    ball_watch w = {s, G, G, G, 0.0};
    nscd_time_stepping *ts = ball_stepper(s, &w, 1e-3);
    nscd_time_stepping_stats st = {.struct_size = sizeof st};
    assert_int_equal(nscd_time_stepping_advance(ts, 10.0, &st), NSCD_OK);
    printf("elastic ball: %lld steps, energy in [%.15g, %.15g] (E0 = %g), penetration %.3e\n",
           (long long)st.steps, w.e_min, w.e_max, w.e0, w.penetration);
    assert_true(st.steps >= 10000);
    /* free flight under constant gravity is exact for θ = 1/2 and the e = 1
     * impact reverses v with q unchanged: only rounding changes the energy */
    assert_true(w.e_max <= w.e0 * (1.0 + 1e-9));
    assert_true(w.e_min >= w.e0 * (1.0 - 1e-9));
    nscd_time_stepping_destroy(ts);
    nscd_system_destroy(s);
}

static void inelastic_ball_comes_to_rest(void **state) {
    (void)state;
    ball_model b = {.mass = 1.0, .g = G};
    nscd_system *s = NULL;
    assert_int_equal(make_ball(&b, 1.0, 0.5, &s), NSCD_OK);
    ball_watch w = {s, G, G, G, 0.0};
    double dt = 1e-3;
    nscd_time_stepping *ts = ball_stepper(s, &w, dt);
    assert_int_equal(nscd_time_stepping_advance(ts, 5.0, NULL), NSCD_OK);
    double t, q, v, normal = 0.0;
    nscd_system_get_state(s, &t, &q, &v);
    assert_int_equal(nscd_time_stepping_get_contact_impulse(ts, 0, &normal, NULL), NSCD_OK);
    /* the bound of docs/time_stepping.md: (2 - e) dt |v_impact| / 2 + g dt^2
     * (a free step ends at most dt |v| / 2 deep, the impact step moves
     * dt (1 - e) |v| / 2 further) */
    double bound = 0.5 * (2.0 - 0.5) * dt * sqrt(2.0 * G * 1.0) + G * dt * dt;
    printf("inelastic ball: q = %.3e, v = %.3e, max penetration %.3e (bound %.3e), P_N = %.6g\n", q,
           v, w.penetration, bound, normal);
    assert_true(fabs(v) <= 1e-12);
    assert_true(q <= 1e-12 && -q <= bound);
    assert_true(w.penetration <= bound);
    assert_true(fabs(normal - G * dt) <= 1e-12); /* holds the weight */
    double force = 0.0;                          /* the mean force: the weight itself */
    assert_int_equal(nscd_time_stepping_get_contact_force(ts, 0, &force, NULL), NSCD_OK);
    assert_true(fabs(force - G) <= 1e-9);
    assert_int_equal(nscd_time_stepping_get_contact_force(ts, 1, &force, NULL), NSCD_ERR_INDEX);
    assert_int_equal(nscd_time_stepping_get_contact_force(NULL, 0, &force, NULL),
                     NSCD_ERR_NULL_POINTER);
    nscd_time_stepping_destroy(ts);
    nscd_system_destroy(s);
}

/* A ball at rest carries P_N > 0; moved up and thrown down by
 * nscd_system_set_state, its contact must not act as a phantom. */
static void moved_body_meets_no_phantom_contact(void **state) {
    (void)state;
    ball_model b = {.mass = 1.0, .g = G};
    nscd_system *s = NULL;
    assert_int_equal(make_ball(&b, 0.0, 0.0, &s), NSCD_OK);
    nscd_time_stepping *ts = NULL;
    assert_int_equal(nscd_time_stepping_create(s, NULL, &ts), NSCD_OK);
    assert_int_equal(nscd_time_stepping_advance(ts, 0.01, NULL), NSCD_OK);
    double pn = 0.0, q = 1.0, v = -1.0, t;
    assert_int_equal(nscd_time_stepping_get_contact_impulse(ts, 0, &pn, NULL), NSCD_OK);
    assert_true(pn > 0.0);
    assert_int_equal(nscd_system_set_state(s, 0.01, &q, &v), NSCD_OK);
    assert_int_equal(nscd_time_stepping_advance(ts, 0.011, NULL), NSCD_OK);
    nscd_system_get_state(s, &t, &q, &v);
    assert_true(fabs(v - (-1.0 - G * 1e-3)) <= 1e-14);
    assert_int_equal(nscd_time_stepping_get_contact_impulse(ts, 0, &pn, NULL), NSCD_OK);
    assert_true(pn == 0.0);
    nscd_time_stepping_destroy(ts);
    nscd_system_destroy(s);
}

/* ------------------------------------------------------------ planar block */

#define MU 0.5
static nscd_system *make_block(block_model *b) {
    nscd_system *s = NULL;
    assert_int_equal(make_block_system(b, &s), NSCD_OK);
    return s;
}

static nscd_time_stepping *block_stepper(nscd_system *s, int32_t solver) {
    nscd_time_stepping_options o;
    nscd_time_stepping_options_init(&o, sizeof o);
    o.dt = 1e-3;
    o.scheme = test_scheme;
    o.local_solver = solver;
    nscd_time_stepping *ts = NULL;
    assert_int_equal(nscd_time_stepping_create(s, &o, &ts), NSCD_OK);
    return ts;
}

static void resting_block_does_not_creep(void **state) {
    (void)state;
    block_model b = {0.0, MU, G, 2, {-BLOCK_HALF_W, BLOCK_HALF_W, 0.0, 0.0}};
    nscd_system *s = make_block(&b);
    nscd_time_stepping *ts = block_stepper(s, NSCD_TS_SOLVER_FC3D_COULOMB);
    nscd_time_stepping_stats st = {.struct_size = sizeof st};
    assert_int_equal(nscd_time_stepping_advance(ts, 100.0, &st), NSCD_OK);
    double t, q[3], v[3], pn[2], pt[2];
    nscd_system_get_state(s, &t, q, v);
    for (int32_t i = 0; i < 2; ++i) {
        assert_int_equal(nscd_time_stepping_get_contact_impulse(ts, i, &pn[i], &pt[i]), NSCD_OK);
    }
    printf("resting block: %lld steps, creep x %.3e, y - h %.3e, phi %.3e, P_N %.6g + %.6g\n",
           (long long)st.steps, q[0], q[1] - BLOCK_HALF_H, q[2], pn[0], pn[1]);
    assert_true(st.steps >= 100000);
    assert_true(fabs(q[0]) <= 1e-10 && fabs(q[1] - BLOCK_HALF_H) <= 1e-10 && fabs(q[2]) <= 1e-10);
    nscd_time_stepping_report r = {.struct_size = sizeof r};
    assert_int_equal(nscd_time_stepping_get_report(ts, &r), NSCD_OK);
    printf("last step: dt %.17g, P_N sum / (m g dt) - 1 = %.2e\n", r.dt,
           (pn[0] + pn[1]) / (BLOCK_MASS * G * r.dt) - 1.0);
    assert_true(fabs((pn[0] + pn[1]) / (BLOCK_MASS * G * r.dt) - 1.0) <= 1e-9);
    nscd_time_stepping_destroy(ts);
    nscd_system_destroy(s);
}

static void block_slides_down_a_slope(void **state) {
    (void)state;
    double alpha = 35.0 * 3.14159265358979323846 / 180.0, t_end = 1.0;
    block_model b = {alpha, MU, G, 2, {-BLOCK_HALF_W, BLOCK_HALF_W, 0.0, 0.0}};
    nscd_system *s = make_block(&b);
    nscd_time_stepping *ts = block_stepper(s, NSCD_TS_SOLVER_AUTO);
    assert_int_equal(nscd_time_stepping_advance(ts, t_end, NULL), NSCD_OK);
    double t, q[3], v[3];
    nscd_system_get_state(s, &t, q, v);
    double a = G * (sin(alpha) - MU * cos(alpha)), a_seen = v[0] / t_end;
    printf("sliding block: a = %.12g, expected %.12g (rel %.2e), x %.9g, phi %.2e\n", a_seen, a,
           fabs(a_seen / a - 1.0), q[0], q[2]);
    assert_true(fabs(a_seen / a - 1.0) <= 1e-6);
    assert_true(fabs(q[0] / (0.5 * a * t_end * t_end) - 1.0) <= 1e-6);
    nscd_time_stepping_destroy(ts);
    nscd_system_destroy(s);
}

/* Four contacts along the bottom edge of a 3-dof body: 4 normal rows of
 * rank 2 (and 4 tangential rows of rank 1), solved by `solver`. */
static void redundant_contacts_rest_with(double mu, int32_t solver) {
    block_model b = {
        0.0, mu, G, 4, {-BLOCK_HALF_W, -0.5 * BLOCK_HALF_W, 0.5 * BLOCK_HALF_W, BLOCK_HALF_W}};
    nscd_system *s = make_block(&b);
    nscd_time_stepping *ts = block_stepper(s, solver);
    nscd_time_stepping_stats st = {.struct_size = sizeof st};
    assert_int_equal(nscd_time_stepping_advance(ts, 10.0, &st), NSCD_OK);
    double t, q[3], v[3], sum = 0.0;
    nscd_system_get_state(s, &t, q, v);
    for (int32_t i = 0; i < 4; ++i) {
        double pn = 0.0;
        assert_int_equal(nscd_time_stepping_get_contact_impulse(ts, i, &pn, NULL), NSCD_OK);
        assert_true(pn >= 0.0);
        sum += pn;
    }
    nscd_time_stepping_report r = {.struct_size = sizeof r};
    assert_int_equal(nscd_time_stepping_get_report(ts, &r), NSCD_OK);
    printf("redundant contacts: %d active, %d sweeps, merit %.2e, drift %.2e %.2e %.2e\n",
           (int)r.active_contacts, (int)r.iterations, r.residual, q[0], q[1] - BLOCK_HALF_H, q[2]);
    /* a contact the solver leaves unloaded may drop out when rounding makes
     * its gap +1e-17 (the LCP's vertex solution loads only some rows) */
    assert_true(r.active_contacts >= 2);
    assert_true(fabs(sum - BLOCK_MASS * G * 1e-3) <= 1e-9);
    assert_true(fabs(q[0]) <= 1e-10 && fabs(q[1] - BLOCK_HALF_H) <= 1e-10 && fabs(q[2]) <= 1e-10);
    nscd_time_stepping_destroy(ts);
    nscd_system_destroy(s);
}

static void redundant_contacts_rest(void **state) {
    (void)state;
    redundant_contacts_rest_with(MU, NSCD_TS_SOLVER_FC3D_COULOMB);
    redundant_contacts_rest_with(MU, NSCD_TS_SOLVER_FC3D_MAX_DISSIPATION);
    redundant_contacts_rest_with(0.0, NSCD_TS_SOLVER_AUTO); /* the LCP */
}

/* ------------------------------------------------------------ many contacts */

#define MANY 100

static nscd_status many_floors(void *user, int32_t index, double t, const double *q, double *gap,
                               double *w_normal, double *w_tangent) {
    (void)user, (void)index, (void)t, (void)w_tangent;
    *gap = q[0];
    w_normal[0] = 1.0;
    return NSCD_OK;
}

/* A ball resting on MANY coincident frictionless contacts: more than the
 * pivoting LCP takes (NSCD_LCP_MAX_SIZE), so AUTO solves it with fc3d
 * (mu = 0); the LCP chosen explicitly says so. */
static void many_frictionless_contacts(void **state) {
    (void)state;
    ball_model b = {.mass = 1.0, .g = G};
    nscd_system_desc d;
    nscd_system_desc_init(&d, sizeof d);
    d.n_dof = 1;
    d.n_contacts = MANY;
    d.user = &b;
    d.mass = ball_mass;
    d.forces = ball_forces;
    d.contact = many_floors;
    nscd_system *s = NULL;
    assert_int_equal(nscd_system_create(&d, &s), NSCD_OK);
    double q = 0.0, v = 0.0, t;
    assert_int_equal(nscd_system_set_state(s, 0.0, &q, &v), NSCD_OK);
    nscd_time_stepping *ts = block_stepper(s, NSCD_TS_SOLVER_LCP);
    assert_int_equal(nscd_time_stepping_advance(ts, 0.01, NULL), NSCD_ERR_UNSUPPORTED);
    printf("many contacts, LCP: %s\n", nscd_time_stepping_last_error(ts));
    nscd_time_stepping_destroy(ts);
    ts = block_stepper(s, NSCD_TS_SOLVER_AUTO);
    assert_int_equal(nscd_time_stepping_advance(ts, 1.0, NULL), NSCD_OK);
    nscd_system_get_state(s, &t, &q, &v);
    double sum = 0.0;
    for (int32_t i = 0; i < MANY; ++i) {
        double pn = 0.0;
        assert_int_equal(nscd_time_stepping_get_contact_impulse(ts, i, &pn, NULL), NSCD_OK);
        assert_true(pn >= 0.0);
        sum += pn;
    }
    assert_true(fabs(q) <= 1e-12 && fabs(v) <= 1e-12);
    assert_true(fabs(sum - G * 1e-3) <= 1e-12);
    nscd_time_stepping_destroy(ts);
    nscd_system_destroy(s);
}

/* ------------------------------------------------------------ equality entry */

#define PEND_L 1.0
#define PEND_M 1.5

/* A point mass at (x, y) on the circle x^2 + y^2 = L^2 (equality entry 0). */
typedef struct pendulum {
    nscd__model model;
    double t, q[2], v[2];
    nscd__contact_slot entries[1];
    int32_t mass_blocks[2];
    nscd_diag diag;
    nscd_allocator allocator;
} pendulum;

static nscd_status p_mass_solve(void *self, const double *q, int32_t block, int32_t nrhs,
                                const double *B, double *X) {
    (void)self, (void)q, (void)block;
    for (int32_t i = 0; i < 2 * nrhs; ++i) {
        X[i] = B[i] / PEND_M;
    }
    return NSCD_OK;
}

static nscd_status p_forces(void *self, double t, const double *q, const double *v, double *h) {
    (void)self, (void)t, (void)q, (void)v;
    h[0] = 0.0;
    h[1] = -PEND_M * G;
    return NSCD_OK;
}

static void p_displace(void *self, const double *q, const double *dq, double *q_out) {
    (void)self;
    q_out[0] = q[0] + dq[0];
    q_out[1] = q[1] + dq[1];
}

static nscd_status p_entry(void *self, int32_t index, double t, const double *q, double *gap,
                           nscd__rows *rows) {
    (void)self, (void)t, (void)index;
    nscd__rows_dense(rows, 1, 2, rows->values);
    *gap = (q[0] * q[0] + q[1] * q[1] - PEND_L * PEND_L) / (2.0 * PEND_L);
    rows->values[0] = q[0] / PEND_L;
    rows->values[1] = q[1] / PEND_L;
    return NSCD_OK;
}

static void pendulum_init(pendulum *p) {
    memset(p, 0, sizeof *p);
    p->allocator = nscd__allocator_resolve(NULL);
    p->mass_blocks[1] = 2;
    p->model = (nscd__model){.self = p,
                             .n_q = 2,
                             .n_v = 2,
                             .n_contacts = 1,
                             .row_width = 2,
                             .n_mass_blocks = 1,
                             .mass_block_start = p->mass_blocks,
                             .t = &p->t,
                             .q = p->q,
                             .v = p->v,
                             .contacts = p->entries,
                             .diag = &p->diag,
                             .allocator = &p->allocator,
                             .mass_solve = p_mass_solve,
                             .forces = p_forces,
                             .displace = p_displace,
                             .entry = p_entry};
    p->entries[0].kind = NSCD__ENTRY_EQUALITY;
    p->q[0] = PEND_L * sin(-0.6);
    p->q[1] = -PEND_L * cos(-0.6);
}

/* Largest |g'| after a step and | |r| - L | over 10 s with step dt. */
static void pendulum_drift(double dt, double *rate_out, double *drift_out) {
    pendulum p;
    pendulum_init(&p);
    nscd_time_stepping_options o;
    nscd_time_stepping_options_init(&o, sizeof o);
    o.dt = dt;
    nscd_time_stepping *ts = NULL;
    assert_int_equal(nscd__time_stepping_create(&p.model, &o, &ts), NSCD_OK);
    double rate_max = 0.0, drift_max = 0.0;
    int n = (int)lround(10.0 / dt);
    for (int k = 1; k <= n; ++k) {
        assert_int_equal(nscd_time_stepping_advance(ts, k * dt, NULL), NSCD_OK);
        double rate = (p.q[0] * p.v[0] + p.q[1] * p.v[1]) / PEND_L;
        double drift = sqrt(p.q[0] * p.q[0] + p.q[1] * p.q[1]) - PEND_L;
        rate_max = fmax(rate_max, fabs(rate));
        drift_max = fmax(drift_max, fabs(drift));
    }
    double normal = 0.0;
    assert_int_equal(nscd_time_stepping_get_contact_impulse(ts, 0, &normal, NULL), NSCD_OK);
    assert_true(normal != 0.0);
    nscd_time_stepping_destroy(ts);
    *rate_out = rate_max;
    *drift_out = drift_max;
}

static void equality_drift_bounded(void **state) {
    (void)state;
    double rate[2], drift[2];
    pendulum_drift(1e-3, &rate[0], &drift[0]);
    pendulum_drift(5e-4, &rate[1], &drift[1]);
    printf("equality: dt 1e-3: max |g'| %.3e, max | |r| - L | over 10 s %.3e; dt 5e-4: %.3e, "
           "%.3e\n",
           rate[0], drift[0], rate[1], drift[1]);
    /* u = W(q_k) v_{k+1} = 0 holds at the step's start positions: the rate
     * at q_{k+1} is W(q_{k+1}) v_{k+1} ~ dt |v|^2 / L (|v|^2 <= 2 g L (1 -
     * cos 0.6) = 3.5 m^2/s^2), and |r| drifts outwards by ~dt^2 |v|^2 / (2 L)
     * per step: O(dt) over a fixed time, nothing pulls it back (no
     * position-level projection yet) */
    double v2 = 2.0 * G * PEND_L * (1.0 - cos(0.6));
    for (int i = 0; i < 2; ++i) {
        double dt = i == 0 ? 1e-3 : 5e-4;
        assert_true(rate[i] <= 1.1 * dt * v2 / PEND_L);
        assert_true(drift[i] <= 2.0 * 10.0 * dt * v2 / (2.0 * PEND_L)); /* 2x the estimate */
    }
    assert_true(fabs(drift[0] / drift[1] - 2.0) <= 0.1); /* first order in dt */
}

/* ------------------------------------------------------------ tower of bodies */

/* TOWER bodies with velocities (x, z), one mass block each (masses 1, 2,
 * 3), resting on each other: entry 0 between the floor and body 0 (one row
 * block), entry i between bodies i - 1 and i (two row blocks), each with a
 * normal (z) and a tangential (x) row. The top body is pushed sideways by
 * PUSH times its weight, less than the friction can hold. */
#define TOWER 3
#define PUSH 0.3

typedef struct tower {
    nscd__model model;
    double t, q[2 * TOWER], v[2 * TOWER];
    nscd__contact_slot entries[TOWER];
    int32_t mass_blocks[TOWER + 1];
    nscd_diag diag;
    nscd_allocator allocator;
} tower;

static double tower_mass(int32_t body) { return 1.0 + body; }

static nscd_status t_mass_solve(void *self, const double *q, int32_t block, int32_t nrhs,
                                const double *B, double *X) {
    (void)self, (void)q;
    for (int32_t i = 0; i < 2 * nrhs; ++i) {
        X[i] = B[i] / tower_mass(block);
    }
    return NSCD_OK;
}

static nscd_status t_forces(void *self, double t, const double *q, const double *v, double *h) {
    (void)self, (void)t, (void)q, (void)v;
    for (int32_t b = 0; b < TOWER; ++b) {
        h[2 * b] = b == TOWER - 1 ? PUSH * tower_mass(b) * G : 0.0;
        h[2 * b + 1] = -tower_mass(b) * G;
    }
    return NSCD_OK;
}

static void t_displace(void *self, const double *q, const double *dq, double *q_out) {
    (void)self;
    for (int32_t i = 0; i < 2 * TOWER; ++i) {
        q_out[i] = q[i] + dq[i];
    }
}

/* Rows (normal, tangent) of entry i: [z, x] of body i minus those of body i - 1. */
static nscd_status t_entry(void *self, int32_t index, double t, const double *q, double *gap,
                           nscd__rows *rows) {
    (void)self, (void)t;
    int32_t upper = index, blocks = index == 0 ? 1 : 2;
    rows->n_rows = 2;
    rows->n_blocks = blocks;
    rows->width_total = 2 * blocks;
    rows->column[0] = index == 0 ? 0 : 2 * (upper - 1);
    rows->column[1] = 2 * upper;
    rows->width[0] = rows->width[1] = 2;
    double *normal = rows->values, *tangent = rows->values + rows->width_total;
    memset(rows->values, 0, 2 * (size_t)rows->width_total * sizeof(double));
    normal[2 * blocks - 1] = 1.0; /* z of the upper body */
    tangent[2 * blocks - 2] = 1.0;
    if (blocks == 2) {
        normal[1] = -1.0;
        tangent[0] = -1.0;
    }
    *gap = q[2 * upper + 1] - (index == 0 ? 0.0 : q[2 * (upper - 1) + 1]) - 1.0;
    return NSCD_OK;
}

static void tower_init(tower *w, double mu) {
    memset(w, 0, sizeof *w);
    w->allocator = nscd__allocator_resolve(NULL);
    for (int32_t b = 0; b <= TOWER; ++b) {
        w->mass_blocks[b] = 2 * b;
    }
    w->model = (nscd__model){.self = w,
                             .n_q = 2 * TOWER,
                             .n_v = 2 * TOWER,
                             .n_contacts = TOWER,
                             .row_width = 4,
                             .n_mass_blocks = TOWER,
                             .mass_block_start = w->mass_blocks,
                             .t = &w->t,
                             .q = w->q,
                             .v = w->v,
                             .contacts = w->entries,
                             .diag = &w->diag,
                             .allocator = &w->allocator,
                             .mass_solve = t_mass_solve,
                             .forces = t_forces,
                             .displace = t_displace,
                             .entry = t_entry};
    for (int32_t b = 0; b < TOWER; ++b) {
        w->q[2 * b + 1] = 1.0 + b; /* unit gaps: every entry touches */
        w->entries[b].key = (uint64_t)b;
        w->entries[b].friction = mu;
        w->entries[b].n_tangent = 1;
    }
}

/* The tower on its per-body mass blocks: fc3d on the block-CSR form holds
 * the push at every contact; the LCP (frictionless, no push) holds the
 * weights. */
static void tower_of_bodies_rests(void **state) {
    (void)state;
    for (int friction = 1; friction >= 0; --friction) {
        tower w;
        tower_init(&w, friction ? MU : 0.0);
        nscd_time_stepping_options o;
        nscd_time_stepping_options_init(&o, sizeof o);
        nscd_time_stepping *ts = NULL;
        assert_int_equal(nscd__time_stepping_create(&w.model, &o, &ts), NSCD_OK);
        /* frictionless: the push slides the top body, the rest stays */
        assert_int_equal(nscd_time_stepping_advance(ts, 1.0, NULL), NSCD_OK);
        double dt = o.dt, above = 0.0, motion = 0.0;
        for (int32_t b = 0; b < TOWER; ++b) {
            motion = fmax(motion, fabs(w.q[2 * b + 1] - (1.0 + b)));
            motion = fmax(motion, b < TOWER - 1 || friction ? fabs(w.q[2 * b]) : 0.0);
        }
        printf("tower (%s): motion %.3e\n", friction ? "fc3d" : "LCP", motion);
        assert_true(motion <= 1e-12);
        for (int32_t i = TOWER - 1; i >= 0; --i) {
            above += tower_mass(i);
            double pn = 0.0, pt = 0.0;
            assert_int_equal(nscd_time_stepping_get_contact_impulse(ts, i, &pn, &pt), NSCD_OK);
            assert_true(fabs(pn - above * G * dt) <= 1e-12);
            double push = friction ? PUSH * tower_mass(TOWER - 1) * G * dt : 0.0;
            assert_true(fabs(pt + push) <= 1e-12);
        }
        nscd_time_stepping_destroy(ts);
    }
}

/* ------------------------------------------------------------ bad input, handles */

static void bad_options_create_nothing(void **state) {
    (void)state;
    nscd_system *s = make_oscillator();
    nscd_time_stepping *ts = (nscd_time_stepping *)(uintptr_t)1;
    nscd_time_stepping_options o;
    struct {
        const char *field;
        double value;
        nscd_status expected;
    } cases[] = {
        {"dt", 0.0, NSCD_ERR_OUT_OF_RANGE},         {"dt", -1e-3, NSCD_ERR_OUT_OF_RANGE},
        {"dt", NAN, NSCD_ERR_NOT_FINITE},           {"dt", INFINITY, NSCD_ERR_NOT_FINITE},
        {"theta", 0.49, NSCD_ERR_OUT_OF_RANGE},     {"theta", 1.01, NSCD_ERR_OUT_OF_RANGE},
        {"theta", NAN, NSCD_ERR_NOT_FINITE},        {"rho", -0.1, NSCD_ERR_OUT_OF_RANGE},
        {"rho", 1.1, NSCD_ERR_OUT_OF_RANGE},        {"tol", 0.0, NSCD_ERR_OUT_OF_RANGE},
        {"scheme", 8, NSCD_ERR_INVALID_ARGUMENT},   {"scheme", -1, NSCD_ERR_INVALID_ARGUMENT},
        {"scheme", 7, NSCD_ERR_INVALID_ARGUMENT},   {"rho", NAN, NSCD_ERR_NOT_FINITE},
        {"solver", 6, NSCD_ERR_INVALID_ARGUMENT},   {"steps", 0, NSCD_ERR_OUT_OF_RANGE},
        {"iter", 0, NSCD_ERR_OUT_OF_RANGE},         {"alpha_ar", -0.1, NSCD_ERR_OUT_OF_RANGE},
        {"alpha_ar", NAN, NSCD_ERR_NOT_FINITE},     {"newton", 0, NSCD_ERR_OUT_OF_RANGE},
        {"newton_tol", 0.0, NSCD_ERR_OUT_OF_RANGE}, {"prox_r", 0.0, NSCD_ERR_OUT_OF_RANGE},
        {"prox_r", 2.0, NSCD_ERR_OUT_OF_RANGE},     {"level", 2, NSCD_ERR_INVALID_ARGUMENT},
        {"start", 2, NSCD_ERR_INVALID_ARGUMENT},    {"prox_mode", 2, NSCD_ERR_INVALID_ARGUMENT},
        {"level", -1, NSCD_ERR_INVALID_ARGUMENT},   {"fc3d", 4, NSCD_ERR_INVALID_ARGUMENT},
        {"fc3d", -1, NSCD_ERR_INVALID_ARGUMENT},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        nscd_time_stepping_options_init(&o, sizeof o);
        const char *f = cases[i].field;
        double x = cases[i].value;
        if (strcmp(f, "dt") == 0)
            o.dt = x;
        if (strcmp(f, "theta") == 0)
            o.theta = x;
        if (strcmp(f, "rho") == 0)
            o.rho_infinity = x;
        if (strcmp(f, "tol") == 0)
            o.tolerance = x;
        if (strcmp(f, "scheme") == 0)
            o.scheme = (int32_t)x;
        if (strcmp(f, "solver") == 0)
            o.local_solver = (int32_t)x;
        if (strcmp(f, "steps") == 0)
            o.max_steps = (int64_t)x;
        if (strcmp(f, "iter") == 0)
            o.max_iterations = (int32_t)x;
        if (strcmp(f, "alpha_ar") == 0)
            o.alpha_ar = x;
        if (strcmp(f, "newton") == 0)
            o.max_newton_iterations = (int32_t)x;
        if (strcmp(f, "newton_tol") == 0)
            o.newton_tolerance = x;
        if (strcmp(f, "prox_r") == 0)
            o.prox_r = x;
        if (strcmp(f, "level") == 0)
            o.level = (int32_t)x;
        if (strcmp(f, "start") == 0)
            o.start = (int32_t)x;
        if (strcmp(f, "prox_mode") == 0)
            o.prox_r_mode = (int32_t)x;
        if (strcmp(f, "fc3d") == 0)
            o.fc3d_method = (int32_t)x;
        assert_int_equal(nscd_time_stepping_create(s, &o, &ts), cases[i].expected);
        assert_true(ts == (nscd_time_stepping *)(uintptr_t)1);
    }
    nscd_time_stepping_options_init(&o, sizeof o);
    o.local_solver = NSCD_TS_SOLVER_PROX; /* supported since the prox solver */
    o.scheme = NSCD_TS_HALF_EXPLICIT;     /* and since HETS */
    assert_int_equal(nscd_time_stepping_create(s, &o, &ts), NSCD_OK);
    nscd_time_stepping_destroy(ts);
    ts = (nscd_time_stepping *)(uintptr_t)1;
    nscd_time_stepping_options_init(&o, sizeof o);
    o.scheme = NSCD_TS_MOREAU_MIDPOINT; /* its forces are explicit only */
    o.forces = NSCD_TS_FORCES_IMPLICIT;
    assert_int_equal(nscd_time_stepping_create(s, &o, &ts), NSCD_ERR_UNSUPPORTED);
    assert_true(ts == (nscd_time_stepping *)(uintptr_t)1);
    o.struct_size = 4;
    assert_int_equal(nscd_time_stepping_create(s, &o, &ts), NSCD_ERR_STRUCT_SIZE);
    assert_int_equal(nscd_time_stepping_create(NULL, NULL, &ts), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_time_stepping_create(s, NULL, NULL), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_time_stepping_options_init(&o, 4), NSCD_ERR_STRUCT_SIZE);
    nscd_system_destroy(s);
}

static void bad_advance_changes_nothing(void **state) {
    (void)state;
    nscd_system *s = make_oscillator();
    nscd_time_stepping *ts = NULL;
    assert_int_equal(nscd_time_stepping_create(s, NULL, &ts), NSCD_OK);
    assert_int_equal(nscd_time_stepping_advance(ts, 0.5, NULL), NSCD_OK);
    double t0, q0, v0, t, q, v;
    nscd_system_get_state(s, &t0, &q0, &v0);
    assert_int_equal(nscd_time_stepping_advance(ts, 0.25, NULL), NSCD_ERR_INVALID_ARGUMENT);
    assert_true(strlen(nscd_time_stepping_last_error(ts)) > 0);
    assert_int_equal(nscd_time_stepping_advance(ts, NAN, NULL), NSCD_ERR_NOT_FINITE);
    assert_int_equal(nscd_time_stepping_advance(ts, INFINITY, NULL), NSCD_ERR_NOT_FINITE);
    nscd_time_stepping_stats st = {.struct_size = 3};
    assert_int_equal(nscd_time_stepping_advance(ts, 1.0, &st), NSCD_ERR_STRUCT_SIZE);
    nscd_system_get_state(s, &t, &q, &v);
    assert_true(t == t0 && q == q0 && v == v0);
    assert_int_equal(nscd_time_stepping_get_contact_impulse(ts, 0, NULL, NULL), NSCD_ERR_INDEX);
    assert_int_equal(nscd_time_stepping_advance(NULL, 1.0, NULL), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_time_stepping_advance(ts, 0.5, NULL), NSCD_OK); /* t_end = t */
    assert_string_equal(nscd_time_stepping_last_error(ts), "");
    nscd_time_stepping_destroy(ts);
    nscd_system_destroy(s);
}

static int32_t fail_at_third(void *user, const nscd_time_stepping_report *report) {
    (void)user;
    return report->step == 2 ? 7 : 0;
}

static void callback_failure_and_stale_handle(void **state) {
    (void)state;
    nscd_system *s = make_oscillator();
    nscd_time_stepping_options o;
    nscd_time_stepping_options_init(&o, sizeof o);
    o.on_step = fail_at_third;
    nscd_time_stepping *ts = NULL;
    assert_int_equal(nscd_time_stepping_create(s, &o, &ts), NSCD_OK);
    nscd_time_stepping_stats st = {.struct_size = sizeof st};
    assert_int_equal(nscd_time_stepping_advance(ts, 1.0, &st), NSCD_ERR_CALLBACK);
    assert_int_equal(st.steps, 3);
    nscd_system_destroy(s);
    assert_int_equal(nscd_time_stepping_advance(ts, 2.0, NULL), NSCD_ERR_STALE_HANDLE);
    assert_int_equal(nscd_time_stepping_get_contact_impulse(ts, 0, NULL, NULL),
                     NSCD_ERR_STALE_HANDLE);
    nscd_time_stepping_destroy(ts);
}

/* A failing forces callback: the failed step keeps the last accepted state. */
static void failed_step_keeps_state(void **state) {
    (void)state;
    ball_model b = {.mass = 1.0, .g = G, .fail_after = 0.10025};
    nscd_system *s = NULL;
    assert_int_equal(make_ball(&b, 1.0, 0.5, &s), NSCD_OK);
    nscd_time_stepping *ts = NULL;
    assert_int_equal(nscd_time_stepping_create(s, NULL, &ts), NSCD_OK);
    assert_int_equal(nscd_time_stepping_advance(ts, 1.0, NULL), NSCD_ERR_CALLBACK);
    double t, q, v;
    nscd_system_get_state(s, &t, &q, &v);
    /* forces are taken at t_θ = t_k + dt / 2: the step from t = 0.100 fails */
    assert_true(fabs(t - 0.1) <= 1e-12);
    assert_true(fabs(v + G * t) <= 1e-12 && fabs(q - (1.0 - 0.5 * G * t * t)) <= 1e-12);
    nscd_time_stepping_destroy(ts);
    nscd_system_destroy(s);
}

static void runs_are_bitwise_equal(void **state) {
    (void)state;
    double result[2][3];
    for (int run = 0; run < 2; ++run) {
        block_model b = {0.3, MU, G, 2, {-BLOCK_HALF_W, BLOCK_HALF_W, 0.0, 0.0}};
        nscd_system *s = make_block(&b);
        double q[3] = {0.0, BLOCK_HALF_H + 0.2, 0.3}, v[3] = {1.0, 0.0, 2.0};
        assert_int_equal(nscd_system_set_state(s, 0.0, q, v), NSCD_OK);
        nscd_time_stepping *ts = block_stepper(s, NSCD_TS_SOLVER_AUTO);
        assert_int_equal(nscd_time_stepping_advance(ts, 2.0, NULL), NSCD_OK);
        double t;
        nscd_system_get_state(s, &t, result[run], v);
        nscd_time_stepping_destroy(ts);
        nscd_system_destroy(s);
    }
    assert_memory_equal(result[0], result[1], sizeof result[0]);
}

/* fc3d with one sweep cannot converge on the sliding block: the advance
 * fails with NSCD_ERR_NOT_CONVERGED at its first step, state unchanged. */
static void solver_cap_is_never_silent(void **state) {
    (void)state;
    block_model b = {0.6, MU, G, 2, {-BLOCK_HALF_W, BLOCK_HALF_W, 0.0, 0.0}};
    nscd_system *s = make_block(&b);
    nscd_time_stepping_options o;
    nscd_time_stepping_options_init(&o, sizeof o);
    o.max_iterations = 1;
    o.tolerance = 1e-14;
    nscd_time_stepping *ts = NULL;
    assert_int_equal(nscd_time_stepping_create(s, &o, &ts), NSCD_OK);
    nscd_time_stepping_stats st = {.struct_size = sizeof st};
    assert_int_equal(nscd_time_stepping_advance(ts, 0.1, &st), NSCD_ERR_NOT_CONVERGED);
    printf("cap: %s\n", nscd_time_stepping_last_error(ts));
    assert_int_equal(st.steps, 0);
    double t, q[3], v[3], pn = 1.0;
    nscd_system_get_state(s, &t, q, v);
    assert_true(t == 0.0 && q[0] == 0.0 && q[1] == BLOCK_HALF_H && v[0] == 0.0 && v[1] == 0.0);
    assert_int_equal(nscd_time_stepping_get_contact_impulse(ts, 0, &pn, NULL), NSCD_OK);
    assert_true(pn == 0.0);
    nscd_time_stepping_destroy(ts);
    nscd_system_destroy(s);
}

/* The LCP refuses friction; fc3d refuses equality entries. */
static void unsupported_solver_combinations(void **state) {
    (void)state;
    block_model b = {0.0, MU, G, 2, {-BLOCK_HALF_W, BLOCK_HALF_W, 0.0, 0.0}};
    nscd_system *s = make_block(&b);
    nscd_time_stepping *ts = block_stepper(s, NSCD_TS_SOLVER_LCP);
    assert_int_equal(nscd_time_stepping_advance(ts, 0.1, NULL), NSCD_ERR_UNSUPPORTED);
    double t, q[3], v[3];
    nscd_system_get_state(s, &t, q, v);
    assert_true(t == 0.0);
    nscd_time_stepping_destroy(ts);
    nscd_system_destroy(s);

    pendulum p;
    pendulum_init(&p);
    nscd_time_stepping_options o;
    nscd_time_stepping_options_init(&o, sizeof o);
    o.local_solver = NSCD_TS_SOLVER_FC3D_COULOMB;
    assert_int_equal(nscd__time_stepping_create(&p.model, &o, &ts), NSCD_OK);
    assert_int_equal(nscd_time_stepping_advance(ts, 0.1, NULL), NSCD_ERR_UNSUPPORTED);
    assert_true(p.t == 0.0);
    nscd_time_stepping_destroy(ts);
}

static int32_t stop_at_fifth(void *user, const nscd_time_stepping_report *report) {
    int *seen = user;
    ++*seen;
    return report->step == 4 ? 1 : 0;
}

static void observer_stops_early(void **state) {
    (void)state;
    nscd_system *s = make_oscillator();
    int seen = 0;
    nscd_time_stepping_options o;
    nscd_time_stepping_options_init(&o, sizeof o);
    o.on_step = stop_at_fifth;
    o.on_step_user = &seen;
    nscd_time_stepping *ts = NULL;
    assert_int_equal(nscd_time_stepping_create(s, &o, &ts), NSCD_OK);
    nscd_time_stepping_stats st = {.struct_size = sizeof st};
    assert_int_equal(nscd_time_stepping_advance(ts, 1.0, &st), NSCD_OK);
    assert_int_equal(st.stopped, 1);
    assert_int_equal(st.steps, 5);
    assert_int_equal(seen, 5);
    assert_true(fabs(st.t - 5e-3) <= 1e-15);
    nscd_time_stepping_destroy(ts);
    o.on_step = NULL; /* a step budget: 7 more steps from t = 5e-3 */
    o.max_steps = 7;
    assert_int_equal(nscd_time_stepping_create(s, &o, &ts), NSCD_OK);
    assert_int_equal(nscd_time_stepping_advance(ts, 1.0, &st), NSCD_ERR_MAX_STEPS);
    assert_int_equal(st.steps, 7);
    assert_true(fabs(st.t - 1.2e-2) <= 1e-15);
    nscd_time_stepping_destroy(ts);
    nscd_system_destroy(s);
}

/* New in 0.2, grown since (dt_min, dt_max, impulse_velocities; the report's residuals and step
 * rule; the stats' step sizes): sizes from the first 0.2 size to the
 * current one are accepted, others fail and nothing is written beyond the
 * caller's struct; a first-size options struct gets fixed steps. */
static void structs_of_release_0_2(void **state) {
    (void)state;
    assert_int_equal(NSCD__TIME_STEPPING_OPTIONS_SIZE_0_2 + 24, sizeof(nscd_time_stepping_options));
    assert_int_equal(NSCD__TIME_STEPPING_STATS_SIZE_0_2 + 40, sizeof(nscd_time_stepping_stats));
    assert_int_equal(NSCD__TIME_STEPPING_REPORT_SIZE_0_2 + 24, sizeof(nscd_time_stepping_report));
    nscd_time_stepping_options o;
    memset(&o, 0x5a, sizeof o);
    assert_int_equal(nscd_time_stepping_options_init(&o, NSCD__TIME_STEPPING_OPTIONS_SIZE_0_2),
                     NSCD_OK);
    assert_true(o.dt == 1e-3);
    unsigned char tail[16];
    memset(tail, 0x5a, sizeof tail);
    assert_memory_equal(&o.dt_min, tail, sizeof tail); /* not written */
    nscd_system *old = make_oscillator();
    nscd_time_stepping *old_ts = NULL; /* the appended fields default to 0: fixed steps */
    assert_int_equal(nscd_time_stepping_create(old, &o, &old_ts), NSCD_OK);
    assert_int_equal(nscd_time_stepping_advance(old_ts, 2e-3, NULL), NSCD_OK);
    nscd_time_stepping_report old_r;
    memset(&old_r, 0x5a, sizeof old_r);
    old_r.struct_size = NSCD__TIME_STEPPING_REPORT_SIZE_0_2;
    assert_int_equal(nscd_time_stepping_get_report(old_ts, &old_r), NSCD_OK);
    assert_int_equal(old_r.step, 1);
    assert_memory_equal(&old_r.equality_violation, tail, sizeof tail); /* not written */
    nscd_time_stepping_stats old_st;
    memset(&old_st, 0x5a, sizeof old_st);
    old_st.struct_size = NSCD__TIME_STEPPING_STATS_SIZE_0_2;
    assert_int_equal(nscd_time_stepping_advance(old_ts, 4e-3, &old_st), NSCD_OK);
    assert_int_equal(old_st.steps, 2);
    assert_memory_equal(&old_st.dt_smallest, tail, sizeof tail); /* not written */
    nscd_time_stepping_destroy(old_ts);
    nscd_system_destroy(old);
    memset(&o, 0x5a, sizeof o);
    assert_int_equal(nscd_time_stepping_options_init(&o, NSCD__TIME_STEPPING_OPTIONS_SIZE_0_2 - 8),
                     NSCD_ERR_STRUCT_SIZE);
    assert_int_equal(nscd_time_stepping_options_init(&o, sizeof o + 8), NSCD_ERR_STRUCT_SIZE);
    assert_int_equal(o.struct_size, 0x5a5a5a5au);
    assert_int_equal(nscd_time_stepping_options_init(&o, sizeof o), NSCD_OK);
    assert_true(o.theta == 0.5 && o.gamma == 0.5 && o.dt == 1e-3 && o.rho_infinity == 1.0);
    assert_int_equal(o.scheme, NSCD_TS_MOREAU_JEAN);
    assert_int_equal(o.local_solver, NSCD_TS_SOLVER_AUTO);
    nscd_system *s = make_oscillator();
    nscd_time_stepping *ts = NULL;
    assert_int_equal(nscd_time_stepping_create(s, NULL, &ts), NSCD_OK);
    nscd_time_stepping_report r;
    memset(&r, 0, sizeof r);
    r.struct_size = NSCD__TIME_STEPPING_REPORT_SIZE_0_2 - 1;
    assert_int_equal(nscd_time_stepping_get_report(ts, &r), NSCD_ERR_STRUCT_SIZE);
    r.struct_size = sizeof r + 1;
    assert_int_equal(nscd_time_stepping_get_report(ts, &r), NSCD_ERR_STRUCT_SIZE);
    r.struct_size = sizeof r;
    assert_int_equal(nscd_time_stepping_get_report(ts, &r), NSCD_OK);
    assert_int_equal(r.step, 0);
    assert_true(r.t == 0.0);
    assert_int_equal(nscd_time_stepping_advance(ts, 3e-3, NULL), NSCD_OK);
    assert_int_equal(nscd_time_stepping_get_report(ts, &r), NSCD_OK);
    assert_int_equal(r.step, 2);
    assert_true(r.t == 3e-3 && r.converged == 1 && r.active_contacts == 0);
    assert_int_equal(nscd_time_stepping_get_report(NULL, &r), NSCD_ERR_NULL_POINTER);
    nscd_time_stepping_destroy(ts);
    nscd_system_destroy(s);
}

/* ------------------------------------------------------------ Moreau's midpoint rule */

/* The oscillator: second order, and the state at t = 1 (dt = 1e-2) equal to
 * the reference's, produced by
 *   cd tools/reference && /usr/bin/python3 -c "import numpy as np,
 *   model_problem as ref; step, start = ref.moreau_midpoint_step(np.eye(1),
 *   np.eye(1), np.zeros(1), 1e-2); X = start(np.array([1.0]),
 *   np.array([0.0])); exec('for i in range(100): X = step(X)');
 *   print(['%.17g' % x for x in X])"
 * (the stepper's steps t_{n+1} - t_n differ from 1e-2 by rounding only). */
static void midpoint_oscillator(void **state) {
    (void)state;
    const double ref[2] = {0.5402987996949008, -0.84148375469820158};
    test_scheme = NSCD_TS_MOREAU_MIDPOINT;
    check_order(0.5, 2.0);
    nscd_system *s = make_oscillator();
    nscd_time_stepping_options o;
    nscd_time_stepping_options_init(&o, sizeof o);
    o.scheme = NSCD_TS_MOREAU_MIDPOINT;
    o.dt = 1e-2;
    o.theta = 1.0; /* not used by the midpoint rule */
    nscd_time_stepping *ts = NULL;
    assert_int_equal(nscd_time_stepping_create(s, &o, &ts), NSCD_OK);
    assert_int_equal(nscd_time_stepping_advance(ts, 1.0, NULL), NSCD_OK);
    double t, x[2];
    nscd_system_get_state(s, &t, &x[0], &x[1]);
    for (int i = 0; i < 2; ++i) {
        double rel = fabs(x[i] - ref[i]) / fabs(ref[i]);
        printf("midpoint oscillator x%d(1) = %.17g, reference %.17g, relative %.3e\n", i, x[i],
               ref[i], rel);
        assert_true(rel <= 1e-12);
    }
    nscd_time_stepping_destroy(ts);
    nscd_system_destroy(s);
    test_scheme = NSCD_TS_MOREAU_JEAN;
}

/* e = 1: the energy stays within a bound of the initial one; e = 1/2: the
 * ball comes to rest holding its weight, penetration of order dt |v|. */
static void midpoint_balls(void **state) {
    (void)state;
    test_scheme = NSCD_TS_MOREAU_MIDPOINT;
    double dt = 1e-3, t, q, v, normal = 0.0;
    for (int elastic = 1; elastic >= 0; --elastic) {
        ball_model b = {.mass = 1.0, .g = G};
        nscd_system *s = NULL;
        assert_int_equal(make_ball(&b, 1.0, elastic ? 1.0 : 0.5, &s), NSCD_OK);
        ball_watch w = {s, G, G, G, 0.0};
        nscd_time_stepping *ts = ball_stepper(s, &w, dt);
        assert_int_equal(nscd_time_stepping_advance(ts, elastic ? 10.0 : 5.0, NULL), NSCD_OK);
        nscd_system_get_state(s, &t, &q, &v);
        assert_int_equal(nscd_time_stepping_get_contact_impulse(ts, 0, &normal, NULL), NSCD_OK);
        printf("midpoint ball e = %s: energy in [%.15g, %.15g], q = %.3e, v = %.3e, "
               "penetration %.3e, P_N = %.6g\n",
               elastic ? "1" : "1/2", w.e_min, w.e_max, q, v, w.penetration, normal);
        /* a free step ends at most dt |v_impact| deep (q_M above, q_{k+1} below) */
        assert_true(w.penetration <= dt * sqrt(2.0 * G * 1.0) + G * dt * dt);
        if (elastic) {
            /* flight under constant gravity is exact (q_{k+1} = q_k + dt v_k -
             * g dt^2 / 2) and the impact reverses v: rounding alone */
            assert_true(w.e_max <= w.e0 * (1.0 + 1e-9) && w.e_min >= w.e0 * (1.0 - 1e-9));
        } else {
            assert_true(fabs(v) <= 1e-12 && q <= 1e-12);
            assert_true(fabs(normal - G * dt) <= 1e-12);
        }
        nscd_time_stepping_destroy(ts);
        nscd_system_destroy(s);
    }
    test_scheme = NSCD_TS_MOREAU_JEAN;
}

static void midpoint_block_does_not_creep(void **state) {
    test_scheme = NSCD_TS_MOREAU_MIDPOINT;
    resting_block_does_not_creep(state);
    test_scheme = NSCD_TS_MOREAU_JEAN;
}

static void midpoint_runs_are_bitwise_equal(void **state) {
    test_scheme = NSCD_TS_MOREAU_MIDPOINT;
    runs_are_bitwise_equal(state);
    test_scheme = NSCD_TS_MOREAU_JEAN;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(oscillator_orders),
        cmocka_unit_test(elastic_ball_energy_bounded),
        cmocka_unit_test(inelastic_ball_comes_to_rest),
        cmocka_unit_test(moved_body_meets_no_phantom_contact),
        cmocka_unit_test(resting_block_does_not_creep),
        cmocka_unit_test(block_slides_down_a_slope),
        cmocka_unit_test(redundant_contacts_rest),
        cmocka_unit_test(many_frictionless_contacts),
        cmocka_unit_test(equality_drift_bounded),
        cmocka_unit_test(tower_of_bodies_rests),
        cmocka_unit_test(bad_options_create_nothing),
        cmocka_unit_test(bad_advance_changes_nothing),
        cmocka_unit_test(callback_failure_and_stale_handle),
        cmocka_unit_test(failed_step_keeps_state),
        cmocka_unit_test(runs_are_bitwise_equal),
        cmocka_unit_test(solver_cap_is_never_silent),
        cmocka_unit_test(unsupported_solver_combinations),
        cmocka_unit_test(observer_stops_early),
        cmocka_unit_test(structs_of_release_0_2),
        cmocka_unit_test(midpoint_oscillator),
        cmocka_unit_test(midpoint_balls),
        cmocka_unit_test(midpoint_block_does_not_creep),
        cmocka_unit_test(midpoint_runs_are_bitwise_equal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
