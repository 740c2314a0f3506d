/* Clearance joints of the rigid-body world (docs/joints.md): the gaps
 * against an independent numpy computation (tests/unit/joints_reference.py);
 * a slider on a cylindrical clearance joint under an axial force moves
 * exactly as a free body along the axis and its seated gaps carry the
 * static loads; a pendulum on a revolute clearance joint first touches at
 * sqrt(2c/g), loses m g c I_cm / I_O at that plastic impact and its pin
 * never leaves the clearance circle; a triangular slider comes to rest in
 * its guide with the gap forces balancing its weight; with the energy form
 * of the gaps the pendulum keeps its energy and its period is longer than
 * the ideal one by the scipy value (clearance_pendulum_reference.py); bad
 * input. */
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

#define G 9.81

static nscd_world *make_world(double gx, double gy) {
    nscd_world_desc d;
    nscd_world_desc_init(&d, sizeof d);
    d.gravity[0] = gx, d.gravity[1] = gy, d.gravity[2] = 0.0;
    nscd_world *w = NULL;
    assert_int_equal(nscd_world_create(&d, &w), NSCD_OK);
    return w;
}

static nscd_body_id add_body(nscd_world *w, double mass, double inertia, const double x[3],
                             const double q[4]) {
    nscd_body_desc b;
    nscd_body_desc_init(&b, sizeof b);
    b.mass = mass;
    b.inertia[0] = b.inertia[1] = b.inertia[2] = inertia;
    memcpy(b.position, x, sizeof b.position);
    if (q != NULL) {
        memcpy(b.orientation, q, sizeof b.orientation);
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

/* ------------------------------------------------------------ gaps */

/* The configurations of joints_reference.py: gaps to 1e-15 m. */
static void test_gaps_match_reference(void **state) {
    (void)state;
    nscd_world *w = make_world(0.0, -G);
    const double x_h[3] = {0.5, -3e-5, 2e-5}, q_h[4] = {1.0, 2e-5, -1e-5, 3e-5};
    double n = sqrt(1.0 + 4e-10 + 1e-10 + 9e-10), qn[4];
    for (int c = 0; c < 4; ++c) {
        qn[c] = q_h[c] / n;
    }
    nscd_body_id hole = add_body(w, 1.0, 0.01, x_h, qn);
    nscd_clearance_joint_desc j;
    nscd_clearance_joint_desc_init(&j, sizeof j);
    j.inner_body = hole;
    j.inner_position[0] = -0.5;
    nscd_joint_id rev = 0;
    assert_int_equal(nscd_world_add_clearance_joint(w, &j, &rev), NSCD_OK);
    const double expected_rev[4] = {4.0998088198807323e-05, 3.8998144324948797e-05,
                                    0.0001099994250139992, 9.0000624985996786e-05};
    double gaps[12], normals[36], points[36], impulses[12];
    int32_t count = 0;
    assert_int_equal(nscd_world_clearance_gaps(w, rev, 12, &count, gaps, normals, points, impulses),
                     NSCD_OK);
    assert_int_equal(count, 4);
    for (int k = 0; k < 4; ++k) {
        assert_near(gaps[k], expected_rev[k], 1e-15);
        assert_near(impulses[k], 0.0, 0.0);
    }
    assert_near(normals[3 * 2 + 2], 1.0, 0.0);  /* stop at -L/2 pushes the hole along +z */
    assert_near(normals[3 * 3 + 2], -1.0, 0.0); /* the other along -z */
    assert_near(normals[2], 0.0, 1e-15);        /* radial normals are perpendicular to the pin */

    const double x_s[3] = {1e-4, -2e-4, 0.3}, q_s[4] = {1.0, 2e-4, -1e-4, 3e-3};
    double ns = sqrt(1.0 + 4e-8 + 1e-8 + 9e-6), qs[4];
    for (int c = 0; c < 4; ++c) {
        qs[c] = q_s[c] / ns;
    }
    nscd_body_id slider = add_body(w, 1.0, 0.01, x_s, qs);
    nscd_clearance_joint_desc p;
    nscd_clearance_joint_desc_init(&p, sizeof p);
    p.type = NSCD_CLEARANCE_PRISMATIC;
    p.inner_body = slider;
    p.inner_length = 0.1;
    nscd_joint_id pri = 0;
    assert_int_equal(nscd_world_add_clearance_joint(w, &p, &pri), NSCD_OK);
    const double expected_pri[12] = {
        0.00039575482680998669,  0.00038456610328559436, 0.00058617479176369461,
        1.9401420452349013e-05,  0.00022100896583365421, 0.00019414439234768791,
        0.00043300107475867551,  0.00038737949279718466, 0.00058898818127528334,
        -2.0658217007932011e-05, 0.00018094932837337319, 0.00023139064029638031};
    assert_int_equal(nscd_world_clearance_gaps(w, pri, 12, &count, gaps, NULL, NULL, NULL),
                     NSCD_OK);
    assert_int_equal(count, 12);
    for (int k = 0; k < 12; ++k) {
        assert_near(gaps[k], expected_pri[k], 1e-15);
    }
    double residual[12];
    assert_int_equal(nscd_world_joint_residual(w, pri, 12, &count, residual), NSCD_OK);
    assert_near(residual[9], expected_pri[9], 1e-15);
    assert_int_equal(nscd_world_clearance_gaps(w, pri, 11, &count, gaps, NULL, NULL, NULL),
                     NSCD_ERR_BUFFER_TOO_SMALL);
    nscd_world_destroy(w);
}

/* ------------------------------------------------------------ cylindrical */

/* A slider (m = 2 kg) on a fixed rod along x (c = 0.1 mm), gravity -y and
 * an axial 1.5 m/s² (the world's only force is gravity: its x component is
 * the axial force m a). It drops by c and seats on the rod; along the axis
 * it moves exactly as a free body, x = x0 + a t²/2 (the normals are
 * perpendicular to the rod; the midpoint rule is exact for a constant
 * force), and once seated each of its two gaps carries m g / 2. */
static void test_cylindrical_slider_moves_freely_along_axis(void **state) {
    (void)state;
    const double m = 2.0, a = 1.5, dt = 1e-3;
    nscd_world *w = make_world(a, -G);
    const double x0[3] = {0.2, 0.0, 0.0}, turn[4] = {sqrt(0.5), 0.0, sqrt(0.5), 0.0};
    nscd_body_id id = add_body(w, m, 0.01, x0, NULL);
    nscd_clearance_joint_desc j;
    nscd_clearance_joint_desc_init(&j, sizeof j);
    j.type = NSCD_CLEARANCE_CYLINDRICAL;
    j.inner_body = id;
    memcpy(j.inner_orientation, turn, sizeof turn); /* hole axis z -> world x */
    memcpy(j.outer_orientation, turn, sizeof turn); /* rod along x through the origin */
    j.hole_radius = 0.0101, j.pin_radius = 0.01;
    nscd_joint_id joint = 0;
    assert_int_equal(nscd_world_add_clearance_joint(w, &j, &joint), NSCD_OK);
    nscd_time_stepping *ts = make_stepper(w, dt);
    double worst = 0.0;
    for (int n = 1; n <= 1000; ++n) {
        assert_int_equal(nscd_time_stepping_advance(ts, n * dt, NULL), NSCD_OK);
        double x[3], t = n * dt;
        assert_int_equal(nscd_world_get_body(w, id, x, NULL, NULL, NULL), NSCD_OK);
        worst = fmax(worst, fabs(x[0] - (0.2 + 0.5 * a * t * t)));
    }
    assert_true(worst < 1e-10);
    double gaps[2], impulses[2], normals[6];
    int32_t count = 0;
    assert_int_equal(nscd_world_clearance_gaps(w, joint, 2, &count, gaps, normals, NULL, impulses),
                     NSCD_OK);
    for (int k = 0; k < 2; ++k) {
        assert_near(impulses[k] / dt, 0.5 * m * G, 1e-8);
        assert_near(gaps[k], 0.0, 3e-12);            /* closed: pushed back to -1e-12 */
        assert_near(normals[3 * k + 1], 1.0, 1e-12); /* the rod pushes the slider up */
    }
    double F[3], T[3];
    assert_int_equal(nscd_world_joint_reaction(w, joint, F, T), NSCD_OK);
    assert_near(F[0], 0.0, 1e-8 * m * G);
    assert_near(F[1], m * G, 1e-8);
    nscd_time_stepping_destroy(ts);
    nscd_world_destroy(w);
}

/* The same slider with friction μ on its gaps (Coulomb, the fc3d solver):
 * seated, the rod's normal force is m g, so the slider sticks when
 * m a <= μ m g (μ = 0.5: a = 1.5 < 4.9 m/s²) and otherwise slides with
 * a - μ g (μ = 0.1: 0.519 m/s²). */
static double slider_axial_velocity(double mu, double t_end, double *v_half) {
    const double m = 2.0, a = 1.5, dt = 1e-3;
    nscd_world *w = make_world(a, -G);
    const double x0[3] = {0.2, 0.0, 0.0}, turn[4] = {sqrt(0.5), 0.0, sqrt(0.5), 0.0};
    nscd_body_id id = add_body(w, m, 0.01, x0, NULL);
    nscd_clearance_joint_desc j;
    nscd_clearance_joint_desc_init(&j, sizeof j);
    j.type = NSCD_CLEARANCE_CYLINDRICAL;
    j.inner_body = id;
    memcpy(j.inner_orientation, turn, sizeof turn);
    memcpy(j.outer_orientation, turn, sizeof turn);
    j.friction = mu;
    nscd_joint_id joint = 0;
    assert_int_equal(nscd_world_add_clearance_joint(w, &j, &joint), NSCD_OK);
    nscd_time_stepping *ts = make_stepper(w, dt);
    double v[3];
    assert_int_equal(nscd_time_stepping_advance(ts, 0.5 * t_end, NULL), NSCD_OK);
    assert_int_equal(nscd_world_get_body(w, id, NULL, NULL, v, NULL), NSCD_OK);
    *v_half = v[0];
    assert_int_equal(nscd_time_stepping_advance(ts, t_end, NULL), NSCD_OK);
    assert_int_equal(nscd_world_get_body(w, id, NULL, NULL, v, NULL), NSCD_OK);
    nscd_time_stepping_destroy(ts);
    nscd_world_destroy(w);
    return v[0];
}

static void test_cylindrical_slider_with_friction(void **state) {
    (void)state;
    double half = 0.0;
    double v = slider_axial_velocity(0.5, 0.5, &half);
    assert_near(v, 0.0, 1e-9); /* sticks */
    v = slider_axial_velocity(0.1, 1.0, &half);
    assert_near((v - half) / 0.5, 1.5 - 0.1 * G, 1e-6); /* slides with a - μ g */
}

/* ------------------------------------------------------------ revolute */

/* The clearance pendulum of the revolute tests (m = 1 kg, I_cm = 0.02 kg m^2,
 * centre of mass L = 0.5 m from the pin axis, c = 0.1 mm, axial play 0.2 mm),
 * released horizontal with the hole concentric, gravity -y. */
#define PENDULUM_MASS 1.0
#define PENDULUM_ICM 0.02
#define PENDULUM_L 0.5
#define PENDULUM_C 1e-4
/* Kinetic plus potential energy of the pendulum body at (x, v, omega). */
static double pendulum_energy(const double x[3], const double v[3], const double om[3]) {
    return 0.5 * PENDULUM_MASS * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) +
           0.5 * PENDULUM_ICM * (om[0] * om[0] + om[1] * om[1] + om[2] * om[2]) +
           PENDULUM_MASS * G * x[1];
}

static nscd_world *clearance_pendulum_world(int32_t energy_form, nscd_body_id *id,
                                            nscd_joint_id *joint) {
    nscd_world *w = make_world(0.0, -G);
    const double x0[3] = {PENDULUM_L, 0.0, 0.0};
    *id = add_body(w, PENDULUM_MASS, PENDULUM_ICM, x0, NULL);
    nscd_clearance_joint_desc j;
    nscd_clearance_joint_desc_init(&j, sizeof j);
    j.inner_body = *id;
    j.inner_position[0] = -PENDULUM_L;
    j.pin_radius = 0.01, j.hole_radius = 0.01 + PENDULUM_C;
    j.inner_length = 0.05, j.outer_length = 0.0502;
    j.energy_form = energy_form;
    assert_int_equal(nscd_world_add_clearance_joint(w, &j, joint), NSCD_OK);
    return w;
}

/* A pendulum (m = 1, I_cm = 0.02, L = 0.5) on a revolute clearance joint
 * (c = 0.1 mm, axial play 0.2 mm) to the ground, released horizontal with
 * the hole concentric: it falls freely until the hole meets the pin at
 * t = sqrt(2c/g) = 4.515e-3 s; the plastic impact at the pin keeps the
 * angular momentum about the contact and loses m g c I_cm / I_O; then the
 * pin stays inside the clearance circle (eccentricity <= c + 3e-12: the
 * projection keeps closed gaps at -1e-12) while it swings for 1 s. h = 1e-4. */
static void test_revolute_pendulum_contact(void **state) {
    (void)state;
    const double m = PENDULUM_MASS, Icm = PENDULUM_ICM, L = PENDULUM_L, c = PENDULUM_C, dt = 1e-4;
    nscd_body_id id = 0;
    nscd_joint_id joint = 0;
    nscd_world *w = clearance_pendulum_world(1, &id, &joint);
    nscd_time_stepping *ts = make_stepper(w, dt);
    double first_contact = -1.0, eccentricity = 0.0, energy[10001];
    int contact_step = -1;
    for (int n = 0; n <= 10000; ++n) {
        if (n > 0) {
            assert_int_equal(nscd_time_stepping_advance(ts, n * dt, NULL), NSCD_OK);
        }
        double v[3], om[3], x[3], gaps[4];
        assert_int_equal(nscd_world_get_body(w, id, x, NULL, v, om), NSCD_OK);
        energy[n] = pendulum_energy(x, v, om);
        int32_t count = 0;
        assert_int_equal(nscd_world_clearance_gaps(w, joint, 4, &count, gaps, NULL, NULL, NULL),
                         NSCD_OK);
        for (int k = 0; k < 2; ++k) {
            eccentricity = fmax(eccentricity, c - gaps[k]);
        }
        if (first_contact < 0.0 && fmin(gaps[0], gaps[1]) <= 1e-12) {
            first_contact = n * dt;
            contact_step = n;
        }
    }
    /* the impact's loss: from the step before the contact to two after */
    double loss = energy[contact_step - 1] - energy[contact_step + 2];
    assert_true(fabs(first_contact - sqrt(2.0 * c / G)) <= dt);
    double expected = m * G * c * Icm / (Icm + m * L * L);
    assert_true(fabs(loss / expected - 1.0) < 0.05);
    assert_true(eccentricity <= c + 3e-12);
    assert_true(eccentricity > c - 1e-9); /* it does touch */
    nscd_time_stepping_destroy(ts);
    nscd_world_destroy(w);
}

/* The clearance pendulum of examples/revolute_pendulum.c (m = 1 kg,
 * I_cm = 0.02 kg m², L = 0.5 m, c = 0.1 mm, c_a = 0.2 mm, released
 * horizontal with the hole concentric), midpoint rule, h = 1e-3, until the
 * second upward zero crossing of the centre of mass's angle about the pin
 * axis: its period, the largest energy (E(0) = 0), the energy lost at the
 * first impact (the step before the first closed gap to two after) and the
 * largest penetration. */
typedef struct pendulum_run {
    double period, max_energy, loss, penetration;
} pendulum_run;

static pendulum_run clearance_pendulum(int32_t energy_form) {
    const double dt = 1e-3;
    nscd_body_id id = 0;
    nscd_joint_id joint = 0;
    nscd_world *w = clearance_pendulum_world(energy_form, &id, &joint);
    nscd_time_stepping *ts = make_stepper(w, dt);
    pendulum_run r = {0.0, 0.0, 0.0, 0.0};
    double crossings[2], previous = 0.0, energy[3200];
    int n_cross = 0, contact_step = -1;
    for (int n = 1; n < 3200 && n_cross < 2; ++n) {
        assert_int_equal(nscd_time_stepping_advance(ts, n * dt, NULL), NSCD_OK);
        double v[3], om[3], x[3], gaps[4];
        assert_int_equal(nscd_world_get_body(w, id, x, NULL, v, om), NSCD_OK);
        energy[n] = pendulum_energy(x, v, om);
        r.max_energy = fmax(r.max_energy, energy[n]);
        int32_t count = 0;
        assert_int_equal(nscd_world_clearance_gaps(w, joint, 4, &count, gaps, NULL, NULL, NULL),
                         NSCD_OK);
        for (int k = 0; k < 4; ++k) {
            r.penetration = fmax(r.penetration, -gaps[k]);
        }
        if (contact_step < 0 && fmin(gaps[0], gaps[1]) <= 1e-9) {
            contact_step = n;
        }
        double angle = atan2(x[0], -x[1]);
        if (previous < 0.0 && angle >= 0.0) {
            crossings[n_cross++] = (n - 1 + previous / (previous - angle)) * dt;
        }
        previous = angle;
    }
    assert_int_equal(n_cross, 2);
    r.period = crossings[1] - crossings[0];
    r.loss = energy[contact_step - 1] - energy[contact_step + 2];
    nscd_time_stepping_destroy(ts);
    nscd_world_destroy(w);
    return r;
}

/* The energy form of the clearance gaps (docs/joints.md): the pin rolling
 * in its hole keeps its energy, so the period is the conservative clearance
 * pendulum's, longer than the ideal one by about c/(2L): 1.7401818516 s from
 * scipy (tests/unit/clearance_pendulum_reference.py: the pin held against
 * the hole's wall, 2 degrees of freedom, from the state after the first
 * plastic impact; its contact force stays >= 0.73 N), against the ideal
 * 4 sqrt(I_O/(m g L)) K(1/2) = 1.7400014 s. nscd gives 1.7401742 s; the
 * tolerance (half the excess) fails the plastic form (energy_form = 0:
 * 1.7354889 s, the rolling contact a small plastic impact every step). The
 * energy never rises above E(0) = 0, the first impact still takes
 * m g c I_cm/I_O (5 %), the penetration stays below 1 % of c. */
static void test_clearance_pendulum_period_energy_form(void **state) {
    (void)state;
    const double m = 1.0, Icm = 0.02, L = 0.5, c = 1e-4, Io = Icm + m * L * L;
    const double ideal = 4.0 * sqrt(Io / (m * G * L)) * 1.8540746773013719; /* K(1/2) */
    const double reference = 1.7401818516; /* scipy, the conservative clearance pendulum */
    pendulum_run r = clearance_pendulum(1);
    print_message("energy form: period %.9f s (scipy %.9f, ideal %.9f), max E %.3e J, loss "
                  "%.6e J, penetration %.2e m\n",
                  r.period, reference, ideal, r.max_energy, r.loss, r.penetration);
    assert_true(r.period > ideal);
    assert_true(fabs(r.period - reference) < 0.5 * (reference - ideal));
    assert_true(r.max_energy <= 1e-12);
    assert_true(fabs(r.loss / (m * G * c * Icm / Io) - 1.0) < 0.05);
    assert_true(r.penetration <= 0.01 * c);
    pendulum_run plastic = clearance_pendulum(0);
    print_message("plastic form: period %.9f s, max E %.3e J\n", plastic.period,
                  plastic.max_energy);
    assert_true(fabs(plastic.period - reference) > 0.5 * (reference - ideal)); /* what it fixes */
    assert_true(plastic.max_energy <= 1e-12);
}

/* The energy form's field is appended to the desc: a caller of the first
 * 0.2 size (through impact_law) gets the default, 1; 0 and 1 only. */
static void test_clearance_energy_form_desc(void **state) {
    (void)state;
    nscd_world *w = make_world(0.0, -G);
    const double x0[3] = {0.0, 0.0, 0.0};
    nscd_body_id id = add_body(w, 1.0, 0.01, x0, NULL);
    nscd_clearance_joint_desc j;
    nscd_clearance_joint_desc_init(&j, sizeof j);
    assert_int_equal(j.energy_form, 1);
    j.inner_body = id;
    nscd_joint_id joint = 0;
    j.energy_form = 2;
    assert_int_equal(nscd_world_add_clearance_joint(w, &j, &joint), NSCD_ERR_INVALID_ARGUMENT);
    j.energy_form = -1;
    assert_int_equal(nscd_world_add_clearance_joint(w, &j, &joint), NSCD_ERR_INVALID_ARGUMENT);
    assert_int_equal(nscd_world_joint_count(w), 0);
    size_t old = offsetof(nscd_clearance_joint_desc, energy_form);
    memset(&j, 0x5a, sizeof j);
    assert_int_equal(nscd_clearance_joint_desc_init(&j, old), NSCD_OK);
    assert_int_equal(j.struct_size, (uint32_t)old);
    assert_int_equal(j.energy_form, 0x5a5a5a5a); /* not written beyond the caller's size */
    j.inner_body = id;
    assert_int_equal(nscd_world_add_clearance_joint(w, &j, &joint), NSCD_OK);
    assert_int_equal(nscd_world_joint_count(w), 1);
    nscd_world_destroy(w);
}

/* ------------------------------------------------------------ prismatic */

/* A triangular slider (m = 0.5 kg, length 0.1 m) in a triangular guide
 * with its apex down (c = 0.3 mm), gravity -y: after 0.2 s it rests with
 * every vertex touching (six vertices: the two at the apex on both faces,
 * the others on one inclined face each: eight closed gaps of twelve), and
 * the gap forces sum to its weight. */
static void test_prismatic_slider_rests(void **state) {
    (void)state;
    const double m = 0.5, dt = 1e-3;
    nscd_world *w = make_world(0.0, -G);
    const double x0[3] = {0.0, 0.0, 0.0};
    nscd_body_id id = add_body(w, m, 1e-3, x0, NULL);
    nscd_clearance_joint_desc j;
    nscd_clearance_joint_desc_init(&j, sizeof j);
    j.type = NSCD_CLEARANCE_PRISMATIC;
    j.inner_body = id;
    j.inner_length = 0.1;
    for (int k = 0; k < 3; ++k) { /* apex down, counter-clockwise */
        double angle = -1.5707963267948966 + 2.0943951023931957 * k;
        j.vertices[2 * k] = 0.02 * cos(angle);
        j.vertices[2 * k + 1] = 0.02 * sin(angle);
    }
    nscd_joint_id joint = 0;
    assert_int_equal(nscd_world_add_clearance_joint(w, &j, &joint), NSCD_OK);
    nscd_time_stepping *ts = make_stepper(w, dt);
    assert_int_equal(nscd_time_stepping_advance(ts, 0.2, NULL), NSCD_OK);
    double gaps[12], normals[36], impulses[12], force[3] = {0.0, 0.0, 0.0};
    int32_t count = 0, closed = 0;
    assert_int_equal(nscd_world_clearance_gaps(w, joint, 12, &count, gaps, normals, NULL, impulses),
                     NSCD_OK);
    for (int k = 0; k < 12; ++k) {
        closed += gaps[k] <= 1e-9; /* the contact distance: 1000 projection tolerances */
        for (int c = 0; c < 3; ++c) {
            force[c] += normals[3 * k + c] * impulses[k] / dt;
        }
    }
    assert_int_equal(closed, 8);
    assert_near(force[0], 0.0, 1e-8 * m * G);
    assert_near(force[1], m * G, 1e-8 * m * G);
    assert_near(force[2], 0.0, 1e-8 * m * G);
    double v[3];
    assert_int_equal(nscd_world_get_body(w, id, NULL, NULL, v, NULL), NSCD_OK);
    assert_near(v[1], 0.0, 1e-12);
    nscd_time_stepping_destroy(ts);
    nscd_world_destroy(w);
}

/* ------------------------------------------------------------ bad input */

static void test_clearance_bad_input(void **state) {
    (void)state;
    nscd_world *w = make_world(0.0, -G);
    const double x0[3] = {0.0, 0.0, 0.0};
    nscd_body_id id = add_body(w, 1.0, 0.01, x0, NULL);
    nscd_clearance_joint_desc j;
    nscd_clearance_joint_desc_init(&j, sizeof j);
    nscd_joint_id joint = 0;
    j.inner_body = id;
    j.hole_radius = j.pin_radius; /* c = 0 */
    assert_int_equal(nscd_world_add_clearance_joint(w, &j, &joint), NSCD_ERR_OUT_OF_RANGE);
    j.hole_radius = j.pin_radius - 1e-4; /* c < 0 */
    assert_int_equal(nscd_world_add_clearance_joint(w, &j, &joint), NSCD_ERR_OUT_OF_RANGE);
    j.hole_radius = j.pin_radius + 1e-4;
    j.outer_length = j.inner_length; /* no axial play */
    assert_int_equal(nscd_world_add_clearance_joint(w, &j, &joint), NSCD_ERR_OUT_OF_RANGE);
    j.outer_length = j.inner_length + 2e-4;
    j.friction = -0.1;
    assert_int_equal(nscd_world_add_clearance_joint(w, &j, &joint), NSCD_ERR_OUT_OF_RANGE);
    j.friction = 0.0;
    j.outer_body = id; /* a body with itself */
    assert_int_equal(nscd_world_add_clearance_joint(w, &j, &joint), NSCD_ERR_INVALID_ARGUMENT);
    j.outer_body = (nscd_body_id)0x300000002ull; /* unknown body */
    assert_int_equal(nscd_world_add_clearance_joint(w, &j, &joint), NSCD_ERR_STALE_HANDLE);
    j.outer_body = 0;
    j.impact_law = 3;
    assert_int_equal(nscd_world_add_clearance_joint(w, &j, &joint), NSCD_ERR_INVALID_ARGUMENT);
    j.impact_law = NSCD_CLEARANCE_PLASTIC;
    j.hole_radius = NAN;
    assert_int_equal(nscd_world_add_clearance_joint(w, &j, &joint), NSCD_ERR_NOT_FINITE);
    j.hole_radius = j.pin_radius + 1e-4;
    j.type = NSCD_CLEARANCE_PRISMATIC;
    j.clearance = 0.0;
    assert_int_equal(nscd_world_add_clearance_joint(w, &j, &joint), NSCD_ERR_OUT_OF_RANGE);
    j.clearance = 0.05; /* the offset triangle is empty */
    assert_int_equal(nscd_world_add_clearance_joint(w, &j, &joint), NSCD_ERR_OUT_OF_RANGE);
    j.clearance = 3e-4;
    double swap = j.vertices[2]; /* clockwise */
    j.vertices[2] = j.vertices[4], j.vertices[4] = swap;
    swap = j.vertices[3], j.vertices[3] = j.vertices[5], j.vertices[5] = swap;
    assert_int_equal(nscd_world_add_clearance_joint(w, &j, &joint), NSCD_ERR_OUT_OF_RANGE);
    j.n_vertices = 9;
    assert_int_equal(nscd_world_add_clearance_joint(w, &j, &joint), NSCD_ERR_OUT_OF_RANGE);
    assert_int_equal(nscd_world_joint_count(w), 0);
    /* an ideal joint has no gaps */
    nscd_joint_desc ideal;
    nscd_joint_desc_init(&ideal, sizeof ideal);
    ideal.body_b = id;
    assert_int_equal(nscd_world_add_joint(w, &ideal, &joint), NSCD_OK);
    int32_t count = 0;
    assert_int_equal(nscd_world_clearance_gaps(w, joint, 4, &count, NULL, NULL, NULL, NULL),
                     NSCD_ERR_INVALID_ARGUMENT);
    assert_int_equal(nscd_world_remove_joint(w, joint), NSCD_OK);
    assert_int_equal(nscd_world_clearance_gaps(w, joint, 4, &count, NULL, NULL, NULL, NULL),
                     NSCD_ERR_STALE_HANDLE);
    nscd_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gaps_match_reference),
        cmocka_unit_test(test_cylindrical_slider_moves_freely_along_axis),
        cmocka_unit_test(test_cylindrical_slider_with_friction),
        cmocka_unit_test(test_revolute_pendulum_contact),
        cmocka_unit_test(test_clearance_pendulum_period_energy_form),
        cmocka_unit_test(test_clearance_energy_form_desc),
        cmocka_unit_test(test_prismatic_slider_rests),
        cmocka_unit_test(test_clearance_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
