/* Rolling and spinning resistance in nscd_world_step (docs/world.md,
 * "Rolling and spinning resistance"): a ball rolling on a floor decelerates
 * as under the torque μ_r N of the analytic solution and stops (without
 * resistance it rolls on); a ball and a box spinning on the floor about the
 * normal stop at the analytic rate μ_s m g / I; the kinetic energy never
 * rises over a step; bad arguments change nothing; a checkpoint of a
 * rolling scene continues bitwise; a world with resistance is refused by
 * the time steppers.
 *
 * The references are Newton–Euler for a rigid ball (or box) under gravity,
 * the floor's normal force N = m g and a resisting torque:
 *
 *   rolling without slip, friction F and torque μ_r N opposing the roll,
 *   m a = F, I α = −F r − μ_r N, a = r α  ⇒
 *   a = −μ_r g / (r (1 + I/(m r²))) = −(5/7) μ_r g / r (solid ball);
 *
 *   spinning about the normal: I dω/dt = −μ_s m g.
 *
 * The world's step is the same law at the impulse level: per step the
 * normal impulse is m g dt and the bound μ_r m g dt, so the discrete
 * velocity follows the line exactly until it stops (within a step: the
 * tolerances below are a step's change, a dt g μ_r / r, plus the
 * solver's). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nscd/time_stepping.h"
#include "nscd/world.h"
#include "nscd/world_checkpoint.h"

#define RADIUS 0.01
#define G 9.81
#define TOLERANCE 1e-9

static nscd_world *make_world(double rolling, double spinning, double friction) {
    nscd_world_desc d;
    nscd_world_desc_init(&d, sizeof d);
    d.default_friction = friction;
    /* sweeps to convergence: the law, not the truncation, is under test
     * (a step keeps a residual below the tolerance, 1e-4 m/s by default) */
    d.tolerance = TOLERANCE;
    d.max_sweeps = 200;
    nscd_world *w = NULL;
    assert_int_equal(nscd_world_create(&d, &w), NSCD_OK);
    /* material 0 for the floor and the body: the pair's lengths are these */
    assert_int_equal(nscd_world_set_material_resistance(w, 0, rolling, spinning), NSCD_OK);
    const double point[3] = {0.0, 0.0, 0.0}, normal[3] = {0.0, 0.0, 1.0};
    nscd_body_id floor_id = 0;
    assert_int_equal(nscd_world_add_half_space(w, point, normal, NULL, NULL, &floor_id), NSCD_OK);
    return w;
}

/* A solid ball of radius RADIUS resting on the floor, rolling along x at
 * speed v (ω_y = v / r: no slip) and spinning about z at `spin`. */
static nscd_body_id add_ball(nscd_world *w, double v, double spin) {
    nscd_body_desc b;
    nscd_body_desc_init(&b, sizeof b);
    b.position[2] = RADIUS;
    b.velocity[0] = v;
    b.angular_velocity[1] = v / RADIUS;
    b.angular_velocity[2] = spin;
    b.density = 7800.0;
    nscd_shape_desc s;
    nscd_shape_desc_init(&s, sizeof s);
    s.type = NSCD_SHAPE_SPHERE;
    s.radius = RADIUS;
    nscd_body_id id = 0;
    assert_int_equal(nscd_world_add_body(w, &b, &s, 1, &id), NSCD_OK);
    return id;
}

/* Kinetic energy of a body: ½ m |v|² + ½ ωᵀ I ω (I of an isotropic body,
 * or of a box not turned: the body frame is the world's). */
static double kinetic(const nscd_world *w, nscd_body_id id) {
    double v[3], om[3], m = 0.0, I[3];
    assert_int_equal(nscd_world_get_body(w, id, NULL, NULL, v, om), NSCD_OK);
    assert_int_equal(nscd_world_get_body_mass(w, id, &m, I), NSCD_OK);
    return 0.5 * m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) +
           0.5 * (I[0] * om[0] * om[0] + I[1] * om[1] * om[1] + I[2] * om[2] * om[2]);
}

/* Steps a body whose velocity component (`angular`: ω, else v; index
 * `axis`) decays linearly from x0 at `rate` to rest, until 0.2 s after the
 * analytic stop; (c) its kinetic energy never rises. Returns the largest
 * |x(t) - max(0, x0 - rate t)|, and in *slip (if not NULL) the largest
 * |v_x - r ω_y| of a ball rolling along x. */
static double decelerates_linearly(nscd_world *w, nscd_body_id id, int angular, int axis, double x0,
                                   double rate, double *slip) {
    const double dt = 1e-3;
    double worst = 0.0, e0 = kinetic(w, id), v[3], om[3];
    int steps = (int)ceil((x0 / rate + 0.2) / dt);
    for (int k = 1; k <= steps; ++k) {
        assert_int_equal(nscd_world_step(w, NULL), NSCD_OK);
        double e = kinetic(w, id);
        assert_true(e <= e0 * (1.0 + 1e-12) + 1e-15);
        e0 = e;
        assert_int_equal(nscd_world_get_body(w, id, NULL, NULL, v, om), NSCD_OK);
        double x = angular ? om[axis] : v[axis];
        worst = fmax(worst, fabs(x - fmax(0.0, x0 - rate * k * dt)));
        if (slip != NULL) {
            *slip = fmax(*slip, fabs(v[0] - RADIUS * om[1]));
        }
    }
    return worst;
}

/* (a) and (c): the rolling ball against v(t) = v0 + a t, a = −(5/7) μ_r g / r. */
static void rolling_ball_decelerates_as_analytic(void **state) {
    (void)state;
    const double mu_r = 1e-3, v0 = 0.5;
    nscd_world *w = make_world(mu_r, 0.0, 0.5);
    nscd_body_id id = add_ball(w, v0, 0.0);
    const double dt = 1e-3, a = -5.0 / 7.0 * mu_r * G / RADIUS, t_stop = -v0 / a;
    double slip = 0.0, v[3], om[3];
    double worst = decelerates_linearly(w, id, 0, 0, v0, -a, &slip);
    assert_int_equal(nscd_world_get_body(w, id, NULL, NULL, v, om), NSCD_OK);
    print_message("rolling ball: a = %.4g m/s^2, stop at %.4g s; largest |v - v(t)| %.3g m/s, "
                  "slip %.3g m/s; at the end v %.3g m/s\n",
                  a, t_stop, worst, slip, v[0]);
    /* a step's change of speed, |a| dt = 7e-4 m/s, bounds the discrete error */
    assert_true(worst < 2.0 * fabs(a) * dt);
    assert_true(slip < 1e-6);                 /* rolls, never slides */
    assert_true(fabs(v[0]) < 1e-6);           /* stopped */
    assert_true(fabs(om[1]) < 1e-6 / RADIUS); /* and does not turn */
    nscd_world_destroy(w);
}

/* (a) on the general path: a cylinder on its side (two contact points on
 * the floor, the anisotropic inertia: the rolling rows solved on the disc
 * by the trust-region iteration) rolls as a = −μ_r g / (r (1 + I/(m r²))),
 * I = m r² / 2 about its axis: a = −(2/3) μ_r g / r. */
static void rolling_cylinder_decelerates_as_analytic(void **state) {
    (void)state;
    const double mu_r = 5e-4, v0 = 0.2, r = 0.01, dt = 1e-3;
    nscd_world *w = make_world(mu_r, 0.0, 0.5);
    nscd_body_desc b;
    nscd_body_desc_init(&b, sizeof b);
    b.position[2] = r;
    b.orientation[0] = sqrt(0.5), b.orientation[1] = sqrt(0.5); /* axis along y */
    b.velocity[0] = v0;
    b.angular_velocity[1] = v0 / r;
    nscd_shape_desc s;
    nscd_shape_desc_init(&s, sizeof s);
    s.type = NSCD_SHAPE_CYLINDER;
    s.radius = r;
    s.half_height = 0.02;
    nscd_body_id id = 0;
    assert_int_equal(nscd_world_add_body(w, &b, &s, 1, &id), NSCD_OK);
    const double a = -2.0 / 3.0 * mu_r * G / r, t_stop = -v0 / a;
    double v[3], om[3];
    double worst = decelerates_linearly(w, id, 0, 0, v0, -a, NULL);
    assert_int_equal(nscd_world_get_body(w, id, NULL, NULL, v, om), NSCD_OK);
    print_message("rolling cylinder: a = %.4g m/s^2, stop at %.4g s; largest |v - v(t)| %.3g m/s, "
                  "at the end v %.3g m/s, omega %.3g %.3g %.3g rad/s\n",
                  a, t_stop, worst, v[0], om[0], om[1], om[2]);
    assert_true(worst < 2.0 * fabs(a) * dt);
    assert_true(fabs(v[0]) < 1e-6 && fabs(om[1]) < 1e-4);
    nscd_world_destroy(w);
}

/* (a) without resistance: rolls on at constant speed. */
static void rolling_ball_without_resistance_rolls_on(void **state) {
    (void)state;
    const double v0 = 0.5;
    nscd_world *w = make_world(0.0, 0.0, 0.5);
    nscd_body_id id = add_ball(w, v0, 0.0);
    double v[3], om[3];
    for (int k = 0; k < 1000; ++k) {
        assert_int_equal(nscd_world_step(w, NULL), NSCD_OK);
    }
    assert_int_equal(nscd_world_get_body(w, id, NULL, NULL, v, om), NSCD_OK);
    assert_true(fabs(v[0] - v0) < 1e-9);
    assert_true(fabs(om[1] - v0 / RADIUS) < 1e-9 / RADIUS);
    nscd_world_destroy(w);
}

/* (b) and (c): a ball and a frictionless box spinning about the normal stop
 * as I dω/dt = −μ_s m g. The box rests on its four corners (general
 * contacts); without Coulomb friction only the spin resistance turns it. */
static void spin_stops_as_analytic(nscd_world *w, nscd_body_id id, double spin, double mu_s,
                                   const char *what) {
    double m = 0.0, I[3], om[3];
    assert_int_equal(nscd_world_get_body_mass(w, id, &m, I), NSCD_OK);
    const double dt = 1e-3, rate = mu_s * m * G / I[2], t_stop = spin / rate;
    double worst = decelerates_linearly(w, id, 1, 2, spin, rate, NULL);
    assert_int_equal(nscd_world_get_body(w, id, NULL, NULL, NULL, om), NSCD_OK);
    print_message("%s: dω/dt = -%.4g rad/s^2, stop at %.4g s; largest |ω - ω(t)| %.3g rad/s, "
                  "at the end %.3g rad/s\n",
                  what, rate, t_stop, worst, om[2]);
    assert_true(worst < 2.0 * rate * dt);
    assert_true(fabs(om[2]) < 1e-6);
}

static void spinning_ball_stops(void **state) {
    (void)state;
    const double mu_s = 1e-4;
    nscd_world *w = make_world(0.0, mu_s, 0.5);
    nscd_body_id id = add_ball(w, 0.0, 20.0);
    spin_stops_as_analytic(w, id, 20.0, mu_s, "spinning ball");
    nscd_world_destroy(w);
}

static void spinning_box_stops(void **state) {
    (void)state;
    const double mu_s = 1e-3;
    nscd_world *w = make_world(0.0, mu_s, 0.0);
    nscd_body_desc b;
    nscd_body_desc_init(&b, sizeof b);
    b.position[2] = 0.01;
    b.angular_velocity[2] = 10.0;
    b.density = 1000.0;
    nscd_shape_desc s;
    nscd_shape_desc_init(&s, sizeof s);
    s.type = NSCD_SHAPE_BOX;
    s.half_extents[0] = 0.02, s.half_extents[1] = 0.015, s.half_extents[2] = 0.01;
    nscd_body_id id = 0;
    assert_int_equal(nscd_world_add_body(w, &b, &s, 1, &id), NSCD_OK);
    spin_stops_as_analytic(w, id, 10.0, mu_s, "spinning box");
    nscd_world_destroy(w);
}

/* (c) where K couples the spin and rolling rows (tilted capsules and
 * cylinders falling and tumbling on the floor and on one another, spinning):
 * every converged step loses mechanical energy, but for the tolerance's
 * first-order share Σ m (|v| + g dt) τ (docs/world.md, "Warm start"). The
 * penetration correction is off (error_reduction 0): it is the one other
 * source. A spin row that took the rolling rows' share of w_n as its own
 * (not its minimiser) had spun a capsule of the mixed pile up to 710 rad/s. */
static void tumbling_bodies_lose_energy(void **state) {
    (void)state;
    nscd_world_desc d;
    nscd_world_desc_init(&d, sizeof d);
    d.tolerance = TOLERANCE;
    d.max_sweeps = 200;
    d.error_reduction = 0.0;
    nscd_world *w = NULL;
    assert_int_equal(nscd_world_create(&d, &w), NSCD_OK);
    assert_int_equal(nscd_world_set_material_resistance(w, 0, 1e-3, 1e-3), NSCD_OK);
    const double point[3] = {0.0, 0.0, 0.0}, normal[3] = {0.0, 0.0, 1.0};
    nscd_body_id floor_id = 0;
    assert_int_equal(nscd_world_add_half_space(w, point, normal, NULL, NULL, &floor_id), NSCD_OK);
    nscd_body_id ids[8];
    for (int k = 0; k < 8; ++k) {
        nscd_body_desc b;
        nscd_body_desc_init(&b, sizeof b);
        b.position[0] = 0.012 * (k % 4);
        b.position[1] = 0.004 * (k / 4);
        b.position[2] = 0.03 + 0.03 * (k / 4);
        double angle = 0.3 + 0.35 * k, axis[3] = {cos(1.7 * k), sin(1.7 * k), 0.4};
        double n = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
        b.orientation[0] = cos(0.5 * angle);
        for (int i = 0; i < 3; ++i) {
            b.orientation[1 + i] = sin(0.5 * angle) * axis[i] / n;
        }
        b.angular_velocity[0] = 20.0 * sin(k), b.angular_velocity[1] = 15.0 * cos(k);
        b.angular_velocity[2] = 30.0;
        nscd_shape_desc s;
        nscd_shape_desc_init(&s, sizeof s);
        s.type = k % 2 ? NSCD_SHAPE_CYLINDER : NSCD_SHAPE_CAPSULE;
        s.radius = 0.004 + 0.001 * (k % 3);
        s.half_height = 0.01;
        assert_int_equal(nscd_world_add_body(w, &b, &s, 1, &ids[k]), NSCD_OK);
    }
    double e0 = 0.0, checked = 0;
    for (int step = 0; step < 600; ++step) {
        double ke = 0.0, pe = 0.0, slack = 0.0;
        assert_int_equal(nscd_world_kinetic_energy(w, &ke), NSCD_OK);
        assert_int_equal(nscd_world_potential_energy(w, &pe), NSCD_OK);
        for (int k = 0; k < 8; ++k) {
            double v[3], m = 0.0;
            assert_int_equal(nscd_world_get_body(w, ids[k], NULL, NULL, v, NULL), NSCD_OK);
            assert_int_equal(nscd_world_get_body_mass(w, ids[k], &m, NULL), NSCD_OK);
            slack += m * (sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) + G * d.dt) * TOLERANCE;
        }
        e0 = ke + pe;
        nscd_world_step_report rep = {.struct_size = sizeof rep};
        assert_int_equal(nscd_world_step(w, &rep), NSCD_OK);
        assert_int_equal(nscd_world_kinetic_energy(w, &ke), NSCD_OK);
        assert_int_equal(nscd_world_potential_energy(w, &pe), NSCD_OK);
        if (rep.converged) {
            checked++;
            if (!(ke + pe <= e0 + slack + 1e-15)) {
                print_message("step %d: energy %.17g -> %.17g (slack %.3g)\n", step + 1, e0,
                              ke + pe, slack);
            }
            assert_true(ke + pe <= e0 + slack + 1e-15);
        }
    }
    print_message("tumbling bodies: %g of 600 steps converged and checked\n", checked);
    assert_true(checked > 300);
    nscd_world_destroy(w);
}

/* (d) bad arguments: clear statuses, nothing changed. */
static void bad_arguments_change_nothing(void **state) {
    (void)state;
    nscd_world *w = make_world(2e-4, 1e-4, 0.5);
    int32_t m1 = 0;
    assert_int_equal(nscd_world_add_material(w, 0.3, &m1), NSCD_OK);
    assert_int_equal(nscd_world_set_material_resistance(NULL, 0, 1.0, 1.0), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_world_set_material_resistance(w, -1, 1e-3, 0.0), NSCD_ERR_INDEX);
    assert_int_equal(nscd_world_set_material_resistance(w, 2, 1e-3, 0.0), NSCD_ERR_INDEX);
    assert_non_null(strstr(nscd_world_last_error(w), "material"));
    assert_int_equal(nscd_world_set_material_resistance(w, 0, NAN, 0.0), NSCD_ERR_NOT_FINITE);
    assert_int_equal(nscd_world_set_material_resistance(w, 0, 0.0, INFINITY), NSCD_ERR_NOT_FINITE);
    assert_int_equal(nscd_world_set_material_resistance(w, 0, -1e-3, 0.0), NSCD_ERR_OUT_OF_RANGE);
    assert_int_equal(nscd_world_set_material_resistance(w, 0, 0.0, -1e-9), NSCD_ERR_OUT_OF_RANGE);
    double r = 0.0, s = 0.0;
    assert_int_equal(nscd_world_get_material_resistance(w, 0, &r, &s), NSCD_OK);
    assert_true(r == 2e-4 && s == 1e-4);
    assert_int_equal(nscd_world_get_material_resistance(w, 1, &r, &s), NSCD_OK);
    assert_true(r == 0.0 && s == 0.0); /* the default */
    assert_int_equal(nscd_world_get_material_resistance(w, 2, &r, &s), NSCD_ERR_INDEX);
    assert_int_equal(nscd_world_get_material_resistance(w, 0, NULL, &s), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_world_get_material_resistance(NULL, 0, &r, &s), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_world_set_material_resistance(w, 1, 3e-4, 0.0), NSCD_OK);
    assert_int_equal(nscd_world_get_material_resistance(w, 1, &r, &s), NSCD_OK);
    assert_true(r == 3e-4 && s == 0.0);
    /* materials added later grow the table: the lengths stay */
    for (int k = 0; k < 20; ++k) {
        assert_int_equal(nscd_world_add_material(w, 0.1, &m1), NSCD_OK);
    }
    assert_int_equal(nscd_world_get_material_resistance(w, 1, &r, &s), NSCD_OK);
    assert_true(r == 3e-4 && s == 0.0);
    assert_int_equal(nscd_world_get_material_resistance(w, m1, &r, &s), NSCD_OK);
    assert_true(r == 0.0 && s == 0.0);
    nscd_world_destroy(w);
}

/* The time steppers' assembled W has no angular rows: refused, with a message. */
static void time_stepper_refuses_resistance(void **state) {
    (void)state;
    nscd_world *w = make_world(1e-3, 0.0, 0.5);
    add_ball(w, 0.1, 0.0);
    nscd_time_stepping *ts = NULL;
    nscd_status rc = nscd_time_stepping_create_world(w, NULL, &ts);
    if (rc == NSCD_OK) {
        rc = nscd_time_stepping_advance(ts, 1e-3, NULL);
        nscd_time_stepping_destroy(ts);
    }
    assert_int_equal(rc, NSCD_ERR_UNSUPPORTED);
    assert_non_null(strstr(nscd_world_last_error(w), "resistance"));
    nscd_world_destroy(w);
}

/* A few balls and boxes rolling, spinning and colliding, with resistance
 * lengths (rolling, spinning) on material 0. */
static nscd_world *rolling_scene_with(double rolling, double spinning) {
    nscd_world *w = make_world(rolling, spinning, 0.4);
    for (int k = 0; k < 6; ++k) {
        nscd_body_desc b;
        nscd_body_desc_init(&b, sizeof b);
        b.position[0] = 0.05 * k;
        b.position[1] = 0.003 * k;
        b.position[2] = 0.012 + 0.002 * k;
        b.velocity[0] = k % 2 ? -0.4 : 0.3;
        b.angular_velocity[2] = 5.0 * k;
        b.density = 2500.0;
        nscd_shape_desc s;
        nscd_shape_desc_init(&s, sizeof s);
        if (k % 3 == 2) {
            s.type = NSCD_SHAPE_BOX;
            s.half_extents[0] = s.half_extents[1] = s.half_extents[2] = 0.01;
        } else {
            s.type = NSCD_SHAPE_SPHERE;
            s.radius = 0.012;
        }
        nscd_body_id id = 0;
        assert_int_equal(nscd_world_add_body(w, &b, &s, 1, &id), NSCD_OK);
    }
    return w;
}

static nscd_world *rolling_scene(void) { return rolling_scene_with(5e-4, 2e-4); }

static void bodies(const nscd_world *w, double *out, int32_t n) {
    int32_t count = 0;
    assert_int_equal(nscd_world_get_bodies(w, n, &count, NULL, NULL, out, out + 3 * n, out + 7 * n,
                                           out + 10 * n),
                     NSCD_OK);
    assert_int_equal(count, n);
}

/* (e) a checkpoint taken while the bodies roll continues bitwise, and a
 * loaded world saves the same bytes. */
static void checkpoint_continues_bitwise(void **state) {
    (void)state;
    const int n = 7, half = 150;
    nscd_world *a = rolling_scene(), *b = rolling_scene();
    for (int k = 0; k < 2 * half; ++k) {
        assert_int_equal(nscd_world_step(a, NULL), NSCD_OK);
    }
    for (int k = 0; k < half; ++k) {
        assert_int_equal(nscd_world_step(b, NULL), NSCD_OK);
    }
    size_t size = 0;
    assert_int_equal(nscd_world_save_to_buffer(b, NULL, 0, NULL, 0, &size),
                     NSCD_ERR_BUFFER_TOO_SMALL);
    unsigned char *bytes = malloc(size), *again = malloc(size);
    assert_int_equal(nscd_world_save_to_buffer(b, NULL, 0, bytes, size, &size), NSCD_OK);
    nscd_world_destroy(b);
    nscd_world_desc d;
    nscd_world_desc_init(&d, sizeof d);
    nscd_world *c = NULL;
    assert_int_equal(nscd_world_create(&d, &c), NSCD_OK);
    assert_int_equal(nscd_world_load_from_buffer(c, bytes, size, NULL, 0, NULL), NSCD_OK);
    double r = 0.0, s = 0.0;
    assert_int_equal(nscd_world_get_material_resistance(c, 0, &r, &s), NSCD_OK);
    assert_true(r == 5e-4 && s == 2e-4);
    size_t size2 = 0;
    assert_int_equal(nscd_world_save_to_buffer(c, NULL, 0, again, size, &size2), NSCD_OK);
    assert_int_equal(size2, size);
    assert_memory_equal(bytes, again, size);
    for (int k = 0; k < half; ++k) {
        assert_int_equal(nscd_world_step(c, NULL), NSCD_OK);
    }
    double *xa = calloc(13 * (size_t)n, sizeof(double)),
           *xc = calloc(13 * (size_t)n, sizeof(double));
    bodies(a, xa, n);
    bodies(c, xc, n);
    assert_memory_equal(xa, xc, 13 * (size_t)n * sizeof(double));
    /* the scene did roll and stop turning some: resistance was at work */
    free(xa), free(xc), free(bytes), free(again);
    nscd_world_destroy(a);
    nscd_world_destroy(c);
}

/* A world whose resistance is set back to 0 steps bitwise as one that never
 * had any; with resistance it does not. */
static void zero_resistance_is_bitwise_none(void **state) {
    (void)state;
    const int n = 7;
    nscd_world *a = rolling_scene(), *b = rolling_scene_with(0.0, 0.0), *c = rolling_scene();
    assert_int_equal(nscd_world_set_material_resistance(a, 0, 0.0, 0.0), NSCD_OK);
    for (int k = 0; k < 100; ++k) {
        assert_int_equal(nscd_world_step(a, NULL), NSCD_OK);
        assert_int_equal(nscd_world_step(b, NULL), NSCD_OK);
        assert_int_equal(nscd_world_step(c, NULL), NSCD_OK);
    }
    double *xa = calloc(13 * (size_t)n, sizeof(double)),
           *xb = calloc(13 * (size_t)n, sizeof(double));
    double *xc = calloc(13 * (size_t)n, sizeof(double));
    bodies(a, xa, n);
    bodies(b, xb, n);
    bodies(c, xc, n);
    assert_memory_equal(xa, xb, 13 * (size_t)n * sizeof(double));
    assert_memory_not_equal(xa, xc, 13 * (size_t)n * sizeof(double));
    free(xa), free(xb), free(xc);
    nscd_world_destroy(a);
    nscd_world_destroy(b);
    nscd_world_destroy(c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rolling_ball_decelerates_as_analytic),
        cmocka_unit_test(rolling_ball_without_resistance_rolls_on),
        cmocka_unit_test(rolling_cylinder_decelerates_as_analytic),
        cmocka_unit_test(spinning_ball_stops),
        cmocka_unit_test(spinning_box_stops),
        cmocka_unit_test(tumbling_bodies_lose_energy),
        cmocka_unit_test(bad_arguments_change_nothing),
        cmocka_unit_test(time_stepper_refuses_resistance),
        cmocka_unit_test(checkpoint_continues_bitwise),
        cmocka_unit_test(zero_resistance_is_bitwise_none),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
