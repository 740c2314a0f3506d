/* Ideal joints of the rigid-body world (include/nscd/joint.h,
 * docs/joints.md): every joint part's rows are the time derivative of its
 * constraint functions (central differences along a random motion of both
 * bodies); a pendulum on a revolute joint driven by the midpoint rule has
 * the exact elliptic-integral period; each ideal joint keeps its residual
 * over 10 s; the reaction of a hanging body is its weight; ids, removal and
 * bad input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "core/vec3.h"
#include "world/joints/joint.h"
#include "nscd/joint.h"
#include "nscd/time_stepping.h"
#include "nscd/world.h"

#include "assert_near.h"
#include "test_size.h"

#define G 9.81

/* ------------------------------------------------------------ rows */

/* A pose moved by eps (v, ω): x + eps v, exp(eps ω) q. */
static void moved_pose(const double x[3], const double q[4], const double vel[6], double eps,
                       nscd__joint_pose *pose) {
    double rate = sqrt(vel[3] * vel[3] + vel[4] * vel[4] + vel[5] * vel[5]);
    double half = 0.5 * eps * rate, s = rate > 0.0 ? sin(half) / rate : 0.0;
    nscd__quat dq = {cos(half), s * vel[3], s * vel[4], s * vel[5]};
    nscd__quat r = nscd__q_mul(dq, (nscd__quat){q[0], q[1], q[2], q[3]});
    double qq[4] = {r.w, r.x, r.y, r.z};
    for (int c = 0; c < 3; ++c) {
        pose->x[c] = x[c] + eps * vel[c];
    }
    nscd__q_to_rows(qq, pose->R);
}

/* A joint definition near its assembled position: frames of the two
 * bodies (bodies at x0, x1 with orientations q0, q1) not quite aligned. */
static void check_rows(const nscd__joint_def *def) {
    const double x[2][3] = {{0.1, -0.2, 0.05}, {0.12, -0.18, 0.03}};
    const double q[2][4] = {{0.9, 0.1, -0.3, 0.2}, {0.88, 0.12, -0.28, 0.21}};
    const double vel[2][6] = {{0.3, -0.5, 0.7, 1.1, -0.4, 0.9}, {-0.2, 0.6, 0.1, -0.7, 0.8, 0.3}};
    double qn[2][4];
    for (int s = 0; s < 2; ++s) {
        double n =
            sqrt(q[s][0] * q[s][0] + q[s][1] * q[s][1] + q[s][2] * q[s][2] + q[s][3] * q[s][3]);
        for (int c = 0; c < 4; ++c) {
            qn[s][c] = q[s][c] / n;
        }
    }
    const double eps = 1e-6;
    for (int32_t p = 0; p < nscd__joint_part_count(def); ++p) {
        nscd__joint_pose at[2], plus[2], minus[2];
        nscd__joint_part part, part_plus, part_minus;
        for (int s = 0; s < 2; ++s) {
            moved_pose(x[s], qn[s], vel[s], 0.0, &at[s]);
            moved_pose(x[s], qn[s], vel[s], eps, &plus[s]);
            moved_pose(x[s], qn[s], vel[s], -eps, &minus[s]);
        }
        nscd__joint_evaluate(def, p, at, &part);
        nscd__joint_evaluate(def, p, plus, &part_plus);
        nscd__joint_evaluate(def, p, minus, &part_minus);
        int32_t rows = part.equality ? part.n_rows : 1; /* a gap: its normal row */
        for (int32_t r = 0; r < rows; ++r) {
            double rate = 0.0;
            for (int s = 0; s < 2; ++s) {
                for (int c = 0; c < 6; ++c) {
                    rate += part.rows[s][r][c] * vel[s][c];
                }
            }
            double fd = (part_plus.value[r] - part_minus.value[r]) / (2.0 * eps);
            if (!(fabs(rate - fd) <= 1e-8 * (1.0 + fabs(fd)))) {
                fail_msg(
                    "type %d (clearance %d) part %d row %d: rows give %.12g, differences %.12g",
                    (int)def->type, (int)def->clearance, (int)p, (int)r, rate, fd);
            }
        }
    }
}

static void set_identity_frames(nscd__joint_def *def) {
    memset(def, 0, sizeof *def);
    for (int s = 0; s < 2; ++s) {
        def->frame_rotation[s][0] = def->frame_rotation[s][4] = def->frame_rotation[s][8] = 1.0;
    }
    def->frame_position[0][0] = 0.3;
    def->frame_position[1][1] = -0.25;
    def->frame_rotation[1][0] = 0.0, def->frame_rotation[1][1] = -1.0; /* 90° about z */
    def->frame_rotation[1][3] = 1.0, def->frame_rotation[1][4] = 0.0;
}

/* Every part of every joint type: rows = d/dt of the constraint values. */
static void test_rows_are_derivatives(void **state) {
    (void)state;
    nscd__joint_def def;
    for (int32_t type = NSCD_JOINT_SPHERICAL; type <= NSCD_JOINT_FIXED; ++type) {
        set_identity_frames(&def);
        def.type = type;
        check_rows(&def);
    }
    for (int32_t type = NSCD_CLEARANCE_CYLINDRICAL; type <= NSCD_CLEARANCE_PRISMATIC; ++type) {
        set_identity_frames(&def);
        def.clearance = 1;
        def.type = type;
        def.hole_radius = 0.0101, def.pin_radius = 0.01;
        def.inner_length = 0.05, def.outer_length = 0.06;
        def.n_vertices = 3;
        const double tri[6] = {0.0, 0.02, -0.0173, -0.01, 0.0173, -0.01};
        memcpy(def.guide, tri, sizeof tri);
        assert_int_equal(nscd__clearance_offset_polygon(3, def.guide, 3e-4, def.slider), 0);
        check_rows(&def);
    }
}

/* ------------------------------------------------------------ world helpers */

static nscd_world *make_world(double gx, double gy, double gz) {
    nscd_world_desc d;
    nscd_world_desc_init(&d, sizeof d);
    d.gravity[0] = gx, d.gravity[1] = gy, d.gravity[2] = gz;
    nscd_world *w = NULL;
    assert_int_equal(nscd_world_create(&d, &w), NSCD_OK);
    return w;
}

static nscd_body_id add_body(nscd_world *w, double mass, const double inertia[3], const double x[3],
                             const double v[3], const double om[3]) {
    nscd_body_desc b;
    nscd_body_desc_init(&b, sizeof b);
    b.mass = mass;
    memcpy(b.inertia, inertia, sizeof b.inertia);
    memcpy(b.position, x, sizeof b.position);
    if (v != NULL) {
        memcpy(b.velocity, v, sizeof b.velocity);
    }
    if (om != NULL) {
        memcpy(b.angular_velocity, om, sizeof b.angular_velocity);
    }
    nscd_body_id id = 0;
    assert_int_equal(nscd_world_add_body(w, &b, NULL, 0, &id), NSCD_OK);
    return id;
}

static nscd_time_stepping *make_stepper(nscd_world *w, double dt) {
    nscd_time_stepping_options o;
    nscd_time_stepping_options_init(&o, sizeof o);
    o.scheme = NSCD_TS_MOREAU_MIDPOINT;
    o.dt = dt;
    nscd_time_stepping *ts = NULL;
    assert_int_equal(nscd_time_stepping_create_world(w, &o, &ts), NSCD_OK);
    return ts;
}

static double max_residual(const nscd_world *w, nscd_joint_id id) {
    double r[6], largest = 0.0;
    int32_t n = 0;
    assert_int_equal(nscd_world_joint_residual(w, id, 6, &n, r), NSCD_OK);
    for (int32_t k = 0; k < n; ++k) {
        largest = fmax(largest, fabs(r[k]));
    }
    return largest;
}

/* ------------------------------------------------------------ pendulum */

/* A body of mass m and I_cm = 0.1 on a revolute joint to the ground at
 * distance L, released horizontal (90° from the downward vertical), gravity
 * -y. The period is 4 sqrt(I_O / (m g L)) K(k), k² = sin²(45°) = 1/2,
 * I_O = I_cm + m L², K(1/2) = 1.8540746773013719 (scipy.special.ellipk).
 * Measured between upward zero crossings of the angle (linear
 * interpolation). Returns the relative period error of the second period
 * and the largest residual over 7 s. */
static void pendulum(double dt, int32_t energy_form, int32_t projection, double *error,
                     double *residual) {
    const double m = 2.0, L = 1.0, I[3] = {0.1, 0.1, 0.1};
    nscd_world *w = make_world(0.0, -G, 0.0);
    const double x0[3] = {L, 0.0, 0.0};
    nscd_body_id id = add_body(w, m, I, x0, NULL, NULL);
    nscd_joint_desc j;
    nscd_joint_desc_init(&j, sizeof j);
    j.body_b = id;
    j.position_b[0] = -L;
    j.energy_form = energy_form;
    nscd_joint_id joint = 0;
    assert_int_equal(nscd_world_add_joint(w, &j, &joint), NSCD_OK);
    if (!projection) {
        assert_int_equal(nscd_world_set_joint_projection(w, 0, 1e-12), NSCD_OK);
    }
    nscd_time_stepping *ts = make_stepper(w, dt);
    double previous = 0.0, crossings[3];
    int n_cross = 0;
    *residual = 0.0;
    for (int64_t n = 1; n <= (int64_t)llround(7.0 / dt); ++n) {
        assert_int_equal(nscd_time_stepping_advance(ts, (double)n * dt, NULL), NSCD_OK);
        double x[3];
        assert_int_equal(nscd_world_get_body(w, id, x, NULL, NULL, NULL), NSCD_OK);
        double angle = atan2(x[0], -x[1]);
        if (n > 1 && previous < 0.0 && angle >= 0.0 && n_cross < 3) {
            crossings[n_cross++] = ((double)n - 1.0 + previous / (previous - angle)) * dt;
        }
        previous = angle;
        *residual = fmax(*residual, max_residual(w, joint));
    }
    assert_true(n_cross == 3);
    double exact = 4.0 * sqrt((0.1 + m * L * L) / (m * G * L)) * 1.8540746773013719;
    *error = (crossings[2] - crossings[1]) / exact - 1.0;
    nscd_time_stepping_destroy(ts);
    nscd_world_destroy(w);
}

/* The target: 1e-4 relative at h = 1e-3. The energy form with the
 * midpoint rule gives 7.3e-7 and 1.9e-7 at h/2 (second order); the plain
 * form H v_{k+1} = 0 loses energy at every step and is off by -3.6e-3
 * (first order; second period). With the projection the residual stays at rounding;
 * without it, the drift is reported and bounded. */
static void test_pendulum_period(void **state) {
    (void)state;
    double error = 0.0, residual = 0.0, error_half = 0.0;
    pendulum(1e-3, 1, 1, &error, &residual);
    assert_true(fabs(error) < 1e-6);
    assert_true(residual < 1e-11);
    print_message("energy form: %g, residual %g\n", error, residual);
    if (!nscd_test_small()) { /* the h/2 run, 40 % of the test (test_size.h) */
        pendulum(5e-4, 1, 1, &error_half, &residual);
        assert_near(error / error_half, 4.0, 0.2); /* second order */
    }
    pendulum(1e-3, 0, 1, &error, &residual);
    print_message("plain form: %g\n", error);
    assert_true(error < -2e-3 && error > -7e-3);
    pendulum(1e-3, 1, 0, &error, &residual); /* no projection: the drift */
    assert_true(fabs(error) < 1e-4);
    print_message("no projection: %g, drift %g\n", error, residual);
    assert_true(residual > 5e-7 && residual < 1e-3);
}

/* ------------------------------------------------------------ each joint */

/* A body spinning and moving on each ideal joint to the ground for 10 s
 * (h = 2e-3, midpoint rule; 1 s under NSCD_TEST_SMALL, test_size.h): the
 * residual stays below 1e-10. */
static void test_each_joint_holds(void **state) {
    (void)state;
    for (int32_t type = NSCD_JOINT_SPHERICAL; type <= NSCD_JOINT_FIXED; ++type) {
        nscd_world *w = make_world(0.0, -G, 0.0);
        const double I[3] = {0.02, 0.03, 0.04}, x0[3] = {0.3, -0.2, 0.1};
        const double v0[3] = {0.0, 0.0, 0.2}, om0[3] = {0.0, 0.0, 1.5};
        nscd_body_id id = add_body(w, 1.5, I, x0, v0, om0);
        nscd_joint_desc j;
        nscd_joint_desc_init(&j, sizeof j);
        j.type = type;
        j.body_b = id;
        j.position_b[0] = -0.3, j.position_b[1] = 0.2, j.position_b[2] = -0.1;
        nscd_joint_id joint = 0;
        assert_int_equal(nscd_world_add_joint(w, &j, &joint), NSCD_OK);
        nscd_time_stepping *ts = make_stepper(w, 2e-3);
        double largest = 0.0;
        const int steps = NSCD_TEST_SIZE(5000, 500);
        for (int n = 1; n <= steps; ++n) {
            assert_int_equal(nscd_time_stepping_advance(ts, n * 2e-3, NULL), NSCD_OK);
            if (n % 50 == 0) {
                largest = fmax(largest, max_residual(w, joint));
            }
        }
        if (!(largest < 1e-10)) {
            fail_msg("joint type %d: residual %g", (int)type, largest);
        }
        double x[3];
        assert_int_equal(nscd_world_get_body(w, id, x, NULL, NULL, NULL), NSCD_OK);
        if (type == NSCD_JOINT_FIXED) { /* it never moved */
            assert_near(x[0], 0.3, 1e-10);
            assert_near(x[1], -0.2, 1e-10);
            assert_near(x[2], 0.1, 1e-10);
        }
        nscd_time_stepping_destroy(ts);
        nscd_world_destroy(w);
    }
}

/* A body hanging at rest below a revolute joint: the joint carries its
 * weight, force (0, m g, 0) on the body, no torque about the pivot. */
static void test_reaction_of_hanging_body(void **state) {
    (void)state;
    const double m = 3.0, I[3] = {0.1, 0.1, 0.1}, x0[3] = {0.0, -0.5, 0.0};
    nscd_world *w = make_world(0.0, -G, 0.0);
    nscd_body_id id = add_body(w, m, I, x0, NULL, NULL);
    nscd_joint_desc j;
    nscd_joint_desc_init(&j, sizeof j);
    j.body_b = id;
    j.position_b[1] = 0.5;
    nscd_joint_id joint = 0;
    assert_int_equal(nscd_world_add_joint(w, &j, &joint), NSCD_OK);
    double F[3], T[3];
    assert_int_equal(nscd_world_joint_reaction(w, joint, F, T), NSCD_OK);
    assert_near(F[1], 0.0, 0.0); /* before any step */
    nscd_time_stepping *ts = make_stepper(w, 1e-3);
    assert_int_equal(nscd_time_stepping_advance(ts, 0.1, NULL), NSCD_OK);
    assert_int_equal(nscd_world_joint_reaction(w, joint, F, T), NSCD_OK);
    assert_near(F[0], 0.0, 1e-9);
    assert_near(F[1], m * G, 1e-9);
    assert_near(F[2], 0.0, 1e-9);
    for (int c = 0; c < 3; ++c) {
        assert_near(T[c], 0.0, 1e-9);
    }
    nscd_time_stepping_destroy(ts);
    nscd_world_destroy(w);
}

/* ------------------------------------------------------------ ids, input */

static void test_ids_and_bad_input(void **state) {
    (void)state;
    nscd_world *w = make_world(0.0, -G, 0.0);
    const double I[3] = {0.1, 0.1, 0.1}, x0[3] = {1.0, 0.0, 0.0}, x1[3] = {2.0, 0.0, 0.0};
    nscd_body_id a = add_body(w, 1.0, I, x0, NULL, NULL), b = add_body(w, 1.0, I, x1, NULL, NULL);
    nscd_joint_desc j;
    nscd_joint_desc_init(&j, sizeof j);
    nscd_joint_id id = 0;
    j.body_a = a, j.body_b = a; /* a body with itself: its frames would coincide */
    assert_int_equal(nscd_world_add_joint(w, &j, &id), NSCD_ERR_INVALID_ARGUMENT);
    j.body_a = 0, j.body_b = 0; /* the ground with itself */
    assert_int_equal(nscd_world_add_joint(w, &j, &id), NSCD_ERR_INVALID_ARGUMENT);
    j.body_a = a, j.body_b = (nscd_body_id)0x500000007ull; /* unknown body */
    assert_int_equal(nscd_world_add_joint(w, &j, &id), NSCD_ERR_STALE_HANDLE);
    j.body_b = b;
    j.type = 9;
    assert_int_equal(nscd_world_add_joint(w, &j, &id), NSCD_ERR_INVALID_ARGUMENT);
    j.type = NSCD_JOINT_SPHERICAL;
    j.orientation_a[0] = 2.0;
    assert_int_equal(nscd_world_add_joint(w, &j, &id), NSCD_ERR_INVALID_ARGUMENT);
    j.orientation_a[0] = NAN;
    assert_int_equal(nscd_world_add_joint(w, &j, &id), NSCD_ERR_NOT_FINITE);
    j.orientation_a[0] = 1.0;
    j.struct_size = 8;
    assert_int_equal(nscd_world_add_joint(w, &j, &id), NSCD_ERR_STRUCT_SIZE);
    j.struct_size = sizeof j;
    assert_int_equal(nscd_world_add_joint(NULL, &j, &id), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_world_joint_count(w), 0);
    assert_int_equal(id, 0);
    nscd_joint_id first = 0, second = 0;
    assert_int_equal(nscd_world_add_joint(w, &j, &first), NSCD_OK);
    assert_int_equal(nscd_world_add_joint(w, &j, &second), NSCD_OK);
    assert_int_equal(nscd_world_joint_count(w), 2);
    assert_true(nscd_world_joint_valid(w, first));
    /* the world's own step solves ideal joints, also two redundant ones */
    assert_int_equal(nscd_world_step(w, NULL), NSCD_OK);
    assert_int_equal(nscd_world_remove_joint(w, first), NSCD_OK);
    assert_false(nscd_world_joint_valid(w, first));
    assert_int_equal(nscd_world_remove_joint(w, first), NSCD_ERR_STALE_HANDLE);
    double F[3];
    assert_int_equal(nscd_world_joint_reaction(w, first, F, NULL), NSCD_ERR_STALE_HANDLE);
    int32_t count = 0;
    assert_int_equal(nscd_world_joint_residual(w, first, 0, &count, NULL), NSCD_ERR_STALE_HANDLE);
    /* a new joint reuses the slot with a new generation: the old id stays stale */
    nscd_joint_id third = 0;
    assert_int_equal(nscd_world_add_joint(w, &j, &third), NSCD_OK);
    assert_true((third & 0xffffffffu) == (first & 0xffffffffu) && third != first);
    assert_false(nscd_world_joint_valid(w, first));
    assert_int_equal(nscd_world_joint_residual(w, third, 2, &count, NULL),
                     NSCD_ERR_BUFFER_TOO_SMALL);
    assert_int_equal(count, 3);
    /* removing a body removes its joints */
    assert_int_equal(nscd_world_remove_body(w, b), NSCD_OK);
    assert_false(nscd_world_joint_valid(w, second));
    assert_false(nscd_world_joint_valid(w, third));
    assert_int_equal(nscd_world_joint_count(w), 0);
    assert_int_equal(nscd_world_step(w, NULL), NSCD_OK);
    assert_int_equal(nscd_world_set_joint_projection(w, -1, 1e-12), NSCD_ERR_OUT_OF_RANGE);
    assert_int_equal(nscd_world_set_joint_projection(w, 3, 0.0), NSCD_ERR_OUT_OF_RANGE);
    assert_int_equal(nscd_world_set_joint_projection(w, 3, NAN), NSCD_ERR_NOT_FINITE);
    nscd_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_are_derivatives),
        cmocka_unit_test(test_pendulum_period),
        cmocka_unit_test(test_each_joint_holds),
        cmocka_unit_test(test_reaction_of_hanging_body),
        cmocka_unit_test(test_ids_and_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
