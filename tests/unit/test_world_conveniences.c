/* Conveniences of the world added in 0.2, checked against analytic values:
 * nscd_world_add_half_space (the plane through a point with a normal: its
 * frame's +z is the unit normal, a sphere rests on it at distance r, bad
 * input refused with nothing added) and the energies (the potential -m g.x;
 * in free flight the world's own step loses exactly m |g|^2 dt^2 / 2 per
 * step, the midpoint rule keeps the total to round-off) and the net contact
 * impulse on a body (a sliding sphere: friction μ m g dt, its moment). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "nscd/time_stepping.h"
#include "nscd/world.h"

#include "assert_near.h"
#include "world_bodies.h"

#define PI 3.14159265358979323846

static nscd_world *make_world(const double gravity[3]) {
    nscd_world_desc d;
    nscd_world_desc_init(&d, sizeof d);
    if (gravity != NULL) {
        memcpy(d.gravity, gravity, sizeof d.gravity);
    }
    nscd_world *w = NULL;
    assert_int_equal(nscd_world_create(&d, &w), NSCD_OK);
    return w;
}

/* The image of +z under the rotation of the unit quaternion q (w, x, y, z). */
static void rotate_z(const double q[4], double out[3]) {
    out[0] = 2.0 * (q[1] * q[3] + q[0] * q[2]);
    out[1] = 2.0 * (q[2] * q[3] - q[0] * q[1]);
    out[2] = 1.0 - 2.0 * (q[1] * q[1] + q[2] * q[2]);
}

/* ------------------------------------------------------------ half-space */

/* For normals of every octant, of any length, and near ±z: the body sits at
 * the point, its orientation is a unit quaternion and turns +z onto the
 * unit normal to round-off. */
static void half_space_frame(void **state) {
    (void)state;
    const double normals[][3] = {
        {0, 0, 1},          {0, 0, -1},      {1, 2, 5},        {-3, 0.5, -2},
        {0, 1, 0},          {1e-9, 0, -1},   {-1e-9, 2e-9, 1}, {1e-300, 0, -3e-300},
        {4e300, -3e300, 0}, {-1, -1, -1e-12}};
    nscd_world *w = make_world(NULL);
    for (size_t k = 0; k < sizeof normals / sizeof normals[0]; ++k) {
        const double *m = normals[k], p[3] = {0.5, -1.0, 2.0 + (double)k};
        nscd_body_id id = 0;
        assert_int_equal(nscd_world_add_half_space(w, p, m, NULL, NULL, &id), NSCD_OK);
        double x[3], q[4], z[3];
        assert_int_equal(nscd_world_get_body(w, id, x, q, NULL, NULL), NSCD_OK);
        assert_true(x[0] == p[0] && x[1] == p[1] && x[2] == p[2]);
        assert_near(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], 1.0, 4e-16);
        double s = fmax(fabs(m[0]), fmax(fabs(m[1]), fabs(m[2])));
        double n[3] = {m[0] / s, m[1] / s, m[2] / s};
        double length = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        rotate_z(q, z);
        for (int i = 0; i < 3; ++i) {
            assert_near(z[i], n[i] / length, 1e-15);
        }
        double mass = -1.0;
        assert_int_equal(nscd_world_get_body_mass(w, id, &mass, NULL), NSCD_OK);
        assert_true(mass == 0.0); /* static */
    }
    nscd_world_destroy(w);
}

/* A sphere of radius r placed against a tilted plane (normal (1, 2, 5) x 3,
 * through p) with gravity along -n rests at distance r from it: each step's
 * normal impulse cancels gravity, the contact normal is n. */
static void sphere_rests_on_tilted_half_space(void **state) {
    (void)state;
    const double m[3] = {3.0, 6.0, 15.0}, p[3] = {0.2, -0.4, 1.0}, r = 0.1;
    double n[3], length = sqrt(1.0 + 4.0 + 25.0);
    for (int i = 0; i < 3; ++i) {
        n[i] = m[i] / 3.0 / length;
    }
    const double g[3] = {-9.81 * n[0], -9.81 * n[1], -9.81 * n[2]};
    nscd_world *w = make_world(g);
    nscd_body_id plane = 0;
    assert_int_equal(nscd_world_add_half_space(w, p, m, NULL, NULL, &plane), NSCD_OK);
    double c0[3] = {p[0] + r * n[0], p[1] + r * n[1], p[2] + r * n[2]};
    nscd_body_id ball = world_moving_sphere(w, r, c0, NULL, NULL);
    for (int k = 0; k < 2000; ++k) {
        assert_int_equal(nscd_world_step(w, NULL), NSCD_OK);
    }
    double x[3], v[3], height = 0.0, drift = 0.0;
    assert_int_equal(nscd_world_get_body(w, ball, x, NULL, v, NULL), NSCD_OK);
    for (int i = 0; i < 3; ++i) {
        height += (x[i] - p[i]) * n[i];
    }
    for (int i = 0; i < 3; ++i) {
        double t = x[i] - c0[i] - (height - r) * n[i]; /* motion along the plane */
        drift += t * t;
    }
    assert_near(height, r, 1e-9);
    assert_near(sqrt(drift), 0.0, 1e-9);
    assert_near(sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]), 0.0, 1e-9);
    int32_t count = 0;
    nscd_body_id a = 0, b = 0;
    double normal[3], impulse[3];
    assert_int_equal(nscd_world_get_contacts(w, 1, &count, &a, &b, NULL, normal, NULL, impulse),
                     NSCD_OK);
    assert_int_equal(count, 1);
    assert_true(a == plane && b == ball);
    for (int i = 0; i < 3; ++i) {
        assert_near(normal[i], n[i], 1e-12);
    }
    double mass = 0.0;
    assert_int_equal(nscd_world_get_body_mass(w, ball, &mass, NULL), NSCD_OK);
    assert_near(impulse[0], mass * 9.81 * 1e-3, 1e-9 * mass * 9.81 * 1e-3);
    nscd_world_destroy(w);
}

/* The body and shape descs: a kinematic plane with a velocity moves; the
 * material and filter bits are those given; the desc's pose is replaced. */
static void half_space_descs(void **state) {
    (void)state;
    nscd_world *w = make_world(NULL);
    int32_t material = -1;
    assert_int_equal(nscd_world_add_material(w, 0.1, &material), NSCD_OK);
    nscd_body_desc b;
    nscd_body_desc_init(&b, sizeof b);
    b.type = NSCD_BODY_KINEMATIC;
    b.velocity[0] = 2.0;
    b.position[2] = 99.0; /* replaced by the point */
    b.user_id = 42;
    nscd_shape_desc s;
    nscd_shape_desc_init(&s, sizeof s);
    s.material = material;
    s.type = NSCD_SHAPE_BOX; /* ignored */
    const double p[3] = {0.0, 0.0, -1.0}, n[3] = {0.0, 0.0, 2.0};
    nscd_body_id id = 0;
    assert_int_equal(nscd_world_add_half_space(w, p, n, &b, &s, &id), NSCD_OK);
    assert_int_equal(nscd_world_step(w, NULL), NSCD_OK);
    double x[3];
    uint64_t user = 0;
    int32_t count = 0;
    assert_int_equal(nscd_world_get_bodies(w, 1, &count, NULL, &user, x, NULL, NULL, NULL),
                     NSCD_OK);
    assert_int_equal(count, 1);
    assert_true(user == 42);
    assert_near(x[0], 2.0 * 1e-3, 1e-15);
    assert_near(x[2], -1.0, 0.0);
    nscd_world_destroy(w);
}

/* Bad input: a clear status, the message names the call, nothing added. */
static void half_space_bad_input(void **state) {
    (void)state;
    nscd_world *w = make_world(NULL);
    const double p[3] = {0.0, 0.0, 0.0}, n[3] = {0.0, 0.0, 1.0}, zero[3] = {0.0, -0.0, 0.0};
    const double nan_n[3] = {0.0, NAN, 1.0}, inf_p[3] = {INFINITY, 0.0, 0.0};
    nscd_body_id id = 7;
    assert_int_equal(nscd_world_add_half_space(NULL, p, n, NULL, NULL, &id), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_world_add_half_space(w, NULL, n, NULL, NULL, &id), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_world_add_half_space(w, p, NULL, NULL, NULL, &id), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_world_add_half_space(w, p, n, NULL, NULL, NULL), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_world_add_half_space(w, p, zero, NULL, NULL, &id), NSCD_ERR_OUT_OF_RANGE);
    assert_non_null(strstr(nscd_world_last_error(w), "normal is zero"));
    assert_int_equal(nscd_world_add_half_space(w, p, nan_n, NULL, NULL, &id), NSCD_ERR_NOT_FINITE);
    assert_int_equal(nscd_world_add_half_space(w, inf_p, n, NULL, NULL, &id), NSCD_ERR_NOT_FINITE);
    assert_non_null(strstr(nscd_world_last_error(w), "nscd_world_add_half_space"));
    nscd_body_desc b;
    nscd_body_desc_init(&b, sizeof b); /* dynamic */
    assert_int_equal(nscd_world_add_half_space(w, p, n, &b, NULL, &id), NSCD_ERR_OUT_OF_RANGE);
    b.type = NSCD_BODY_STATIC;
    b.velocity[1] = 1.0; /* a static body has no velocity */
    assert_int_equal(nscd_world_add_half_space(w, p, n, &b, NULL, &id), NSCD_ERR_INVALID_ARGUMENT);
    b.struct_size = 3;
    assert_int_equal(nscd_world_add_half_space(w, p, n, &b, NULL, &id), NSCD_ERR_STRUCT_SIZE);
    nscd_shape_desc s;
    nscd_shape_desc_init(&s, sizeof s);
    s.material = 5; /* unknown */
    assert_int_equal(nscd_world_add_half_space(w, p, n, NULL, &s, &id), NSCD_ERR_INDEX);
    s.struct_size = 0;
    s.material = 0;
    assert_int_equal(nscd_world_add_half_space(w, p, n, NULL, &s, &id), NSCD_ERR_STRUCT_SIZE);
    assert_int_equal(nscd_world_body_count(w), 0);
    assert_true(id == 7);
    assert_int_equal(nscd_world_add_half_space(w, p, n, NULL, NULL, &id), NSCD_OK);
    assert_int_equal(nscd_world_body_count(w), 1);
    assert_string_equal(nscd_world_last_error(w), "");
    nscd_world_destroy(w);
}

/* ------------------------------------------------------------ energies */

/* V = -sum m g.x over the dynamic bodies, for a gravity off the axes; static
 * and kinematic bodies (infinite mass) count for nothing; T + V = E. */
static void potential_energy_definition(void **state) {
    (void)state;
    const double g[3] = {1.0, 2.0, -3.0};
    nscd_world *w = make_world(g);
    const double p[3] = {0.0, 0.0, -5.0}, n[3] = {0.0, 0.0, 1.0};
    nscd_body_id plane = 0;
    assert_int_equal(nscd_world_add_half_space(w, p, n, NULL, NULL, &plane), NSCD_OK);
    const double x1[3] = {1.0, -2.0, 3.0}, x2[3] = {-4.0, 0.5, 2.0}, v1[3] = {1.0, 0.0, -2.0};
    const double om2[3] = {0.0, 3.0, 1.0};
    nscd_body_id a = world_moving_sphere(w, 0.1, x1, v1, NULL),
                 b = world_moving_sphere(w, 0.2, x2, NULL, om2);
    nscd_body_desc k;
    nscd_body_desc_init(&k, sizeof k);
    k.type = NSCD_BODY_KINEMATIC;
    k.position[2] = 10.0;
    k.velocity[0] = 3.0;
    nscd_shape_desc s;
    nscd_shape_desc_init(&s, sizeof s);
    nscd_body_id kin = 0;
    assert_int_equal(nscd_world_add_body(w, &k, &s, 1, &kin), NSCD_OK);
    double ma = 0.0, mb = 0.0, Ib[3];
    assert_int_equal(nscd_world_get_body_mass(w, a, &ma, NULL), NSCD_OK);
    assert_int_equal(nscd_world_get_body_mass(w, b, &mb, Ib), NSCD_OK);
    assert_near(ma, 4.0 / 3.0 * PI * 1e-3 * 1000.0, 1e-12);
    double expected_v = -ma * (g[0] * x1[0] + g[1] * x1[1] + g[2] * x1[2]) -
                        mb * (g[0] * x2[0] + g[1] * x2[1] + g[2] * x2[2]);
    double expected_t = 0.5 * ma * 5.0 + 0.5 * Ib[0] * 10.0;
    double V = 0.0, T = 0.0, E = 0.0;
    assert_int_equal(nscd_world_potential_energy(w, &V), NSCD_OK);
    assert_int_equal(nscd_world_kinetic_energy(w, &T), NSCD_OK);
    assert_int_equal(nscd_world_total_energy(w, &E), NSCD_OK);
    assert_near(V, expected_v, 1e-13 * fabs(expected_v));
    assert_near(T, expected_t, 1e-13 * expected_t);
    assert_near(E, expected_t + expected_v, 1e-13 * (expected_t + fabs(expected_v)));
    /* bad input */
    assert_int_equal(nscd_world_potential_energy(NULL, &V), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_world_total_energy(NULL, &E), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_world_potential_energy(w, NULL), NSCD_ERR_NULL_POINTER);
    assert_non_null(strstr(nscd_world_last_error(w), "nscd_world_potential_energy"));
    assert_int_equal(nscd_world_total_energy(w, NULL), NSCD_ERR_NULL_POINTER);
    assert_non_null(strstr(nscd_world_last_error(w), "nscd_world_total_energy"));
    assert_int_equal(nscd_world_total_energy(w, &E), NSCD_OK);
    assert_string_equal(nscd_world_last_error(w), "");
    nscd_world_destroy(w);
}

/* A spinning sphere thrown upwards, no contact: the world's step
 * (v' = v + dt g, x' = x + dt v') takes exactly m |g|^2 dt^2 / 2 per step,
 * E_n = E_0 - n m |g|^2 dt^2 / 2 to round-off (the loss itself is about 1e-3
 * of E after 1000 steps, far above the tolerance). */
static void free_flight_world_step(void **state) {
    (void)state;
    const double g[3] = {0.3, -0.4, -9.81}, dt = 1e-3;
    nscd_world *w = make_world(g);
    const double x0[3] = {0.3, -0.2, 5.0}, v0[3] = {1.0, 0.5, 2.0}, om0[3] = {3.0, -1.0, 2.0};
    nscd_body_id id = world_moving_sphere(w, 0.1, x0, v0, om0);
    double m = 0.0, e0 = 0.0, g2 = g[0] * g[0] + g[1] * g[1] + g[2] * g[2];
    assert_int_equal(nscd_world_get_body_mass(w, id, &m, NULL), NSCD_OK);
    assert_int_equal(nscd_world_total_energy(w, &e0), NSCD_OK);
    const double scale = fabs(e0) + m * sqrt(g2) * 10.0; /* |E| and m |g| times the travel */
    for (int k = 1; k <= 1000; ++k) {
        assert_int_equal(nscd_world_step(w, NULL), NSCD_OK);
        double e = 0.0;
        assert_int_equal(nscd_world_total_energy(w, &e), NSCD_OK);
        assert_near(e, e0 - k * 0.5 * m * g2 * dt * dt, 1e-13 * scale);
    }
    double e = 0.0;
    assert_int_equal(nscd_world_total_energy(w, &e), NSCD_OK);
    assert_true(e0 - e > 1e-4 * scale); /* the loss is seen: E is not a constant here */
    nscd_world_destroy(w);
}

/* The same flight under Moreau's midpoint rule (x' = x + dt (v + v') / 2):
 * the total energy is constant to round-off. */
static void free_flight_midpoint(void **state) {
    (void)state;
    const double g[3] = {0.3, -0.4, -9.81}, dt = 1e-3;
    nscd_world *w = make_world(g);
    const double x0[3] = {0.3, -0.2, 5.0}, v0[3] = {1.0, 0.5, 2.0}, om0[3] = {3.0, -1.0, 2.0};
    nscd_body_id id = world_moving_sphere(w, 0.1, x0, v0, om0);
    nscd_time_stepping_options o;
    nscd_time_stepping_options_init(&o, sizeof o);
    o.scheme = NSCD_TS_MOREAU_MIDPOINT;
    o.dt = dt;
    nscd_time_stepping *ts = NULL;
    assert_int_equal(nscd_time_stepping_create_world(w, &o, &ts), NSCD_OK);
    double m = 0.0, e0 = 0.0;
    assert_int_equal(nscd_world_get_body_mass(w, id, &m, NULL), NSCD_OK);
    assert_int_equal(nscd_world_total_energy(w, &e0), NSCD_OK);
    const double scale = fabs(e0) + m * 9.83 * 10.0;
    for (int k = 1; k <= 1000; ++k) {
        assert_int_equal(nscd_time_stepping_advance(ts, k * dt, NULL), NSCD_OK);
        double e = 0.0;
        assert_int_equal(nscd_world_total_energy(w, &e), NSCD_OK);
        assert_near(e, e0, 1e-13 * scale);
    }
    double x[3];
    assert_int_equal(nscd_world_get_body(w, id, x, NULL, NULL, NULL), NSCD_OK);
    assert_near(x[2], x0[2] + v0[2] * 1.0 + 0.5 * g[2], 1e-9); /* exact for constant g */
    nscd_time_stepping_destroy(ts);
    nscd_world_destroy(w);
}

/* ------------------------------------------------------------ contact impulse */

/* A sphere launched at v0 without spin on a floor with μ = 0.3 slides for
 * 2 v0 / (7 μ g) (about 0.1 s): during a step of that phase the floor gives
 * it P = (−μ m g dt, 0, m g dt) at its lowest point, whose moment about the
 * centre at the start of the step is (0, μ m g r dt, 0) (it spins the
 * sphere up towards rolling);
 * the floor takes −P. A body without contact gets zeros; bad input. */
static void contact_impulse_of_a_sliding_sphere(void **state) {
    (void)state;
    nscd_world_desc d;
    nscd_world_desc_init(&d, sizeof d);
    d.default_friction = 0.3;
    d.tolerance = 1e-13;
    d.max_sweeps = 100;
    nscd_world *w = NULL;
    assert_int_equal(nscd_world_create(&d, &w), NSCD_OK);
    const double origin[3] = {0.0, 0.0, 0.0}, up[3] = {0.0, 0.0, 1.0}, r = 0.05, dt = d.dt;
    nscd_body_id floor_id = 0;
    assert_int_equal(nscd_world_add_half_space(w, origin, up, NULL, NULL, &floor_id), NSCD_OK);
    const double x0[3] = {0.0, 0.0, r}, v0[3] = {1.0, 0.0, 0.0}, far[3] = {5.0, 5.0, 5.0};
    nscd_body_id ball = world_moving_sphere(w, r, x0, v0, NULL),
                 lone = world_moving_sphere(w, r, far, NULL, NULL);
    double m = 0.0, p[3], l[3], q[3];
    assert_int_equal(nscd_world_get_body_mass(w, ball, &m, NULL), NSCD_OK);
    assert_int_equal(nscd_world_get_body_contact_impulse(w, ball, NULL, p, l), NSCD_OK);
    for (int k = 0; k < 3; ++k) {
        assert_true(p[k] == 0.0 && l[k] == 0.0); /* no step yet: no contact */
    }
    for (int k = 0; k < 20; ++k) {
        assert_int_equal(nscd_world_step(w, NULL), NSCD_OK);
    }
    const double mgdt = m * 9.81 * dt;
    double x[3], v[3], start[3];
    assert_int_equal(nscd_world_get_body(w, ball, x, NULL, v, NULL), NSCD_OK);
    for (int k = 0; k < 3; ++k) {
        start[k] = x[k] - dt * v[k]; /* the centre at the start of the step */
    }
    assert_int_equal(nscd_world_get_body_contact_impulse(w, ball, start, p, l), NSCD_OK);
    assert_near(p[0], -0.3 * mgdt, 1e-9 * mgdt);
    assert_near(p[1], 0.0, 1e-12 * mgdt);
    assert_near(p[2], mgdt, 1e-9 * mgdt);
    assert_near(l[0], 0.0, 1e-12 * mgdt * r);
    assert_near(l[1], 0.3 * mgdt * r, 1e-6 * mgdt * r);
    assert_near(l[2], 0.0, 1e-12 * mgdt * r);
    /* about the origin: L − start × P, the same moment moved */
    double lo[3];
    assert_int_equal(nscd_world_get_body_contact_impulse(w, ball, NULL, NULL, lo), NSCD_OK);
    assert_near(lo[0], l[0] + start[1] * p[2] - start[2] * p[1], 1e-12 * mgdt);
    assert_near(lo[1], l[1] + start[2] * p[0] - start[0] * p[2], 1e-12 * mgdt);
    assert_near(lo[2], l[2] + start[0] * p[1] - start[1] * p[0], 1e-12 * mgdt);
    assert_int_equal(nscd_world_get_body_contact_impulse(w, floor_id, NULL, q, NULL), NSCD_OK);
    for (int k = 0; k < 3; ++k) {
        assert_true(q[k] == -p[k]); /* action and reaction */
    }
    const double nan3[3] = {0.0, NAN, 0.0};
    assert_int_equal(nscd_world_get_body_contact_impulse(w, ball, nan3, q, NULL),
                     NSCD_ERR_NOT_FINITE);
    assert_int_equal(nscd_world_get_body_contact_impulse(w, lone, NULL, p, l), NSCD_OK);
    for (int k = 0; k < 3; ++k) {
        assert_true(p[k] == 0.0 && l[k] == 0.0);
    }
    assert_int_equal(nscd_world_get_body_contact_impulse(w, ball, NULL, NULL, NULL), NSCD_OK);
    assert_int_equal(nscd_world_get_body_contact_impulse(NULL, ball, NULL, p, l),
                     NSCD_ERR_NULL_POINTER);
    p[0] = 7.0;
    assert_int_equal(nscd_world_get_body_contact_impulse(w, NSCD_BODY_NULL, NULL, p, l),
                     NSCD_ERR_STALE_HANDLE);
    assert_true(p[0] == 7.0);
    assert_non_null(strstr(nscd_world_last_error(w), "nscd_world_get_body_contact_impulse"));
    assert_int_equal(nscd_world_remove_body(w, ball), NSCD_OK);
    assert_int_equal(nscd_world_get_body_contact_impulse(w, ball, NULL, p, l),
                     NSCD_ERR_STALE_HANDLE);
    assert_int_equal(nscd_world_get_body_contact_impulse(w, floor_id, NULL, p, NULL), NSCD_OK);
    assert_true(p[0] == 0.0 && p[2] == 0.0); /* its contact went with the ball */
    nscd_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(half_space_frame),
        cmocka_unit_test(sphere_rests_on_tilted_half_space),
        cmocka_unit_test(half_space_descs),
        cmocka_unit_test(half_space_bad_input),
        cmocka_unit_test(potential_energy_definition),
        cmocka_unit_test(free_flight_world_step),
        cmocka_unit_test(free_flight_midpoint),
        cmocka_unit_test(contact_impulse_of_a_sliding_sphere),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
