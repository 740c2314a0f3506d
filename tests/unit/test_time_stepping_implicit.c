/* Moreau–Jean with linear-implicit forces (Siconos' MoreauJeanOSI form,
 * docs/time_stepping.md): the stiff model problem (a) of seed 003 against
 * the independent reference tools/reference/model_problem.py, the explicit
 * variant's failure on it, the order on the stiff-free chain (b), the energy
 * of an elastic ball on a spring, and bad options. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "nscd/nscd.h"

#define G 9.81
#define K0 1e7

/* ------------------------------------------------------------ the chain */

/* The chain of seed 003: unit masses, k1 = k2 = k3 = 1, gravity along it;
 * n = 3: model (a), mass 3 on the stiff spring k0; n = 2: model (b) with q3
 * = 0 eliminated. h = f - K q, stiffness callback K. */
typedef struct chain {
    int32_t n;
} chain;

static void chain_k(int32_t n, double *K) {
    memset(K, 0, (size_t)(n * n) * sizeof(double));
    K[0] = 2.0, K[1] = -1.0, K[n] = -1.0, K[n + 1] = 2.0;
    if (n == 3) {
        K[5] = K[7] = -1.0;
        K[8] = 1.0 + K0;
    }
}

static nscd_status chain_mass(void *u, const double *q, double *m) {
    (void)q;
    int32_t n = ((const chain *)u)->n;
    memset(m, 0, (size_t)(n * n) * sizeof(double));
    for (int32_t i = 0; i < n; ++i) {
        m[i * n + i] = 1.0;
    }
    return NSCD_OK;
}

static nscd_status chain_forces(void *u, double t, const double *q, const double *v, double *h) {
    (void)t, (void)v;
    int32_t n = ((const chain *)u)->n;
    double K[9];
    chain_k(n, K);
    for (int32_t i = 0; i < n; ++i) {
        h[i] = G;
        for (int32_t j = 0; j < n; ++j) {
            h[i] -= K[i * n + j] * q[j];
        }
    }
    return NSCD_OK;
}

static nscd_status chain_stiffness(void *u, double t, const double *q, const double *v, double *K) {
    (void)t, (void)q, (void)v;
    chain_k(((const chain *)u)->n, K);
    return NSCD_OK;
}

static nscd_system *make_chain(chain *c, int with_stiffness) {
    nscd_system_desc d;
    nscd_system_desc_init(&d, sizeof d);
    d.n_dof = c->n;
    d.user = c;
    d.mass = chain_mass;
    d.forces = chain_forces;
    d.stiffness = with_stiffness ? chain_stiffness : NULL;
    nscd_system *s = NULL;
    assert_int_equal(nscd_system_create(&d, &s), NSCD_OK);
    double zero[3] = {0.0, 0.0, 0.0};
    assert_int_equal(nscd_system_set_state(s, 0.0, zero, zero), NSCD_OK);
    return s;
}

/* Runs the chain to t_end with step dt and the forces option; q at the end. */
static nscd_status run_chain(chain *c, int32_t forces, double dt, double t_end, double *q) {
    nscd_system *s = make_chain(c, 1);
    nscd_time_stepping_options o;
    nscd_time_stepping_options_init(&o, sizeof o);
    o.dt = dt;
    o.theta = 0.5;
    o.forces = forces;
    nscd_time_stepping *ts = NULL;
    assert_int_equal(nscd_time_stepping_create(s, &o, &ts), NSCD_OK);
    nscd_status rc = nscd_time_stepping_advance(ts, t_end, NULL);
    double t = 0.0, v[3];
    assert_int_equal(nscd_system_get_state(s, &t, q, v), NSCD_OK);
    for (int32_t i = 0; i < c->n; ++i) { /* a failed step keeps the last accepted one */
        assert_true(isfinite(q[i]) && isfinite(v[i]));
    }
    nscd_time_stepping_destroy(ts);
    nscd_system_destroy(s);
    return rc;
}

/* Model (a), θ = 1/2, dt = 1e-3 (ω_stiff dt ≈ 3.16): the reference's
 * moreau_jean numbers, produced by
 *   cd tools/reference && /usr/bin/python3 -c "import model_problem as ref;
 *   print(['%.17g' % x for x in ref.run('a', 'moreau_jean', 0.5, 1e-3, 10.0)])"
 * The explicit variant is unstable there and must fail, never return NSCD_OK. */
static void stiff_chain_matches_reference(void **state) {
    (void)state;
    const double ref[3] = {18.04129875657263, 18.041299815314439, 1.9410809523588594e-06};
    chain c = {3};
    double q[3], q_auto[3];
    assert_int_equal(run_chain(&c, NSCD_TS_FORCES_IMPLICIT, 1e-3, 10.0, q), NSCD_OK);
    for (int i = 0; i < 3; ++i) {
        double rel = fabs(q[i] - ref[i]) / fabs(ref[i]);
        printf("model (a) q%d(10) = %.17g, reference %.17g, relative difference %.3e\n", i + 1,
               q[i], ref[i], rel);
        assert_true(rel <= 1e-9);
    }
    assert_int_equal(run_chain(&c, NSCD_TS_FORCES_AUTO, 1e-3, 10.0, q_auto), NSCD_OK);
    assert_memory_equal(q, q_auto, sizeof q); /* AUTO takes the stiffness */
    nscd_status rc = run_chain(&c, NSCD_TS_FORCES_EXPLICIT, 1e-3, 10.0, q);
    printf("model (a) explicit forces: status %d, stopped at q3 = %.3e\n", (int)rc, q[2]);
    assert_int_equal(rc, NSCD_ERR_NOT_FINITE);
}

/* Model (a) with Moreau's midpoint rule at dt = 1e-3 (ω_stiff dt ≈ 3.16 >
 * 2): its explicit forces diverge, and the advance must say so with
 * NSCD_ERR_NOT_FINITE and keep the last finite state, never NSCD_OK. AUTO
 * means explicit for this scheme even with a stiffness callback. */
static void stiff_chain_midpoint_diverges(void **state) {
    (void)state;
    chain c = {3};
    nscd_system *s = make_chain(&c, 1);
    nscd_time_stepping_options o;
    nscd_time_stepping_options_init(&o, sizeof o);
    o.scheme = NSCD_TS_MOREAU_MIDPOINT;
    o.dt = 1e-3;
    nscd_time_stepping *ts = NULL;
    assert_int_equal(nscd_time_stepping_create(s, &o, &ts), NSCD_OK);
    nscd_time_stepping_stats st = {.struct_size = sizeof st};
    nscd_status rc = nscd_time_stepping_advance(ts, 10.0, &st);
    double t = 0.0, q[3], v[3];
    assert_int_equal(nscd_system_get_state(s, &t, q, v), NSCD_OK);
    printf("model (a) midpoint: status %d after %lld steps, t = %.6g, q3 = %.3e (%s)\n", (int)rc,
           (long long)st.steps, t, q[2], nscd_time_stepping_last_error(ts));
    assert_int_equal(rc, NSCD_ERR_NOT_FINITE);
    assert_true(t < 10.0 && t == st.t);
    for (int32_t i = 0; i < 3; ++i) {
        assert_true(isfinite(q[i]) && isfinite(v[i]));
    }
    nscd_time_stepping_destroy(ts);
    nscd_system_destroy(s);
}

/* Model (b): q1 = q2 = g (1 - cos t) exactly (K q_static = f gives q_static
 * = (g, g), the slow mode ω = 1 alone). Error at t = 10 over four halvings
 * of dt: the implicit θ = 1/2 form is the trapezoidal rule on this linear
 * system, second order. */
static void chain_b_second_order(void **state) {
    (void)state;
    chain c = {2};
    double dt = 1e-2, e[4], q[3];
    for (int i = 0; i < 4; ++i, dt /= 2.0) {
        assert_int_equal(run_chain(&c, NSCD_TS_FORCES_IMPLICIT, dt, 10.0, q), NSCD_OK);
        double exact = G * (1.0 - cos(10.0));
        e[i] = fmax(fabs(q[0] - exact), fabs(q[1] - exact));
    }
    double order = log(e[0] / e[3]) / log(8.0);
    printf("model (b) implicit: errors %.3e %.3e %.3e %.3e, observed order %.3f\n", e[0], e[1],
           e[2], e[3], order);
    assert_true(fabs(order - 2.0) <= 0.1);
}

/* ------------------------------------------------ elastic ball on a spring */

/* Unit mass on a spring k to q = 0 under gravity above a floor at q = -d:
 * h = -k q - g, gap q + d. The static rest q = -g/k lies below the floor,
 * so the ball bounces on it. E = v²/2 + k q²/2 + g q. */
typedef struct spring_ball {
    double k, d;
    const nscd_system *system;
    double e0, e_min, e_max;
    int32_t contact_steps; /* steps with the floor active */
} spring_ball;

static nscd_status sb_mass(void *u, const double *q, double *m) {
    (void)u, (void)q;
    m[0] = 1.0;
    return NSCD_OK;
}

static nscd_status sb_forces(void *u, double t, const double *q, const double *v, double *h) {
    (void)t, (void)v;
    h[0] = -((const spring_ball *)u)->k * q[0] - G;
    return NSCD_OK;
}

static nscd_status sb_stiffness(void *u, double t, const double *q, const double *v, double *K) {
    (void)t, (void)q, (void)v;
    K[0] = ((const spring_ball *)u)->k;
    return NSCD_OK;
}

static nscd_status sb_floor(void *u, int32_t index, double t, const double *q, double *gap,
                            double *w_normal, double *w_tangent) {
    (void)index, (void)t, (void)w_tangent;
    *gap = q[0] + ((const spring_ball *)u)->d;
    w_normal[0] = 1.0;
    return NSCD_OK;
}

static double sb_energy(const spring_ball *b, double q, double v) {
    return 0.5 * v * v + 0.5 * b->k * q * q + G * q;
}

static int32_t sb_step(void *user, const nscd_time_stepping_report *report) {
    spring_ball *b = user;
    b->contact_steps += report->active_contacts > 0;
    double t, q, v;
    nscd_system_get_state(b->system, &t, &q, &v);
    b->e_min = fmin(b->e_min, sb_energy(b, q, v));
    b->e_max = fmax(b->e_max, sb_energy(b, q, v));
    return 0;
}

static nscd_system *make_spring_ball(spring_ball *b) {
    nscd_system_desc d;
    nscd_system_desc_init(&d, sizeof d);
    d.n_dof = 1;
    d.n_contacts = 1;
    d.user = b;
    d.mass = sb_mass;
    d.forces = sb_forces;
    d.stiffness = sb_stiffness;
    d.contact = sb_floor;
    nscd_system *s = NULL;
    assert_int_equal(nscd_system_create(&d, &s), NSCD_OK);
    nscd_contact_law *law = NULL;
    assert_int_equal(nscd_contact_law_create_newton(1.0, NULL, &law), NSCD_OK);
    nscd_contact_desc contact;
    nscd_contact_desc_init(&contact, sizeof contact);
    contact.law = law;
    assert_int_equal(nscd_system_set_contact(s, 0, &contact), NSCD_OK);
    nscd_contact_law_destroy(law);
    double q0 = 1.0, v0 = 0.0;
    assert_int_equal(nscd_system_set_state(s, 0.0, &q0, &v0), NSCD_OK);
    return s;
}

/* The floor as an LCP (AUTO) and through fc3d's block-CSR form (μ = 0):
 * both apply W_it^-1 through the adapter. */
static void spring_ball_with(int32_t solver) {
    spring_ball b = {.k = 10.0, .d = 0.5};
    nscd_system *s = make_spring_ball(&b);
    b.system = s;
    b.e0 = b.e_min = b.e_max = sb_energy(&b, 1.0, 0.0);
    nscd_time_stepping_options o;
    nscd_time_stepping_options_init(&o, sizeof o);
    o.dt = 1e-3;
    o.forces = NSCD_TS_FORCES_IMPLICIT;
    o.local_solver = solver;
    o.on_step = sb_step;
    o.on_step_user = &b;
    nscd_time_stepping *ts = NULL;
    assert_int_equal(nscd_time_stepping_create(s, &o, &ts), NSCD_OK);
    nscd_time_stepping_stats st = {.struct_size = sizeof st};
    assert_int_equal(nscd_time_stepping_advance(ts, 10.0, &st), NSCD_OK);
    double scale = 0.5 * b.k * 1.0 + G * 1.0; /* |terms| of E0 */
    printf("spring ball (solver %d): %d contact steps, ", (int)solver, (int)b.contact_steps);
    printf("%lld steps, E in [%.15g, %.15g], E0 = %.15g, drift %.3e relative\n",
           (long long)st.steps, b.e_min, b.e_max, b.e0,
           fmax(b.e_max - b.e0, b.e0 - b.e_min) / scale);
    assert_true(b.contact_steps >= 5);
    /* θ = 1/2 with K is the trapezoidal rule on the linear forces: exact
     * for E in flight; an impact step changes E by P (u_k + u_{k+1}) / 2,
     * 0 with e = 1 (u_{k+1} = -u_k). Only rounding remains (1e-14 here). */
    assert_true(b.e_max - b.e0 <= 1e-9 * scale);
    assert_true(b.e0 - b.e_min <= 1e-9 * scale);
    nscd_time_stepping_destroy(ts);
    nscd_system_destroy(s);
}

static void spring_ball_conserves_energy(void **state) {
    (void)state;
    spring_ball_with(NSCD_TS_SOLVER_AUTO);
    spring_ball_with(NSCD_TS_SOLVER_FC3D_COULOMB);
}

/* ------------------------------------------------- damped oscillator, one step */

/* m = 2, h = -k q - c v + f: K = k, C = c (either may be left out). */
typedef struct damped {
    double k, c, f;
} damped;

static nscd_status dm_mass(void *u, const double *q, double *m) {
    (void)u, (void)q;
    m[0] = 2.0;
    return NSCD_OK;
}

static nscd_status dm_forces(void *u, double t, const double *q, const double *v, double *h) {
    (void)t;
    const damped *d = u;
    h[0] = -d->k * q[0] - d->c * v[0] + d->f;
    return NSCD_OK;
}

static nscd_status dm_stiffness(void *u, double t, const double *q, const double *v, double *K) {
    (void)t, (void)q, (void)v;
    K[0] = ((const damped *)u)->k;
    return NSCD_OK;
}

static nscd_status dm_damping(void *u, double t, const double *q, const double *v, double *C) {
    (void)t, (void)q, (void)v;
    C[0] = ((const damped *)u)->c;
    return NSCD_OK;
}

/* One step of dt = 0.1, θ = 0.7 from (q, v) = (1, 0.3) against the derived
 * form (docs/time_stepping.md), a missing Jacobian counting as 0:
 * (m + θ dt C + θ² dt² K) Δv = dt (h(q_k, v_k) - θ dt K v_k). */
static void one_damped_step(int with_k, int with_c) {
    damped dm = {4.0, 0.5, 1.5};
    nscd_system_desc d;
    nscd_system_desc_init(&d, sizeof d);
    d.n_dof = 1;
    d.user = &dm;
    d.mass = dm_mass;
    d.forces = dm_forces;
    d.stiffness = with_k ? dm_stiffness : NULL;
    d.damping = with_c ? dm_damping : NULL;
    nscd_system *s = NULL;
    assert_int_equal(nscd_system_create(&d, &s), NSCD_OK);
    double q = 1.0, v = 0.3, t = 0.0, dt = 0.1, th = 0.7;
    assert_int_equal(nscd_system_set_state(s, 0.0, &q, &v), NSCD_OK);
    nscd_time_stepping_options o;
    nscd_time_stepping_options_init(&o, sizeof o);
    o.dt = dt;
    o.theta = th;
    o.forces = NSCD_TS_FORCES_IMPLICIT;
    nscd_time_stepping *ts = NULL;
    assert_int_equal(nscd_time_stepping_create(s, &o, &ts), NSCD_OK);
    assert_int_equal(nscd_time_stepping_advance(ts, dt, NULL), NSCD_OK);
    /* a Jacobian the system does not give is no failure of the call */
    assert_string_equal(nscd_system_last_error(s), "");
    double K = with_k ? dm.k : 0.0, C = with_c ? dm.c : 0.0;
    double h = -dm.k * 1.0 - dm.c * 0.3 + dm.f;
    double dv = dt * (h - th * dt * K * 0.3) / (2.0 + th * dt * C + th * th * dt * dt * K);
    double v1 = 0.3 + dv, q1 = 1.0 + dt * ((1.0 - th) * 0.3 + th * v1);
    assert_int_equal(nscd_system_get_state(s, &t, &q, &v), NSCD_OK);
    printf("damped step K %d C %d: v1 %.17g (derived %.17g), q1 %.17g (derived %.17g)\n", with_k,
           with_c, v, v1, q, q1);
    assert_true(t == dt);
    assert_true(fabs(v - v1) <= 1e-15 && fabs(q - q1) <= 1e-15);
    nscd_time_stepping_destroy(ts);
    nscd_system_destroy(s);
}

static void damped_step_matches_derivation(void **state) {
    (void)state;
    one_damped_step(1, 1);
    one_damped_step(1, 0);
    one_damped_step(0, 1);
}

/* A system given M^-1 only (mass_solve) has no M for W_it: AUTO runs the
 * explicit path (bitwise as EXPLICIT), IMPLICIT is refused at the first step. */
static nscd_status dm_mass_solve(void *u, const double *q, const double *b, double *x) {
    (void)u, (void)q;
    x[0] = b[0] / 2.0;
    return NSCD_OK;
}

static nscd_status run_mass_solve_only(int32_t forces, double *q, double *v) {
    damped dm = {4.0, 0.5, 1.5};
    nscd_system_desc d;
    nscd_system_desc_init(&d, sizeof d);
    d.n_dof = 1;
    d.user = &dm;
    d.mass_solve = dm_mass_solve;
    d.forces = dm_forces;
    d.stiffness = dm_stiffness;
    d.damping = dm_damping;
    nscd_system *s = NULL;
    assert_int_equal(nscd_system_create(&d, &s), NSCD_OK);
    double t = 0.0;
    *q = 1.0, *v = 0.0;
    assert_int_equal(nscd_system_set_state(s, 0.0, q, v), NSCD_OK);
    nscd_time_stepping_options o;
    nscd_time_stepping_options_init(&o, sizeof o);
    o.forces = forces;
    nscd_time_stepping *ts = NULL;
    assert_int_equal(nscd_time_stepping_create(s, &o, &ts), NSCD_OK);
    nscd_status rc = nscd_time_stepping_advance(ts, 0.1, NULL);
    assert_int_equal(nscd_system_get_state(s, &t, q, v), NSCD_OK);
    nscd_time_stepping_destroy(ts);
    nscd_system_destroy(s);
    return rc;
}

static void mass_solve_only_runs_explicit(void **state) {
    (void)state;
    double q[2], v[2];
    assert_int_equal(run_mass_solve_only(NSCD_TS_FORCES_AUTO, &q[0], &v[0]), NSCD_OK);
    assert_int_equal(run_mass_solve_only(NSCD_TS_FORCES_EXPLICIT, &q[1], &v[1]), NSCD_OK);
    assert_true(q[0] == q[1] && v[0] == v[1] && q[0] != 1.0);
    assert_int_equal(run_mass_solve_only(NSCD_TS_FORCES_IMPLICIT, &q[0], &v[0]),
                     NSCD_ERR_UNSUPPORTED);
    assert_true(q[0] == 1.0 && v[0] == 0.0);
}

/* ------------------------------------------------------------ bad options */

static void bad_forces_options(void **state) {
    (void)state;
    chain c = {2};
    nscd_system *s = make_chain(&c, 0);
    nscd_time_stepping_options o;
    nscd_time_stepping_options_init(&o, sizeof o);
    assert_int_equal(o.forces, NSCD_TS_FORCES_AUTO);
    assert_int_equal(o.reserved, 0);
    nscd_time_stepping *ts = NULL;
    const int32_t bad[] = {-1, 3, 1000};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        o.forces = bad[i];
        assert_int_equal(nscd_time_stepping_create(s, &o, &ts), NSCD_ERR_INVALID_ARGUMENT);
        assert_null(ts);
    }
    o.forces = NSCD_TS_FORCES_AUTO;
    o.reserved = 1;
    assert_int_equal(nscd_time_stepping_create(s, &o, &ts), NSCD_ERR_INVALID_ARGUMENT);
    assert_null(ts);
    /* implicit without Jacobians: refused at the first step, state unchanged */
    o.reserved = 0;
    o.forces = NSCD_TS_FORCES_IMPLICIT;
    assert_int_equal(nscd_time_stepping_create(s, &o, &ts), NSCD_OK);
    assert_int_equal(nscd_time_stepping_advance(ts, 1.0, NULL), NSCD_ERR_UNSUPPORTED);
    assert_non_null(strstr(nscd_time_stepping_last_error(ts), "stiffness"));
    double t = -1.0, q[2], v[2];
    assert_int_equal(nscd_system_get_state(s, &t, q, v), NSCD_OK);
    assert_true(t == 0.0 && q[0] == 0.0 && q[1] == 0.0 && v[0] == 0.0 && v[1] == 0.0);
    nscd_time_stepping_destroy(ts);
    /* AUTO without Jacobians: the explicit path */
    o.forces = NSCD_TS_FORCES_AUTO;
    assert_int_equal(nscd_time_stepping_create(s, &o, &ts), NSCD_OK);
    assert_int_equal(nscd_time_stepping_advance(ts, 1e-2, NULL), NSCD_OK);
    nscd_time_stepping_destroy(ts);
    nscd_system_destroy(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stiff_chain_matches_reference),
        cmocka_unit_test(stiff_chain_midpoint_diverges),
        cmocka_unit_test(chain_b_second_order),
        cmocka_unit_test(spring_ball_conserves_energy),
        cmocka_unit_test(damped_step_matches_derivation),
        cmocka_unit_test(mass_solve_only_runs_explicit),
        cmocka_unit_test(bad_forces_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
