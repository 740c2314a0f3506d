/* The rigid-body world (seed 002, Sect. 3): a sphere at rest on a plane, a
 * sphere that slides into rolling (v = 5/7 v0), a box sliding to a stop at
 * v0^2 / (2 mu g), a sphere stack that holds, energy in a frictional pile,
 * bitwise reruns, bodies added and removed mid-run, mass properties, the
 * Jacobi blend, copy-out and writers, and bad input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/struct_sizes.h"
#include "nscd/world.h"

#include "assert_near.h"
#include "test_size.h"
#include "world_bodies.h"

#define G 9.81
#define PI 3.14159265358979323846

/* ------------------------------------------------------------ helpers */

static nscd_world_desc default_desc(void) {
    nscd_world_desc d;
    nscd_world_desc_init(&d, sizeof d);
    return d;
}

static nscd_world *make_world(const nscd_world_desc *d) {
    nscd_world *w = NULL;
    assert_int_equal(nscd_world_create(d, &w), NSCD_OK);
    return w;
}

/* A static half-space whose outward normal is +z rotated by quaternion q,
 * its boundary through p. */
static nscd_body_id add_half_space(nscd_world *w, const double p[3], const double q[4]) {
    nscd_body_desc b;
    nscd_body_desc_init(&b, sizeof b);
    b.type = NSCD_BODY_STATIC;
    memcpy(b.position, p, sizeof b.position);
    memcpy(b.orientation, q, sizeof b.orientation);
    nscd_shape_desc s;
    nscd_shape_desc_init(&s, sizeof s);
    s.type = NSCD_SHAPE_HALF_SPACE;
    nscd_body_id id = 0;
    assert_int_equal(nscd_world_add_body(w, &b, &s, 1, &id), NSCD_OK);
    return id;
}

static void step_ok(nscd_world *w, int n) {
    for (int i = 0; i < n; ++i) {
        assert_int_equal(nscd_world_step(w, NULL), NSCD_OK);
    }
}

/* Kinetic plus potential energy (gravity -z) of every dynamic body. */
static double total_energy(const nscd_world *w, const nscd_body_id *ids, int n) {
    double e = 0.0;
    assert_int_equal(nscd_world_kinetic_energy(w, &e), NSCD_OK);
    for (int i = 0; i < n; ++i) {
        double x[3], m = 0.0;
        assert_int_equal(nscd_world_get_body(w, ids[i], x, NULL, NULL, NULL), NSCD_OK);
        assert_int_equal(nscd_world_get_body_mass(w, ids[i], &m, NULL), NSCD_OK);
        e += m * G * x[2];
    }
    return e;
}

/* ------------------------------------------------------------ single bodies */

/* A sphere placed exactly on the plane (gap 0): each step the normal
 * impulse m g dt cancels gravity; over 1e5 steps (2000 under
 * NSCD_TEST_SMALL, test_size.h) the centre moves by round-off only. */
static void sphere_rests_on_plane(void **state) {
    (void)state;
    nscd_world_desc d = default_desc();
    nscd_world *w = make_world(&d);
    world_floor(w);
    nscd_body_id s = world_sphere(w, 0.3, -0.2, 0.1, 0.1);
    const int steps = NSCD_TEST_SIZE(100000, 2000);
    step_ok(w, steps);
    double x[3], v[3], om[3];
    assert_int_equal(nscd_world_get_body(w, s, x, NULL, v, om), NSCD_OK);
    assert_true(fabs(x[0] - 0.3) < 1e-12 && fabs(x[1] + 0.2) < 1e-12);
    assert_true(fabs(x[2] - 0.1) < 1e-12);
    assert_true(fabs(v[2]) < 1e-12 && fabs(om[0]) + fabs(om[1]) + fabs(om[2]) < 1e-12);
    assert_near(nscd_world_time(w), steps * d.dt, 1e-9);
    nscd_world_destroy(w);
}

/* A sphere thrown along x without spin on a rough plane slides until
 * v = ω r; the angular momentum about the contact point, m v0, is
 * conserved, so v = m v0 / (m + I / r^2) = 5/7 v0 after (2 v0)/(7 μ g). */
static void sliding_sphere_starts_rolling(void **state) {
    (void)state;
    int32_t laws[2] = {NSCD_FRICTION_COULOMB, NSCD_FRICTION_MAX_DISSIPATION};
    for (int l = 0; l < 2; ++l) {
        nscd_world_desc d = default_desc();
        d.friction_law = laws[l];
        d.default_friction = 0.3;
        nscd_world *w = make_world(&d);
        world_floor(w);
        double r = 0.05, v0 = 2.0;
        nscd_body_id s = world_sphere(w, 0.0, 0.0, r, r);
        double v[3] = {v0, 0.0, 0.0};
        assert_int_equal(nscd_world_set_body(w, s, NULL, NULL, v, NULL), NSCD_OK);
        double t_roll = 2.0 * v0 / (7.0 * 0.3 * G);
        step_ok(w, (int)(t_roll / d.dt) - 10);
        double om[3];
        assert_int_equal(nscd_world_get_body(w, s, NULL, NULL, v, om), NSCD_OK);
        assert_true(v[0] - om[1] * r > 1e-3); /* still sliding */
        step_ok(w, 200);
        assert_int_equal(nscd_world_get_body(w, s, NULL, NULL, v, om), NSCD_OK);
        assert_near(v[0], 5.0 / 7.0 * v0, 1e-9);
        assert_near(om[1] * r, v[0], 1e-9); /* ω along +y rolls towards +x */
        assert_near(om[0], 0.0, 1e-12);
        nscd_world_destroy(w);
    }
}

/* A cube sliding on a plane with Coulomb friction stops after
 * v0^2 / (2 μ g) (to within one step's travel). */
static void box_slides_to_a_stop(void **state) {
    (void)state;
    nscd_world_desc d = default_desc();
    d.default_friction = 0.5;
    d.max_sweeps = 100;
    d.tolerance = 1e-12;
    nscd_world *w = make_world(&d);
    world_floor(w);
    nscd_body_desc b;
    nscd_body_desc_init(&b, sizeof b);
    b.position[2] = 0.1;
    b.velocity[0] = 1.0;
    nscd_shape_desc s;
    nscd_shape_desc_init(&s, sizeof s);
    s.type = NSCD_SHAPE_BOX;
    s.half_extents[0] = s.half_extents[1] = s.half_extents[2] = 0.1;
    nscd_body_id id = 0;
    assert_int_equal(nscd_world_add_body(w, &b, &s, 1, &id), NSCD_OK);
    nscd_world_step_report rep;
    rep.struct_size = sizeof rep;
    for (int i = 0; i < 400; ++i) {
        nscd_status rc = nscd_world_step(w, &rep);
        assert_int_equal(rc, NSCD_OK);
        assert_int_equal(rep.contacts, 4);
    }
    double x[3], v[3], q[4];
    assert_int_equal(nscd_world_get_body(w, id, x, q, v, NULL), NSCD_OK);
    double expected = 1.0 / (2.0 * 0.5 * G);
    assert_true(fabs(v[0]) < 1e-9);
    assert_true(fabs(x[0] - expected) < 1.0 * d.dt);
    assert_true(fabs(x[2] - 0.1) < 1e-6);
    assert_true(fabs(q[0] - 1.0) < 1e-6); /* it did not tip */
    nscd_world_destroy(w);
}

/* Five spheres stacked on the floor stay stacked for 2 s. */
static void sphere_stack_holds(void **state) {
    (void)state;
    nscd_world_desc d = default_desc();
    d.max_sweeps = 50;
    nscd_world *w = make_world(&d);
    world_floor(w);
    nscd_body_id ids[5];
    for (int k = 0; k < 5; ++k) {
        ids[k] = world_sphere(w, 0.0, 0.0, 0.1 + 0.2 * k, 0.1);
    }
    step_ok(w, 2000);
    for (int k = 0; k < 5; ++k) {
        double x[3];
        assert_int_equal(nscd_world_get_body(w, ids[k], x, NULL, NULL, NULL), NSCD_OK);
        assert_true(fabs(x[2] - (0.1 + 0.2 * k)) < 1e-3);
        assert_true(fabs(x[0]) + fabs(x[1]) < 1e-9);
    }
    nscd_world_destroy(w);
}

static nscd_body_id add_box(nscd_world *w, double x, double z, double h) {
    nscd_body_desc b;
    nscd_body_desc_init(&b, sizeof b);
    b.position[0] = x, b.position[2] = z;
    nscd_shape_desc s;
    nscd_shape_desc_init(&s, sizeof s);
    s.type = NSCD_SHAPE_BOX;
    s.half_extents[0] = s.half_extents[1] = s.half_extents[2] = h;
    nscd_body_id id = 0;
    assert_int_equal(nscd_world_add_body(w, &b, &s, 1, &id), NSCD_OK);
    return id;
}

/* A pyramid of six cubes (3, 2, 1) with small gaps settles and holds: after
 * 2 s every cube is within 1 mm of its rest height and has not slid. */
static void box_pyramid_holds(void **state) {
    (void)state;
    nscd_world_desc d = default_desc();
    d.max_sweeps = 50;
    d.default_friction = 0.6;
    nscd_world *w = make_world(&d);
    world_floor(w);
    double h = 0.1, gap = 0.005;
    nscd_body_id ids[6];
    double x0[6], z0[6];
    int n = 0;
    for (int row = 0; row < 3; ++row) {
        for (int k = 0; k < 3 - row; ++k) {
            x0[n] = (k - 0.5 * (2 - row)) * (2 * h + 0.01);
            z0[n] = h + row * (2 * h + gap);
            ids[n] = add_box(w, x0[n], z0[n] + 0.5 * gap, h);
            ++n;
        }
    }
    step_ok(w, 2000);
    for (int k = 0; k < n; ++k) {
        double x[3], v[3];
        assert_int_equal(nscd_world_get_body(w, ids[k], x, NULL, v, NULL), NSCD_OK);
        double rest = h + (z0[k] - h) / (2 * h + gap) * 2 * h; /* gaps closed */
        assert_true(fabs(x[2] - rest) < 1e-3);
        assert_true(fabs(x[0] - x0[k]) < 1e-3);
        assert_true(fabs(v[0]) + fabs(v[1]) + fabs(v[2]) < 1e-3);
    }
    nscd_world_destroy(w);
}

/* A capsule and a cylinder lying on the floor come to rest on it: the
 * centres at their radius above the floor. */
static void round_shapes_rest_on_floor(void **state) {
    (void)state;
    nscd_world_desc d = default_desc();
    d.max_sweeps = 30;
    nscd_world *w = make_world(&d);
    world_floor(w);
    int32_t types[2] = {NSCD_SHAPE_CAPSULE, NSCD_SHAPE_CYLINDER};
    nscd_body_id ids[2];
    for (int k = 0; k < 2; ++k) {
        nscd_body_desc b;
        nscd_body_desc_init(&b, sizeof b);
        b.position[0] = 1.0 * k;
        b.position[2] = 0.11;
        b.orientation[0] = b.orientation[1] = sqrt(0.5); /* axis along y */
        nscd_shape_desc s;
        nscd_shape_desc_init(&s, sizeof s);
        s.type = types[k];
        s.radius = 0.1;
        s.half_height = 0.3;
        assert_int_equal(nscd_world_add_body(w, &b, &s, 1, &ids[k]), NSCD_OK);
    }
    step_ok(w, 1000);
    for (int k = 0; k < 2; ++k) {
        double x[3], v[3];
        assert_int_equal(nscd_world_get_body(w, ids[k], x, NULL, v, NULL), NSCD_OK);
        assert_true(fabs(x[2] - 0.1) < 1e-3);
        assert_true(fabs(v[0]) + fabs(v[1]) + fabs(v[2]) < 1e-3);
    }
    nscd_world_destroy(w);
}

/* Warm start: in a settled stack of eight spheres each contact finds last
 * step's impulse by its key, so a tight tolerance takes a few sweeps where a
 * cold start needs hundreds. */
static void warm_start_saves_sweeps(void **state) {
    (void)state;
    int32_t sweeps[2] = {0, 0};
    for (int warm = 0; warm < 2; ++warm) {
        nscd_world_desc d = default_desc();
        d.warm_start = warm;
        d.max_sweeps = 1000;
        d.tolerance = 1e-9;
        nscd_world *w = make_world(&d);
        world_floor(w);
        for (int k = 0; k < 8; ++k) {
            world_sphere(w, 0.0, 0.0, 0.1 + 0.2 * k, 0.1);
        }
        step_ok(w, 200);
        nscd_world_step_report rep;
        rep.struct_size = sizeof rep;
        assert_int_equal(nscd_world_step(w, &rep), NSCD_OK);
        assert_int_equal(rep.contacts, 8);
        sweeps[warm] = rep.sweeps;
        nscd_world_destroy(w);
    }
    assert_true(sweeps[0] > 100); /* observed: 398 cold, 16 warm */
    assert_true(10 * sweeps[1] < sweeps[0]);
}

/* ------------------------------------------------------------ piles */

/* Spheres and, every fourth body, cubes (general contacts: eccentric lever
 * arms, anisotropic blocks) dropped into a box of five half-spaces. */
static nscd_world *make_pile(const nscd_world_desc *d, nscd_body_id *ids, int n) {
    nscd_world *w = make_world(d);
    double s = sqrt(0.5);
    double walls[4][4] = {{s, 0.0, s, 0.0}, {s, 0.0, -s, 0.0}, {s, -s, 0.0, 0.0}, {s, s, 0.0, 0.0}};
    double at[4][3] = {{-0.3, 0.0, 0.0}, {0.3, 0.0, 0.0}, {0.0, -0.3, 0.0}, {0.0, 0.3, 0.0}};
    add_half_space(w, (double[3]){0.0, 0.0, 0.0}, (double[4]){1.0, 0.0, 0.0, 0.0});
    for (int k = 0; k < 4; ++k) {
        add_half_space(w, at[k], walls[k]);
    }
    unsigned seed = 7;
    for (int i = 0; i < n; ++i) {
        seed = seed * 1103515245u + 12345u;
        double jitter = ((seed >> 8) % 1000) / 1000.0 * 0.02 - 0.01;
        double x = -0.2 + 0.1 * (i % 5) + jitter, y = -0.2 + 0.1 * ((i / 5) % 5);
        double z = 0.1 + 0.1 * (i / 25) + 0.05 * (i % 3);
        if (i % 4 == 3) {
            nscd_body_desc b;
            nscd_body_desc_init(&b, sizeof b);
            b.position[0] = x, b.position[1] = y, b.position[2] = z;
            b.orientation[0] = cos(0.3 * i), b.orientation[1] = sin(0.3 * i); /* tilted */
            nscd_shape_desc sh;
            nscd_shape_desc_init(&sh, sizeof sh);
            sh.type = NSCD_SHAPE_BOX;
            sh.half_extents[0] = sh.half_extents[1] = sh.half_extents[2] = 0.035;
            assert_int_equal(nscd_world_add_body(w, &b, &sh, 1, &ids[i]), NSCD_OK);
        } else {
            ids[i] = world_sphere(w, x, y, z, 0.04 + 0.005 * (i % 3));
        }
    }
    return w;
}

/* With ε = 0 the error reduction adds nothing, contacts only dissipate and
 * the semi-implicit Euler step loses m g^2 dt^2 / 2 per body in free fall:
 * the total energy never increases (up to round-off) in a frictional pile of
 * spheres and cubes, for both friction laws (they differ on the cubes).
 * 900 steps (300 under NSCD_TEST_SMALL: the pile has landed). */
static void pile_energy_never_increases(void **state) {
    (void)state;
    int32_t laws[2] = {NSCD_FRICTION_COULOMB, NSCD_FRICTION_MAX_DISSIPATION};
    for (int l = 0; l < 2; ++l) {
        nscd_world_desc d = default_desc();
        d.friction_law = laws[l];
        d.error_reduction = 0.0;
        d.max_sweeps = 200;
        d.tolerance = 1e-10;
        enum { N = 40 };
        nscd_body_id ids[N];
        nscd_world *w = make_pile(&d, ids, N);
        double e = total_energy(w, ids, N), e0 = e;
        int contacts = 0;
        const int steps = NSCD_TEST_SIZE(900, 300);
        for (int i = 0; i < steps; ++i) {
            nscd_world_step_report rep;
            rep.struct_size = sizeof rep;
            nscd_status rc = nscd_world_step(w, &rep);
            assert_true(rc == NSCD_OK || rc == NSCD_ERR_NOT_CONVERGED);
            double next = total_energy(w, ids, N);
            assert_true(next <= e + 1e-9 * fabs(e0));
            e = next;
            contacts = rep.contacts;
        }
        assert_true(contacts > N); /* a pile, not a gas */
        assert_true(e < e0);
        nscd_world_destroy(w);
    }
}

/* Translational kinetic energy of the bodies ids[0..n) at velocities v
 * (3 per body) shifted by dv. */
static double kinetic_at(const nscd_world *w, const nscd_body_id *ids, int n, const double *v,
                         double dv_z) {
    double e = 0.0;
    for (int i = 0; i < n; ++i) {
        double m = 0.0, z = v[3 * i + 2] + dv_z;
        assert_int_equal(nscd_world_get_body_mass(w, ids[i], &m, NULL), NSCD_OK);
        e += 0.5 * m * (v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] + z * z);
    }
    return e;
}

/* The warm start adds no energy (docs/fuzzing.md, World 1 and World 2).
 * Frictionless spheres with ε = 0: a block update minimises the contact
 * energy E(r) = ½ rᵀWr + qᵀr over its block, and the Jacobi blend with
 * ω ≤ 1/k keeps the decrease (world_solver.c), so after any number of
 * sweeps from a start with E ≤ 0 the step's kinetic energy is at most that
 * of the free velocities v + g dt (E is exactly the difference). Last
 * step's impulses applied in full can have E > 0; they are scaled to E ≤ 0.
 * A pile with warm start and one to three sweeps, Gauss–Seidel and blends
 * of two and four groups: every step, ½|v⁺|² ≤ ½|v + g dt|² (M-norms).
 * 300 steps (150 under NSCD_TEST_SMALL). */
static void warm_start_adds_no_energy(void **state) {
    (void)state;
    for (int sweeps = 1; sweeps <= 3; ++sweeps) {
        for (int groups = 1; groups <= 4; groups *= 2) {
            nscd_world_desc d = default_desc();
            d.error_reduction = 0.0;
            d.default_friction = 0.0;
            d.warm_start = 1;
            d.max_sweeps = sweeps;
            d.jacobi_groups = groups;
            d.relaxation = 1.0;
            d.tolerance = 0.0;
            enum { N = 40 };
            nscd_body_id ids[N];
            nscd_world *w = make_world(&d);
            world_floor(w);
            for (int i = 0; i < N; ++i) { /* a column of spheres falling together */
                ids[i] = world_sphere(w, 0.01 * (i % 3), 0.01 * (i % 5), 0.05 + 0.09 * i, 0.045);
            }
            const int steps = NSCD_TEST_SIZE(300, 150);
            for (int k = 0; k < steps; ++k) {
                double v[3 * N];
                for (int i = 0; i < N; ++i) {
                    assert_int_equal(nscd_world_get_body(w, ids[i], NULL, NULL, v + 3 * i, NULL),
                                     NSCD_OK);
                }
                double free_flight = kinetic_at(w, ids, N, v, -G * d.dt);
                assert_int_equal(nscd_world_step(w, NULL), NSCD_OK);
                for (int i = 0; i < N; ++i) {
                    assert_int_equal(nscd_world_get_body(w, ids[i], NULL, NULL, v + 3 * i, NULL),
                                     NSCD_OK);
                }
                double after = kinetic_at(w, ids, N, v, 0.0);
                if (after > free_flight * (1.0 + 1e-12) + 1e-15) {
                    fail_msg("%d sweeps, %d groups, step %d: kinetic energy %.17g above free "
                             "flight's %.17g",
                             sweeps, groups, k, after, free_flight);
                }
            }
            nscd_world_destroy(w);
        }
    }
}

/* Two worlds built and run alike are bitwise alike (300 steps, 60 under
 * NSCD_TEST_SMALL). */
static void rerun_is_bitwise_identical(void **state) {
    (void)state;
    enum { N = 60 };
    double pos[2][3 * N], vel[2][3 * N], quat[2][4 * N];
    for (int run = 0; run < 2; ++run) {
        nscd_world_desc d = default_desc();
        d.jacobi_groups = 3;
        d.relaxation = 0.7;
        nscd_body_id ids[N];
        nscd_world *w = make_pile(&d, ids, N);
        const int steps = NSCD_TEST_SIZE(300, 60);
        for (int i = 0; i < steps; ++i) {
            nscd_status rc = nscd_world_step(w, NULL);
            assert_true(rc == NSCD_OK);
        }
        int32_t count = 0;
        assert_int_equal(
            nscd_world_get_bodies(w, N + 5, &count, NULL, NULL, NULL, NULL, NULL, NULL), NSCD_OK);
        assert_int_equal(count, N + 5);
        double p[3 * (N + 5)], v[3 * (N + 5)], q[4 * (N + 5)];
        assert_int_equal(nscd_world_get_bodies(w, N + 5, &count, NULL, NULL, p, q, v, NULL),
                         NSCD_OK);
        memcpy(pos[run], p + 15, sizeof pos[run]);
        memcpy(vel[run], v + 15, sizeof vel[run]);
        memcpy(quat[run], q + 20, sizeof quat[run]);
        nscd_world_destroy(w);
    }
    assert_memory_equal(pos[0], pos[1], sizeof pos[0]);
    assert_memory_equal(vel[0], vel[1], sizeof vel[0]);
    assert_memory_equal(quat[0], quat[1], sizeof quat[0]);
}

/* The Jacobi blend (groups of Gauss–Seidel, weight ω = 0.5) converges to
 * the same impulses as Gauss–Seidel: in a stack of five spheres the contact
 * under sphere k carries the weight of the 5 - k spheres above it, so its
 * impulse is (5 - k) m g dt; the stack then holds for 2 s. */
static void jacobi_blend_converges(void **state) {
    (void)state;
    int32_t groups[2] = {1, 4};
    for (int g = 0; g < 2; ++g) {
        nscd_world_desc d = default_desc();
        d.jacobi_groups = groups[g];
        d.relaxation = 0.5;
        d.max_sweeps = 5000;
        d.tolerance = 1e-14;
        nscd_world *w = make_world(&d);
        world_floor(w);
        nscd_body_id ids[5];
        for (int k = 0; k < 5; ++k) {
            ids[k] = world_sphere(w, 0.0, 0.0, 0.1 + 0.2 * k, 0.1);
        }
        double m = 0.0;
        assert_int_equal(nscd_world_get_body_mass(w, ids[0], &m, NULL), NSCD_OK);
        nscd_world_step_report rep;
        rep.struct_size = sizeof rep;
        assert_int_equal(nscd_world_step(w, &rep), NSCD_OK);
        assert_int_equal(rep.contacts, 5);
        assert_true(rep.converged && rep.sweeps > 1);
        nscd_body_id a[5], b[5];
        double P[15];
        int32_t n = 0;
        assert_int_equal(nscd_world_get_contacts(w, 5, &n, a, b, NULL, NULL, NULL, P), NSCD_OK);
        for (int j = 0; j < 5; ++j) {
            int k = 0; /* index of the upper sphere of the contact */
            while (ids[k] != b[j]) {
                ++k;
            }
            assert_near(P[3 * j], (5 - k) * m * G * d.dt, 1e-12 * m);
            assert_near(P[3 * j + 1], 0.0, 1e-12 * m);
        }
        step_ok(w, 2000);
        for (int k = 0; k < 5; ++k) {
            double x[3];
            assert_int_equal(nscd_world_get_body(w, ids[k], x, NULL, NULL, NULL), NSCD_OK);
            assert_true(fabs(x[2] - (0.1 + 0.2 * k)) < 1e-6);
        }
        nscd_world_destroy(w);
    }
}

/* ------------------------------------------------------------ add / remove */

static void add_and_remove_mid_run(void **state) {
    (void)state;
    nscd_world_desc d = default_desc();
    d.max_sweeps = 30;
    nscd_world *w = make_world(&d);
    world_floor(w);
    nscd_body_id low = world_sphere(w, 0.0, 0.0, 0.1, 0.1);
    nscd_body_id high = world_sphere(w, 0.0, 0.0, 0.3, 0.1);
    step_ok(w, 100);
    assert_int_equal(nscd_world_body_count(w), 3);
    int32_t n = 0;
    assert_int_equal(nscd_world_get_contacts(w, 0, &n, NULL, NULL, NULL, NULL, NULL, NULL),
                     NSCD_ERR_BUFFER_TOO_SMALL);
    assert_int_equal(n, 2);
    /* remove the lower sphere: the upper one falls onto the floor */
    assert_int_equal(nscd_world_remove_body(w, low), NSCD_OK);
    assert_int_equal(nscd_world_body_valid(w, low), 0);
    assert_int_equal(nscd_world_remove_body(w, low), NSCD_ERR_STALE_HANDLE);
    assert_int_equal(nscd_world_get_body(w, low, NULL, NULL, NULL, NULL), NSCD_ERR_STALE_HANDLE);
    assert_int_equal(nscd_world_get_contacts(w, 0, &n, NULL, NULL, NULL, NULL, NULL, NULL),
                     NSCD_OK);
    assert_int_equal(n, 0); /* both of its contacts went with it */
    /* a new body reuses the slot with a new generation: the old id stays stale */
    nscd_body_id side = world_sphere(w, 1.0, 0.0, 0.1, 0.1);
    assert_true((side & 0xffffffffu) == (low & 0xffffffffu) && side != low);
    assert_int_equal(nscd_world_body_valid(w, low), 0);
    assert_int_equal(nscd_world_body_count(w), 3);
    step_ok(w, 600);
    double x[3];
    assert_int_equal(nscd_world_get_body(w, high, x, NULL, NULL, NULL), NSCD_OK);
    assert_true(fabs(x[2] - 0.1) < 1e-3);
    assert_int_equal(nscd_world_get_body(w, side, x, NULL, NULL, NULL), NSCD_OK);
    assert_true(fabs(x[0] - 1.0) < 1e-12 && fabs(x[2] - 0.1) < 1e-3);
    /* copy-out in storage order: floor, high, side */
    nscd_body_id ids[3];
    uint64_t users[3];
    assert_int_equal(nscd_world_get_bodies(w, 3, &n, ids, users, NULL, NULL, NULL, NULL), NSCD_OK);
    assert_int_equal(n, 3);
    assert_true(ids[1] == high && ids[2] == side);
    nscd_world_destroy(w);
}

/* Random churn: bodies of every shape (and compounds) added and removed
 * between steps, ids checked against a shadow list; the storage order of
 * the copy-out is the order of addition of the survivors (300 steps, 100
 * under NSCD_TEST_SMALL). */
static void random_add_remove_churn(void **state) {
    (void)state;
    nscd_world_desc d = default_desc();
    nscd_world *w = make_world(&d);
    world_floor(w);
    enum { MAX = 64 };
    nscd_body_id live[MAX], dead[4 * MAX];
    int n_live = 0, n_dead = 0;
    unsigned seed = 12345;
    const int steps = NSCD_TEST_SIZE(300, 100);
    for (int step = 0; step < steps; ++step) {
        seed = seed * 1103515245u + 12345u;
        int action = (seed >> 16) % 4;
        if (action < 3 && n_live < MAX) {
            nscd_body_desc b;
            nscd_body_desc_init(&b, sizeof b);
            b.position[0] = 0.3 * (n_live % 8), b.position[1] = 0.3 * (n_live / 8);
            b.position[2] = 0.3 + 0.1 * (step % 5);
            b.type = (seed >> 8) % 7 == 0 ? NSCD_BODY_KINEMATIC : NSCD_BODY_DYNAMIC;
            nscd_shape_desc sh[2];
            int n_shapes = 1 + (int)((seed >> 12) % 2);
            for (int k = 0; k < n_shapes; ++k) {
                nscd_shape_desc_init(&sh[k], sizeof sh[k]);
                sh[k].type = (int32_t)(k == 0 ? (seed >> 4) % 5 : NSCD_SHAPE_SPHERE);
                if (sh[k].type == NSCD_SHAPE_HALF_SPACE) {
                    sh[k].type = NSCD_SHAPE_SPHERE;
                }
                sh[k].radius = 0.05, sh[k].half_height = 0.05;
                sh[k].half_extents[0] = sh[k].half_extents[1] = sh[k].half_extents[2] = 0.05;
                sh[k].position[0] = 0.08 * k;
            }
            assert_int_equal(nscd_world_add_body(w, &b, sh, n_shapes, &live[n_live]), NSCD_OK);
            ++n_live;
        } else if (n_live > 0) {
            int k = (int)((seed >> 3) % (unsigned)n_live);
            assert_int_equal(nscd_world_remove_body(w, live[k]), NSCD_OK);
            dead[n_dead++ % (4 * MAX)] = live[k];
            memmove(&live[k], &live[k + 1], (size_t)(n_live - k - 1) * sizeof live[0]);
            --n_live;
        }
        nscd_status rc = nscd_world_step(w, NULL);
        assert_int_equal(rc, NSCD_OK);
        assert_int_equal(nscd_world_body_count(w), n_live + 1);
        for (int k = 0; k < n_dead && k < 4 * MAX; ++k) {
            assert_int_equal(nscd_world_body_valid(w, dead[k]), 0);
        }
    }
    nscd_body_id ids[MAX + 1];
    double x[3 * (MAX + 1)];
    int32_t n = 0;
    assert_int_equal(nscd_world_get_bodies(w, MAX + 1, &n, ids, NULL, x, NULL, NULL, NULL),
                     NSCD_OK);
    assert_int_equal(n, n_live + 1);
    for (int k = 0; k < n_live; ++k) {
        assert_true(ids[k + 1] == live[k]);
        assert_true(isfinite(x[3 * (k + 1)]) && isfinite(x[3 * (k + 1) + 2]));
    }
    nscd_world_destroy(w);
}

/* Bodies leaving the domain box are removed at the end of the step. */
static void domain_removes_bodies(void **state) {
    (void)state;
    nscd_world_desc d = default_desc();
    d.use_domain = 1;
    d.domain_min[0] = d.domain_min[1] = d.domain_min[2] = -1.0;
    d.domain_max[0] = d.domain_max[1] = d.domain_max[2] = 1.0;
    nscd_world *w = make_world(&d);
    nscd_body_id a = world_sphere(w, 0.0, 0.0, 0.0, 0.1);
    nscd_body_id b = world_sphere(w, 0.5, 0.0, 0.0, 0.1);
    double v[3] = {1000.0, 0.0, 0.0};
    assert_int_equal(nscd_world_set_body(w, b, NULL, NULL, v, NULL), NSCD_OK);
    nscd_world_step_report rep;
    rep.struct_size = sizeof rep;
    assert_int_equal(nscd_world_step(w, &rep), NSCD_OK);
    assert_int_equal(rep.bodies_removed, 1);
    assert_int_equal(nscd_world_body_valid(w, b), 0);
    assert_int_equal(nscd_world_body_valid(w, a), 1);
    assert_int_equal(nscd_world_body_count(w), 1);
    nscd_world_destroy(w);
}

/* ------------------------------------------------------------ mass */

static void mass_from_density(void **state) {
    (void)state;
    nscd_world_desc d = default_desc();
    nscd_world *w = make_world(&d);
    nscd_body_desc b;
    nscd_body_desc_init(&b, sizeof b);
    b.density = 2650.0;
    nscd_shape_desc s;
    nscd_shape_desc_init(&s, sizeof s);
    s.radius = 0.2;
    nscd_body_id id = 0;
    double m = 0.0, I[3];
    assert_int_equal(nscd_world_add_body(w, &b, &s, 1, &id), NSCD_OK);
    assert_int_equal(nscd_world_get_body_mass(w, id, &m, I), NSCD_OK);
    double ms = 2650.0 * 4.0 / 3.0 * PI * 0.008;
    assert_near(m, ms, 1e-12 * ms);
    assert_near(I[0], 0.4 * ms * 0.04, 1e-12);
    /* box 0.2 x 0.4 x 0.6 */
    s.type = NSCD_SHAPE_BOX;
    s.half_extents[0] = 0.1, s.half_extents[1] = 0.2, s.half_extents[2] = 0.3;
    assert_int_equal(nscd_world_add_body(w, &b, &s, 1, &id), NSCD_OK);
    assert_int_equal(nscd_world_get_body_mass(w, id, &m, I), NSCD_OK);
    double mb = 2650.0 * 0.2 * 0.4 * 0.6;
    assert_near(m, mb, 1e-12 * mb);
    assert_near(I[0], mb / 12.0 * (0.16 + 0.36), 1e-12);
    assert_near(I[2], mb / 12.0 * (0.04 + 0.16), 1e-12);
    /* a capsule is a cylinder plus a sphere in mass; its axial inertia too */
    s.type = NSCD_SHAPE_CAPSULE;
    s.radius = 0.1, s.half_height = 0.25;
    assert_int_equal(nscd_world_add_body(w, &b, &s, 1, &id), NSCD_OK);
    double mcap = 0.0, Icap[3];
    assert_int_equal(nscd_world_get_body_mass(w, id, &mcap, Icap), NSCD_OK);
    double mc = 2650.0 * PI * 0.01 * 0.5, msph = 2650.0 * 4.0 / 3.0 * PI * 0.001;
    assert_near(mcap, mc + msph, 1e-12);
    assert_near(Icap[2], 0.5 * mc * 0.01 + 0.4 * msph * 0.01, 1e-12);
    /* compound of two equal spheres at x = 0 and x = 1: the body frame moves
     * to the centre of mass, x = 0.5, and I_yy gains 2 m 0.5^2 */
    nscd_shape_desc two[2];
    nscd_shape_desc_init(&two[0], sizeof two[0]);
    nscd_shape_desc_init(&two[1], sizeof two[1]);
    two[0].radius = two[1].radius = 0.1;
    two[1].position[0] = 1.0;
    b.position[0] = 3.0;
    assert_int_equal(nscd_world_add_body(w, &b, two, 2, &id), NSCD_OK);
    double x[3];
    assert_int_equal(nscd_world_get_body(w, id, x, NULL, NULL, NULL), NSCD_OK);
    assert_near(x[0], 3.5, 1e-15);
    assert_int_equal(nscd_world_get_body_mass(w, id, &m, I), NSCD_OK);
    double m1 = 2650.0 * 4.0 / 3.0 * PI * 0.001;
    assert_near(m, 2.0 * m1, 1e-12);
    assert_near(I[1], 2.0 * (0.4 * m1 * 0.01 + m1 * 0.25), 1e-12);
    assert_near(I[0], 2.0 * 0.4 * m1 * 0.01, 1e-12);
    /* static and kinematic bodies have no mass */
    b.type = NSCD_BODY_KINEMATIC;
    assert_int_equal(nscd_world_add_body(w, &b, &s, 1, &id), NSCD_OK);
    assert_int_equal(nscd_world_get_body_mass(w, id, &m, I), NSCD_OK);
    assert_true(m == 0.0);
    nscd_world_destroy(w);
}

/* A kinematic body moves with its velocity and pushes dynamic ones. */
static void kinematic_body_pushes(void **state) {
    (void)state;
    nscd_world_desc d = default_desc();
    d.gravity[2] = 0.0;
    nscd_world *w = make_world(&d);
    nscd_body_desc b;
    nscd_body_desc_init(&b, sizeof b);
    b.type = NSCD_BODY_KINEMATIC;
    b.velocity[0] = 1.0;
    nscd_shape_desc s;
    nscd_shape_desc_init(&s, sizeof s);
    s.radius = 0.1;
    nscd_body_id pusher = 0;
    assert_int_equal(nscd_world_add_body(w, &b, &s, 1, &pusher), NSCD_OK);
    nscd_body_id ball = world_sphere(w, 0.2, 0.0, 0.0, 0.1);
    step_ok(w, 100);
    double x[3], v[3];
    assert_int_equal(nscd_world_get_body(w, pusher, x, NULL, v, NULL), NSCD_OK);
    assert_near(x[0], 0.1, 1e-12);
    assert_near(v[0], 1.0, 0.0);
    assert_int_equal(nscd_world_get_body(w, ball, x, NULL, v, NULL), NSCD_OK);
    assert_near(v[0], 1.0, 1e-9); /* inelastic push: moves with the pusher */
    nscd_world_destroy(w);
}

/* ------------------------------------------------------------ output */

static void writers_write_every_body(void **state) {
    (void)state;
    nscd_world_desc d = default_desc();
    nscd_world *w = make_world(&d);
    world_floor(w);
    world_sphere(w, 0.0, 0.0, 0.1, 0.1);
    world_sphere(w, 0.5, 0.0, 0.1, 0.2);
    step_ok(w, 3);
    char path[] = "test_world_out.csv";
    assert_int_equal(nscd_world_write(w, path, NSCD_WORLD_CSV), NSCD_OK);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[1024];
    int lines = 0;
    double radius_sum = 0.0;
    while (fgets(line, sizeof line, f) != NULL) {
        if (lines++ > 0) {
            radius_sum += atof(strrchr(line, ',') + 1);
        }
    }
    fclose(f);
    assert_int_equal(lines, 4); /* header + 3 bodies */
    assert_near(radius_sum, 0.3, 1e-15);
    assert_int_equal(nscd_world_write(w, "test_world_out.vtk", NSCD_WORLD_VTK), NSCD_OK);
    f = fopen("test_world_out.vtk", "r");
    assert_non_null(f);
    int points = -1;
    while (fgets(line, sizeof line, f) != NULL) {
        if (sscanf(line, "POINTS %d", &points) == 1) {
            break;
        }
    }
    fclose(f);
    assert_int_equal(points, 3);
    remove(path);
    remove("test_world_out.vtk");
    assert_int_equal(nscd_world_write(w, "/nonexistent-dir/x.csv", NSCD_WORLD_CSV), NSCD_ERR_IO);
    assert_int_equal(nscd_world_write(w, path, 7), NSCD_ERR_INVALID_ARGUMENT);
    nscd_world_destroy(w);
}

/* ------------------------------------------------------------ bad input */

static void bad_world_settings(void **state) {
    (void)state;
    nscd_world *w = NULL;
    nscd_world_desc d = default_desc();
    d.dt = 0.0;
    assert_int_equal(nscd_world_create(&d, &w), NSCD_ERR_OUT_OF_RANGE);
    d = default_desc();
    d.error_reduction = 1.0;
    assert_int_equal(nscd_world_create(&d, &w), NSCD_ERR_OUT_OF_RANGE);
    d = default_desc();
    d.relaxation = 0.0;
    assert_int_equal(nscd_world_create(&d, &w), NSCD_ERR_OUT_OF_RANGE);
    d = default_desc();
    d.gravity[1] = NAN;
    assert_int_equal(nscd_world_create(&d, &w), NSCD_ERR_NOT_FINITE);
    d = default_desc();
    d.friction_law = 5;
    assert_int_equal(nscd_world_create(&d, &w), NSCD_ERR_INVALID_ARGUMENT);
    d = default_desc();
    d.use_domain = 1;
    assert_int_equal(nscd_world_create(&d, &w), NSCD_ERR_OUT_OF_RANGE); /* empty box */
    d = default_desc();
    d.struct_size = 8;
    assert_int_equal(nscd_world_create(&d, &w), NSCD_ERR_STRUCT_SIZE);
    assert_null(w);
    assert_int_equal(nscd_world_desc_init(&d, 3), NSCD_ERR_STRUCT_SIZE);
}

static void bad_bodies_change_nothing(void **state) {
    (void)state;
    nscd_world_desc d = default_desc();
    nscd_world *w = make_world(&d);
    nscd_body_desc b;
    nscd_body_desc_init(&b, sizeof b);
    nscd_shape_desc s;
    nscd_shape_desc_init(&s, sizeof s);
    nscd_body_id id = 0;
    s.radius = -0.1;
    assert_int_equal(nscd_world_add_body(w, &b, &s, 1, &id), NSCD_ERR_OUT_OF_RANGE);
    assert_true(strlen(nscd_world_last_error(w)) > 0);
    s.radius = 0.1;
    assert_int_equal(nscd_world_add_body(w, &b, NULL, 0, &id), NSCD_ERR_OUT_OF_RANGE);
    b.position[1] = NAN;
    assert_int_equal(nscd_world_add_body(w, &b, &s, 1, &id), NSCD_ERR_NOT_FINITE);
    b.position[1] = 0.0;
    b.type = 9;
    assert_int_equal(nscd_world_add_body(w, &b, &s, 1, &id), NSCD_ERR_INVALID_ARGUMENT);
    b.type = NSCD_BODY_DYNAMIC;
    s.type = NSCD_SHAPE_HALF_SPACE;
    assert_int_equal(nscd_world_add_body(w, &b, &s, 1, &id), NSCD_ERR_OUT_OF_RANGE);
    s.type = 42;
    assert_int_equal(nscd_world_add_body(w, &b, &s, 1, &id), NSCD_ERR_INVALID_ARGUMENT);
    s.type = NSCD_SHAPE_SPHERE;
    s.material = 3;
    assert_int_equal(nscd_world_add_body(w, &b, &s, 1, &id), NSCD_ERR_INDEX);
    s.material = 0;
    b.orientation[0] = 2.0;
    assert_int_equal(nscd_world_add_body(w, &b, &s, 1, &id), NSCD_ERR_INVALID_ARGUMENT);
    b.orientation[0] = 1.0;
    b.density = 0.0;
    assert_int_equal(nscd_world_add_body(w, &b, &s, 1, &id), NSCD_ERR_OUT_OF_RANGE);
    b.density = 1000.0;
    assert_int_equal(nscd_world_body_count(w), 0);
    assert_int_equal(nscd_world_add_body(w, &b, &s, 1, &id), NSCD_OK);
    assert_int_equal(nscd_world_body_count(w), 1);
    /* a NaN velocity is refused and leaves the body as it was */
    double v[3] = {0.0, NAN, 0.0}, got[3];
    assert_int_equal(nscd_world_set_body(w, id, NULL, NULL, v, NULL), NSCD_ERR_NOT_FINITE);
    assert_int_equal(nscd_world_get_body(w, id, NULL, NULL, got, NULL), NSCD_OK);
    assert_true(got[0] == 0.0 && got[1] == 0.0 && got[2] == 0.0);
    /* stale and null ids */
    assert_int_equal(nscd_world_get_body(w, id + (1ull << 32), got, NULL, NULL, NULL),
                     NSCD_ERR_STALE_HANDLE);
    assert_int_equal(nscd_world_remove_body(w, NSCD_BODY_NULL), NSCD_ERR_STALE_HANDLE);
    assert_int_equal(nscd_world_set_body(w, 12345, got, NULL, NULL, NULL), NSCD_ERR_STALE_HANDLE);
    /* materials */
    int32_t mat = -1;
    assert_int_equal(nscd_world_add_material(w, -0.5, &mat), NSCD_ERR_OUT_OF_RANGE);
    assert_int_equal(nscd_world_add_material(w, 0.4, &mat), NSCD_OK);
    assert_int_equal(mat, 1);
    assert_int_equal(nscd_world_set_pair_friction(w, 0, 2, 0.1), NSCD_ERR_INDEX);
    assert_int_equal(nscd_world_set_pair_friction(w, 0, 1, NAN), NSCD_ERR_NOT_FINITE);
    /* a report of a bad size is refused before anything moves */
    nscd_world_step_report rep;
    rep.struct_size = 4;
    assert_int_equal(nscd_world_step(w, &rep), NSCD_ERR_STRUCT_SIZE);
    assert_true(nscd_world_time(w) == 0.0);
    nscd_world_destroy(w);
    nscd_world_destroy(NULL);
    /* an empty world steps; a body without shapes (explicit mass) falls */
    w = make_world(&d);
    assert_int_equal(nscd_world_step(w, NULL), NSCD_OK);
    nscd_body_desc_init(&b, sizeof b);
    b.mass = 2.0;
    b.inertia[0] = b.inertia[1] = b.inertia[2] = 1.0;
    nscd_body_id free_body = 0;
    assert_int_equal(nscd_world_add_body(w, &b, NULL, 0, &free_body), NSCD_OK);
    assert_int_equal(nscd_world_add_body(w, &b, NULL, 0, &id), NSCD_OK);
    assert_int_equal(nscd_world_remove_body(w, free_body), NSCD_OK);
    step_ok(w, 10);
    assert_int_equal(nscd_world_get_body(w, id, NULL, NULL, got, NULL), NSCD_OK);
    assert_near(got[2], -10 * G * d.dt, 1e-12);
    nscd_world_destroy(w);
}

/* A pair override beats the combination rule: μ = 0 between the two
 * materials lets a sphere slide without starting to roll. */
static void pair_friction_override(void **state) {
    (void)state;
    nscd_world_desc d = default_desc();
    nscd_world *w = make_world(&d);
    int32_t ice = -1;
    assert_int_equal(nscd_world_add_material(w, 0.8, &ice), NSCD_OK);
    assert_int_equal(nscd_world_set_pair_friction(w, 0, ice, 0.0), NSCD_OK);
    world_floor(w);
    nscd_body_desc b;
    nscd_body_desc_init(&b, sizeof b);
    b.position[2] = 0.1;
    b.velocity[0] = 1.0;
    nscd_shape_desc s;
    nscd_shape_desc_init(&s, sizeof s);
    s.radius = 0.1;
    s.material = ice;
    nscd_body_id id = 0;
    assert_int_equal(nscd_world_add_body(w, &b, &s, 1, &id), NSCD_OK);
    step_ok(w, 100);
    double v[3], om[3];
    assert_int_equal(nscd_world_get_body(w, id, NULL, NULL, v, om), NSCD_OK);
    assert_true(v[0] == 1.0 && om[1] == 0.0);
    nscd_world_destroy(w);
}

/* A box of half sides (0.1, 0.2, 0.3), density 1000, at rest at the origin;
 * its mass and principal inertia into mass, inertia. */
static nscd_body_id add_free_box(nscd_world *w, double *mass, double inertia[3]) {
    nscd_body_desc b;
    nscd_body_desc_init(&b, sizeof b);
    nscd_shape_desc s;
    nscd_shape_desc_init(&s, sizeof s);
    s.type = NSCD_SHAPE_BOX;
    s.half_extents[0] = 0.1, s.half_extents[1] = 0.2, s.half_extents[2] = 0.3;
    nscd_body_id id = 0;
    assert_int_equal(nscd_world_add_body(w, &b, &s, 1, &id), NSCD_OK);
    assert_int_equal(nscd_world_get_body_mass(w, id, mass, inertia), NSCD_OK);
    return id;
}

/* A body spinning about a principal axis of an asymmetric box keeps its
 * angular velocity (ω × I ω = 0), and the orientation follows the exact
 * rotation: after t, the angle is ω t. */
static void free_spin_about_principal_axis(void **state) {
    (void)state;
    nscd_world_desc d = default_desc();
    d.gravity[2] = 0.0;
    d.dt = 0.01;
    nscd_world *w = make_world(&d);
    double m = 0.0, I[3], spin[3] = {0.0, 0.0, 2.0};
    nscd_body_id id = add_free_box(w, &m, I);
    assert_int_equal(nscd_world_set_body(w, id, NULL, NULL, NULL, spin), NSCD_OK);
    step_ok(w, 100);
    double q[4], om[3];
    assert_int_equal(nscd_world_get_body(w, id, NULL, q, NULL, om), NSCD_OK);
    assert_near(om[2], 2.0, 1e-15);
    assert_near(q[0], cos(1.0), 1e-12); /* angle 2 rad: q = (cos 1, 0, 0, sin 1) */
    assert_near(q[3], sin(1.0), 1e-12);
    nscd_world_destroy(w);
}

/* A constant applied force and a torque about a principal axis on a free
 * box: the symplectic Euler step gives v_n = n dt F / m, x_n = dt² (F / m)
 * n (n + 1) / 2 and ω_n = n dt τ / I_zz (no gyroscopic torque about a
 * principal axis), checked against those closed forms. */
static void applied_force_accelerates_free_body(void **state) {
    (void)state;
    nscd_world_desc d = default_desc();
    d.gravity[2] = 0.0;
    d.dt = 1e-3;
    nscd_world *w = make_world(&d);
    double m = 0.0, I[3];
    nscd_body_id id = add_free_box(w, &m, I);
    const double F[3] = {2.0, -1.0, 0.5}, tau[3] = {0.0, 0.0, 0.03};
    assert_int_equal(nscd_world_set_applied_force(w, id, F, tau), NSCD_OK);
    double Fr[3], taur[3];
    assert_int_equal(nscd_world_get_applied_force(w, id, Fr, taur), NSCD_OK);
    assert_memory_equal(Fr, F, sizeof F);
    assert_memory_equal(taur, tau, sizeof tau);
    const int n = 500;
    step_ok(w, n);
    double x[3], v[3], om[3], q[4];
    assert_int_equal(nscd_world_get_body(w, id, x, q, v, om), NSCD_OK);
    for (int k = 0; k < 3; ++k) {
        double a = F[k] / m;
        assert_near(v[k], n * d.dt * a, 1e-12 * fabs(n * d.dt * a));
        assert_near(x[k], d.dt * d.dt * a * n * (n + 1) / 2.0, 1e-11 * fabs(x[k]));
    }
    assert_near(om[2], n * d.dt * tau[2] / I[2], 1e-12 * fabs(om[2]));
    assert_near(om[0], 0.0, 1e-15);
    assert_near(om[1], 0.0, 1e-15);
    /* zero (NULL) removes the load: the velocity stays */
    assert_int_equal(nscd_world_set_applied_force(w, id, NULL, NULL), NSCD_OK);
    step_ok(w, 10);
    double v2[3];
    assert_int_equal(nscd_world_get_body(w, id, NULL, NULL, v2, NULL), NSCD_OK);
    assert_memory_equal(v2, v, sizeof v);
    nscd_world_destroy(w);
}

/* A box on the floor (μ = 0.5) pushed along x: a force below μ m g holds
 * it at rest (static friction), one above makes it slide with the
 * acceleration F / m − μ g. */
static void applied_force_against_friction(void **state) {
    (void)state;
    const double mu = 0.5, h = 0.1;
    for (int above = 0; above <= 1; ++above) {
        nscd_world_desc d = default_desc();
        d.default_friction = mu;
        d.max_sweeps = 100;
        d.tolerance = 1e-12;
        nscd_world *w = make_world(&d);
        world_floor(w);
        nscd_body_id id = add_box(w, 0.0, h, h);
        double m = 0.0;
        assert_int_equal(nscd_world_get_body_mass(w, id, &m, NULL), NSCD_OK);
        double F[3] = {(above ? 1.5 : 0.5) * mu * m * G, 0.0, 0.0};
        step_ok(w, 50); /* seated */
        assert_int_equal(nscd_world_set_applied_force(w, id, F, NULL), NSCD_OK);
        double v0[3], v[3], x[3], q[4];
        assert_int_equal(nscd_world_get_body(w, id, NULL, NULL, v0, NULL), NSCD_OK);
        const int n = 300;
        step_ok(w, n);
        assert_int_equal(nscd_world_get_body(w, id, x, q, v, NULL), NSCD_OK);
        double expected = above ? v0[0] + n * d.dt * (F[0] / m - mu * G) : 0.0;
        assert_near(v[0], expected, 1e-9);
        assert_true(fabs(x[2] - h) < 1e-6);
        assert_true(fabs(q[0] - 1.0) < 1e-6); /* pushed through the centre: no tipping */
        nscd_world_destroy(w);
    }
}

/* Bad calls change nothing. */
static void bad_applied_forces(void **state) {
    (void)state;
    nscd_world_desc d = default_desc();
    nscd_world *w = make_world(&d);
    nscd_body_id floor = world_floor(w), ball = world_sphere(w, 0.0, 0.0, 1.0, 0.1);
    const double F[3] = {1.0, 2.0, 3.0}, bad[3] = {1.0, NAN, 0.0};
    assert_int_equal(nscd_world_set_applied_force(w, ball, F, NULL), NSCD_OK);
    assert_int_equal(nscd_world_set_applied_force(NULL, ball, F, NULL), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_world_set_applied_force(w, floor, F, NULL), NSCD_ERR_INVALID_ARGUMENT);
    assert_int_equal(nscd_world_set_applied_force(w, ball, bad, NULL), NSCD_ERR_NOT_FINITE);
    assert_int_equal(nscd_world_set_applied_force(w, ball, NULL, bad), NSCD_ERR_NOT_FINITE);
    double got[3], torque[3];
    assert_int_equal(nscd_world_get_applied_force(w, ball, got, torque), NSCD_OK);
    assert_memory_equal(got, F, sizeof F);
    assert_true(torque[0] == 0.0 && torque[1] == 0.0 && torque[2] == 0.0);
    assert_int_equal(nscd_world_get_applied_force(NULL, ball, got, NULL), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_world_remove_body(w, ball), NSCD_OK);
    assert_int_equal(nscd_world_set_applied_force(w, ball, F, NULL), NSCD_ERR_STALE_HANDLE);
    assert_int_equal(nscd_world_get_applied_force(w, ball, got, NULL), NSCD_ERR_STALE_HANDLE);
    /* a new body in the freed slot starts without a load */
    nscd_body_id other = world_sphere(w, 0.0, 0.0, 2.0, 0.1);
    assert_int_equal(nscd_world_get_applied_force(w, other, got, torque), NSCD_OK);
    assert_true(got[0] == 0.0 && got[1] == 0.0 && got[2] == 0.0);
    nscd_world_destroy(w);
}

/* A velocity that overflows in the step (the gyroscopic term of a spin of
 * 1e200 rad/s) is refused: NSCD_ERR_NOT_FINITE and the world as before. */
static void non_finite_step_changes_nothing(void **state) {
    (void)state;
    nscd_world_desc d = default_desc();
    nscd_world *w = make_world(&d);
    double m = 0.0, I[3], spin[3] = {1e200, 1e200, 0.0};
    nscd_body_id id = add_free_box(w, &m, I);
    assert_int_equal(nscd_world_set_body(w, id, NULL, NULL, NULL, spin), NSCD_OK);
    assert_int_equal(nscd_world_step(w, NULL), NSCD_ERR_NOT_FINITE);
    assert_true(strlen(nscd_world_last_error(w)) > 0); /* before the next call clears it */
    double x[3], q[4], v[3], om[3];
    assert_int_equal(nscd_world_get_body(w, id, x, q, v, om), NSCD_OK);
    assert_true(x[0] == 0.0 && x[2] == 0.0 && q[0] == 1.0 && v[2] == 0.0);
    assert_true(om[0] == 1e200 && om[1] == 1e200 && om[2] == 0.0);
    assert_true(nscd_world_time(w) == 0.0);
    nscd_world_destroy(w);
}

/* A tolerance that one sweep cannot reach, with NSCD_UNCONVERGED_FAIL:
 * NSCD_ERR_NOT_CONVERGED, the report says so, and the step is taken all
 * the same (the default keeps it with NSCD_OK: test_world_robust.c). */
static void tolerance_not_reached_is_reported(void **state) {
    (void)state;
    nscd_world_desc d = default_desc();
    d.max_sweeps = 1;
    d.tolerance = 1e-14;
    d.on_unconverged = NSCD_UNCONVERGED_FAIL;
    nscd_world *w = make_world(&d);
    world_floor(w);
    for (int k = 0; k < 3; ++k) {
        world_sphere(w, 0.0, 0.0, 0.1 + 0.2 * k, 0.1);
    }
    nscd_world_step_report rep;
    rep.struct_size = sizeof rep;
    assert_int_equal(nscd_world_step(w, &rep), NSCD_ERR_NOT_CONVERGED);
    assert_int_equal(rep.converged, 0);
    assert_int_equal(rep.sweeps, 1);
    assert_true(rep.merit >= 1e-14);
    assert_true(nscd_world_time(w) == d.dt);
    nscd_world_destroy(w);
}

static void structs_of_release_0_2(void **state) {
    (void)state;
    /* a desc of its first-release size is accepted, the rest defaulted */
    nscd_world_desc d;
    assert_int_equal(nscd_world_desc_init(&d, NSCD__WORLD_DESC_SIZE_0_2), NSCD_OK);
    nscd_world *w = NULL;
    assert_int_equal(nscd_world_create(&d, &w), NSCD_OK);
    nscd_body_desc b;
    assert_int_equal(nscd_body_desc_init(&b, NSCD__BODY_DESC_SIZE_0_2), NSCD_OK);
    nscd_shape_desc s;
    assert_int_equal(nscd_shape_desc_init(&s, NSCD__SHAPE_DESC_SIZE_0_2), NSCD_OK);
    nscd_body_id id = 0;
    assert_int_equal(nscd_world_add_body(w, &b, &s, 1, &id), NSCD_OK);
    nscd_world_step_report rep;
    memset(&rep, 0xab, sizeof rep);
    rep.struct_size = NSCD__WORLD_STEP_REPORT_SIZE_0_2;
    assert_int_equal(nscd_world_step(w, &rep), NSCD_OK);
    assert_int_equal(rep.struct_size, NSCD__WORLD_STEP_REPORT_SIZE_0_2);
    assert_int_equal(rep.sweeps, 0);
    nscd_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sphere_rests_on_plane),
        cmocka_unit_test(sliding_sphere_starts_rolling),
        cmocka_unit_test(box_slides_to_a_stop),
        cmocka_unit_test(sphere_stack_holds),
        cmocka_unit_test(warm_start_saves_sweeps),
        cmocka_unit_test(box_pyramid_holds),
        cmocka_unit_test(round_shapes_rest_on_floor),
        cmocka_unit_test(pile_energy_never_increases),
        cmocka_unit_test(warm_start_adds_no_energy),
        cmocka_unit_test(rerun_is_bitwise_identical),
        cmocka_unit_test(jacobi_blend_converges),
        cmocka_unit_test(add_and_remove_mid_run),
        cmocka_unit_test(random_add_remove_churn),
        cmocka_unit_test(domain_removes_bodies),
        cmocka_unit_test(mass_from_density),
        cmocka_unit_test(kinematic_body_pushes),
        cmocka_unit_test(writers_write_every_body),
        cmocka_unit_test(bad_world_settings),
        cmocka_unit_test(bad_bodies_change_nothing),
        cmocka_unit_test(pair_friction_override),
        cmocka_unit_test(free_spin_about_principal_axis),
        cmocka_unit_test(applied_force_accelerates_free_body),
        cmocka_unit_test(applied_force_against_friction),
        cmocka_unit_test(bad_applied_forces),
        cmocka_unit_test(non_finite_step_changes_nothing),
        cmocka_unit_test(tolerance_not_reached_is_reported),
        cmocka_unit_test(structs_of_release_0_2),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
