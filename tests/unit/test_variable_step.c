/* Seed 004's semi-implicit time stepping (NSCD_TS_SEMI_IMPLICIT) with
 * variable steps dt_min <= h <= dt_max (docs/variable_step.md): a ball
 * dropped on a floor lands at the predicted instant and stays (plastic), a
 * Cartesian pendulum keeps its rod length and its period, a planar box on
 * twelve redundant contact points (with and without an equality row, with
 * and without friction) rests or slides exactly, t_end is hit exactly, and
 * bad options change nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assert_near.h"
#include "models.h"
#include "world_bodies.h"

#define G 9.81
#define PI 3.14159265358979323846

/* A semi-implicit stepper with [dt_min, dt_max] and a local solver. */
static nscd_time_stepping *semi_implicit_with(nscd_system *s, double dt_min, double dt_max,
                                              int32_t solver) {
    nscd_time_stepping_options o;
    nscd_time_stepping_options_init(&o, sizeof o);
    o.scheme = NSCD_TS_SEMI_IMPLICIT;
    o.local_solver = solver;
    o.dt_min = dt_min;
    o.dt_max = dt_max;
    nscd_time_stepping *ts = NULL;
    assert_int_equal(nscd_time_stepping_create(s, &o, &ts), NSCD_OK);
    return ts;
}

static nscd_time_stepping *semi_implicit(nscd_system *s, double dt_min, double dt_max) {
    return semi_implicit_with(s, dt_min, dt_max, NSCD_TS_SOLVER_AUTO);
}

/* ------------------------------------------------------------ falling ball */

/* Smallest s > 0 with y + s v - g s^2 / 2 = 0 (y > 0, v <= 0). */
static double fall_time(double y, double v) { return (v + sqrt(v * v + 2.0 * G * y)) / G; }

/* The landing instant of the semi-implicit scheme's own free flight,
 * independently of the library: steps h_max of symplectic Euler
 * (v += -g h, y += h v) while the exact parabola from the current discrete
 * state reaches the floor later than h_max; then the time to contact. */
static double discrete_landing(double H, double h_max) {
    double y = H, v = 0.0, t = 0.0;
    while (fall_time(y, v) >= h_max) {
        v -= G * h_max;
        y += h_max * v;
        t += h_max;
    }
    return t + fall_time(y, v);
}

typedef struct landing_log {
    double t_land;    /* end of the first step ended by a predicted contact */
    int64_t rules[4]; /* steps per nscd_ts_step_rule */
    double dt_after;  /* smallest step after the first impulse */
    int landed;
} landing_log;

static int32_t log_landing(void *user, const nscd_time_stepping_report *r) {
    landing_log *log = user;
    log->rules[r->step_rule]++;
    if (!log->landed && r->step_rule == NSCD_TS_STEP_CONTACT) {
        log->t_land = r->t;
        log->landed = 1;
    } else if (log->landed) {
        log->dt_after = fmin(log->dt_after, r->dt);
    }
    return 0;
}

/* Dropped from H (e = 0.9, which the plastic scheme does not use): the step
 * that lands ends at the time to contact predicted from the discrete state,
 * within 1e-12 of the independent replay; that instant lies within h_max / 2
 * + h_min of sqrt(2H/g) (the free flight of θ = 1 is first order); the ball
 * stays on the floor and the steps return to h_max. Without gravity (a
 * thrown ball, exact free flight) the landing is H / v0 to 1e-12. */
static void ball_lands_and_stays(void **state) {
    (void)state;
    const double H = 1.0, h_min = 1e-4, h_max = 1e-2;
    ball_model b = {1.0, G, 0.0, 0.0, 1};
    nscd_system *s = NULL;
    assert_int_equal(make_ball(&b, H, 0.9, &s), NSCD_OK);
    landing_log log = {.dt_after = INFINITY};
    nscd_time_stepping_options o;
    nscd_time_stepping_options_init(&o, sizeof o);
    o.scheme = NSCD_TS_SEMI_IMPLICIT;
    o.dt_min = h_min;
    o.dt_max = h_max;
    o.on_step = log_landing;
    o.on_step_user = &log;
    nscd_time_stepping *ts = NULL;
    assert_int_equal(nscd_time_stepping_create(s, &o, &ts), NSCD_OK);
    nscd_time_stepping_stats st = {.struct_size = sizeof st};
    const double t_end = 1.2345678;
    assert_int_equal(nscd_time_stepping_advance(ts, t_end, &st), NSCD_OK);
    double t, q, v;
    nscd_system_get_state(s, &t, &q, &v);
    double t_exact = sqrt(2.0 * H / G), t_discrete = discrete_landing(H, h_max);
    printf("ball: landed %.15f (discrete %.15f, exact %.15f), %lld steps (%lld max, %lld contact, "
           "%lld end), dt in [%.3g, %.3g], after landing >= %.3g, y %.3e v %.3e, "
           "residual %.2e\n",
           log.t_land, t_discrete, t_exact, (long long)st.steps, (long long)log.rules[1],
           (long long)log.rules[2], (long long)log.rules[3], st.dt_smallest, st.dt_largest,
           log.dt_after, q, v, st.max_momentum_residual);
    assert_true(log.landed);
    assert_near(log.t_land, t_discrete, 1e-12);
    assert_true(fabs(log.t_land - t_exact) <= 0.5 * h_max + h_min);
    assert_true(t == t_end && st.t == t_end);          /* exactly */
    assert_true(fabs(q) <= 1e-12 && fabs(v) <= 1e-12); /* plastic: it stays */
    assert_true(st.max_penetration <= 1e-12);
    /* a step's size is t_{n+1} - t_n of the rounded times: h_max up to rounding */
    assert_true(st.dt_smallest >= h_min && st.dt_largest <= h_max * (1.0 + 1e-12));
    assert_true(log.dt_after >= h_min);
    assert_true(log.rules[NSCD_TS_STEP_MAX] >= 100 && log.rules[NSCD_TS_STEP_END] == 1);
    assert_int_equal(st.contact_steps, log.rules[NSCD_TS_STEP_CONTACT]);
    assert_true(st.contact_steps <= 3);
    assert_true(st.max_momentum_residual >= 0.0 && st.max_momentum_residual <= 1e-14);
    nscd_time_stepping_destroy(ts);

    /* no gravity, thrown down at v0: the free flight is exact */
    b.g = 0.0;
    const double v0 = -3.0;
    assert_int_equal(nscd_system_set_state(s, 0.0, &H, &v0), NSCD_OK);
    memset(&log, 0, sizeof log);
    log.dt_after = INFINITY;
    assert_int_equal(nscd_time_stepping_create(s, &o, &ts), NSCD_OK);
    assert_int_equal(nscd_time_stepping_advance(ts, 1.0, &st), NSCD_OK);
    nscd_system_get_state(s, &t, &q, &v);
    printf("thrown ball: landed %.15f (exact %.15f), y %.3e v %.3e\n", log.t_land, H / -v0, q, v);
    assert_near(log.t_land, H / -v0, 1e-12);
    assert_true(fabs(q) <= 1e-12 && fabs(v) <= 1e-12);
    nscd_time_stepping_destroy(ts);
    nscd_system_destroy(s);
}

/* The same drop with Moreau–Jean's default θ = 1/2, whose free flight is
 * exact under a constant force (the trapezoidal positions): the rule's
 * prediction is then exact too, and the step that lands ends at
 * sqrt(2H/g) to 1e-12, far inside h_min (the velocity level then lets the
 * ball sink by at most h_max |v| / 2 at the impact: Moreau's drift, which
 * the semi-implicit scheme does not have). */
static void ball_lands_on_time_with_exact_free_flight(void **state) {
    (void)state;
    const double H = 1.0, h_min = 1e-4, h_max = 1e-2;
    ball_model b = {1.0, G, 0.0, 0.0, 1};
    nscd_system *s = NULL;
    assert_int_equal(make_ball(&b, H, 0.0, &s), NSCD_OK);
    landing_log log = {.dt_after = INFINITY};
    nscd_time_stepping_options o;
    nscd_time_stepping_options_init(&o, sizeof o);
    o.dt_min = h_min;
    o.dt_max = h_max;
    o.on_step = log_landing;
    o.on_step_user = &log;
    nscd_time_stepping *ts = NULL;
    assert_int_equal(nscd_time_stepping_create(s, &o, &ts), NSCD_OK);
    nscd_time_stepping_stats st = {.struct_size = sizeof st};
    assert_int_equal(nscd_time_stepping_advance(ts, 1.0, &st), NSCD_OK);
    double t, q, v;
    nscd_system_get_state(s, &t, &q, &v);
    printf("ball, Moreau-Jean θ = 1/2: landed %.15f (exact %.15f), y %.3e, penetration %.3e\n",
           log.t_land, sqrt(2.0 * H / G), q, st.max_penetration);
    assert_near(log.t_land, sqrt(2.0 * H / G), 1e-12);
    assert_true(st.max_penetration <= 0.5 * h_max * G * sqrt(2.0 * H / G) + G * h_max * h_max);
    assert_true(st.max_momentum_residual == -1.0); /* not computed by Moreau–Jean */
    nscd_time_stepping_destroy(ts);
    nscd_system_destroy(s);
}

/* The same drop with fixed steps (dt_max = 0) uses dt only; the default
 * scheme's result is unchanged by the new fields (bitwise: both runs). */
static void fixed_steps_unchanged(void **state) {
    (void)state;
    ball_model b = {1.0, G, 0.0, 0.0, 1};
    double q[2], v[2], t;
    for (int k = 0; k < 2; ++k) {
        nscd_system *s = NULL;
        assert_int_equal(make_ball(&b, 1.0, 0.5, &s), NSCD_OK);
        nscd_time_stepping_options o;
        nscd_time_stepping_options_init(&o, sizeof o);
        if (k == 1) { /* the 0.2 first-size struct: no dt_min, dt_max */
            nscd_time_stepping_options_init(&o, offsetof(nscd_time_stepping_options, dt_min));
        }
        nscd_time_stepping *ts = NULL;
        assert_int_equal(nscd_time_stepping_create(s, &o, &ts), NSCD_OK);
        nscd_time_stepping_stats st = {.struct_size = sizeof st};
        assert_int_equal(nscd_time_stepping_advance(ts, 1.0, &st), NSCD_OK);
        assert_int_equal(st.steps, 1000);
        assert_int_equal(st.contact_steps, 0);
        nscd_time_stepping_report r = {.struct_size = sizeof r};
        assert_int_equal(nscd_time_stepping_get_report(ts, &r), NSCD_OK);
        assert_int_equal(r.step_rule, NSCD_TS_STEP_FIXED);
        nscd_system_get_state(s, &t, &q[k], &v[k]);
        nscd_time_stepping_destroy(ts);
        nscd_system_destroy(s);
    }
    assert_memory_equal(q, q + 1, sizeof q[0]);
    assert_memory_equal(v, v + 1, sizeof v[0]);
}

/* ------------------------------------------------------------ oscillator */

static nscd_status unit_mass(void *u, const double *q, double *m) {
    (void)u, (void)q;
    m[0] = 1.0;
    return NSCD_OK;
}

static nscd_status unit_spring(void *u, double t, const double *q, const double *v, double *h) {
    (void)u, (void)t, (void)v;
    h[0] = -q[0];
    return NSCD_OK;
}

/* Without contacts the semi-implicit step is symplectic Euler with the
 * forces at the step's start (eq. 26b): v+ = v - h q, q+ = q + h v+, whose
 * exact invariant on the unit oscillator is q^2 + v^2 - h q v (checked in
 * numpy: 4e-15 after 10^4 steps of h = 0.1). Forces at the predicted point
 * q + h v instead (Moreau–Jean's θ-point with θ = 1) would damp the motion
 * to nothing (|q|^2 + |v|^2 = 2e-44 after those steps). Steps h = 0.1 by
 * dt_min = dt_max. */
static void oscillator_is_symplectic_euler(void **state) {
    (void)state;
    nscd_system_desc d;
    nscd_system_desc_init(&d, sizeof d);
    d.n_dof = 1;
    d.mass = unit_mass;
    d.forces = unit_spring;
    nscd_system *s = NULL;
    assert_int_equal(nscd_system_create(&d, &s), NSCD_OK);
    const double h = 0.1, q0 = 1.0, v0 = 0.0;
    assert_int_equal(nscd_system_set_state(s, 0.0, &q0, &v0), NSCD_OK);
    nscd_time_stepping *ts = semi_implicit(s, h, h);
    nscd_time_stepping_stats st = {.struct_size = sizeof st};
    assert_int_equal(nscd_time_stepping_advance(ts, 1000.0, &st), NSCD_OK);
    double t, q, v;
    nscd_system_get_state(s, &t, &q, &v);
    double invariant = q * q + v * v - h * q * v;
    printf("oscillator: %lld steps, q^2 + v^2 - h q v - 1 = %.2e, residual %.2e\n",
           (long long)st.steps, invariant - 1.0, st.max_momentum_residual);
    assert_true(st.steps >= 9999 && st.steps <= 10001);
    assert_near(invariant, 1.0, 1e-9); /* seen: -1.5e-11 (steps t_{n+1} - t_n round) */
    assert_true(t == 1000.0);
    nscd_time_stepping_destroy(ts);
    nscd_system_destroy(s);
}

/* ------------------------------------------------------------ pendulum */

/* Complete elliptic integral of the first kind by the AGM. */
static double ellip_k(double k) {
    double a = 1.0, b = sqrt(1.0 - k * k);
    for (int i = 0; i < 40; ++i) {
        double a1 = 0.5 * (a + b);
        b = sqrt(a * b);
        a = a1;
    }
    return PI / (2.0 * a);
}

typedef struct crossing_log {
    double crossings[64];
    int n;
} crossing_log;

/* Period of the Cartesian pendulum released horizontally (models.h),
 * variable steps in [h_min, h_max] (no contact: every step is h_max),
 * from the downward crossings of x = 0 (linear interpolation within the
 * step), one advance per step; the largest rod violation into
 * *max_violation. Returns the mean period over the crossings. */
static double pendulum_period(double h_min, double h_max, double *max_violation) {
    nscd_system *s = NULL;
    assert_int_equal(make_cartesian_pendulum(&s), NSCD_OK);
    nscd_time_stepping *ts = semi_implicit(s, h_min, h_max);
    crossing_log log = {.n = 0};
    double t_end = 10.0, t = 0.0, q[2], v[2], t_prev = 0.0, x_prev = 1.0;
    *max_violation = 0.0;
    while (t < t_end) {
        nscd_time_stepping_stats st = {.struct_size = sizeof st};
        assert_int_equal(nscd_time_stepping_advance(ts, fmin(t + h_max, t_end), &st), NSCD_OK);
        nscd_system_get_state(s, &t, q, v);
        *max_violation = fmax(*max_violation, st.max_equality_violation);
        if (x_prev > 0.0 && q[0] <= 0.0 && log.n < 64) { /* downward crossing of x = 0 */
            log.crossings[log.n++] = t_prev + (t - t_prev) * x_prev / (x_prev - q[0]);
        }
        x_prev = q[0];
        t_prev = t;
    }
    nscd_time_stepping_destroy(ts);
    nscd_system_destroy(s);
    assert_true(log.n >= 3);
    return (log.crossings[log.n - 1] - log.crossings[0]) / (double)(log.n - 1);
}

/* Released horizontal: T = 4 sqrt(L/g) K(sin(pi/4)) (K by the AGM). The
 * θ = 1 step is symplectic Euler on the free motion: the period stays
 * within 5e-4 relative over 10 s for h_max <= 2e-3 (seen: -3.0e-4, -1.9e-4,
 * +1.5e-4), and the rod length within the linearised constraint's
 * O(h^2 v^2 / L) of one step (second order: quartered when h halves),
 * bounded over 10 s, not drifting. */
static void pendulum_period_and_rod(void **state) {
    (void)state;
    double T = 4.0 * sqrt(1.0 / G) * ellip_k(sin(PI / 4.0)), viol[3], err[3];
    const double h[3] = {2e-3, 1e-3, 5e-4};
    for (int k = 0; k < 3; ++k) {
        err[k] = pendulum_period(0.5 * h[k], h[k], &viol[k]) / T - 1.0;
        printf("pendulum h_max %.0e: period error %.3e, max | |q| - 1 | %.3e\n", h[k], err[k],
               viol[k]);
    }
    for (int k = 0; k < 3; ++k) {
        assert_true(fabs(err[k]) <= 5e-4);
        assert_true(viol[k] <= 2.0 * G * h[k] * h[k]); /* v^2 <= 2 g L */
    }
    assert_true(viol[2] < 0.3 * viol[1]); /* second order in h */
}

/* ------------------------------------------------------------ box on 12 points */

#define BOX_POINTS 12
#define BOX_W 0.5 /* half width */
#define BOX_H 0.25
#define BOX_M 2.0

typedef struct box_model {
    double slope, mu;
    int equality; /* 1: an equality entry phi = 0 */
} box_model;

static nscd_status box_mass(void *u, const double *q, double *m) {
    (void)u, (void)q;
    memset(m, 0, 9 * sizeof(double));
    m[0] = m[4] = BOX_M;
    m[8] = BOX_M * (4.0 * BOX_W * BOX_W + 4.0 * BOX_H * BOX_H) / 12.0;
    return NSCD_OK;
}

static nscd_status box_forces(void *u, double t, const double *q, const double *v, double *h) {
    (void)t, (void)q, (void)v;
    const box_model *b = u;
    h[0] = BOX_M * G * sin(b->slope);
    h[1] = -BOX_M * G * cos(b->slope);
    h[2] = 0.0;
    return NSCD_OK;
}

/* Point i at x offset s_i along the bottom edge (twelve, evenly spaced). */
static nscd_status box_point(void *u, int32_t i, double t, const double *q, double *gap, double *wn,
                             double *wt) {
    (void)u, (void)t;
    double s = -BOX_W + 2.0 * BOX_W * (double)i / (BOX_POINTS - 1), c = cos(q[2]), sn = sin(q[2]);
    *gap = q[1] + s * sn - BOX_H * c;
    wn[0] = 0.0, wn[1] = 1.0, wn[2] = s * c + BOX_H * sn;
    wt[0] = 1.0, wt[1] = 0.0, wt[2] = -s * sn + BOX_H * c;
    return NSCD_OK;
}

static nscd_status box_level(void *u, int32_t i, double t, const double *q, double *g,
                             double *row) {
    (void)u, (void)i, (void)t;
    *g = q[2];
    row[0] = 0.0, row[1] = 0.0, row[2] = 1.0;
    return NSCD_OK;
}

static nscd_system *make_box(box_model *b, double drop) {
    nscd_system_desc d;
    nscd_system_desc_init(&d, sizeof d);
    d.n_dof = 3;
    d.n_contacts = BOX_POINTS;
    d.user = b;
    d.mass = box_mass;
    d.forces = box_forces;
    d.contact = box_point;
    d.n_equalities = b->equality;
    d.equality = box_level;
    nscd_system *s = NULL;
    assert_int_equal(nscd_system_create(&d, &s), NSCD_OK);
    nscd_contact_desc c;
    nscd_contact_desc_init(&c, sizeof c);
    c.friction = b->mu;
    c.n_tangent = 1;
    for (int32_t i = 0; i < BOX_POINTS; ++i) {
        assert_int_equal(nscd_system_set_contact(s, i, &c), NSCD_OK);
    }
    double q[3] = {0.0, BOX_H + drop, 0.0}, v[3] = {0.0, 0.0, 0.0};
    assert_int_equal(nscd_system_set_state(s, 0.0, q, v), NSCD_OK);
    return s;
}

/* Dropped flat from 5 cm onto twelve coplanar points (12 unilateral rows on
 * 3 dofs), with and without the equality phi = 0 (dependent on the contact
 * rows once they close): it lands, rests at y = H with the normal impulses
 * summing to m g h each step, no tilt, no penetration; with the pivoting
 * mixed LCP (a vertex solution: it pivots only independent rows into its
 * basis) and with the prox solver (the pseudoinverse). */
static void box_on_redundant_points(void **state) {
    (void)state;
    for (int run = 0; run < 4; ++run) {
        int eq = run % 2;
        int32_t solver = run < 2 ? NSCD_TS_SOLVER_LCP : NSCD_TS_SOLVER_PROX;
        box_model b = {0.0, 0.0, eq};
        nscd_system *s = make_box(&b, 0.05);
        nscd_time_stepping *ts = semi_implicit_with(s, 1e-4, 1e-2, solver);
        nscd_time_stepping_stats st = {.struct_size = sizeof st};
        assert_int_equal(nscd_time_stepping_advance(ts, 1.0, &st), NSCD_OK);
        double t, q[3], v[3], sum = 0.0;
        nscd_system_get_state(s, &t, q, v);
        for (int32_t i = 0; i < BOX_POINTS; ++i) {
            double pn = -1.0;
            assert_int_equal(nscd_time_stepping_get_contact_impulse(ts, i, &pn, NULL), NSCD_OK);
            assert_true(pn >= 0.0);
            sum += pn;
        }
        nscd_time_stepping_report r = {.struct_size = sizeof r};
        assert_int_equal(nscd_time_stepping_get_report(ts, &r), NSCD_OK);
        printf("box on %d points, %s, %s: %lld steps (%lld by contact), last dt %.3g, rows %d, "
               "%d iterations, residual %.2e, sum P_N / (m g dt) - 1 = %.2e, y - H %.2e, "
               "phi %.2e, balance %.2e\n",
               BOX_POINTS, eq ? "with phi = 0" : "contacts only", run < 2 ? "LCP" : "prox",
               (long long)st.steps, (long long)st.contact_steps, r.dt, (int)r.rows,
               (int)r.iterations, r.residual, sum / (BOX_M * G * r.dt) - 1.0, q[1] - BOX_H, q[2],
               st.max_momentum_residual);
        assert_int_equal(r.rows, BOX_POINTS + eq);
        assert_true(fabs(sum - BOX_M * G * r.dt) <= 1e-9);
        assert_true(fabs(q[1] - BOX_H) <= 1e-10 && fabs(q[2]) <= 1e-10 && fabs(v[1]) <= 1e-10);
        assert_true(st.max_momentum_residual <= 1e-10);
        assert_true(r.equality_violation <= 1e-12);
        nscd_time_stepping_destroy(ts);
        nscd_system_destroy(s);
    }
}

/* The scan: the box dropped from heights spread over [1, 11] cm
 * lands and rests under every local solver choice, with and without the
 * equality phi = 0 (fc3d takes contacts only: without it). Before the rank
 * rule of core/redundant.h, the pivoting LCP entered exactly singular
 * bases of the rank-2 Delassus matrix whenever a one-ulp gap divided by a
 * short last step exceeded its sign tolerance, for 35 of 200 heights with
 * OpenBLAS's Haswell kernels and 75 with Cooperlake. Every run must end
 * NSCD_OK at rest at t = 0.5 s (y = H to 1e-8 m, no tilt, the normal
 * impulses carrying the weight over the last step to 1e-9 relative with the
 * pivoting LCP; to 1e-5 with the iterative solvers, whose merit stops at
 * 1e-10 to 1e-9 of |q|: seen 2.3e-6; the velocity is at rest to 1e-8 m/s
 * either way). fc3d's Gauss-Seidel stalls on the twelve dependent rows:
 * from 1.4 cm its merit stays at 1.1e-10 |q| from 1000 to 20000 sweeps (u
 * ~ 1e-13 m/s, linear along the edge: the tilt mode, spread over twelve
 * rows, barely contracts), above its default tolerance 1e-10; it gets 1e-9
 * here (docs/time_stepping.md, "Redundant rows"). NSCD_BOX_SCAN_HEIGHTS
 * sets the number of heights (default 25; the scan: 200). */
static void box_lands_from_every_height(void **state) {
    (void)state;
    const char *env = getenv("NSCD_BOX_SCAN_HEIGHTS");
    int heights = env != NULL ? atoi(env) : 25;
    heights = heights >= 2 && heights <= 100000 ? heights : 25;
    const int32_t solvers[] = {NSCD_TS_SOLVER_AUTO, NSCD_TS_SOLVER_LCP, NSCD_TS_SOLVER_FC3D_COULOMB,
                               NSCD_TS_SOLVER_FC3D_MAX_DISSIPATION, NSCD_TS_SOLVER_PROX};
    int failures = 0, runs = 0;
    for (int k = 0; k < heights; ++k) {
        double drop = 0.01 + 0.10 * (double)k / (double)(heights - 1);
        for (int eq = 0; eq < 2; ++eq) {
            for (size_t j = 0; j < sizeof solvers / sizeof solvers[0]; ++j) {
                int fc3d = solvers[j] == NSCD_TS_SOLVER_FC3D_COULOMB ||
                           solvers[j] == NSCD_TS_SOLVER_FC3D_MAX_DISSIPATION;
                if (eq && fc3d) {
                    continue;
                }
                box_model b = {0.0, 0.0, eq};
                nscd_system *s = make_box(&b, drop);
                nscd_time_stepping_options o;
                nscd_time_stepping_options_init(&o, sizeof o);
                o.scheme = NSCD_TS_SEMI_IMPLICIT;
                o.local_solver = solvers[j];
                o.dt_min = 1e-4, o.dt_max = 1e-2;
                o.tolerance = fc3d ? 1e-9 : o.tolerance;
                nscd_time_stepping *ts = NULL;
                assert_int_equal(nscd_time_stepping_create(s, &o, &ts), NSCD_OK);
                nscd_status rc = nscd_time_stepping_advance(ts, 0.5, NULL);
                double t, q[3], v[3], sum = 0.0;
                nscd_system_get_state(s, &t, q, v);
                for (int32_t i = 0; rc == NSCD_OK && i < BOX_POINTS; ++i) {
                    double pn = 0.0;
                    rc = nscd_time_stepping_get_contact_impulse(ts, i, &pn, NULL);
                    sum += pn;
                }
                nscd_time_stepping_report r = {.struct_size = sizeof r};
                nscd_time_stepping_get_report(ts, &r);
                double weight = BOX_M * G * r.dt;
                double spread = fc3d || solvers[j] == NSCD_TS_SOLVER_PROX ? 1e-5 : 1e-9;
                int ok = rc == NSCD_OK && fabs(q[1] - BOX_H) <= 1e-8 && fabs(q[2]) <= 1e-8 &&
                         fabs(v[1]) <= 1e-8 && fabs(sum - weight) <= spread * weight;
                if (!ok) {
                    printf("box from %.6f m, solver %d, phi %d: %s (%s), y - H %.3g, phi %.3g, "
                           "sum P_N / (m g dt) - 1 = %.3g\n",
                           drop, (int)solvers[j], eq, nscd_status_string(rc),
                           nscd_time_stepping_last_error(ts), q[1] - BOX_H, q[2],
                           sum / weight - 1.0);
                }
                failures += !ok;
                ++runs;
                nscd_time_stepping_destroy(ts);
                nscd_system_destroy(s);
            }
        }
    }
    printf("box scan: %d heights in [1, 11] cm, %d runs, %d failures\n", heights, runs, failures);
    assert_int_equal(failures, 0);
}

/* With Coulomb friction (mu = 0.2 on a 0.3 rad slope, which it cannot hold:
 * tan 0.3 > 0.2) the box, landed on its twelve points, slides with
 * a = g (sin 0.3 - mu cos 0.3) exactly: the velocity gained between t = 0.5
 * and t = 1 is a times 0.5. The same with the equality phi = 0 beside the
 * frictional contacts: the AUTO local solver then takes the prox solver (the
 * LCP is frictionless, fc3d takes contacts only). */
static void box_slides_with_coulomb(void **state) {
    (void)state;
    for (int eq = 0; eq < 2; ++eq) {
        box_model b = {0.3, 0.2, eq};
        nscd_system *s = make_box(&b, 0.01);
        nscd_time_stepping *ts = semi_implicit(s, 1e-4, 1e-2);
        double t, q[3], v0[3], v1[3];
        assert_int_equal(nscd_time_stepping_advance(ts, 0.5, NULL), NSCD_OK);
        nscd_system_get_state(s, &t, q, v0);
        assert_int_equal(nscd_time_stepping_advance(ts, 1.0, NULL), NSCD_OK);
        nscd_system_get_state(s, &t, q, v1);
        double a = (v1[0] - v0[0]) / 0.5, expected = G * (sin(0.3) - 0.2 * cos(0.3));
        printf("box sliding%s: a = %.12f, expected %.12f, y - H %.2e, phi %.2e\n",
               eq ? " with phi = 0" : "", a, expected, q[1] - BOX_H, q[2]);
        assert_near(a, expected, 1e-8);
        assert_true(fabs(q[1] - BOX_H) <= 1e-10 && fabs(q[2]) <= 1e-10);
        nscd_time_stepping_destroy(ts);
        nscd_system_destroy(s);
    }
}

/* ------------------------------------------------------------ triangular slider */

/* Seed 004's prismatic set (Sect. 3, eqs. 38-39) on a generic system: a
 * triangular prism (inradius R_s, length L, unit mass) in a triangular
 * guide along z (inradius R_g = R_s + c), both pointing up; each of the six
 * vertices is held by the two guide planes adjacent to it: 12 unilateral
 * rows on 6 dofs (x, y, z and a small rotation vector θ, whose gap
 * g = R_g - o_j . (x + r_i + θ x r_i) is linear in q, so that the rows
 * dg/dq = -(o_j, r_i x o_j) are exact). Gravity -y, an axial force F_z. */
#define TRI_RS 0.02
#define TRI_C 3e-4
#define TRI_L 0.1
#define TRI_F 1.0
#define TRI_DEG (PI / 180.0)

typedef struct tri_model {
    int equalities; /* 2: x = 0 and θ_z = 0 as equality entries */
} tri_model;

static nscd_status tri_mass(void *u, const double *q, double *m) {
    (void)u, (void)q;
    memset(m, 0, 36 * sizeof(double));
    double a = 2.0 * sqrt(3.0) * TRI_RS; /* side of the triangle */
    double I_axis = a * a / 12.0, I_cross = a * a / 24.0 + TRI_L * TRI_L / 12.0;
    const double diag[6] = {1.0, 1.0, 1.0, I_cross, I_cross, I_axis};
    for (int k = 0; k < 6; ++k) {
        m[7 * k] = diag[k];
    }
    return NSCD_OK;
}

static nscd_status tri_forces(void *u, double t, const double *q, const double *v, double *h) {
    (void)u, (void)t, (void)q, (void)v;
    memset(h, 0, 6 * sizeof(double));
    h[1] = -G;
    h[2] = TRI_F;
    return NSCD_OK;
}

/* Contact k = 2 vertex + side: vertex k / 2 (0-2 front, 3-5 back) against
 * the plane whose outward normal is at the vertex angle -60 or +60 deg. */
static nscd_status tri_gap(void *u, int32_t k, double t, const double *q, double *gap, double *wn,
                           double *wt) {
    (void)u, (void)t, (void)wt;
    int32_t vtx = k / 2;
    double phi = (90.0 + 120.0 * (vtx % 3)) * TRI_DEG, psi = phi + (k % 2 ? 60.0 : -60.0) * TRI_DEG;
    double r[3] = {2.0 * TRI_RS * cos(phi), 2.0 * TRI_RS * sin(phi),
                   vtx < 3 ? 0.5 * TRI_L : -0.5 * TRI_L};
    double o[3] = {cos(psi), sin(psi), 0.0};
    const double *th = q + 3;
    double p[3] = {q[0] + r[0] + th[1] * r[2] - th[2] * r[1],
                   q[1] + r[1] + th[2] * r[0] - th[0] * r[2],
                   q[2] + r[2] + th[0] * r[1] - th[1] * r[0]};
    double rxo[3] = {r[1] * o[2] - r[2] * o[1], r[2] * o[0] - r[0] * o[2],
                     r[0] * o[1] - r[1] * o[0]};
    *gap = (TRI_RS + TRI_C) - (o[0] * p[0] + o[1] * p[1] + o[2] * p[2]);
    for (int a = 0; a < 3; ++a) {
        wn[a] = -o[a];
        wn[3 + a] = -rxo[a];
    }
    return NSCD_OK;
}

static nscd_status tri_equality(void *u, int32_t i, double t, const double *q, double *g,
                                double *row) {
    (void)u, (void)t;
    memset(row, 0, 6 * sizeof(double));
    int32_t dof = i == 0 ? 0 : 5; /* x, then θ_z */
    *g = q[dof];
    row[dof] = 1.0;
    return NSCD_OK;
}

/* Released centred and level, the prism falls by c onto the bottom plane,
 * where its four lower vertices (front and back) close: it rests at
 * y = -c, level, with the normal impulses summing to m g h (the four
 * bottom rows are redundant: 4 rows on y, θ_x, θ_z); along z, where every
 * normal is perpendicular, it moves as the free body, v_z = F t / m to
 * 1e-12. With the two equality rows (x = 0, θ_z = 0: 14 rows) the same. */
static void triangular_slider_seats(void **state) {
    (void)state;
    for (int eq = 0; eq <= 2; eq += 2) {
        tri_model model = {eq};
        nscd_system_desc d;
        nscd_system_desc_init(&d, sizeof d);
        d.n_dof = 6;
        d.n_contacts = 12;
        d.user = &model;
        d.mass = tri_mass;
        d.forces = tri_forces;
        d.contact = tri_gap;
        d.n_equalities = eq;
        d.equality = tri_equality;
        nscd_system *s = NULL;
        assert_int_equal(nscd_system_create(&d, &s), NSCD_OK);
        double q[6] = {0}, v[6] = {0}, t;
        assert_int_equal(nscd_system_set_state(s, 0.0, q, v), NSCD_OK);
        nscd_time_stepping *ts = semi_implicit(s, 1e-4, 1e-2);
        nscd_time_stepping_stats st = {.struct_size = sizeof st};
        assert_int_equal(nscd_time_stepping_advance(ts, 0.5, &st), NSCD_OK);
        nscd_system_get_state(s, &t, q, v);
        nscd_time_stepping_report r = {.struct_size = sizeof r};
        assert_int_equal(nscd_time_stepping_get_report(ts, &r), NSCD_OK);
        double sum = 0.0;
        int loaded = 0;
        for (int32_t k = 0; k < 12; ++k) {
            double pn = -1.0;
            assert_int_equal(nscd_time_stepping_get_contact_impulse(ts, k, &pn, NULL), NSCD_OK);
            assert_true(pn >= 0.0);
            double psi = (90.0 + 120.0 * (k / 2 % 3)) * TRI_DEG + (k % 2 ? 60.0 : -60.0) * TRI_DEG;
            sum += -sin(psi) * pn; /* the y component of the force along -o */
            loaded += pn > 0.0;
        }
        printf("triangular slider, %d equalities: %lld steps (%lld contact), rows %d, %d loaded, "
               "%d iterations, y + c %.2e, tilt %.2e %.2e %.2e, v_z - F t %.2e, "
               "sum P_y / (m g h) - 1 %.2e, penetration %.2e, balance %.2e\n",
               eq, (long long)st.steps, (long long)st.contact_steps, (int)r.rows, loaded,
               (int)r.iterations, q[1] + TRI_C, q[3], q[4], q[5], v[2] - TRI_F * t,
               sum / (G * r.dt) - 1.0, st.max_penetration, st.max_momentum_residual);
        assert_int_equal(r.rows, 12 + eq);
        assert_true(st.contact_steps <= 2); /* unloaded members at g = +1e-17 do not limit h */
        assert_true(fabs(sum - G * r.dt) <= 1e-9);
        assert_true(fabs(q[1] + TRI_C) <= 1e-10 && fabs(v[1]) <= 1e-10);
        assert_true(fabs(q[3]) <= 1e-10 && fabs(q[4]) <= 1e-10 && fabs(q[5]) <= 1e-10);
        assert_near(v[2], TRI_F * t, 1e-12);
        assert_true(st.max_penetration <= 1e-12 && st.max_momentum_residual <= 1e-12);
        nscd_time_stepping_destroy(ts);
        nscd_system_destroy(s);
    }
}

/* ------------------------------------------------------------ world */

/* A sphere (r = 0.1) dropped 0.4 m onto a static half-space of a world,
 * the semi-implicit scheme with [1e-4, 1e-2]: the world's contact appears
 * within its margin (5 cm > 2.8 m/s x h_max: the fall of one step), the
 * rule shortens the step to the predicted contact, the sphere then rests
 * at z = r exactly (the gap bias closes the linearised gap, no creep), no
 * penetration, and the last step lands on t_end. The world's rotation
 * update is the exponential map: |p| = 1 holds without eq. (23). */
static void world_sphere_lands(void **state) {
    (void)state;
    const double r = 0.1, drop = 0.4, h_min = 1e-4, h_max = 1e-2;
    nscd_world_desc d;
    nscd_world_desc_init(&d, sizeof d);
    d.contact_margin = 0.05;
    nscd_world *w = NULL;
    assert_int_equal(nscd_world_create(&d, &w), NSCD_OK);
    world_floor(w);
    nscd_body_id id = world_sphere(w, 0.0, 0.0, r + drop, r);
    landing_log log = {.dt_after = INFINITY};
    nscd_time_stepping_options o;
    nscd_time_stepping_options_init(&o, sizeof o);
    o.scheme = NSCD_TS_SEMI_IMPLICIT;
    o.dt_min = h_min;
    o.dt_max = h_max;
    o.on_step = log_landing;
    o.on_step_user = &log;
    nscd_time_stepping *ts = NULL;
    assert_int_equal(nscd_time_stepping_create_world(w, &o, &ts), NSCD_OK);
    nscd_time_stepping_stats st = {.struct_size = sizeof st};
    assert_int_equal(nscd_time_stepping_advance(ts, 1.0, &st), NSCD_OK);
    double x[3], v[3], p[4];
    assert_int_equal(nscd_world_get_body(w, id, x, p, v, NULL), NSCD_OK);
    double t_exact = sqrt(2.0 * drop / G);
    printf("world sphere: landed %.12f (exact %.12f), %lld steps (%lld contact), z - r %.2e, "
           "v_z %.2e, penetration %.2e, residual %.2e\n",
           log.t_land, t_exact, (long long)st.steps, (long long)st.contact_steps, x[2] - r, v[2],
           st.max_penetration, st.max_momentum_residual);
    assert_true(log.landed);
    assert_true(fabs(log.t_land - t_exact) <= 0.5 * h_max + h_min);
    assert_near(x[2], r, 1e-12);
    assert_near(v[2], 0.0, 1e-12);
    assert_true(st.max_penetration <= 1e-12);
    assert_true(nscd_world_time(w) == 1.0 && st.t == 1.0);
    assert_true(st.max_momentum_residual >= 0.0 && st.max_momentum_residual <= 1e-12);
    assert_near(p[0] * p[0] + p[1] * p[1] + p[2] * p[2] + p[3] * p[3], 1.0, 1e-15);
    nscd_time_stepping_destroy(ts);
    nscd_world_destroy(w);
}

/* ------------------------------------------------------------ bad input */

static void bad_options_change_nothing(void **state) {
    (void)state;
    ball_model b = {1.0, G, 0.0, 0.0, 1};
    nscd_system *s = NULL;
    assert_int_equal(make_ball(&b, 1.0, 0.0, &s), NSCD_OK);
    const double bad[][2] = {{2e-3, 1e-3}, {0.0, 1e-3}, {-1e-4, 1e-3}, {1e-4, -1e-3},
                             {1e-4, 0.0},  {NAN, 1e-3}, {1e-4, NAN},   {1e-4, INFINITY}};
    const nscd_status expect[] = {
        NSCD_ERR_OUT_OF_RANGE, NSCD_ERR_OUT_OF_RANGE, NSCD_ERR_OUT_OF_RANGE, NSCD_ERR_OUT_OF_RANGE,
        NSCD_ERR_OUT_OF_RANGE, NSCD_ERR_NOT_FINITE,   NSCD_ERR_NOT_FINITE,   NSCD_ERR_NOT_FINITE};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
        nscd_time_stepping_options o;
        nscd_time_stepping_options_init(&o, sizeof o);
        o.dt_min = bad[k][0];
        o.dt_max = bad[k][1];
        nscd_time_stepping *ts = (nscd_time_stepping *)&o; /* must stay untouched */
        assert_int_equal(nscd_time_stepping_create(s, &o, &ts), expect[k]);
        assert_ptr_equal(ts, (nscd_time_stepping *)&o);
    }
    nscd_time_stepping_options o;
    nscd_time_stepping_options_init(&o, sizeof o);
    o.scheme = NSCD_TS_SEMI_IMPLICIT + 1;
    nscd_time_stepping *ts = NULL;
    assert_int_equal(nscd_time_stepping_create(s, &o, &ts), NSCD_ERR_INVALID_ARGUMENT);
    assert_null(ts);
    double t, q, v;
    nscd_system_get_state(s, &t, &q, &v);
    assert_true(t == 0.0 && q == 1.0 && v == 0.0);
    /* t_end before t, or NaN: nothing changes either */
    ts = semi_implicit(s, 1e-4, 1e-2);
    assert_int_equal(nscd_time_stepping_advance(ts, NAN, NULL), NSCD_ERR_NOT_FINITE);
    assert_int_equal(nscd_time_stepping_advance(ts, -1.0, NULL), NSCD_ERR_INVALID_ARGUMENT);
    nscd_system_get_state(s, &t, &q, &v);
    assert_true(t == 0.0 && q == 1.0 && v == 0.0);
    nscd_time_stepping_destroy(ts);
    nscd_system_destroy(s);
}

/* Same inputs, bitwise the same trajectory. */
static void deterministic(void **state) {
    (void)state;
    double q[2][3], v[2][3], t;
    for (int k = 0; k < 2; ++k) {
        box_model b = {0.0, 0.0, 1};
        nscd_system *s = make_box(&b, 0.05);
        nscd_time_stepping *ts = semi_implicit(s, 1e-4, 1e-2);
        assert_int_equal(nscd_time_stepping_advance(ts, 0.5, NULL), NSCD_OK);
        nscd_system_get_state(s, &t, q[k], v[k]);
        nscd_time_stepping_destroy(ts);
        nscd_system_destroy(s);
    }
    assert_memory_equal(q[0], q[1], sizeof q[0]);
    assert_memory_equal(v[0], v[1], sizeof v[0]);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ball_lands_and_stays),
        cmocka_unit_test(ball_lands_on_time_with_exact_free_flight),
        cmocka_unit_test(fixed_steps_unchanged),
        cmocka_unit_test(oscillator_is_symplectic_euler),
        cmocka_unit_test(pendulum_period_and_rod),
        cmocka_unit_test(box_on_redundant_points),
        cmocka_unit_test(box_lands_from_every_height),
        cmocka_unit_test(box_slides_with_coulomb),
        cmocka_unit_test(triangular_slider_seats),
        cmocka_unit_test(world_sphere_lands),
        cmocka_unit_test(bad_options_change_nothing),
        cmocka_unit_test(deterministic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
