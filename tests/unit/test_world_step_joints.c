/* Ideal joints in the world's own step (nscd_world_step; world_joint_sweep.c,
 * docs/joints.md "Joints in nscd_world_step"): a compound pendulum keeps the
 * small-oscillation period of its analytic solution, a five-link chain never
 * gains energy and stays on its joints after every step, a chain hangs into
 * a bed of spheres, and clearance joints are refused without a change.
 * References: T = 2π sqrt(I_p / (m g d)) (compound pendulum), the
 * mechanical energy (no stage may create it), the joints' residual Φ. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "nscd/joint.h"
#include "nscd/world.h"
#include "nscd/world_checkpoint.h"
#include "world_bodies.h"

#include "assert_near.h"

#define G 9.81
#define LINK 0.2 /* joint spacing of a link, m */

/* A chain of n capsule links (radius 1 cm, their ends 2 cm short of the
 * joints so that neighbours never touch) hanging from a revolute joint to
 * the ground at `top`, tilted by `angle` about y; revolute axes along y. */
static void add_chain(nscd_world *w, const double top[3], int n, double angle, nscd_body_id *ids,
                      nscd_joint_id *joints) {
    const double h = sqrt(0.5);
    double dir[3] = {sin(angle), 0.0, -cos(angle)}; /* down the chain */
    nscd_body_id prev = NSCD_BODY_NULL;
    for (int k = 0; k < n; ++k) {
        nscd_body_desc b;
        nscd_body_desc_init(&b, sizeof b);
        for (int c = 0; c < 3; ++c) {
            b.position[c] = top[c] + (k + 0.5) * LINK * dir[c];
        }
        b.orientation[0] = cos(0.5 * angle); /* body z = -dir: rotation by -angle about y */
        b.orientation[2] = -sin(0.5 * angle);
        nscd_shape_desc s;
        nscd_shape_desc_init(&s, sizeof s);
        s.type = NSCD_SHAPE_CAPSULE;
        s.radius = 0.01;
        s.half_height = 0.5 * LINK - 0.03;
        assert_int_equal(nscd_world_add_body(w, &b, &s, 1, &ids[k]), NSCD_OK);
        nscd_joint_desc j;
        nscd_joint_desc_init(&j, sizeof j);
        j.type = NSCD_JOINT_REVOLUTE;
        j.body_a = prev;
        j.body_b = ids[k];
        if (prev == NSCD_BODY_NULL) { /* frame A in the world: at the top */
            memcpy(j.position_a, top, sizeof j.position_a);
        } else {
            j.position_a[2] = -0.5 * LINK;
        }
        j.orientation_a[0] = h, j.orientation_a[1] = -h; /* frame z = body y */
        j.position_b[2] = 0.5 * LINK;
        j.orientation_b[0] = h, j.orientation_b[1] = -h;
        if (prev == NSCD_BODY_NULL) { /* the world's y, whatever the tilt */
            j.orientation_a[0] = h, j.orientation_a[1] = -h;
        }
        assert_int_equal(nscd_world_add_joint(w, &j, &joints[k]), NSCD_OK);
        prev = ids[k];
    }
}

static double energy(const nscd_world *w, const nscd_body_id *ids, int n) {
    double e = 0.0;
    for (int k = 0; k < n; ++k) {
        double x[3], v[3], om[3], m, I[3], q[4];
        assert_int_equal(nscd_world_get_body(w, ids[k], x, q, v, om), NSCD_OK);
        assert_int_equal(nscd_world_get_body_mass(w, ids[k], &m, I), NSCD_OK);
        /* the chain turns about y, a principal axis of every link */
        e += 0.5 * m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) + 0.5 * I[1] * om[1] * om[1] +
             m * G * x[2];
    }
    return e;
}

static double worst_residual(const nscd_world *w, const nscd_joint_id *joints, int n) {
    double worst = 0.0;
    for (int k = 0; k < n; ++k) {
        double values[8];
        int32_t count = 0;
        assert_int_equal(nscd_world_joint_residual(w, joints[k], 8, &count, values), NSCD_OK);
        for (int32_t r = 0; r < count; ++r) {
            worst = fmax(worst, fabs(values[r]));
        }
    }
    return worst;
}

static nscd_world *make_world(void) {
    nscd_world_desc d;
    nscd_world_desc_init(&d, sizeof d);
    d.dt = 1e-3;
    d.max_sweeps = 50;
    nscd_world *w = NULL;
    assert_int_equal(nscd_world_create(&d, &w), NSCD_OK);
    return w;
}

/* A single link swinging 0.05 rad: T = 2π sqrt(I_p / (m g d)), I_p = I_yy +
 * m d², d = LINK/2 (its centre below the pivot), times (1 + θ₀²/16) for the
 * amplitude; the first-order step changes it by O(dt) (0.2 % here). */
static void compound_pendulum_period(void **state) {
    (void)state;
    nscd_world *w = make_world();
    nscd_body_id id;
    nscd_joint_id joint;
    const double top[3] = {0.0, 0.0, 0.0}, amplitude = 0.05;
    add_chain(w, top, 1, amplitude, &id, &joint);
    double m, I[3];
    assert_int_equal(nscd_world_get_body_mass(w, id, &m, I), NSCD_OK);
    double d = 0.5 * LINK;
    double expected = 2.0 * 3.14159265358979323846 * sqrt((I[1] + m * d * d) / (m * G * d)) *
                      (1.0 + amplitude * amplitude / 16.0);
    double previous = 1.0, first = -1.0, last = -1.0;
    int crossings = 0;
    for (int step = 1; step <= 2200; ++step) {
        assert_int_equal(nscd_world_step(w, NULL), NSCD_OK);
        double x[3];
        assert_int_equal(nscd_world_get_body(w, id, x, NULL, NULL, NULL), NSCD_OK);
        if (previous > 0.0 && x[0] <= 0.0) { /* downward crossings of x = 0 */
            last = step * 1e-3;
            first = first < 0.0 ? last : first;
            crossings++;
        }
        previous = x[0];
    }
    assert_true(crossings >= 3);
    double period = (last - first) / (crossings - 1);
    assert_near(period, expected, 5e-3 * expected);
    assert_true(worst_residual(w, &joint, 1) <= 1e-9);
    nscd_world_destroy(w);
}

/* Five links released at 1.2 rad: every step NSCD_OK, the energy never above
 * its start (the velocity-level joints and the projection dissipate, never
 * create), Φ back to the projection's tolerance after every step. */
static void chain_keeps_energy_bound_and_joints(void **state) {
    (void)state;
    enum { N = 5 };
    nscd_world *w = make_world();
    nscd_body_id ids[N];
    nscd_joint_id joints[N];
    const double top[3] = {0.0, 0.0, 1.0};
    add_chain(w, top, N, 1.2, ids, joints);
    double e0 = energy(w, ids, N), scale = 0.0;
    for (int k = 0; k < N; ++k) {
        double m, I[3];
        assert_int_equal(nscd_world_get_body_mass(w, ids[k], &m, I), NSCD_OK);
        scale += m * G * N * LINK;
    }
    for (int step = 0; step < 800; ++step) {
        assert_int_equal(nscd_world_step(w, NULL), NSCD_OK);
        assert_true(energy(w, ids, N) <= e0 + 1e-9 * scale);
        assert_true(worst_residual(w, joints, N) <= 1e-9);
    }
    nscd_world_destroy(w);
}

/* A chain hanging into a bed of spheres on a floor: joints and contacts in
 * one solve; the chain stays on its joints, nothing leaves the floor. */
static void chain_in_a_bed_of_spheres(void **state) {
    (void)state;
    enum { N = 4, SPHERES = 40 };
    nscd_world *w = make_world();
    nscd_body_id balls[SPHERES], ids[N];
    nscd_joint_id joints[N];
    world_floor(w);
    for (int k = 0; k < SPHERES; ++k) {
        balls[k] = world_sphere(w, -0.25 + 0.1 * (k % 6), -0.1 + 0.1 * ((k / 6) % 3),
                                0.05 + 0.1 * (k / 18), 0.045);
    }
    const double top[3] = {0.0, 0.0, 0.85};
    add_chain(w, top, N, 0.3, ids, joints);
    for (int step = 0; step < 500; ++step) {
        assert_int_equal(nscd_world_step(w, NULL), NSCD_OK);
    }
    assert_true(worst_residual(w, joints, N) <= 1e-9);
    for (int k = 0; k < SPHERES; ++k) {
        double x[3], v[3];
        assert_int_equal(nscd_world_get_body(w, balls[k], x, NULL, v, NULL), NSCD_OK);
        assert_true(x[2] > 0.045 - 1e-3); /* above the floor, within 1 mm */
        assert_true(sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) < 1.0);
    }
    nscd_world_destroy(w);
}

/* Every body's x, q, v, ω of w into state (13 doubles a body, at most 64). */
static int32_t get_state(const nscd_world *w, double *state) {
    int32_t n = 0;
    assert_int_equal(nscd_world_get_bodies(w, 64, &n, NULL, NULL, state, state + 3 * 64,
                                           state + 7 * 64, state + 10 * 64),
                     NSCD_OK);
    return n;
}

/* The rows and factors the world step keeps from its projection for the
 * next step (docs/joints.md, "One factor for two uses") are what the step
 * would compute: a world restored from a checkpoint (which does not hold
 * them) steps on bitwise as the original, also after a link was moved and
 * a joint removed between two steps (entries that no longer hold). */
static void kept_factors_are_what_the_step_computes(void **state) {
    (void)state;
    enum { N = 5, SPHERES = 12 };
    nscd_world *a = make_world();
    nscd_body_id ids[N];
    nscd_joint_id joints[N];
    world_floor(a);
    for (int k = 0; k < SPHERES; ++k) {
        world_sphere(a, -0.2 + 0.1 * (k % 4), -0.05 + 0.1 * (k / 4 % 2), 0.05 + 0.1 * (k / 8),
                     0.045);
    }
    const double top[3] = {0.0, 0.0, 1.05};
    add_chain(a, top, N, 0.6, ids, joints);
    for (int step = 0; step < 300; ++step) {
        assert_int_equal(nscd_world_step(a, NULL), NSCD_OK);
    }
    static double sa[13 * 64], sb[13 * 64];
    for (int phase = 0; phase < 3; ++phase) {
        if (phase == 1) { /* a link moved (and turned) between two steps */
            double x[3], q[4];
            assert_int_equal(nscd_world_get_body(a, ids[3], x, q, NULL, NULL), NSCD_OK);
            x[0] += 1e-3;
            q[0] = cos(0.3), q[1] = 0.0, q[2] = -sin(0.3), q[3] = 0.0;
            assert_int_equal(nscd_world_set_body(a, ids[3], x, q, NULL, NULL), NSCD_OK);
        } else if (phase == 2) { /* the chain cut at its third joint */
            assert_int_equal(nscd_world_remove_joint(a, joints[2]), NSCD_OK);
        }
        /* b: a's checkpoint, without the kept rows and factors */
        size_t size = 0;
        assert_int_equal(nscd_world_save_to_buffer(a, NULL, 0, NULL, 0, &size),
                         NSCD_ERR_BUFFER_TOO_SMALL);
        void *bytes = test_malloc(size);
        assert_int_equal(nscd_world_save_to_buffer(a, NULL, 0, bytes, size, &size), NSCD_OK);
        nscd_world *b = make_world();
        assert_int_equal(nscd_world_load_from_buffer(b, bytes, size, NULL, 0, NULL), NSCD_OK);
        test_free(bytes);
        for (int step = 0; step < 100; ++step) {
            assert_int_equal(nscd_world_step(a, NULL), NSCD_OK);
            assert_int_equal(nscd_world_step(b, NULL), NSCD_OK);
        }
        int32_t n = get_state(a, sa);
        assert_int_equal(get_state(b, sb), n);
        assert_memory_equal(sa, sb, sizeof sa);
        nscd_world_destroy(b);
    }
    nscd_world_destroy(a);
}

/* Clearance joints are not blocks of the world step: refused, unchanged. */
static void clearance_joints_are_refused(void **state) {
    (void)state;
    nscd_world *w = make_world();
    nscd_body_desc b;
    nscd_body_desc_init(&b, sizeof b);
    nscd_shape_desc s;
    nscd_shape_desc_init(&s, sizeof s);
    s.type = NSCD_SHAPE_SPHERE;
    s.radius = 0.05;
    nscd_body_id id;
    assert_int_equal(nscd_world_add_body(w, &b, &s, 1, &id), NSCD_OK);
    nscd_clearance_joint_desc c;
    nscd_clearance_joint_desc_init(&c, sizeof c);
    c.inner_body = id;
    nscd_joint_id joint;
    assert_int_equal(nscd_world_add_clearance_joint(w, &c, &joint), NSCD_OK);
    assert_int_equal(nscd_world_step(w, NULL), NSCD_ERR_UNSUPPORTED);
    assert_non_null(strstr(nscd_world_last_error(w), "clearance"));
    double x[3], v[3];
    assert_int_equal(nscd_world_get_body(w, id, x, NULL, v, NULL), NSCD_OK);
    assert_true(x[2] == 0.0 && v[2] == 0.0 && nscd_world_time(w) == 0.0);
    nscd_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(compound_pendulum_period),
        cmocka_unit_test(chain_keeps_energy_bound_and_joints),
        cmocka_unit_test(chain_in_a_bed_of_spheres),
        cmocka_unit_test(kept_factors_are_what_the_step_computes),
        cmocka_unit_test(clearance_joints_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
