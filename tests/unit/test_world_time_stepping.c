/* A rigid-body world driven by the time stepper (Moreau–Jean, the midpoint
 * rule) through nscd_time_stepping_create_world: a sphere dropped on a
 * half-space comes to rest at z = r and its energy never rises; a sphere
 * sliding on a plane reaches rolling at v = 5/7 v0; the same scene stepped
 * by nscd_world_step and by Moreau–Jean (θ = 1) follows the same
 * trajectory; bodies added and removed between calls; bad input and a
 * world destroyed before its stepper. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "nscd/joint.h"
#include "nscd/time_stepping.h"
#include "nscd/world.h"

#include "assert_near.h"
#include "world_bodies.h"

#define G 9.81

/* A world with gravity -z, friction mu and a static floor z <= 0. */
static nscd_world *make_world(double mu, double margin) {
    nscd_world_desc d;
    nscd_world_desc_init(&d, sizeof d);
    d.default_friction = mu;
    d.contact_margin = margin;
    nscd_world *w = NULL;
    assert_int_equal(nscd_world_create(&d, &w), NSCD_OK);
    world_floor(w);
    return w;
}

static nscd_time_stepping *make_stepper(nscd_world *w, int32_t scheme, double theta, double dt) {
    nscd_time_stepping_options o;
    nscd_time_stepping_options_init(&o, sizeof o);
    o.scheme = scheme;
    o.theta = theta;
    o.gamma = theta; /* the active set predicted at the θ-point */
    o.dt = dt;
    o.tolerance = 1e-13;
    nscd_time_stepping *ts = NULL;
    assert_int_equal(nscd_time_stepping_create_world(w, &o, &ts), NSCD_OK);
    return ts;
}

/* Kinetic plus potential energy of one body. */
static double energy(const nscd_world *w, nscd_body_id id) {
    double x[3], v[3], om[3], m = 0.0, I[3];
    assert_int_equal(nscd_world_get_body(w, id, x, NULL, v, om), NSCD_OK);
    assert_int_equal(nscd_world_get_body_mass(w, id, &m, I), NSCD_OK);
    return 0.5 * m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) +
           0.5 * (I[0] * om[0] * om[0] + I[1] * om[1] * om[1] + I[2] * om[2] * om[2]) +
           m * G * x[2];
}

/* Dropped from 0.4 m above its resting height, Moreau–Jean with θ = γ = 1
 * (the contact becomes active when the free step would close it,
 * g + dt u_N <= 0, and then u_N = 0: the sphere stops at a gap in
 * [0, dt |u_N|) and never penetrates; θ = γ = 1/2 would let it sink by up
 * to dt |u_N| at the impact, which the velocity level never pushes out).
 * The impact is inelastic (e = 0), the energy never rises (symplectic
 * Euler loses g^2 dt^2 / 2 per step of free flight), and the sphere rests
 * at z = r to within g dt^2 (1e-5 m): the velocity level's creep. The
 * margin covers the fall of one step (2.8 m/s x 1 ms), so the contact is
 * seen before it closes. */
static void test_drop_comes_to_rest(void **state) {
    (void)state;
    const double r = 0.1, dt = 1e-3;
    nscd_world *w = make_world(0.5, 0.01);
    const double x0[3] = {0.0, 0.0, r + 0.4}, v0[3] = {0.0, 0.0, 0.0};
    nscd_body_id id = world_moving_sphere(w, r, x0, v0, NULL);
    nscd_time_stepping *ts = make_stepper(w, NSCD_TS_MOREAU_JEAN, 1.0, dt);
    double e_prev = energy(w, id), e0 = e_prev;
    for (int n = 1; n <= 1500; ++n) {
        assert_int_equal(nscd_time_stepping_advance(ts, n * dt, NULL), NSCD_OK);
        double e = energy(w, id);
        if (e > e_prev + 1e-12 * fabs(e0)) {
            fail_msg("energy rose at step %d: %.17g -> %.17g", n, e_prev, e);
        }
        e_prev = e;
    }
    double x[3], v[3];
    assert_int_equal(nscd_world_get_body(w, id, x, NULL, v, NULL), NSCD_OK);
    assert_near(x[2], r, 1e-5);
    assert_near(v[2], 0.0, 1e-6);
    assert_near(nscd_world_time(w), 1.5, 1e-12);
    int32_t count = 0;
    double impulse[3];
    assert_int_equal(nscd_world_get_contacts(w, 1, &count, NULL, NULL, NULL, NULL, NULL, impulse),
                     NSCD_OK);
    assert_int_equal(count, 1);
    assert_near(impulse[0], 4.0 / 3.0 * 3.14159265358979 * r * r * r * 1000.0 * G * dt, 1e-9);
    nscd_time_stepping_destroy(ts);
    nscd_world_destroy(w);
}

/* A sphere launched at v0 without spin on a rough floor slides until
 * v = 5/7 v0 = r ω (t = 2 v0 / (7 μ g)), then rolls without slipping. The
 * midpoint rule and Moreau–Jean (θ = 1) both. */
static void rolling(int32_t scheme) {
    const double r = 0.05, v0 = 1.0, mu = 0.3, dt = 1e-3;
    nscd_world *w = make_world(mu, 1e-3);
    const double x0[3] = {0.0, 0.0, r}, u0[3] = {v0, 0.0, 0.0};
    nscd_body_id id = world_moving_sphere(w, r, x0, u0, NULL);
    nscd_time_stepping *ts = make_stepper(w, scheme, 1.0, dt);
    assert_int_equal(nscd_time_stepping_advance(ts, 0.5, NULL), NSCD_OK);
    double x[3], v[3], om[3];
    assert_int_equal(nscd_world_get_body(w, id, x, NULL, v, om), NSCD_OK);
    assert_near(v[0], 5.0 / 7.0 * v0, 1e-9);
    assert_near(om[1] * r, v[0], 1e-9);
    assert_near(x[2], r, 1e-12);
    nscd_time_stepping_destroy(ts);
    nscd_world_destroy(w);
}

static void test_rolling_moreau_jean(void **state) {
    (void)state;
    rolling(NSCD_TS_MOREAU_JEAN);
}

static void test_rolling_midpoint(void **state) {
    (void)state;
    rolling(NSCD_TS_MOREAU_MIDPOINT);
}

/* The same scene by nscd_world_step and by Moreau–Jean with θ = 1 and the
 * same dt: a sphere sliding into rolling on the floor, a second one falling
 * freely. Both solve the same discrete problem here: the contact is closed
 * (ξ = 0, so the world's ξ/dt term is 0 and Moreau–Jean's active set has
 * it), the free velocities are the same (v + dt g), the positions too
 * (x + dt v', φ' = exp(dt ω') φ). What differs is the solver (the world's
 * sweeps of the exact diagonal block, the stepper's fc3d to 1e-13) and
 * rounding (M^-1 (m g) against g): agreement to 1e-12 over 400 steps. The
 * ξ/dt term would make them differ at an impact (the world lands a contact
 * exactly at ξ = 0 within the step, Moreau–Jean stops at the predicted
 * γ dt u_N and never pushes a penetration out: docs/world.md). With
 * `loaded`, applied forces and torques act on both spheres (the rolling one
 * pushed along the floor), which both paths add to the free velocities. */
static void same_trajectory(int loaded) {
    const double r = 0.05, dt = 1e-3;
    const double x0[3] = {0.0, 0.0, r}, u0[3] = {1.0, 0.5, 0.0};
    const double x1[3] = {1.0, 1.0, 1.0}, u1[3] = {0.0, 0.2, 1.0};
    nscd_world *a = make_world(0.3, 1e-3), *b = make_world(0.3, 1e-3);
    nscd_body_id ia = world_moving_sphere(a, r, x0, u0, NULL),
                 ja = world_moving_sphere(a, r, x1, u1, NULL);
    nscd_body_id ib = world_moving_sphere(b, r, x0, u0, NULL),
                 jb = world_moving_sphere(b, r, x1, u1, NULL);
    if (loaded) {
        const double push[3] = {0.4, -0.2, 0.0}, lift[3] = {0.1, 0.0, 2.0},
                     spin[3] = {1e-3, 0.0, -2e-3};
        assert_int_equal(nscd_world_set_applied_force(a, ia, push, NULL), NSCD_OK);
        assert_int_equal(nscd_world_set_applied_force(b, ib, push, NULL), NSCD_OK);
        assert_int_equal(nscd_world_set_applied_force(a, ja, lift, spin), NSCD_OK);
        assert_int_equal(nscd_world_set_applied_force(b, jb, lift, spin), NSCD_OK);
    }
    nscd_time_stepping *ts = make_stepper(b, NSCD_TS_MOREAU_JEAN, 1.0, dt);
    double worst = 0.0;
    for (int n = 1; n <= 400; ++n) {
        assert_int_equal(nscd_world_step(a, NULL), NSCD_OK);
        assert_int_equal(nscd_time_stepping_advance(ts, n * dt, NULL), NSCD_OK);
        const nscd_body_id ids[2][2] = {{ia, ib}, {ja, jb}};
        for (int k = 0; k < 2; ++k) {
            double pa[3], qa[4], va[3], wa[3], pb[3], qb[4], vb[3], wb[3];
            nscd_world_get_body(a, ids[k][0], pa, qa, va, wa);
            nscd_world_get_body(b, ids[k][1], pb, qb, vb, wb);
            for (int c = 0; c < 3; ++c) {
                worst = fmax(worst, fabs(pa[c] - pb[c]));
                worst = fmax(worst, fabs(va[c] - vb[c]));
                worst = fmax(worst, fabs(wa[c] - wb[c]) * r);
            }
            for (int c = 0; c < 4; ++c) {
                worst = fmax(worst, fabs(qa[c] - qb[c]));
            }
        }
    }
    assert_true(worst <= 1e-12);
    assert_near(nscd_world_time(a), nscd_world_time(b), 1e-15);
    if (loaded) { /* the free sphere: v_x = F_x t / m, ω_z = τ_z t / I */
        double v[3], om[3], m = 0.0, I[3];
        nscd_world_get_body(b, jb, NULL, NULL, v, om);
        nscd_world_get_body_mass(b, jb, &m, I);
        assert_near(v[0], 0.1 * 400 * dt / m, 1e-12);
        assert_near(om[2], -2e-3 * 400 * dt / I[2], 1e-10);
    }
    nscd_time_stepping_destroy(ts);
    nscd_world_destroy(a);
    nscd_world_destroy(b);
}

static void test_same_trajectory_as_world_step(void **state) {
    (void)state;
    same_trajectory(0);
}

static void test_applied_forces_as_world_step(void **state) {
    (void)state;
    same_trajectory(1);
}

/* Bodies added and removed between calls: the stepper follows (the entry
 * set and the state change size), and the remaining sphere still rests. */
static void test_add_remove_between_calls(void **state) {
    (void)state;
    const double r = 0.1, dt = 1e-3;
    nscd_world *w = make_world(0.5, 0.01);
    const double x0[3] = {0.0, 0.0, r}, zero[3] = {0.0, 0.0, 0.0};
    nscd_body_id keep = world_moving_sphere(w, r, x0, zero, NULL);
    nscd_time_stepping *ts = make_stepper(w, NSCD_TS_MOREAU_JEAN, 0.5, dt);
    assert_int_equal(nscd_time_stepping_advance(ts, 0.05, NULL), NSCD_OK);
    nscd_body_id extra[5];
    for (int k = 0; k < 5; ++k) { /* a column resting on the first sphere */
        const double x[3] = {0.0, 0.0, r + 2.0 * r * (k + 1)};
        extra[k] = world_moving_sphere(w, r, x, zero, NULL);
    }
    assert_int_equal(nscd_time_stepping_advance(ts, 0.1, NULL), NSCD_OK);
    nscd_time_stepping_report report;
    report.struct_size = sizeof report;
    assert_int_equal(nscd_time_stepping_get_report(ts, &report), NSCD_OK);
    assert_int_equal(report.active_contacts, 6);
    for (int k = 4; k >= 0; --k) {
        assert_int_equal(nscd_world_remove_body(w, extra[k]), NSCD_OK);
    }
    assert_int_equal(nscd_time_stepping_advance(ts, 0.2, NULL), NSCD_OK);
    assert_int_equal(nscd_world_body_count(w), 2);
    double x[3];
    assert_int_equal(nscd_world_get_body(w, keep, x, NULL, NULL, NULL), NSCD_OK);
    assert_near(x[2], r, 1e-4);
    assert_int_equal(nscd_world_get_body(w, extra[0], x, NULL, NULL, NULL), NSCD_ERR_STALE_HANDLE);
    nscd_time_stepping_destroy(ts);
    nscd_world_destroy(w);
}

/* A step that fails inside (the frictionless LCP solver given the
 * frictional contacts of a stack of three spheres) is rejected: the world is left as it was, with
 * the entry set the step was given, and another stepper on the same world
 * then steps it. A world without dynamic bodies steps too. */
static void test_rejected_step_changes_nothing(void **state) {
    (void)state;
    const double r = 0.1, dt = 1e-3, zero[3] = {0.0, 0.0, 0.0};
    nscd_world *w = make_world(0.5, 0.01);
    nscd_body_id ids[3];
    for (int k = 0; k < 3; ++k) {
        const double x[3] = {0.01 * k, 0.0, r + 2.0 * r * k};
        ids[k] = world_moving_sphere(w, r, x, zero, NULL);
    }
    nscd_time_stepping_options o;
    nscd_time_stepping_options_init(&o, sizeof o);
    o.dt = dt;
    o.local_solver = NSCD_TS_SOLVER_LCP; /* frictionless: refuses the contacts mid-step */
    nscd_time_stepping *bad = NULL, *good = NULL;
    assert_int_equal(nscd_time_stepping_create_world(w, &o, &bad), NSCD_OK);
    double before[3][3], after[3];
    for (int k = 0; k < 3; ++k) {
        nscd_world_get_body(w, ids[k], before[k], NULL, NULL, NULL);
    }
    assert_int_equal(nscd_time_stepping_advance(bad, dt, NULL), NSCD_ERR_UNSUPPORTED);
    for (int k = 0; k < 3; ++k) {
        nscd_world_get_body(w, ids[k], after, NULL, NULL, NULL);
        assert_memory_equal(after, before[k], sizeof after);
    }
    assert_true(nscd_world_time(w) == 0.0);
    good = make_stepper(w, NSCD_TS_MOREAU_JEAN, 1.0, dt);
    assert_int_equal(nscd_time_stepping_advance(good, 10 * dt, NULL), NSCD_OK);
    nscd_time_stepping_report report;
    report.struct_size = sizeof report;
    assert_int_equal(nscd_time_stepping_get_report(good, &report), NSCD_OK);
    int32_t count = 0; /* the entries: floor and two sphere pairs, within the margin */
    assert_int_equal(nscd_world_get_contacts(w, 0, &count, NULL, NULL, NULL, NULL, NULL, NULL),
                     NSCD_ERR_BUFFER_TOO_SMALL);
    assert_int_equal(count, 3);
    assert_true(report.active_contacts >= 1);
    assert_near(nscd_world_time(w), 10 * dt, 1e-15);
    for (int k = 2; k >= 0; --k) {
        assert_int_equal(nscd_world_remove_body(w, ids[k]), NSCD_OK);
    }
    assert_int_equal(nscd_time_stepping_advance(good, 20 * dt, NULL), NSCD_OK);
    assert_int_equal(nscd_time_stepping_get_report(good, &report), NSCD_OK);
    assert_int_equal(report.active_contacts, 0);
    assert_near(nscd_world_time(w), 20 * dt, 1e-15);
    nscd_time_stepping_destroy(bad);
    nscd_time_stepping_destroy(good);
    nscd_world_destroy(w);
}

/* Nine spheres dropped in a heap, stepped twice from scratch: bitwise the
 * same state (the entries are matched by key in sorted order, no hashing). */
static void heap_state(double out[9][13]) {
    nscd_world *w = make_world(0.4, 0.01);
    nscd_body_id ids[9];
    const double zero[3] = {0.0, 0.0, 0.0};
    for (int k = 0; k < 9; ++k) {
        const double x[3] = {0.05 * (k % 3) + 0.003 * k, 0.05 * (k / 3), 0.1 + 0.12 * k};
        ids[k] = world_moving_sphere(w, 0.05, x, zero, NULL);
    }
    nscd_time_stepping_options o; /* a heap: fc3d to 1e-8 */
    nscd_time_stepping_options_init(&o, sizeof o);
    o.theta = o.gamma = 1.0;
    o.tolerance = 1e-8;
    o.max_iterations = 10000;
    nscd_time_stepping *ts = NULL;
    assert_int_equal(nscd_time_stepping_create_world(w, &o, &ts), NSCD_OK);
    assert_int_equal(nscd_time_stepping_advance(ts, 0.6, NULL), NSCD_OK);
    for (int k = 0; k < 9; ++k) {
        nscd_world_get_body(w, ids[k], out[k], out[k] + 3, out[k] + 7, out[k] + 10);
    }
    nscd_time_stepping_destroy(ts);
    nscd_world_destroy(w);
}

static void test_rerun_is_bitwise_identical(void **state) {
    (void)state;
    double a[9][13], b[9][13];
    heap_state(a);
    heap_state(b);
    assert_memory_equal(a, b, sizeof a);
    for (int k = 0; k < 9; ++k) { /* every sphere fell and stays above the floor */
        assert_true(a[k][2] < 0.1 + 0.12 * k && a[k][2] > 0.05 - 1e-3);
    }
}

static void test_bad_input(void **state) {
    (void)state;
    nscd_world *w = make_world(0.5, 1e-3);
    const double x0[3] = {0.0, 0.0, 1.0}, zero[3] = {0.0, 0.0, 0.0};
    nscd_body_id id = world_moving_sphere(w, 0.1, x0, zero, NULL);
    nscd_time_stepping_options o;
    nscd_time_stepping_options_init(&o, sizeof o);
    nscd_time_stepping *ts = NULL;
    assert_int_equal(nscd_time_stepping_create_world(NULL, &o, &ts), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_time_stepping_create_world(w, &o, NULL), NSCD_ERR_NULL_POINTER);
    o.dt = 0.0;
    assert_int_equal(nscd_time_stepping_create_world(w, &o, &ts), NSCD_ERR_OUT_OF_RANGE);
    o.dt = -1e-3;
    assert_int_equal(nscd_time_stepping_create_world(w, &o, &ts), NSCD_ERR_OUT_OF_RANGE);
    o.dt = 1e-3;
    const int32_t refused[] = {NSCD_TS_HALF_EXPLICIT, NSCD_TS_GENERALIZED_ALPHA, NSCD_TS_BATHE,
                               NSCD_TS_ED_ALPHA};
    for (size_t k = 0; k < sizeof refused / sizeof refused[0]; ++k) {
        o.scheme = refused[k];
        assert_int_equal(nscd_time_stepping_create_world(w, &o, &ts), NSCD_ERR_UNSUPPORTED);
        assert_true(strlen(nscd_world_last_error(w)) > 0);
    }
    assert_null(ts);
    /* A kinematic body that moves: refused at the step, nothing moves. */
    o.scheme = NSCD_TS_MOREAU_JEAN;
    assert_int_equal(nscd_time_stepping_create_world(w, &o, &ts), NSCD_OK);
    nscd_body_desc b;
    nscd_body_desc_init(&b, sizeof b);
    b.type = NSCD_BODY_KINEMATIC;
    b.velocity[0] = 1.0;
    nscd_shape_desc s;
    nscd_shape_desc_init(&s, sizeof s);
    nscd_body_id plane = 0;
    b.position[2] = -5.0;
    assert_int_equal(nscd_world_add_body(w, &b, &s, 1, &plane), NSCD_OK);
    assert_int_equal(nscd_time_stepping_advance(ts, 0.01, NULL), NSCD_ERR_UNSUPPORTED);
    assert_true(strstr(nscd_time_stepping_last_error(ts), "kinematic") != NULL);
    double x[3];
    nscd_world_get_body(w, id, x, NULL, NULL, NULL);
    assert_true(x[2] == 1.0);
    assert_true(nscd_world_time(w) == 0.0);
    assert_int_equal(nscd_world_set_body(w, plane, NULL, NULL, zero, NULL), NSCD_OK);
    assert_int_equal(nscd_time_stepping_advance(ts, 0.01, NULL), NSCD_OK);
    nscd_world_get_body(w, id, x, NULL, NULL, NULL);
    assert_true(x[2] < 1.0);
    /* The world goes first: the stepper's calls fail, its destroy works. */
    nscd_world_destroy(w);
    assert_int_equal(nscd_time_stepping_advance(ts, 0.02, NULL), NSCD_ERR_STALE_HANDLE);
    double normal = 0.0;
    assert_int_equal(nscd_time_stepping_get_contact_impulse(ts, 0, &normal, NULL),
                     NSCD_ERR_STALE_HANDLE);
    nscd_time_stepping_destroy(ts);
}

/* ------------------------------------------------------------ BLOCK_GS */

/* A stepper of Moreau–Jean (θ = γ = 1) with the given local solver. */
static nscd_time_stepping *solver_stepper(nscd_world *w, int32_t solver, double dt) {
    nscd_time_stepping_options o;
    nscd_time_stepping_options_init(&o, sizeof o);
    o.scheme = NSCD_TS_MOREAU_JEAN;
    o.theta = 1.0;
    o.gamma = 1.0;
    o.dt = dt;
    o.tolerance = 1e-10;
    o.local_solver = solver;
    nscd_time_stepping *ts = NULL;
    assert_int_equal(nscd_time_stepping_create_world(w, &o, &ts), NSCD_OK);
    return ts;
}

/* A box (half extents 0.1, 0.1, 0.05) sliding at 2 m/s on the floor with
 * μ = 0.3, stepped over `steps` steps; its final x, vx, z and the
 * normal impulse sum of the last step. */
static void sliding_box(int32_t solver, int32_t steps, double out[4]) {
    nscd_world *w = make_world(0.3, 0.01);
    nscd_body_desc b;
    nscd_body_desc_init(&b, sizeof b);
    b.position[2] = 0.05;
    b.velocity[0] = 2.0;
    nscd_shape_desc s;
    nscd_shape_desc_init(&s, sizeof s);
    s.type = NSCD_SHAPE_BOX;
    s.half_extents[0] = s.half_extents[1] = 0.1;
    s.half_extents[2] = 0.05;
    nscd_body_id id = 0;
    assert_int_equal(nscd_world_add_body(w, &b, &s, 1, &id), NSCD_OK);
    nscd_time_stepping *ts = solver_stepper(w, solver, 1e-3);
    assert_int_equal(nscd_time_stepping_advance(ts, 1e-3 * steps, NULL), NSCD_OK);
    double x[3], v[3];
    assert_int_equal(nscd_world_get_body(w, id, x, NULL, v, NULL), NSCD_OK);
    out[0] = x[0], out[1] = v[0], out[2] = x[2], out[3] = 0.0;
    for (int32_t e = 0;; ++e) {
        double normal = 0.0;
        if (nscd_time_stepping_get_contact_impulse(ts, e, &normal, NULL) != NSCD_OK) {
            break;
        }
        out[3] += normal;
    }
    nscd_time_stepping_destroy(ts);
    nscd_world_destroy(w);
}

/* The box decelerates at μ g (Coulomb on its four corners, sliding from
 * the first step: v_k = 2 - k μ g dt exactly up to the solver's
 * tolerance) with fc3d and with the block Gauss–Seidel, which agree to
 * the tolerance; the floor's normal impulses sum to m g dt. */
static void test_block_gs_sliding_box(void **state) {
    (void)state;
    const int32_t steps = 400;
    double fc3d[4], bgs[4];
    sliding_box(NSCD_TS_SOLVER_FC3D_COULOMB, steps, fc3d);
    sliding_box(NSCD_TS_SOLVER_BLOCK_GS, steps, bgs);
    double v_exact = 2.0 - 0.3 * G * 1e-3 * steps;
    double m = 1000.0 * 0.2 * 0.2 * 0.1; /* default density 1000 */
    print_message("sliding box: v fc3d %.12f, block GS %.12f, exact %.12f; x %.12f %.12f; "
                  "P_N sum / (m g dt) %.12f\n",
                  fc3d[1], bgs[1], v_exact, fc3d[0], bgs[0], bgs[3] / (m * G * 1e-3));
    assert_near(bgs[1], v_exact, 1e-8);
    assert_near(fc3d[1], bgs[1], 1e-8);
    assert_near(fc3d[0], bgs[0], 1e-8);
    assert_near(fc3d[2], bgs[2], 1e-8);
    assert_near(bgs[3] / (m * G * 1e-3), 1.0, 1e-6);
}

/* A column of three spheres resting on the floor and a fourth rolling
 * beside them (μ = 0.5): the block Gauss–Seidel and fc3d give the same
 * positions and the same impulses, entry by entry, to the tolerance; AUTO
 * picks the block Gauss–Seidel (the same run, bitwise). */
static void resting_spheres(int32_t solver, double *positions, double *impulses,
                            int32_t *n_entries) {
    nscd_world *w = make_world(0.5, 0.01);
    const double r = 0.1, zero[3] = {0.0, 0.0, 0.0};
    nscd_body_id ids[4];
    for (int k = 0; k < 3; ++k) {
        const double x[3] = {0.0, 0.0, r + 2.0 * r * k};
        ids[k] = world_moving_sphere(w, r, x, zero, NULL);
    }
    const double x[3] = {0.5, 0.0, r}, v[3] = {0.3, 0.0, 0.0};
    ids[3] = world_moving_sphere(w, r, x, v, NULL);
    nscd_time_stepping *ts = solver_stepper(w, solver, 2e-3);
    assert_int_equal(nscd_time_stepping_advance(ts, 0.5, NULL), NSCD_OK);
    for (int k = 0; k < 4; ++k) {
        assert_int_equal(nscd_world_get_body(w, ids[k], positions + 3 * k, NULL, NULL, NULL),
                         NSCD_OK);
    }
    *n_entries = 0;
    for (int32_t e = 0; e < 16; ++e) {
        double t[2] = {0.0, 0.0};
        if (nscd_time_stepping_get_contact_impulse(ts, e, impulses + 3 * e, t) != NSCD_OK) {
            break;
        }
        impulses[3 * e + 1] = t[0], impulses[3 * e + 2] = t[1];
        *n_entries = e + 1;
    }
    nscd_time_stepping_destroy(ts);
    nscd_world_destroy(w);
}

static void test_block_gs_resting_spheres(void **state) {
    (void)state;
    double x_f[12], x_b[12], x_a[12], P_f[48], P_b[48], P_a[48];
    int32_t n_f = 0, n_b = 0, n_a = 0;
    resting_spheres(NSCD_TS_SOLVER_FC3D_COULOMB, x_f, P_f, &n_f);
    resting_spheres(NSCD_TS_SOLVER_BLOCK_GS, x_b, P_b, &n_b);
    resting_spheres(NSCD_TS_SOLVER_AUTO, x_a, P_a, &n_a);
    assert_int_equal(n_f, n_b);
    assert_true(n_f >= 4);
    double m = 1000.0 * 4.0 / 3.0 * 3.14159265358979323846 * 0.001, scale = m * G * 2e-3;
    double dx = 0.0, dp = 0.0, bottom = 0.0;
    for (int k = 0; k < 12; ++k) {
        dx = fmax(dx, fabs(x_f[k] - x_b[k]));
        assert_true(x_a[k] == x_b[k]);
    }
    for (int k = 0; k < 3 * n_f; ++k) {
        dp = fmax(dp, fabs(P_f[k] - P_b[k]) / scale);
    }
    for (int32_t e = 0; e < n_b; ++e) {
        bottom = fmax(bottom, P_b[3 * e] / scale);
    }
    print_message("resting spheres: %d entries, |x fc3d - x bgs| %.3g m, |P fc3d - P bgs| / (m g "
                  "dt) %.3g, largest P_N / (m g dt) %.12f\n",
                  (int)n_f, dx, dp, bottom);
    assert_true(dx < 1e-9);
    assert_true(dp < 1e-6);
    assert_near(bottom, 3.0, 1e-6); /* the floor carries the column */
}

/* A chain of two links (spheres of radius 0.05 at 0.2 m spacing,
 * spherical joints, the first to the ground at z = 0.3, plain form
 * H v_{k+1} = 0, no projection; the links collide with the floor only) released horizontally: it
 * swings down and its last link hits the floor (friction mu). Its largest joint drift over 1.5 s,
 * its lowest link centre and the last link's final position. */
static double chain(int32_t solver, double mu, double *lowest, double *final_x) {
    nscd_world *w = make_world(mu, 0.01);
    assert_int_equal(nscd_world_set_joint_projection(w, 0, 1e-12), NSCD_OK);
    const double L = 0.2, z0 = 0.3;
    nscd_body_id ids[2], previous = NSCD_BODY_NULL;
    nscd_joint_id joints[2];
    for (int k = 0; k < 2; ++k) {
        nscd_body_desc b;
        nscd_body_desc_init(&b, sizeof b);
        b.position[0] = L * (k + 1), b.position[2] = z0;
        nscd_shape_desc s;
        nscd_shape_desc_init(&s, sizeof s);
        s.radius = 0.05;
        s.category = 2u; /* the links touch the floor, never each other */
        s.mask = 1u;
        assert_int_equal(nscd_world_add_body(w, &b, &s, 1, &ids[k]), NSCD_OK);
        nscd_joint_desc j;
        nscd_joint_desc_init(&j, sizeof j);
        j.type = NSCD_JOINT_SPHERICAL;
        j.body_a = previous;
        j.body_b = ids[k];
        if (previous == NSCD_BODY_NULL) { /* frame A in the world frame */
            j.position_a[2] = z0;
            j.position_b[0] = -L;
        } else {
            j.position_a[0] = L / 2.0;
            j.position_b[0] = -L / 2.0;
        }
        j.energy_form = 0;
        assert_int_equal(nscd_world_add_joint(w, &j, &joints[k]), NSCD_OK);
        previous = ids[k];
    }
    nscd_time_stepping *ts = solver_stepper(w, solver, 1e-3);
    double drift = 0.0;
    *lowest = 1.0;
    for (int32_t n = 1; n <= 1500; ++n) {
        assert_int_equal(nscd_time_stepping_advance(ts, 1e-3 * n, NULL), NSCD_OK);
        for (int k = 0; k < 2; ++k) {
            double values[6], x[3];
            int32_t count = 0;
            assert_int_equal(nscd_world_joint_residual(w, joints[k], 6, &count, values), NSCD_OK);
            for (int32_t a = 0; a < count; ++a) {
                drift = fmax(drift, fabs(values[a]));
            }
            assert_int_equal(nscd_world_get_body(w, ids[k], x, NULL, NULL, NULL), NSCD_OK);
            *lowest = fmin(*lowest, x[2]);
        }
    }
    assert_int_equal(nscd_world_get_body(w, ids[1], final_x, NULL, NULL, NULL), NSCD_OK);
    nscd_time_stepping_destroy(ts);
    nscd_world_destroy(w);
    return drift;
}

/* The block Gauss–Seidel takes the joints and the contacts together:
 * frictionless, it follows the pivoting LCP's motion to its tolerance's
 * order and its drift is bounded as the LCP's; with friction (μ = 0.3)
 * the drift stays as bounded and the links stay above the floor. */
static void test_block_gs_chain_hits_floor(void **state) {
    (void)state;
    double low_l = 0.0, low_b = 0.0, low_f = 0.0, x_l[3], x_b[3], x_f[3];
    double drift_l = chain(NSCD_TS_SOLVER_LCP, 0.0, &low_l, x_l);
    double drift_b = chain(NSCD_TS_SOLVER_BLOCK_GS, 0.0, &low_b, x_b);
    double drift_f = chain(NSCD_TS_SOLVER_BLOCK_GS, 0.3, &low_f, x_f);
    print_message("chain: drift LCP %.3g m, block GS %.3g m (with friction %.3g m); lowest "
                  "centre %.6f %.6f %.6f m; last link x %.9f %.9f, z %.9f %.9f\n",
                  drift_l, drift_b, drift_f, low_l, low_b, low_f, x_l[0], x_b[0], x_l[2], x_b[2]);
    assert_true(low_b < 0.06 && low_b > 0.05 - 2e-3); /* it hit the floor, no deep penetration */
    assert_true(low_f < 0.06 && low_f > 0.05 - 2e-3);
    assert_true(drift_b < 2.0 * drift_l + 1e-6);
    assert_true(drift_f < 2.0 * drift_l + 1e-6);
    assert_true(fabs(x_l[0] - x_b[0]) < 1e-6 && fabs(x_l[2] - x_b[2]) < 1e-6);
}

/* BLOCK_GS outside Moreau–Jean with explicit forces fails the step with
 * NSCD_ERR_UNSUPPORTED and changes nothing. */
static void test_block_gs_refused(void **state) {
    (void)state;
    nscd_world *w = make_world(0.5, 0.01);
    const double x[3] = {0.0, 0.0, 0.1}, zero[3] = {0.0, 0.0, 0.0};
    nscd_body_id id = world_moving_sphere(w, 0.1, x, zero, NULL);
    nscd_time_stepping_options o;
    nscd_time_stepping_options_init(&o, sizeof o);
    o.scheme = NSCD_TS_MOREAU_MIDPOINT;
    o.dt = 1e-3;
    o.local_solver = NSCD_TS_SOLVER_BLOCK_GS;
    nscd_time_stepping *ts = NULL;
    assert_int_equal(nscd_time_stepping_create_world(w, &o, &ts), NSCD_OK);
    assert_int_equal(nscd_time_stepping_advance(ts, 0.01, NULL), NSCD_ERR_UNSUPPORTED);
    double y[3];
    assert_int_equal(nscd_world_get_body(w, id, y, NULL, NULL, NULL), NSCD_OK);
    assert_true(y[2] == x[2]);
    nscd_time_stepping_destroy(ts);
    nscd_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_drop_comes_to_rest),
        cmocka_unit_test(test_rolling_moreau_jean),
        cmocka_unit_test(test_rolling_midpoint),
        cmocka_unit_test(test_same_trajectory_as_world_step),
        cmocka_unit_test(test_applied_forces_as_world_step),
        cmocka_unit_test(test_add_remove_between_calls),
        cmocka_unit_test(test_rejected_step_changes_nothing),
        cmocka_unit_test(test_rerun_is_bitwise_identical),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_block_gs_sliding_box),
        cmocka_unit_test(test_block_gs_resting_spheres),
        cmocka_unit_test(test_block_gs_chain_hits_floor),
        cmocka_unit_test(test_block_gs_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
