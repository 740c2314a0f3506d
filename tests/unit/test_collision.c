/* Collision layer (src/collision): analytic gaps, normals and points of every
 * pair type, the grid broad phase against brute force, deterministic order,
 * out-of-memory behaviour and degenerate geometry. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collision/collision.h"
#include "collision/collision_internal.h"
#include "collision/gjk.h"
#include "collision/hull.h"
#include "core/memory.h"
#include "core/parallel.h"
#include "core/vec3.h"
#include "nscd/world.h"
#include "test_size.h"

#define PI 3.14159265358979323846

static void near_tol(double a, double b, double tol) {
    if (!(fabs(a - b) <= tol * (1.0 + fabs(b)))) {
        print_error("%.17g != %.17g (tol %g)\n", a, b, tol);
        fail();
    }
}
static void near(double a, double b) { near_tol(a, b, 1e-12); }

/* ---------------------------------------------------------------- shapes */

static nscd__collision_shape base_shape(int32_t type, int32_t body, const double pos[3],
                                        nscd__quat q) {
    nscd__collision_shape s;
    memset(&s, 0, sizeof s);
    s.type = type;
    s.body = body;
    s.key = nscd__shape_key((uint64_t)body + 1, 0);
    memcpy(s.position, pos, sizeof s.position);
    nscd__mat3 r = nscd__q_to_mat3(nscd__q_normalize(q));
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            s.rotation[3 * i + j] = r.m[i][j];
        }
    }
    s.category = s.mask = 0xffffffffu;
    return s;
}

static nscd__collision_shape sphere(int32_t body, double x, double y, double z, double r) {
    double p[3] = {x, y, z};
    nscd__collision_shape s = base_shape(NSCD_SHAPE_SPHERE, body, p, nscd__q_identity());
    s.radius = r;
    return s;
}

/* Half-space whose boundary passes through p with outward normal n. */
static nscd__collision_shape half_space(int32_t body, const double p[3], nscd__vec3 n) {
    n = nscd__v3_normalize(n);
    nscd__vec3 z = nscd__v3(0, 0, 1);
    nscd__vec3 axis = nscd__v3_cross(z, n);
    double s = nscd__v3_norm(axis), c = nscd__v3_dot(z, n);
    nscd__quat q =
        s > 1e-15 ? nscd__q_from_axis_angle(axis, atan2(s, c))
                  : (c > 0 ? nscd__q_identity() : nscd__q_from_axis_angle(nscd__v3(1, 0, 0), PI));
    nscd__collision_shape h = base_shape(NSCD_SHAPE_HALF_SPACE, body, p, q);
    h.fixed = 1;
    return h;
}

static nscd__collision_shape box(int32_t body, const double p[3], nscd__quat q, double hx,
                                 double hy, double hz) {
    nscd__collision_shape s = base_shape(NSCD_SHAPE_BOX, body, p, q);
    s.half_extents[0] = hx, s.half_extents[1] = hy, s.half_extents[2] = hz;
    return s;
}

static nscd__collision_shape capsule(int32_t body, const double p[3], nscd__quat q, double r,
                                     double hh) {
    nscd__collision_shape s = base_shape(NSCD_SHAPE_CAPSULE, body, p, q);
    s.radius = r, s.half_height = hh;
    return s;
}

static nscd__collision_shape cylinder(int32_t body, const double p[3], nscd__quat q, double r,
                                      double hh) {
    nscd__collision_shape s = base_shape(NSCD_SHAPE_CYLINDER, body, p, q);
    s.radius = r, s.half_height = hh;
    return s;
}

/* Runs the collision of n shapes and checks the output invariants: sorted by
 * (key_a, key_b, feature) without duplicates, unit normals, gaps < margin,
 * key_a / key_b those of shape_a / shape_b. */
static int32_t collide_checked(nscd__collision *c, const nscd__collision_shape *s, int32_t n,
                               double margin) {
    assert_int_equal(nscd__collide(c, s, n, margin), NSCD_OK);
    for (int32_t k = 0; k < c->n_contacts; ++k) {
        const nscd__contact_point *p = &c->contacts[k];
        assert_true(p->key_a == s[p->shape_a].key && p->key_b == s[p->shape_b].key);
        near(sqrt(p->normal[0] * p->normal[0] + p->normal[1] * p->normal[1] +
                  p->normal[2] * p->normal[2]),
             1.0);
        assert_true(p->gap < margin);
        assert_true(s[p->shape_b].type != NSCD_SHAPE_HALF_SPACE);
        if (s[p->shape_a].type != NSCD_SHAPE_HALF_SPACE) {
            assert_true(p->key_a < p->key_b);
        }
        if (k > 0) {
            const nscd__contact_point *q = &c->contacts[k - 1];
            int ordered =
                q->key_a < p->key_a ||
                (q->key_a == p->key_a &&
                 (q->key_b < p->key_b || (q->key_b == p->key_b && q->feature < p->feature)));
            assert_true(ordered);
        }
    }
    return c->n_contacts;
}

/* The one contact of two shapes (asserts there is exactly one). */
static nscd__contact_point single_contact(const nscd__collision_shape *a,
                                          const nscd__collision_shape *b, double margin) {
    nscd__collision c;
    nscd__collision_init(&c, NULL);
    nscd__collision_shape s[2] = {*a, *b};
    assert_int_equal(collide_checked(&c, s, 2, margin), 1);
    nscd__contact_point p = c.contacts[0];
    nscd__collision_free(&c);
    return p;
}

static void check_point(const nscd__contact_point *p, const double point[3], const double n[3],
                        double gap) {
    for (int i = 0; i < 3; ++i) {
        near(p->point[i], point[i]);
        near(p->normal[i], n[i]);
    }
    near(p->gap, gap);
}

/* ---------------------------------------------------------------- spheres */

static void sphere_sphere(void **state) {
    (void)state;
    /* centres 5 apart along (0.6, 0.8, 0) */
    nscd__collision_shape a = sphere(0, 0, 0, 0, 1.0), b = sphere(1, 3, 4, 0, 3.5);
    nscd__contact_point p = single_contact(&a, &b, 1.0);
    check_point(&p, (double[]){0.75, 1.0, 0}, (double[]){0.6, 0.8, 0}, 0.5);
    assert_int_equal(p.shape_a, 0);
    assert_int_equal(p.feature, 0);
    /* swapped input: still the smaller key first */
    p = single_contact(&b, &a, 1.0);
    assert_int_equal(p.shape_a, 1);
    check_point(&p, (double[]){0.75, 1.0, 0}, (double[]){0.6, 0.8, 0}, 0.5);
    /* penetration 0.5 */
    b.radius = 4.5;
    p = single_contact(&a, &b, 0.0);
    check_point(&p, (double[]){0.45, 0.6, 0}, (double[]){0.6, 0.8, 0}, -0.5);
    /* beyond the margin (gap 0.5 >= margin 0.5): nothing */
    b.radius = 3.5;
    nscd__collision c;
    nscd__collision_init(&c, NULL);
    nscd__collision_shape two[2] = {a, b};
    assert_int_equal(collide_checked(&c, two, 2, 0.5), 0);
    assert_int_equal(collide_checked(&c, two, 2, 0.5000001), 1);
    nscd__collision_free(&c);
}

static void sphere_sphere_coincident(void **state) {
    (void)state;
    nscd__collision_shape a = sphere(0, 1, 2, 3, 0.5), b = sphere(1, 1, 2, 3, 0.25);
    nscd__contact_point p = single_contact(&a, &b, 0.0);
    assert_true(isfinite(p.normal[0]) && isfinite(p.normal[1]) && isfinite(p.normal[2]));
    near(p.gap, -0.75);
    /* touching exactly: gap 0 is a contact with margin 0? gap < margin is required */
    nscd__collision_shape c1 = sphere(0, 0, 0, 0, 1.0), c2 = sphere(1, 2, 0, 0, 1.0);
    p = single_contact(&c1, &c2, 1e-12);
    near(p.gap, 0.0);
    check_point(&p, (double[]){1, 0, 0}, (double[]){1, 0, 0}, 0.0);
}

static void sphere_half_space(void **state) {
    (void)state;
    nscd__collision_shape h = half_space(0, (double[]){0, 0, 1}, nscd__v3(0, 0, 1));
    nscd__collision_shape s = sphere(1, 2, 3, 1.8, 1.0);
    s.key = 1; /* a smaller key than the half-space's: the half-space is still shape a */
    nscd__contact_point p = single_contact(&s, &h, 0.0);
    assert_int_equal(p.shape_a, 1);
    assert_true(p.key_a == h.key && p.key_b == 1);
    check_point(&p, (double[]){2, 3, 0.9}, (double[]){0, 0, 1}, -0.2);
    /* tilted plane through the origin, normal (1, 1, 0)/sqrt 2; centre at distance 2 */
    double r2 = sqrt(0.5);
    nscd__collision_shape t = half_space(0, (double[]){0, 0, 0}, nscd__v3(1, 1, 0));
    nscd__collision_shape u = sphere(1, 2 * r2, 2 * r2, 7.0, 1.5);
    p = single_contact(&t, &u, 1.0);
    check_point(&p, (double[]){0.25 * r2, 0.25 * r2, 7.0}, (double[]){r2, r2, 0}, 0.5);
}

/* Contacts of two shapes, sorted (the collision's own order). */
static int32_t pair_contacts(const nscd__collision_shape *a, const nscd__collision_shape *b,
                             double margin, nscd__contact_point *out) {
    nscd__collision c;
    nscd__collision_init(&c, NULL);
    nscd__collision_shape s[2] = {*a, *b};
    int32_t n = collide_checked(&c, s, 2, margin);
    assert_true(n <= 4);         /* every manifold is reduced to at most 4 points */
    assert_non_null(c.contacts); /* even when empty */
    memcpy(out, c.contacts, (size_t)n * sizeof *out);
    nscd__collision_free(&c);
    return n;
}

static const double ORIGIN[3] = {0, 0, 0};

/* ---------------------------------------------------------------- boxes */

static void half_space_box(void **state) {
    (void)state;
    nscd__collision_shape h = half_space(0, ORIGIN, nscd__v3(0, 0, 1));
    nscd__collision_shape b = box(1, (double[]){0, 0, 0.2}, nscd__q_identity(), 1.0, 0.5, 0.25);
    nscd__contact_point p[8];
    assert_int_equal(pair_contacts(&h, &b, 0.0, p), 4);
    for (int k = 0; k < 4; ++k) { /* the bottom corners 0-3, features = corner numbers */
        assert_int_equal(p[k].feature, k);
        double x = k & 1 ? 1.0 : -1.0, y = k & 2 ? 0.5 : -0.5;
        check_point(&p[k], (double[]){x, y, -0.025}, (double[]){0, 0, 1}, -0.05);
    }
    /* a large margin sees all 8 corners: the 4 deepest are kept */
    assert_int_equal(pair_contacts(&h, &b, 10.0, p), 4);
    for (int k = 0; k < 4; ++k) {
        assert_int_equal(p[k].feature, k);
    }
    /* tilted about y by 0.1 rad: only the two corners at x = +1 (bit 0 set) go down */
    nscd__collision_shape t = box(1, (double[]){0, 0, 0.3},
                                  nscd__q_from_axis_angle(nscd__v3(0, 1, 0), 0.1), 1.0, 0.5, 0.25);
    assert_int_equal(pair_contacts(&h, &t, 0.0, p), 2);
    double gap = 0.3 - sin(0.1) * 1.0 - cos(0.1) * 0.25;
    assert_int_equal(p[0].feature, 1);
    assert_int_equal(p[1].feature, 3);
    near(p[0].gap, gap);
    near(p[1].gap, gap);
}

static void sphere_box(void **state) {
    (void)state;
    /* box of half extents (1, 2, 3) turned 90 degrees about z: (2, 1, 3) in the world */
    nscd__quat q = nscd__q_from_axis_angle(nscd__v3(0, 0, 1), PI / 2);
    nscd__collision_shape b = box(1, ORIGIN, q, 1.0, 2.0, 3.0);
    nscd__collision_shape s = sphere(0, 2.5, 0, 0, 1.0); /* face region */
    nscd__contact_point p = single_contact(&s, &b, 0.0);
    check_point(&p, (double[]){1.75, 0, 0}, (double[]){-1, 0, 0}, -0.5);
    s = sphere(0, 2.3, 1.4, 0, 1.0); /* edge region: 0.3, 0.4 off the edge (2, 1, z) */
    p = single_contact(&s, &b, 0.0);
    check_point(&p, (double[]){1.85, 0.8, 0}, (double[]){-0.6, -0.8, 0}, -0.5);
    s = sphere(0, 1.8, 0, 0, 0.5); /* centre inside, nearest face x = 2 */
    p = single_contact(&s, &b, 0.0);
    check_point(&p, (double[]){1.65, 0, 0}, (double[]){-1, 0, 0}, -0.7);
    s = sphere(0, 2.3, 1.3, 3.3, 0.5); /* corner region, beyond the margin */
    nscd__contact_point none[8];
    assert_int_equal(pair_contacts(&s, &b, 0.01, none), 0);
    assert_int_equal(pair_contacts(&s, &b, 0.1, none), 1);
    near(none[0].gap, sqrt(3 * 0.09) - 0.5);
}

static void box_box_faces(void **state) {
    (void)state;
    nscd__collision_shape a = box(0, ORIGIN, nscd__q_identity(), 1, 1, 1);
    nscd__collision_shape b =
        box(1, (double[]){0.1, -0.2, 1.45}, nscd__q_identity(), 0.5, 0.5, 0.5);
    nscd__contact_point p[8], p2[8];
    assert_int_equal(pair_contacts(&a, &b, 0.0, p), 4);
    int seen = 0;
    for (int k = 0; k < 4; ++k) {
        near(p[k].gap, -0.05);
        near(p[k].normal[2], 1.0);
        near(p[k].point[2], 0.975);
        near(fabs(p[k].point[0] - 0.1), 0.5);
        near(fabs(p[k].point[1] + 0.2), 0.5);
        seen |= 1 << ((p[k].point[0] > 0.1) + 2 * (p[k].point[1] > -0.2));
    }
    assert_int_equal(seen, 15); /* the four corners of b's bottom face */
    /* moved a little: the same four features (warm start keys persist) */
    b.position[0] += 0.01, b.position[2] -= 0.005;
    assert_int_equal(pair_contacts(&a, &b, 0.0, p2), 4);
    for (int k = 0; k < 4; ++k) {
        assert_int_equal(p2[k].feature, p[k].feature);
        near(p2[k].point[0], p[k].point[0] + 0.01);
    }
    /* b overhanging the edge x = 1: clipped to x in [0.3, 1] */
    b.position[0] = 0.8, b.position[1] = 0.0, b.position[2] = 1.45;
    assert_int_equal(pair_contacts(&a, &b, 0.0, p), 4);
    int at_edge = 0, inner = 0;
    for (int k = 0; k < 4; ++k) {
        near(p[k].gap, -0.05);
        near(fabs(p[k].point[1]), 0.5);
        at_edge += fabs(p[k].point[0] - 1.0) < 1e-12;
        inner += fabs(p[k].point[0] - 0.3) < 1e-12;
    }
    assert_int_equal(at_edge, 2);
    assert_int_equal(inner, 2);
    /* b turned 45 degrees about z, under a (b is the reference face now? no:
     * both faces are parallel; the normal is -z from a to b) */
    nscd__collision_shape c =
        box(1, (double[]){0, 0, -1.4}, nscd__q_from_axis_angle(nscd__v3(0, 0, 1), PI / 4), 0.5, 0.5,
            0.5);
    assert_int_equal(pair_contacts(&a, &c, 0.0, p), 4);
    for (int k = 0; k < 4; ++k) {
        near(p[k].gap, -0.1);
        near(p[k].normal[2], -1.0);
        near(p[k].point[2], -0.95);
        near(hypot(p[k].point[0], p[k].point[1]), 0.5 * sqrt(2.0));
    }
    /* separated beyond the margin; within it */
    c.position[2] = -1.6;
    assert_int_equal(pair_contacts(&a, &c, 0.05, p), 0);
    assert_int_equal(pair_contacts(&a, &c, 0.2, p), 4);
    near(p[0].gap, 0.1);
}

/* Separated corner to corner: the exact distance, not the SAT separation. */
static void box_box_corners(void **state) {
    (void)state;
    nscd__collision_shape a = box(0, ORIGIN, nscd__q_identity(), 1, 1, 1);
    nscd__collision_shape b = box(1, (double[]){2.1, 2.1, 2.1}, nscd__q_identity(), 1, 1, 1);
    nscd__contact_point p[8];
    assert_int_equal(pair_contacts(&a, &b, 0.15, p), 0); /* SAT says 0.1, the truth 0.173 */
    assert_int_equal(pair_contacts(&a, &b, 0.2, p), 1);
    double r3 = 1.0 / sqrt(3.0);
    check_point(&p[0], (double[]){1.05, 1.05, 1.05}, (double[]){r3, r3, r3}, 0.1 * sqrt(3.0));
    /* touching faces exactly: nothing at margin 0, four points of gap 0 above */
    b.position[0] = 2.0, b.position[1] = 0.5, b.position[2] = 0.0;
    assert_int_equal(pair_contacts(&a, &b, 0.0, p), 0);
    assert_int_equal(pair_contacts(&a, &b, 1e-9, p), 4);
    for (int k = 0; k < 4; ++k) {
        near(p[k].gap, 0.0);
        near(p[k].normal[0], 1.0);
        near(p[k].point[0], 1.0);
    }
    /* the same far from the origin */
    const double x0 = 1e6;
    a.position[0] += x0, b.position[0] += x0;
    b.position[0] -= 0.01;
    assert_int_equal(pair_contacts(&a, &b, 0.0, p), 4);
    for (int k = 0; k < 4; ++k) {
        near_tol(p[k].gap, -0.01, 1e-9);
        near_tol(p[k].point[0], x0 + 0.995, 1e-15);
    }
}

static void box_box_edges(void **state) {
    (void)state;
    /* a: unit cube (h = 1) turned 45 degrees about x, top edge along x at
     * z = sqrt 2; b: turned 45 degrees about y, bottom edge along y. */
    double r2 = sqrt(2.0);
    nscd__collision_shape a =
        box(0, ORIGIN, nscd__q_from_axis_angle(nscd__v3(1, 0, 0), PI / 4), 1, 1, 1);
    nscd__collision_shape b = box(1, (double[]){0.2, -0.3, 2 * r2 - 0.1},
                                  nscd__q_from_axis_angle(nscd__v3(0, 1, 0), PI / 4), 1, 1, 1);
    nscd__contact_point p = single_contact(&a, &b, 0.0);
    check_point(&p, (double[]){0.2, 0, r2 - 0.05}, (double[]){0, 0, 1}, -0.1);
}

static void box_capsule(void **state) {
    (void)state;
    nscd__collision_shape b = box(0, ORIGIN, nscd__q_identity(), 1, 1, 1);
    nscd__quat along_x = nscd__q_from_axis_angle(nscd__v3(0, 1, 0), PI / 2);
    nscd__collision_shape c = capsule(1, (double[]){0, 0.3, 1.45}, along_x, 0.5, 0.5);
    nscd__contact_point p[8];
    assert_int_equal(pair_contacts(&b, &c, 0.0, p), 2); /* lying on the face: both ends */
    check_point(&p[0], (double[]){-0.5, 0.3, 0.975}, (double[]){0, 0, 1}, -0.05);
    check_point(&p[1], (double[]){0.5, 0.3, 0.975}, (double[]){0, 0, 1}, -0.05);
    c.position[0] = 1.2; /* overhanging: clipped at x = 1 */
    assert_int_equal(pair_contacts(&b, &c, 0.0, p), 2);
    near(p[0].point[0], 0.7);
    near(p[1].point[0], 1.0);
    near(p[1].gap, -0.05);
    /* standing, its lower segment end 0.2 inside the box: SAT face z */
    nscd__collision_shape v = capsule(1, (double[]){0.1, 0.2, 1.3}, nscd__q_identity(), 0.5, 0.5);
    assert_int_equal(pair_contacts(&b, &v, 0.0, p), 1);
    check_point(&p[0], (double[]){0.1, 0.2, 0.65}, (double[]){0, 0, 1}, -0.7);
    /* along y beside the edge (1, y, 1), 0.3 out in x and 0.4 in z */
    nscd__quat along_y = nscd__q_from_axis_angle(nscd__v3(1, 0, 0), PI / 2);
    nscd__collision_shape e = capsule(1, (double[]){1.3, 0, 1.4}, along_y, 0.45, 2.0);
    assert_int_equal(pair_contacts(&b, &e, 0.04, p), 0);
    assert_int_equal(pair_contacts(&b, &e, 0.1, p), 1);
    near(p[0].gap, 0.05);
    near(p[0].normal[0], 0.6);
    near(p[0].normal[2], 0.8);
    /* capsule as the first shape (smaller key): the normal flips */
    e.key = 1;
    assert_int_equal(pair_contacts(&b, &e, 0.1, p), 1);
    near(p[0].normal[0], -0.6);
    near(p[0].normal[2], -0.8);
}

/* ---------------------------------------------------------------- capsules */

static void capsule_pairs(void **state) {
    (void)state;
    nscd__quat along_x = nscd__q_from_axis_angle(nscd__v3(0, 1, 0), PI / 2);
    nscd__quat along_y = nscd__q_from_axis_angle(nscd__v3(1, 0, 0), PI / 2);
    nscd__collision_shape h = half_space(0, ORIGIN, nscd__v3(0, 0, 1));
    nscd__collision_shape c = capsule(1, (double[]){0, 0, 0.45}, along_x, 0.5, 1.0);
    nscd__contact_point p[8];
    assert_int_equal(pair_contacts(&h, &c, 0.0, p), 2);
    check_point(&p[0], (double[]){-1, 0, -0.025}, (double[]){0, 0, 1}, -0.05);
    check_point(&p[1], (double[]){1, 0, -0.025}, (double[]){0, 0, 1}, -0.05);
    /* crossing capsules */
    nscd__collision_shape a = capsule(0, ORIGIN, along_x, 0.5, 1.0);
    nscd__collision_shape b = capsule(1, (double[]){0.3, 0.2, 0.9}, along_y, 0.5, 1.0);
    assert_int_equal(pair_contacts(&a, &b, 0.0, p), 1);
    check_point(&p[0], (double[]){0.3, 0, 0.45}, (double[]){0, 0, 1}, -0.1);
    /* parallel, overlapping on x in [-0.5, 1]: both ends of the overlap */
    b = capsule(1, (double[]){0.5, 0, 0.9}, along_x, 0.5, 1.0);
    assert_int_equal(pair_contacts(&a, &b, 0.0, p), 2);
    check_point(&p[0], (double[]){-0.5, 0, 0.45}, (double[]){0, 0, 1}, -0.1);
    check_point(&p[1], (double[]){1.0, 0, 0.45}, (double[]){0, 0, 1}, -0.1);
    /* coincident axes crossing: a finite unit normal */
    b = capsule(1, ORIGIN, along_y, 0.5, 1.0);
    assert_int_equal(pair_contacts(&a, &b, 0.0, p), 1);
    near(fabs(p[0].normal[2]), 1.0);
    near(p[0].gap, -1.0);
    /* sphere against the side and the end cap of a capsule along z */
    nscd__collision_shape z = capsule(1, ORIGIN, nscd__q_identity(), 0.5, 1.0);
    nscd__collision_shape s = sphere(0, 0.8, 0, 0.5, 0.5);
    nscd__contact_point q = single_contact(&s, &z, 0.0);
    check_point(&q, (double[]){0.4, 0, 0.5}, (double[]){-1, 0, 0}, -0.2);
    s = sphere(0, 0, 0, 2.2, 0.5);
    q = single_contact(&s, &z, 0.5);
    check_point(&q, (double[]){0, 0, 1.6}, (double[]){0, 0, -1}, 0.2);
}

/* ---------------------------------------------------------------- cylinders */

static void sphere_cylinder(void **state) {
    (void)state;
    nscd__collision_shape c = cylinder(1, ORIGIN, nscd__q_identity(), 1.0, 0.5);
    nscd__collision_shape s = sphere(0, 1.3, 0, 0, 0.5); /* mantle */
    nscd__contact_point p = single_contact(&s, &c, 0.0);
    check_point(&p, (double[]){0.9, 0, 0}, (double[]){-1, 0, 0}, -0.2);
    s = sphere(0, 0.3, 0.4, 0.9, 0.5); /* cap */
    p = single_contact(&s, &c, 0.0);
    check_point(&p, (double[]){0.3, 0.4, 0.45}, (double[]){0, 0, -1}, -0.1);
    s = sphere(0, 0, 1.3, 0.9, 0.5); /* rim: 0.3 out, 0.4 up */
    p = single_contact(&s, &c, 0.1);
    check_point(&p, (double[]){0, 1, 0.5}, (double[]){0, -0.6, -0.8}, 0.0);
    s = sphere(0, 0.9, 0, 0.1, 0.5); /* centre inside, nearer the mantle */
    p = single_contact(&s, &c, 0.0);
    check_point(&p, (double[]){0.7, 0, 0.1}, (double[]){-1, 0, 0}, -0.6);
    s = sphere(0, 0, 0, 0, 0.5); /* centre on the axis, nearer a cap (0.5 < 1) */
    p = single_contact(&s, &c, 0.0);
    near(p.gap, -1.0);
    near(fabs(p.normal[2]), 1.0);
}

static void half_space_cylinder(void **state) {
    (void)state;
    nscd__collision_shape h = half_space(0, ORIGIN, nscd__v3(0, 0, 1));
    nscd__collision_shape c = cylinder(1, (double[]){0.2, 0.1, 0.45}, nscd__q_identity(), 1.0, 0.5);
    nscd__contact_point p[8];
    assert_int_equal(pair_contacts(&h, &c, 0.0, p), 4); /* standing: 4 rim points */
    for (int k = 0; k < 4; ++k) {
        assert_int_equal(p[k].feature, k);
        near(p[k].gap, -0.05);
        near(hypot(p[k].point[0] - 0.2, p[k].point[1] - 0.1), 1.0);
    }
    /* lying (axis along -y): the two ends of the contact line */
    c = cylinder(1, (double[]){0, 0, 0.95}, nscd__q_from_axis_angle(nscd__v3(1, 0, 0), PI / 2), 1.0,
                 0.5);
    assert_int_equal(pair_contacts(&h, &c, 0.0, p), 2);
    near(p[0].gap, -0.05);
    near(p[1].gap, -0.05);
    near(fabs(p[0].point[1] - p[1].point[1]), 1.0);
    /* tilted by 0.3 rad about (1, 1, 0): the deepest rim point of the lower
     * cap, halfway between two fixed rim points */
    double t = 0.3;
    c = cylinder(1, (double[]){0, 0, 0.7}, nscd__q_from_axis_angle(nscd__v3(1, 1, 0), t), 1.0, 0.5);
    assert_int_equal(pair_contacts(&h, &c, 0.0, p), 1);
    near(p[0].gap, 0.7 - 0.5 * cos(t) - 1.0 * sin(t));
    assert_int_equal(p[0].feature, 8);
    /* a huge margin sees all 10 rim points: the 4 deepest are of the lower
     * cap, its deepest point among them */
    assert_int_equal(pair_contacts(&h, &c, 10.0, p), 4);
    int has_deepest = 0;
    for (int k = 0; k < 4; ++k) {
        assert_true(p[k].feature <= 3 || p[k].feature == 8);
        has_deepest |= p[k].feature == 8;
    }
    assert_true(has_deepest);
    /* upside down: the lower cap is cap 1 (fixed points 4-7, deepest 9),
     * whose points come last */
    c = cylinder(1, (double[]){0, 0, 0.7}, nscd__q_from_axis_angle(nscd__v3(1, 1, 0), PI - t), 1.0,
                 0.5);
    assert_int_equal(pair_contacts(&h, &c, 10.0, p), 4);
    has_deepest = 0;
    for (int k = 0; k < 4; ++k) {
        assert_true((p[k].feature >= 4 && p[k].feature <= 7) || p[k].feature == 9);
        has_deepest |= p[k].feature == 9;
    }
    assert_true(has_deepest);
}

/* Pairs through GJK on rounded cores: exact while the penetration stays below
 * the roundings, so these use shallow contacts on faces and mantles. */
static void cylinder_gjk_pairs(void **state) {
    (void)state;
    const double tol = 1e-7;
    nscd__collision_shape b = box(0, ORIGIN, nscd__q_identity(), 2, 2, 1);
    nscd__collision_shape c = cylinder(1, (double[]){0.3, 0, 1.48}, nscd__q_identity(), 0.5, 0.5);
    nscd__contact_point p[8];
    assert_int_equal(pair_contacts(&b, &c, 0.0, p), 4); /* standing on the box: its rim */
    for (int k = 0; k < 4; ++k) {
        near(p[k].gap, -0.02);
        near(p[k].normal[2], 1.0);
        near(p[k].point[2], 0.99);
        near(hypot(p[k].point[0] - 0.3, p[k].point[1]), 0.5);
        assert_true(p[k].feature >= 16 && p[k].feature < 26);
    }
    /* over the edge x = 2: the cap clipped to the face (the part of the
     * disc with x <= 2), 4 points inside both */
    c.position[0] = 1.9;
    assert_int_equal(pair_contacts(&b, &c, 0.0, p), 4);
    double xmax = 0.0;
    for (int k = 0; k < 4; ++k) {
        near(p[k].gap, -0.02);
        assert_true(p[k].point[0] <= 2.0 + 1e-12);
        assert_true(hypot(p[k].point[0] - 1.9, p[k].point[1]) <= 0.5 + 1e-12);
        xmax = fmax(xmax, p[k].point[0]);
    }
    near(xmax, 2.0); /* the clip's corners on the box's edge */
    nscd__quat along_x = nscd__q_from_axis_angle(nscd__v3(0, 1, 0), PI / 2);
    nscd__quat along_y = nscd__q_from_axis_angle(nscd__v3(1, 0, 0), PI / 2);
    c = cylinder(1, (double[]){0.3, 0.2, 1.49}, along_x, 0.5, 0.8); /* lying on it: 2 ends */
    assert_int_equal(pair_contacts(&b, &c, 0.0, p), 2);
    for (int k = 0; k < 2; ++k) {
        near(p[k].gap, -0.01);
        near(p[k].normal[2], 1.0);
        near(fabs(p[k].point[0] - 0.3), 0.8);
    }
    /* deep (past the roundings): the sampled SAT finds the face normal, and
     * the face manifold gives the two ends again, each point midway between
     * the rim and the face, so inside both shapes (issue 24: the supports'
     * midpoint lay outside both) */
    c.position[2] = 1.3;
    assert_int_equal(pair_contacts(&b, &c, 0.0, p), 2);
    for (int k = 0; k < 2; ++k) {
        near_tol(p[k].gap, -0.2, tol);
        near_tol(p[k].normal[2], 1.0, tol);
        near(fabs(p[k].point[0] - 0.3), 0.8);
        assert_true(p[k].point[2] < 1.0);                                   /* in the box */
        assert_true(hypot(p[k].point[1] - 0.2, p[k].point[2] - 1.3) < 0.5); /* in the cylinder */
    }
    c.position[2] = 1.6; /* separated */
    assert_int_equal(pair_contacts(&b, &c, 0.05, p), 0);
    assert_int_equal(pair_contacts(&b, &c, 0.2, p), 2);
    near_tol(p[0].gap, 0.1, tol);
    /* a box lying on a wide cylinder's cap: its corners over the cap */
    nscd__collision_shape w = cylinder(1, ORIGIN, nscd__q_identity(), 2.0, 0.5);
    nscd__collision_shape q = box(0, (double[]){0.3, 0.2, 0.99}, nscd__q_identity(), 0.5, 0.5, 0.5);
    assert_int_equal(pair_contacts(&q, &w, 0.0, p), 4);
    for (int k = 0; k < 4; ++k) {
        assert_int_equal(p[k].feature, 32 + k);
        near(p[k].gap, -0.01);
        near(p[k].normal[2], -1.0); /* from the box down to the cylinder */
        near(p[k].point[2], 0.495);
    }
    /* two cylinders crossed, mantle on mantle */
    nscd__collision_shape d = cylinder(0, ORIGIN, along_x, 0.5, 1.0);
    nscd__collision_shape e = cylinder(1, (double[]){0.1, 0.2, 0.97}, along_y, 0.5, 1.0);
    assert_int_equal(pair_contacts(&d, &e, 0.0, p), 1);
    near_tol(p[0].gap, -0.03, 1e-6);
    near_tol(p[0].normal[2], 1.0, 1e-6);
    near_tol(p[0].point[0], 0.1, 1e-4);
    near_tol(p[0].point[2], 0.485, 1e-6);
    /* capsule across a cylinder */
    nscd__collision_shape k = capsule(0, (double[]){0, 0, 0.7}, along_y, 0.25, 1.0);
    nscd__collision_shape l = cylinder(1, ORIGIN, along_x, 0.5, 1.0);
    assert_int_equal(pair_contacts(&k, &l, 0.0, p), 1);
    near_tol(p[0].gap, -0.05, 1e-6);
    near_tol(p[0].normal[2], -1.0, 1e-6); /* from the capsule (key smaller) down */
}

/* ---------------------------------------------------------------- exact cylinder pairs */

/* Signed distance of the world point p to a cylinder, a capsule or a box, in
 * closed form (the test's own, not the narrow phase's). */
static double round_distance(const nscd__collision_shape *s, const double p[3]) {
    const double *r = s->rotation;
    double d[3] = {p[0] - s->position[0], p[1] - s->position[1], p[2] - s->position[2]}, l[3];
    for (int i = 0; i < 3; ++i) {
        l[i] = r[i] * d[0] + r[3 + i] * d[1] + r[6 + i] * d[2];
    }
    if (s->type == NSCD_SHAPE_BOX) {
        double q[3], out = 0.0, in = -INFINITY;
        for (int i = 0; i < 3; ++i) {
            q[i] = fabs(l[i]) - s->half_extents[i];
            out += fmax(q[i], 0.0) * fmax(q[i], 0.0);
            in = fmax(in, q[i]);
        }
        return in > 0.0 ? sqrt(out) : in;
    }
    if (s->type == NSCD_SHAPE_CAPSULE) {
        double z = fmax(-s->half_height, fmin(s->half_height, l[2]));
        return sqrt(l[0] * l[0] + l[1] * l[1] + (l[2] - z) * (l[2] - z)) - s->radius;
    }
    double a = hypot(l[0], l[1]) - s->radius, b = fabs(l[2]) - s->half_height;
    if (a <= 0.0 && b <= 0.0) {
        return fmax(a, b);
    }
    return hypot(fmax(a, 0.0), fmax(b, 0.0));
}

/* The manifold of a (body 0, the smaller key) and b: its deepest gap is
 * `gap` and its normal `n` (to tol_gap, tol_n); every point shares that
 * normal, lies midway between the surfaces (p -+ gap/2 n on or inside a and
 * b, on both for the deepest) and no gap is below the deepest. Returns the
 * number of points. */
static int32_t check_round_pair(const nscd__collision_shape *a, const nscd__collision_shape *b,
                                double margin, double gap, const double n[3], double tol_gap,
                                double tol_n) {
    nscd__contact_point p[8];
    int32_t count = pair_contacts(a, b, margin, p);
    assert_true(count >= 1);
    int32_t deepest = 0;
    for (int32_t k = 0; k < count; ++k) {
        assert_int_equal(p[k].shape_a, 0);
        deepest = p[k].gap < p[deepest].gap ? k : deepest;
        for (int i = 0; i < 3; ++i) {
            near(p[k].normal[i], p[0].normal[i]);
        }
    }
    near_tol(p[deepest].gap, gap, tol_gap);
    for (int i = 0; i < 3; ++i) {
        near_tol(p[deepest].normal[i], n[i], tol_n);
    }
    for (int32_t k = 0; k < count; ++k) {
        double pa[3], pb[3], g = p[k].gap;
        for (int i = 0; i < 3; ++i) {
            pa[i] = p[k].point[i] - 0.5 * g * p[k].normal[i];
            pb[i] = p[k].point[i] + 0.5 * g * p[k].normal[i];
        }
        double da = round_distance(a, pa), db = round_distance(b, pb);
        assert_true(da <= 1e-9 && db <= 1e-9);
        if (k == deepest) {
            near_tol(da, 0.0, 1e-9);
            near_tol(db, 0.0, 1e-9);
        }
    }
    return count;
}

/* Configurations with a closed-form answer (sizes of 1-3 cm, 0.1 mm
 * overlaps, and 2 mm: four times the old 5 % rounding of a 1 cm cylinder),
 * with the manifold's point count: a flat contact region rests on 2 to 4
 * points, a crossing or a rim on one. A normal perpendicular to an axis
 * comes from a golden-section search: exact to ~1e-8 (its gap to round-off). */
static void cylinder_pairs_analytic(void **state) {
    (void)state;
    const double margin = 1e-3, up[3] = {0, 0, 1}, down[3] = {0, 0, -1};
    nscd__quat along_x = nscd__q_from_axis_angle(nscd__v3(0, 1, 0), PI / 2);
    nscd__quat along_y = nscd__q_from_axis_angle(nscd__v3(1, 0, 0), PI / 2);
    nscd__quat upright = nscd__q_identity();
    nscd__contact_point p[8];
    /* standing on a wider cylinder, cap on cap: 4 points over the smaller cap */
    nscd__collision_shape lower = cylinder(0, ORIGIN, upright, 0.010, 0.010);
    nscd__collision_shape upper =
        cylinder(1, (double[]){0.002, 0.001, 0.0199}, upright, 0.008, 0.010);
    assert_int_equal(check_round_pair(&lower, &upper, margin, -1e-4, up, 1e-12, 1e-12), 4);
    assert_int_equal(pair_contacts(&lower, &upper, margin, p), 4);
    for (int k = 0; k < 4; ++k) {
        near(p[k].gap, -1e-4);
        assert_true(hypot(p[k].point[0] - 0.002, p[k].point[1] - 0.001) <= 0.008 + 1e-12);
    }
    /* half off the edge: the lens of the two caps, 4 points inside both */
    upper.position[0] = 0.013;
    assert_int_equal(check_round_pair(&lower, &upper, margin, -1e-4, up, 1e-12, 1e-12), 4);
    assert_int_equal(pair_contacts(&lower, &upper, margin, p), 4);
    for (int k = 0; k < 4; ++k) {
        assert_true(hypot(p[k].point[0], p[k].point[1]) <= 0.010 + 1e-9);
        assert_true(hypot(p[k].point[0] - 0.013, p[k].point[1] - 0.001) <= 0.008 + 1e-9);
    }
    /* deep: 2 mm into the cap */
    upper.position[0] = 0.002, upper.position[2] = 0.018;
    assert_int_equal(check_round_pair(&lower, &upper, margin, -2e-3, up, 1e-12, 1e-12), 4);
    /* separated within the margin */
    upper.position[2] = 0.0205;
    assert_int_equal(check_round_pair(&lower, &upper, margin, 5e-4, up, 1e-12, 1e-12), 4);
    upper.position[2] = 0.0212;
    assert_int_equal(pair_contacts(&lower, &upper, margin, p), 0);
    /* lying on its side on a cap: the side line over the cap, 2 points */
    nscd__collision_shape lying =
        cylinder(1, (double[]){0.003, 0.002, 0.0189}, along_x, 0.009, 0.006);
    assert_int_equal(check_round_pair(&lower, &lying, margin, -1e-4, up, 1e-12, 1e-12), 2);
    /* standing on a lying cylinder: its cap on the side line, 2 points */
    nscd__collision_shape log = cylinder(0, ORIGIN, along_x, 0.010, 0.015);
    nscd__collision_shape post =
        cylinder(1, (double[]){0.004, 0.001, 0.0199}, upright, 0.006, 0.010);
    assert_int_equal(check_round_pair(&log, &post, margin, -1e-4, up, 1e-9, 1e-7), 2);
    /* side on side, parallel: 2 points at the ends of the overlap */
    nscd__collision_shape log2 = cylinder(1, (double[]){0.009, 0.0, 0.0199}, along_x, 0.010, 0.012);
    assert_int_equal(check_round_pair(&log, &log2, margin, -1e-4, up, 1e-9, 1e-7), 2);
    assert_int_equal(pair_contacts(&log, &log2, margin, p), 2);
    near_tol(fmin(p[0].point[0], p[1].point[0]), -0.003, 1e-9);
    near_tol(fmax(p[0].point[0], p[1].point[0]), 0.015, 1e-9);
    log2.position[2] = 0.018; /* deep, 2 mm */
    assert_int_equal(check_round_pair(&log, &log2, margin, -2e-3, up, 1e-9, 1e-7), 2);
    /* crossed side on side: one point, at the crossing */
    nscd__collision_shape cross =
        cylinder(1, (double[]){0.003, 0.002, 0.0199}, along_y, 0.010, 0.012);
    assert_int_equal(check_round_pair(&log, &cross, margin, -1e-4, up, 1e-9, 1e-7), 1);
    assert_int_equal(pair_contacts(&log, &cross, margin, p), 1);
    near_tol(p[0].point[0], 0.003, 1e-9);
    near_tol(p[0].point[1], 0.0, 1e-9);
    /* a capsule lying across a lying cylinder: one point */
    nscd__collision_shape rod = capsule(0, (double[]){0.002, 0.003, 0.0149}, along_y, 0.005, 0.012);
    nscd__collision_shape drum = cylinder(1, ORIGIN, along_x, 0.010, 0.015);
    assert_int_equal(check_round_pair(&rod, &drum, margin, -1e-4, down, 1e-9, 1e-7), 1);
    /* parallel to the side line: 2 points */
    rod = capsule(0, (double[]){0.004, 0.0, 0.0149}, along_x, 0.005, 0.008);
    assert_int_equal(check_round_pair(&rod, &drum, margin, -1e-4, down, 1e-9, 1e-7), 2);
    rod.position[2] = 0.013; /* deep: 2 mm */
    assert_int_equal(check_round_pair(&rod, &drum, margin, -2e-3, down, 1e-9, 1e-7), 2);
    /* lying on a cap: 2 points; standing on it: 1 */
    nscd__collision_shape stand = cylinder(1, ORIGIN, upright, 0.010, 0.010);
    rod = capsule(0, (double[]){0.001, 0.002, 0.0149}, along_x, 0.005, 0.006);
    assert_int_equal(check_round_pair(&rod, &stand, margin, -1e-4, down, 1e-12, 1e-12), 2);
    rod = capsule(0, (double[]){0.001, 0.002, 0.0259}, upright, 0.005, 0.011);
    assert_int_equal(check_round_pair(&rod, &stand, margin, -1e-4, down, 1e-12, 1e-12), 1);
}

/* Box-cylinder with a closed-form answer (sizes of 1-3 cm, 0.1 mm and 2 mm
 * overlaps, separated within the margin), with the point counts: a cap on a
 * face clipped to it (up to 4), a box face on a cap (its corners over the
 * cap, or clipped to the disc), a side line on a face or an edge parallel to
 * a side line (2), an edge across a side line (1). The box is body 0. */
static void cylinder_box_analytic(void **state) {
    (void)state;
    const double margin = 1e-3, up[3] = {0, 0, 1}, down[3] = {0, 0, -1};
    const double r2 = sqrt(2.0);
    nscd__quat along_x = nscd__q_from_axis_angle(nscd__v3(0, 1, 0), PI / 2);
    nscd__quat along_y = nscd__q_from_axis_angle(nscd__v3(1, 0, 0), PI / 2);
    nscd__quat diamond = nscd__q_from_axis_angle(nscd__v3(1, 0, 0), PI / 4); /* edge up, along x */
    nscd__contact_point p[8];
    /* lying across a box edge: the crossing, one point over it */
    nscd__collision_shape edge = box(0, ORIGIN, diamond, 0.01, 0.01, 0.01);
    nscd__collision_shape log =
        cylinder(1, (double[]){0.002, 0.001, 0.01 * r2 + 0.005 - 1e-4}, along_y, 0.005, 0.015);
    assert_int_equal(check_round_pair(&edge, &log, margin, -1e-4, up, 1e-9, 1e-7), 1);
    assert_int_equal(pair_contacts(&edge, &log, margin, p), 1);
    near_tol(p[0].point[0], 0.002, 1e-9);
    near_tol(p[0].point[1], 0.0, 1e-9);
    log.position[2] = 0.01 * r2 + 0.005 - 2e-3; /* deep: 2 mm */
    assert_int_equal(check_round_pair(&edge, &log, margin, -2e-3, up, 1e-9, 1e-7), 1);
    log.position[2] = 0.01 * r2 + 0.005 + 5e-4; /* separated within the margin */
    assert_int_equal(check_round_pair(&edge, &log, margin, 5e-4, up, 1e-9, 1e-7), 1);
    log.position[2] = 0.01 * r2 + 0.005 + 1.2e-3;
    assert_int_equal(pair_contacts(&edge, &log, margin, p), 0);
    /* lying along the edge: the edge on the side line, the ends of the
     * overlap (the edge's ends, x = -0.01 and 0.01) */
    log = cylinder(1, (double[]){0.004, 0.0, 0.01 * r2 + 0.005 - 1e-4}, along_x, 0.005, 0.02);
    assert_int_equal(check_round_pair(&edge, &log, margin, -1e-4, up, 1e-9, 1e-7), 2);
    assert_int_equal(pair_contacts(&edge, &log, margin, p), 2);
    near_tol(fmin(p[0].point[0], p[1].point[0]), -0.01, 1e-9);
    near_tol(fmax(p[0].point[0], p[1].point[0]), 0.01, 1e-9);
    /* standing on a box's corner region, overhanging two sides: the cap
     * clipped to the face, 4 points inside the face and the disc */
    nscd__collision_shape slab = box(0, ORIGIN, nscd__q_identity(), 0.02, 0.015, 0.01);
    nscd__collision_shape post =
        cylinder(1, (double[]){0.017, 0.012, 0.02 - 1e-4}, nscd__q_identity(), 0.008, 0.01);
    assert_int_equal(check_round_pair(&slab, &post, margin, -1e-4, up, 1e-12, 1e-12), 4);
    assert_int_equal(pair_contacts(&slab, &post, margin, p), 4);
    for (int k = 0; k < 4; ++k) {
        near(p[k].gap, -1e-4);
        assert_true(p[k].point[0] <= 0.02 + 1e-12 && p[k].point[1] <= 0.015 + 1e-12);
        assert_true(hypot(p[k].point[0] - 0.017, p[k].point[1] - 0.012) <= 0.008 + 1e-12);
    }
    post.position[2] = 0.02 - 2e-3; /* deep */
    assert_int_equal(check_round_pair(&slab, &post, margin, -2e-3, up, 1e-12, 1e-12), 4);
    /* tilted 10 degrees on the face (within it): the lowest rim point */
    double tilt = 10.0 * PI / 180.0;
    post = cylinder(1, (double[]){0.003, 0.002, 0.0},
                    nscd__q_from_axis_angle(nscd__v3(1, 0, 0), tilt), 0.008, 0.01);
    post.position[2] = 0.01 + 0.01 * cos(tilt) + 0.008 * sin(tilt) - 1e-4;
    check_round_pair(&slab, &post, margin, -1e-4, up, 1e-12, 1e-12);
    /* lying on the face, overhanging its end x = 0.02: the side line
     * clipped to the face, 2 points, one on the face's side */
    log = cylinder(1, (double[]){0.015, 0.002, 0.015 - 1e-4}, along_x, 0.005, 0.012);
    assert_int_equal(check_round_pair(&slab, &log, margin, -1e-4, up, 1e-12, 1e-12), 2);
    assert_int_equal(pair_contacts(&slab, &log, margin, p), 2);
    near_tol(fmin(p[0].point[0], p[1].point[0]), 0.003, 1e-12);
    near_tol(fmax(p[0].point[0], p[1].point[0]), 0.02, 1e-12);
    /* a box lying on a smaller cylinder's cap: its face clipped to the disc
     * (4 points inside both), normal from the box down */
    nscd__collision_shape drum = cylinder(1, ORIGIN, nscd__q_identity(), 0.008, 0.01);
    nscd__collision_shape lid =
        box(0, (double[]){0.003, 0.001, 0.02 - 1e-4}, nscd__q_identity(), 0.01, 0.01, 0.01);
    assert_int_equal(check_round_pair(&lid, &drum, margin, -1e-4, down, 1e-12, 1e-12), 4);
    assert_int_equal(pair_contacts(&lid, &drum, margin, p), 4);
    for (int k = 0; k < 4; ++k) {
        assert_true(hypot(p[k].point[0], p[k].point[1]) <= 0.008 + 1e-9);
    }
    /* a box's edge on a lying cylinder's side, parallel: 2 points */
    nscd__collision_shape roll = cylinder(1, ORIGIN, along_x, 0.01, 0.015);
    nscd__collision_shape ridge =
        box(0, (double[]){0.005, 0.0, 0.01 + 0.01 * r2 - 1e-4}, diamond, 0.008, 0.01, 0.01);
    assert_int_equal(check_round_pair(&ridge, &roll, margin, -1e-4, down, 1e-9, 1e-7), 2);
    assert_int_equal(pair_contacts(&ridge, &roll, margin, p), 2);
    near_tol(fmin(p[0].point[0], p[1].point[0]), -0.003, 1e-9);
    near_tol(fmax(p[0].point[0], p[1].point[0]), 0.013, 1e-9);
    /* a box's face on the lying cylinder's side: 2 points */
    ridge = box(0, (double[]){0.005, 0.0, 0.02 - 1e-4}, nscd__q_identity(), 0.008, 0.01, 0.01);
    assert_int_equal(check_round_pair(&ridge, &roll, margin, -1e-4, down, 1e-9, 1e-7), 2);
}

/* Box-cylinder against the same sampling reference
 * (tests/unit/cylinder_pairs_reference.py --box: the box's 8 corners, the
 * cylinder's rims sampled densely; its BOX_CASES): rims, edges, corners,
 * tilted, deep and separated. The box is A (body 0). */
static void cylinder_box_against_sampling(void **state) {
    (void)state;
    static const struct {
        double pos_a[3], axis_a[3], angle_a, e[3];
        double axis_b[3], angle_b, r_b, h_b;
        double pos_b[3], gap, n[3];
    } cases[] = {
        /* a cylinder tilted 20 degrees on a box face: its rim */
        {{0.0, 0.0, 0.0},
         {0.0, 0.0, 1.0},
         0.0,
         {0.02, 0.015, 0.01},
         {1.0, 0.3, 0.0},
         0.3490658503988659,
         0.008,
         0.006,
         {4.0000000000e-03, 3.0000000000e-03, 1.8274316862e-02},
         -1.0000000000e-04,
         {0.00000000, -0.00000000, 1.00000000}},
        /* lying across a box edge, both tilted, deep (2 mm) */
        {{0.0, 0.0, 0.0},
         {1.0, 0.1, 0.0},
         0.7853981633974483,
         {0.01, 0.01, 0.01},
         {0.2, 1.0, 0.1},
         1.4,
         0.006,
         0.015,
         {1.0030492520e-03, 1.9540549175e-03, 1.8953979522e-02},
         -2.0000000000e-03,
         {-0.04683883, 0.70575140, 0.70690953}},
        /* a tilted box on an upright cylinder's cap and rim */
        {{0.012, 0.004, 0.022},
         {1.0, 0.7, 0.3},
         0.9,
         {0.008, 0.006, 0.005},
         {1.0, 0.0, 0.0},
         0.0,
         0.01,
         0.01,
         {1.5791265755e-03, 4.3653588440e-04, 4.1565730380e-03},
         -1.0000000000e-04,
         {-0.35344553, -0.09770696, -0.93033844}},
        /* a tilted box's edge on a cylinder's cap, off centre */
        {{0.002, 0.001, 0.0175},
         {0.1, 1.0, 0.0},
         0.6,
         {0.008, 0.006, 0.005},
         {0.0, 0.0, 1.0},
         0.0,
         0.012,
         0.01,
         {-2.8804012975e-19, -6.2149259715e-20, -1.3585043123e-03},
         -1.0000000000e-04,
         {-0.00000000, -0.00000000, -1.00000000}},
        /* a box corner into a lying cylinder, deep (2 mm) */
        {{0.001, 0.0, 0.0175},
         {1.0, 1.0, 1.0},
         0.7,
         {0.006, 0.006, 0.006},
         {0.0, 1.0, 0.0},
         1.5707963267948966,
         0.01,
         0.015,
         {2.3606851984e-23, 2.9771763888e-08, -3.9827597954e-07},
         -2.0000000000e-03,
         {0.00000000, 0.07454362, -0.99721775}},
        /* a tilted box face on a cylinder's rim, separated within the margin */
        {{0.014, 0.0, 0.018},
         {0.0, 1.0, 0.0},
         0.5,
         {0.006, 0.01, 0.006},
         {0.0, 0.0, 1.0},
         0.0,
         0.01,
         0.01,
         {1.2169558804e-03, 1.1100588470e-19, 2.2276227970e-03},
         4.0000000000e-04,
         {-0.47942554, -0.00000000, -0.87758256}},
        /* a tilted cylinder's rim on a box's edge */
        {{0.0, 0.0, 0.0},
         {0.0, 0.0, 1.0},
         0.0,
         {0.01, 0.01, 0.01},
         {1.0, -1.0, 0.5},
         0.8,
         0.007,
         0.006,
         {1.4411543649e-02, 3.0000000000e-03, 1.6231485150e-02},
         -1.0000000000e-04,
         {0.87158292, -0.00000000, 0.49024812}},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        const double *xa = cases[k].axis_a, *xb = cases[k].axis_b;
        nscd__quat qa = nscd__q_from_axis_angle(nscd__v3(xa[0], xa[1], xa[2]), cases[k].angle_a);
        nscd__quat qb = nscd__q_from_axis_angle(nscd__v3(xb[0], xb[1], xb[2]), cases[k].angle_b);
        nscd__collision_shape a =
            box(0, cases[k].pos_a, qa, cases[k].e[0], cases[k].e[1], cases[k].e[2]);
        nscd__collision_shape b = cylinder(1, cases[k].pos_b, qb, cases[k].r_b, cases[k].h_b);
        print_message("box case %zu\n", k);
        check_round_pair(&a, &b, 1e-3, cases[k].gap, cases[k].n, 2e-8, 1e-3);
    }
}

/* The world point of shape s's local point l. */
static void local_to_world(const nscd__collision_shape *s, const double l[3], double out[3]) {
    const double *r = s->rotation;
    for (int i = 0; i < 3; ++i) {
        out[i] = s->position[i] + r[3 * i] * l[0] + r[3 * i + 1] * l[1] + r[3 * i + 2] * l[2];
    }
}

/* The largest separation over `dirs` directions of the box's corners and 720
 * samples of each rim of the cylinder (the sampled signed distance: below
 * the exact one by at most the sampling's error). */
static double sampled_box_cylinder(const nscd__collision_shape *a, const nscd__collision_shape *b,
                                   int dirs) {
    double corners[8][3], rims[1440][3];
    for (int k = 0; k < 8; ++k) {
        double l[3] = {k & 1 ? a->half_extents[0] : -a->half_extents[0],
                       k & 2 ? a->half_extents[1] : -a->half_extents[1],
                       k & 4 ? a->half_extents[2] : -a->half_extents[2]};
        local_to_world(a, l, corners[k]);
    }
    for (int k = 0; k < 1440; ++k) {
        double t = 2.0 * PI * (k % 720) / 720.0;
        double l[3] = {b->radius * cos(t), b->radius * sin(t),
                       k < 720 ? -b->half_height : b->half_height};
        local_to_world(b, l, rims[k]);
    }
    double best = -INFINITY;
    for (int d = 0; d < dirs; ++d) {
        double z = 1.0 - 2.0 * (d + 0.5) / dirs, t = PI * (1.0 + sqrt(5.0)) * (d + 0.5);
        double n[3] = {sqrt(1.0 - z * z) * cos(t), sqrt(1.0 - z * z) * sin(t), z};
        double hi = -INFINITY, lo = INFINITY;
        for (int k = 0; k < 8; ++k) {
            hi = fmax(hi, n[0] * corners[k][0] + n[1] * corners[k][1] + n[2] * corners[k][2]);
        }
        for (int k = 0; k < 1440; ++k) {
            lo = fmin(lo, n[0] * rims[k][0] + n[1] * rims[k][1] + n[2] * rims[k][2]);
        }
        best = fmax(best, lo - hi);
    }
    return best;
}

/* 80 random box-cylinder poses (10 under NSCD_TEST_SMALL: the dense
 * sampling of the reference is 64 % of the test's time, 79 s under valgrind
 * with 80), sampled signed distance -2 to 1 mm: the
 * manifold's deepest gap is at least the sampled one (no sampled direction
 * separates more: the search found the largest separation), and its points
 * lie midway between the surfaces, the deepest on both (check_round_pair's
 * conditions, the deepest gap its own reference): when separated, two
 * surface points that far apart along the normal bound the distance from
 * above, the separation along the normal from below. */
static void cylinder_box_random(void **state) {
    (void)state;
    uint64_t rng = 0x2545F4914F6CDD1Dull;
    int tested = 0;
    const int poses = NSCD_TEST_SIZE(80, 10);
    for (int t = 0; t < poses; ++t) {
        double r[12];
        for (int k = 0; k < 12; ++k) {
            rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
            r[k] = (double)(rng >> 11) / 9007199254740992.0;
        }
        nscd__quat qa =
            nscd__q_from_axis_angle(nscd__v3(r[0] - 0.5, r[1] - 0.5, r[2] - 0.5), 6 * r[3]);
        nscd__quat qb =
            nscd__q_from_axis_angle(nscd__v3(r[4] - 0.5, r[5] - 0.5, r[6] - 0.5), 6 * r[7]);
        nscd__collision_shape a =
            box(0, ORIGIN, qa, 0.005 + 0.01 * r[8], 0.005 + 0.01 * r[9], 0.005 + 0.01 * r[10]);
        nscd__collision_shape b =
            cylinder(1, ORIGIN, qb, 0.004 + 0.01 * r[11], 0.004 + 0.01 * r[2]);
        /* along a random direction, to a sampled distance of about r[5] * 3 mm - 2 mm */
        double dir[3] = {r[6] - 0.5, r[9] - 0.5, r[0] - 0.5},
               len = sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
        double lo = 0.0, hi = 0.1, want = 3e-3 * r[5] - 2e-3;
        for (int it = 0; it < 40; ++it) {
            double mid = 0.5 * (lo + hi);
            for (int i = 0; i < 3; ++i) {
                b.position[i] = mid * dir[i] / len;
            }
            if (sampled_box_cylinder(&a, &b, 200) < want) {
                lo = mid;
            } else {
                hi = mid;
            }
            if (hi - lo < 1e-5) {
                break;
            }
        }
        double ref = sampled_box_cylinder(&a, &b, 2000);
        nscd__contact_point p[8];
        int32_t count = pair_contacts(&a, &b, 1e-3, p);
        if (ref >= 1e-3 + 1e-7) { /* a sampled direction separates by the margin */
            assert_int_equal(count, 0);
        }
        if (count == 0) { /* the search's axis separates by the margin */
            continue;
        }
        int32_t deepest = 0;
        for (int32_t k = 0; k < count; ++k) {
            deepest = p[k].gap < p[deepest].gap ? k : deepest;
        }
        /* no sampled direction separates more (720 rim samples: the
         * sampled value is above the true one along a direction by 1e-7 at
         * most) */
        if (!(p[deepest].gap >= ref - 1e-7)) {
            print_message("random case %d: gap %.9g sampled %.9g\n", t, p[deepest].gap, ref);
        }
        assert_true(p[deepest].gap >= ref - 1e-7);
        check_round_pair(&a, &b, 1e-3, p[deepest].gap, p[deepest].normal, 1e-15, 1e-15);
        ++tested;
    }
    print_message("%d random box-cylinder poses\n", tested);
    assert_true(tested > poses / 2);
}

/* Tilted, crossed, rim and deep configurations against an independent
 * reference: tests/unit/cylinder_pairs_reference.py samples both surfaces
 * densely and maximises the separation over directions (its table below;
 * B's position was moved there along the normal to the gap wanted). The
 * sampling is fine to ~1e-9 m in the gap; Nelder-Mead on sampled supports
 * gives the normal to ~1e-3 only (the separation is flat about its maximum:
 * case 5 is off by 3e-4 where the closed-form support agrees with the
 * library to 1e-8). */
static void cylinder_pairs_against_sampling(void **state) {
    (void)state;
    static const struct {
        int type_a;
        double pos_a[3], axis_a[3], angle_a, r_a, h_a;
        int type_b;
        double axis_b[3], angle_b, r_b, h_b;
        double pos_b[3], gap, n[3];
    } cases[] = {
        /* a cylinder standing on a wider one, tilted 10 degrees: its rim */
        {NSCD_SHAPE_CYLINDER,
         {0, 0, 0},
         {1, 0, 0},
         0.0,
         0.010,
         0.010,
         NSCD_SHAPE_CYLINDER,
         {1, 0, 0},
         0.17453292519943295,
         0.008,
         0.010,
         {1.0000000000e-03, 2.0000000000e-03, 2.1187262951e-02},
         -5.0000000000e-05,
         {0.0, 0.0, 1.00000000}},
        /* crossed and tilted, mantle on mantle, deep */
        {NSCD_SHAPE_CYLINDER,
         {0, 0, 0},
         {0, 1, 0},
         1.5707963267948966,
         0.010,
         0.015,
         NSCD_SHAPE_CYLINDER,
         {0.5, 0.8660254037844386, 0.3},
         1.5,
         0.010,
         0.012,
         {2.0000000000e-03, 1.2827395549e-03, 1.9198820964e-02},
         -2.0000000000e-03,
         {0.0, 0.22955014, 0.97329684}},
        /* a rim on a tilted cap */
        {NSCD_SHAPE_CYLINDER,
         {0, 0, 0},
         {1, 1, 0},
         0.6,
         0.010,
         0.008,
         NSCD_SHAPE_CYLINDER,
         {1, -0.3, 0.2},
         2.2,
         0.009,
         0.007,
         {1.1133251431e-03, -1.1332514307e-04, 2.0532809399e-02},
         -1.0000000000e-04,
         {0.39926252, -0.39926252, 0.82533561}},
        /* a rim over a mantle, separated within the margin */
        {NSCD_SHAPE_CYLINDER,
         {0, 0, 0},
         {0, 1, 0},
         1.5707963267948966,
         0.010,
         0.015,
         NSCD_SHAPE_CYLINDER,
         {1, 0.2, 0},
         0.7,
         0.008,
         0.008,
         {3.0000000000e-03, 9.8889596496e-04, 2.1672395230e-02},
         4.0000000000e-04,
         {0.0, 0.00392698, 0.99999229}},
        /* a capsule's end on a cylinder's rim */
        {NSCD_SHAPE_CAPSULE,
         {0, 0, 0.027},
         {1, 0.4, 0},
         0.5,
         0.005,
         0.010,
         NSCD_SHAPE_CYLINDER,
         {0, 0, 1},
         0.0,
         0.010,
         0.010,
         {6.0000000000e-03, 7.2167426234e-19, 3.3241815547e-03},
         -1.0000000000e-04,
         {0.0, 0.0, -1.00000000}},
        /* a capsule tilted across a lying cylinder, deep */
        {NSCD_SHAPE_CAPSULE,
         {0.001, 0.002, 0.0135},
         {0.3, 1, 0.2},
         1.3,
         0.005,
         0.012,
         NSCD_SHAPE_CYLINDER,
         {0, 1, 0},
         1.5707963267948966,
         0.010,
         0.015,
         {4.4038993908e-19, -9.9536238717e-04, -2.6755189798e-03},
         -1.5000000000e-03,
         {0.0, -0.34867846, -0.93724241}},
        /* rim on rim: a tilted cylinder's rim on an upright one's rim */
        {NSCD_SHAPE_CYLINDER,
         {0, 0, 0},
         {1, 0, 0},
         0.0,
         0.010,
         0.010,
         NSCD_SHAPE_CYLINDER,
         {1, 1, 0},
         0.9,
         0.008,
         0.006,
         {1.3355758156e-02, 2.1451048228e-03, 1.8916167434e-02},
         -9.9999998949e-05,
         {0.46142255, -0.02532092, 0.88681908}},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        const double *xa = cases[k].axis_a, *xb = cases[k].axis_b;
        nscd__quat qa = nscd__q_from_axis_angle(nscd__v3(xa[0], xa[1], xa[2]), cases[k].angle_a);
        nscd__quat qb = nscd__q_from_axis_angle(nscd__v3(xb[0], xb[1], xb[2]), cases[k].angle_b);
        nscd__collision_shape a = cases[k].type_a == NSCD_SHAPE_CAPSULE
                                      ? capsule(0, cases[k].pos_a, qa, cases[k].r_a, cases[k].h_a)
                                      : cylinder(0, cases[k].pos_a, qa, cases[k].r_a, cases[k].h_a);
        nscd__collision_shape b = cylinder(1, cases[k].pos_b, qb, cases[k].r_b, cases[k].h_b);
        print_message("case %zu\n", k);
        check_round_pair(&a, &b, 1e-3, cases[k].gap, cases[k].n, 2e-8, 1e-3);
    }
}

/* ---------------------------------------------------------------- broad phase */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static double uniform(double lo, double hi) { /* xorshift64*: the same numbers everywhere */
    rng_state ^= rng_state >> 12, rng_state ^= rng_state << 25, rng_state ^= rng_state >> 27;
    uint64_t r = rng_state * 0x2545f4914f6cdd1dull;
    return lo + (hi - lo) * (double)(r >> 11) * (1.0 / 9007199254740992.0);
}

static nscd__quat random_rotation(void) {
    nscd__quat q = {uniform(-1, 1), uniform(-1, 1), uniform(-1, 1), uniform(-1, 1)};
    return nscd__q_normalize(q);
}

/* Random box pairs (sizes 0.2 to 1, random orientations, centres 0.3 to
 * 3 apart) against their distance by GJK on the boxes themselves (0 when
 * they overlap), computed here: a contact exists exactly when the distance
 * is below the margin (pairs within 1e-6 of it skipped), and for separated
 * pairs the smallest gap of the manifold is that distance, to the 1e-3 of
 * the smallest half extent h by which a face axis is preferred to an edge
 * axis (seen: 6.5e-15 h on this stream; 8.4e-8 h on another, where a
 * face manifold's nearest point lies just off the reference face and is
 * clipped a little farther, the same before and after the SAT moved to
 * a's frame). Every kind of axis of the separating-axis test
 * (narrow_box.c, in a's frame) decides some of the pairs. */
static void box_box_random_against_gjk(void **state) {
    (void)state;
    /* its own stream: the tests after it draw what they drew before it came */
    const uint64_t saved_rng = rng_state;
    rng_state = 0x5eedb0c5b0c5ull;
    const int n = NSCD_TEST_SIZE(4000, 400);
    const double margin = 0.25;
    int separated = 0, overlapping = 0, rejected = 0;
    double worst = 0.0; /* the largest |smallest gap - distance| / h */
    for (int t = 0; t < n; ++t) {
        double ha[3], hb[3], d[3], pa[3], pb[3];
        for (int k = 0; k < 3; ++k) {
            ha[k] = uniform(0.2, 1.0), hb[k] = uniform(0.2, 1.0);
            d[k] = uniform(-1.0, 1.0), pa[k] = uniform(-0.5, 0.5);
        }
        double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]), far = uniform(0.3, 3.0);
        if (!(len > 1e-3)) {
            continue;
        }
        for (int k = 0; k < 3; ++k) {
            pb[k] = pa[k] + far * d[k] / len;
        }
        nscd__collision_shape a = box(0, pa, random_rotation(), ha[0], ha[1], ha[2]);
        nscd__collision_shape b = box(1, pb, random_rotation(), hb[0], hb[1], hb[2]);
        nscd__core ca, cb;
        nscd__core_of_box(&a, &ca);
        nscd__core_of_box(&b, &cb);
        double xa[3], xb[3];
        double dist = nscd__gjk_distance(&ca, &cb, xa, xb);
        if (fabs(dist - margin) < 1e-6) {
            continue;
        }
        nscd__contact_point p[8];
        int32_t count = pair_contacts(&a, &b, margin, p);
        if (dist >= margin) {
            assert_int_equal(count, 0);
            ++rejected;
            continue;
        }
        assert_true(count > 0);
        if (dist > 0.0) {
            double lo = INFINITY, h = INFINITY;
            for (int32_t k = 0; k < count; ++k) {
                lo = fmin(lo, p[k].gap);
            }
            for (int k = 0; k < 3; ++k) {
                h = fmin(h, fmin(ha[k], hb[k]));
            }
            worst = fmax(worst, fabs(lo - dist) / h);
            if (!(fabs(lo - dist) <= 1.1e-3 * h)) {
                print_error("pair %d: smallest gap %.17g, distance %.17g\n", t, lo, dist);
                fail();
            }
            ++separated;
        } else {
            ++overlapping;
        }
    }
    print_message("%d separated (gap - distance at most %.2g h), %d overlapping, %d beyond the "
                  "margin\n",
                  separated, worst, overlapping, rejected);
    rng_state = saved_rng;
    assert_true(separated >= n / 50 && overlapping >= n / 20 && rejected >= n / 20);
}

/* n random shapes of the given types in a box of side L; a few large ones
 * and half-spaces when allowed; random filters on some. */
static void random_shapes(nscd__collision_shape *s, int32_t n, double L, const int32_t *types,
                          int32_t n_types) {
    for (int32_t i = 0; i < n; ++i) {
        double p[3] = {uniform(0, L), uniform(0, L), uniform(0, L)};
        int32_t type = types[(int32_t)uniform(0, n_types) % n_types];
        if (type == NSCD_SHAPE_HALF_SPACE && i % 50 != 3) {
            type = NSCD_SHAPE_SPHERE; /* a few half-spaces: each touches half the shapes */
        }
        double size = uniform(0.2, 0.6) * (i % 97 == 0 ? 10.0 : 1.0); /* a few large ones */
        int32_t body = i % 500 == 7 ? i - 1 : i; /* a few compounds: same body, never paired */
        switch (type) {
        case NSCD_SHAPE_HALF_SPACE:
            s[i] = half_space(body, p, nscd__v3(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1)));
            break;
        case NSCD_SHAPE_BOX:
            s[i] = box(body, p, random_rotation(), size, uniform(0.2, 0.6), uniform(0.2, 0.6));
            break;
        case NSCD_SHAPE_CAPSULE:
            s[i] = capsule(body, p, random_rotation(), size * 0.5, size);
            break;
        case NSCD_SHAPE_CYLINDER:
            s[i] = cylinder(body, p, random_rotation(), size, size * 0.7);
            break;
        default: s[i] = sphere(body, p[0], p[1], p[2], size); break;
        }
        s[i].key = nscd__shape_key((uint64_t)body + 1, i - body);
        if (i % 13 == 0) {
            s[i].category = 2, s[i].mask = 1; /* pairs only with shapes of category 1 */
        }
        if (i % 29 == 0) {
            s[i].category = 1;
        }
        if (i % 31 == 0) {
            s[i].fixed = 1;
        }
    }
}

/* A bounding radius of each finite shape about its position. */
static double bounding_radius(const nscd__collision_shape *s) {
    switch (s->type) {
    case NSCD_SHAPE_BOX:
        return sqrt(s->half_extents[0] * s->half_extents[0] +
                    s->half_extents[1] * s->half_extents[1] +
                    s->half_extents[2] * s->half_extents[2]);
    case NSCD_SHAPE_CAPSULE: return s->half_height + s->radius;
    case NSCD_SHAPE_CYLINDER: return sqrt(s->half_height * s->half_height + s->radius * s->radius);
    default: return s->radius;
    }
}

static int filter_pass(const nscd__collision_shape *a, const nscd__collision_shape *b) {
    return a->body != b->body && !(a->fixed && b->fixed) && (a->category & b->mask) &&
           (b->category & a->mask);
}

/* Brute force: every pair that passes the filter and whose bounding spheres
 * (or plane distance) are within the margin, collided alone; the contacts of
 * all pairs, as (key_a, key_b, feature, gap) sorted like the output. */
static int32_t brute_force(const nscd__collision_shape *s, int32_t n, double margin,
                           nscd__contact_point *out, int32_t cap) {
    nscd__collision c;
    nscd__collision_init(&c, NULL);
    int32_t count = 0;
    for (int32_t i = 0; i < n; ++i) {
        for (int32_t j = i + 1; j < n; ++j) {
            if (!filter_pass(&s[i], &s[j])) {
                continue;
            }
            int hi = s[i].type == NSCD_SHAPE_HALF_SPACE, hj = s[j].type == NSCD_SHAPE_HALF_SPACE;
            if (hi && hj) {
                continue;
            }
            if (!hi && !hj) {
                double d = 0;
                for (int k = 0; k < 3; ++k) {
                    d += (s[i].position[k] - s[j].position[k]) *
                         (s[i].position[k] - s[j].position[k]);
                }
                double reach = bounding_radius(&s[i]) + bounding_radius(&s[j]) + margin;
                if (d > reach * reach) {
                    continue;
                }
            }
            nscd__collision_shape two[2] = {s[i], s[j]};
            assert_int_equal(nscd__collide(&c, two, 2, margin), NSCD_OK);
            for (int32_t k = 0; k < c.n_contacts; ++k) {
                assert_true(count < cap);
                out[count] = c.contacts[k];
                out[count].shape_a = c.contacts[k].shape_a == 0 ? i : j;
                out[count].shape_b = c.contacts[k].shape_b == 0 ? i : j;
                ++count;
            }
        }
    }
    nscd__collision_free(&c);
    return count;
}

static int contact_cmp(const void *x, const void *y) {
    const nscd__contact_point *a = x, *b = y;
    if (a->key_a != b->key_a) {
        return a->key_a < b->key_a ? -1 : 1;
    }
    if (a->key_b != b->key_b) {
        return a->key_b < b->key_b ? -1 : 1;
    }
    return a->feature < b->feature ? -1 : (a->feature > b->feature);
}

static void broad_phase_against_brute_force_of(const int32_t *types, int32_t n_types) {
    enum { N = 2000, CAP = 200000 };
    nscd__collision_shape *s = malloc(N * sizeof *s);
    nscd__contact_point *expected = malloc(CAP * sizeof *expected);
    assert_non_null(s);
    assert_non_null(expected);
    random_shapes(s, N, 18.0, types, n_types);
    const double margin = 0.05;
    int32_t n_expected = brute_force(s, N, margin, expected, CAP);
    qsort(expected, (size_t)n_expected, sizeof *expected, contact_cmp);
    nscd__collision c;
    nscd__collision_init(&c, NULL);
    int32_t n = collide_checked(&c, s, N, margin);
    print_message("%d shapes: %d contacts from %d broad-phase pairs\n", N, n, c.n_pairs);
    assert_true(n_expected > N / 4); /* the test sees real contacts */
    assert_int_equal(n, n_expected);
    for (int32_t k = 0; k < n; ++k) {
        const nscd__contact_point *p = &c.contacts[k], *q = &expected[k];
        assert_true(p->key_a == q->key_a && p->key_b == q->key_b && p->feature == q->feature);
        assert_int_equal(p->shape_a, q->shape_a);
        assert_int_equal(p->shape_b, q->shape_b);
        assert_true(p->gap == q->gap); /* the same narrow phase: bitwise */
    }
    nscd__collision_free(&c);
    free(expected);
    free(s);
}

static void broad_phase_mixed(void **state) {
    (void)state;
    const int32_t types[] = {NSCD_SHAPE_SPHERE,   NSCD_SHAPE_BOX,    NSCD_SHAPE_CAPSULE,
                             NSCD_SHAPE_CYLINDER, NSCD_SHAPE_SPHERE, NSCD_SHAPE_HALF_SPACE};
    broad_phase_against_brute_force_of(types, 6);
}

static void broad_phase_spheres(void **state) {
    (void)state;
    const int32_t types[] = {NSCD_SHAPE_SPHERE, NSCD_SHAPE_SPHERE, NSCD_SHAPE_SPHERE,
                             NSCD_SHAPE_SPHERE, NSCD_SHAPE_SPHERE, NSCD_SHAPE_HALF_SPACE};
    broad_phase_against_brute_force_of(types, 6);
}

/* A few bodies astray far from the bulk (too far for 2^20 cells per axis)
 * leave the grid and are still found. */
static void strays_far_from_the_bulk(void **state) {
    (void)state;
    enum { N = 600, CAP = 20000 };
    const int32_t types[] = {NSCD_SHAPE_SPHERE, NSCD_SHAPE_BOX};
    nscd__collision_shape *s = malloc(N * sizeof *s);
    nscd__contact_point *expected = malloc(CAP * sizeof *expected);
    assert_true(s && expected);
    random_shapes(s, N, 6.0, types, 2);
    s[0] = sphere(0, 1e12, 0, 0, 0.3); /* two strays touching each other */
    s[1] = sphere(1, 1e12 + 0.5, 0, 0, 0.3);
    s[2] = sphere(2, -3e11, 5e11, 0, 0.3);
    int32_t n_expected = brute_force(s, N, 0.01, expected, CAP);
    qsort(expected, (size_t)n_expected, sizeof *expected, contact_cmp);
    nscd__collision c;
    nscd__collision_init(&c, NULL);
    int32_t n = collide_checked(&c, s, N, 0.01);
    assert_int_equal(n, n_expected);
    assert_true(n > N / 4);
    for (int32_t k = 0; k < n; ++k) {
        assert_true(c.contacts[k].key_a == expected[k].key_a &&
                    c.contacts[k].key_b == expected[k].key_b &&
                    c.contacts[k].feature == expected[k].feature);
    }
    assert_int_equal(c.contacts[0].shape_a, 0); /* the strays' contact (smallest keys) */
    assert_int_equal(c.contacts[0].shape_b, 1);
    near_tol(c.contacts[0].gap, -0.1, 1e-4);
    nscd__collision_free(&c);
    free(expected);
    free(s);
}

/* A random shape of the given type about p, random orientation. */
static nscd__collision_shape random_shape(int32_t type, int32_t body, const double p[3]) {
    switch (type) {
    case NSCD_SHAPE_HALF_SPACE:
        return half_space(body, p, nscd__v3(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1)));
    case NSCD_SHAPE_BOX:
        return box(body, p, random_rotation(), uniform(0.2, 0.6), uniform(0.2, 0.6),
                   uniform(0.2, 0.6));
    case NSCD_SHAPE_CAPSULE:
        return capsule(body, p, random_rotation(), uniform(0.1, 0.4), uniform(0.1, 0.6));
    case NSCD_SHAPE_CYLINDER:
        return cylinder(body, p, random_rotation(), uniform(0.2, 0.5), uniform(0.2, 0.6));
    default: return sphere(body, p[0], p[1], p[2], uniform(0.2, 0.6));
    }
}

/* Moving shape b by a small distance along a contact's normal (from a to b)
 * opens that contact's gap by the same distance: the normal is the gradient
 * of the gap, for every pair type, in random poses. */
static void gap_follows_the_normal(void **state) {
    (void)state;
    const double delta = 1e-5;
    int checked[5][5] = {{0}};
    for (int ta = 0; ta < 5; ++ta) {
        for (int tb = 0; tb < 5; ++tb) {
            if (ta == NSCD_SHAPE_HALF_SPACE && tb == NSCD_SHAPE_HALF_SPACE) {
                continue;
            }
            for (int trial = 0; trial < 400 && checked[ta][tb] < 60; ++trial) {
                double o[3] = {uniform(-0.1, 0.1), uniform(-0.1, 0.1), uniform(-0.1, 0.1)};
                nscd__collision_shape a = random_shape(ta, 0, o);
                nscd__vec3 dir =
                    nscd__v3_normalize(nscd__v3(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1)));
                double reach = (ta == NSCD_SHAPE_HALF_SPACE ? 0.0 : bounding_radius(&a));
                double tmp[3] = {0, 0, 0};
                nscd__collision_shape probe = random_shape(tb, 1, tmp);
                reach += tb == NSCD_SHAPE_HALF_SPACE ? 0.0 : bounding_radius(&probe);
                double dist = reach * uniform(0.3, 1.0);
                double pb[3] = {dist * dir.x, dist * dir.y, dist * dir.z};
                nscd__collision_shape b = probe;
                memcpy(b.position, pb, sizeof pb);
                if (tb == NSCD_SHAPE_HALF_SPACE && ta != NSCD_SHAPE_HALF_SPACE) {
                    b.fixed = 1;
                }
                nscd__contact_point p[8], q[8];
                int32_t n = pair_contacts(&a, &b, 0.05, p);
                for (int32_t k = 0; k < n; ++k) {
                    /* move the second shape of the contact away along n */
                    nscd__collision_shape a2 = a, b2 = b;
                    nscd__collision_shape *moved = p[k].shape_b == 0 ? &a2 : &b2;
                    for (int i = 0; i < 3; ++i) {
                        moved->position[i] += delta * p[k].normal[i];
                    }
                    int32_t m = pair_contacts(&a2, &b2, 0.05, q);
                    for (int32_t j = 0; j < m; ++j) {
                        if (q[j].feature == p[k].feature && q[j].shape_a == p[k].shape_a) {
                            double opened = q[j].gap - p[k].gap;
                            if (fabs(opened - delta) > 1e-3 * delta) {
                                print_error("types %d-%d feature %u: gap opened %.6g for %.6g\n",
                                            ta, tb, p[k].feature, opened, delta);
                                fail();
                            }
                            ++checked[ta][tb];
                        }
                    }
                }
            }
            if (!(ta == NSCD_SHAPE_HALF_SPACE && tb == NSCD_SHAPE_HALF_SPACE)) {
                assert_true(checked[ta][tb] >= 20);
            }
        }
    }
}

/* Shuffling the input changes nothing but the shape indices. */
static void order_independent_of_input(void **state) {
    (void)state;
    enum { N = 1500 };
    const int32_t types[] = {NSCD_SHAPE_SPHERE,   NSCD_SHAPE_BOX,    NSCD_SHAPE_CAPSULE,
                             NSCD_SHAPE_CYLINDER, NSCD_SHAPE_SPHERE, NSCD_SHAPE_HALF_SPACE};
    nscd__collision_shape *s = malloc(N * sizeof *s), *t = malloc(N * sizeof *t);
    int32_t *perm = malloc(N * sizeof *perm);
    assert_true(s && t && perm);
    random_shapes(s, N, 14.0, types, 6);
    for (int32_t i = 0; i < N; ++i) {
        perm[i] = i;
    }
    for (int32_t i = N - 1; i > 0; --i) {
        int32_t j = (int32_t)uniform(0, i + 1) % (i + 1);
        int32_t x = perm[i];
        perm[i] = perm[j], perm[j] = x;
    }
    for (int32_t i = 0; i < N; ++i) {
        t[i] = s[perm[i]];
    }
    nscd__collision c1, c2;
    nscd__collision_init(&c1, NULL);
    nscd__collision_init(&c2, NULL);
    int32_t n1 = collide_checked(&c1, s, N, 0.02), n2 = collide_checked(&c2, t, N, 0.02);
    assert_int_equal(n1, n2);
    assert_true(n1 > N / 4);
    for (int32_t k = 0; k < n1; ++k) {
        const nscd__contact_point *p = &c1.contacts[k], *q = &c2.contacts[k];
        assert_true(p->key_a == q->key_a && p->key_b == q->key_b && p->feature == q->feature);
        assert_int_equal(perm[q->shape_a], p->shape_a);
        assert_int_equal(perm[q->shape_b], p->shape_b);
        assert_memory_equal(p->point, q->point, sizeof p->point);
        assert_memory_equal(p->normal, q->normal, sizeof p->normal);
        assert_true(p->gap == q->gap);
    }
    nscd__collision_free(&c1);
    nscd__collision_free(&c2);
    free(perm);
    free(t);
    free(s);
}

/* ------------------------------------------------------------ pair cache */

/* Every field the same bits (not the padding). */
static void same_contact(const nscd__contact_point *p, const nscd__contact_point *q) {
    assert_true(p->key_a == q->key_a && p->key_b == q->key_b && p->feature == q->feature);
    assert_int_equal(p->shape_a, q->shape_a);
    assert_int_equal(p->shape_b, q->shape_b);
    assert_memory_equal(p->point, q->point, sizeof p->point);
    assert_memory_equal(p->normal, q->normal, sizeof p->normal);
    assert_memory_equal(&p->gap, &q->gap, sizeof p->gap);
}

/* Shapes that move and turn a little each call: a collision object that
 * keeps its pair cache across the calls (serial, and with 2 threads) gives
 * the same contacts, bit for bit, as a fresh one (no cache) each call. */
static void pair_cache_matches_fresh_search(void **state) {
    (void)state;
    enum { N = 240 };
    /* 6 calls at the small size (valgrind): the cache is filled by the
     * first call and used by every later one, as over 30 */
    const int STEPS = NSCD_TEST_SIZE(30, 6);
    nscd_allocator al = nscd__allocator_resolve(NULL);
    /* two hulls: 16 random points on an ellipsoid, and a flat one */
    nscd__hull *hulls[2] = {NULL, NULL};
    for (int h = 0; h < 2; ++h) {
        double pts[3 * 16];
        for (int k = 0; k < 16; ++k) {
            double v[3] = {uniform(-1, 1), uniform(-1, 1), uniform(-1, 1)};
            double l = sqrt(nscd__dot3(v, v)) + 1e-3;
            pts[3 * k] = 0.4 * v[0] / l, pts[3 * k + 1] = 0.3 * v[1] / l;
            pts[3 * k + 2] = (h ? 0.1 : 0.35) * v[2] / l;
        }
        assert_int_equal(nscd__hull_build(&al, pts, 16, &hulls[h]), NSCD__HULL_OK);
    }
    const int32_t types[] = {NSCD_SHAPE_CYLINDER, NSCD_SHAPE_CONVEX,   NSCD_SHAPE_BOX,
                             NSCD_SHAPE_CAPSULE,  NSCD_SHAPE_CYLINDER, NSCD_SHAPE_CONVEX,
                             NSCD_SHAPE_SPHERE};
    nscd__collision_shape *s = malloc(N * sizeof *s);
    nscd__quat *q = malloc(N * sizeof *q);
    double(*v)[3] = malloc(N * sizeof *v);
    assert_true(s && q && v);
    for (int32_t i = 0; i < N; ++i) {
        double p[3] = {uniform(0, 4.5), uniform(0, 4.5), uniform(0, 4.5)};
        q[i] = random_rotation();
        int32_t type = types[i % 7];
        double size = uniform(0.25, 0.45);
        switch (type) {
        case NSCD_SHAPE_BOX: s[i] = box(i, p, q[i], size, 0.8 * size, 0.6 * size); break;
        case NSCD_SHAPE_CAPSULE: s[i] = capsule(i, p, q[i], 0.5 * size, size); break;
        case NSCD_SHAPE_CYLINDER: s[i] = cylinder(i, p, q[i], size, 0.7 * size); break;
        case NSCD_SHAPE_CONVEX:
            s[i] = base_shape(NSCD_SHAPE_CONVEX, i, p, q[i]);
            s[i].hull = hulls[i % 2];
            break;
        default: s[i] = sphere(i, p[0], p[1], p[2], size); break;
        }
        for (int k = 0; k < 3; ++k) { /* toward the middle: pairs meet and part */
            v[i][k] = 0.02 * (2.25 - p[k]) + uniform(-0.03, 0.03);
        }
    }
    nscd__parallel par;
    assert_int_equal(nscd__parallel_init(&par, &al, 2, NULL, NULL, NULL), NSCD_OK);
    nscd__collision kept, kept_threads;
    nscd__collision_init(&kept, NULL);
    nscd__collision_init(&kept_threads, NULL);
    kept_threads.parallel = &par;
    int32_t cached_pairs = 0, total = 0;
    for (int step = 0; step < STEPS; ++step) {
        nscd__collision fresh;
        nscd__collision_init(&fresh, NULL);
        const double margin = 0.03;
        int32_t n = collide_checked(&fresh, s, N, margin);
        assert_int_equal(nscd__collide(&kept, s, N, margin), NSCD_OK);
        assert_int_equal(nscd__collide(&kept_threads, s, N, margin), NSCD_OK);
        assert_int_equal(kept.n_contacts, n);
        assert_int_equal(kept_threads.n_contacts, n);
        for (int32_t k = 0; k < n; ++k) {
            same_contact(&kept.contacts[k], &fresh.contacts[k]);
            same_contact(&kept_threads.contacts[k], &fresh.contacts[k]);
        }
        cached_pairs += ((const nscd__collision_state *)kept.internal)->n_axes;
        total += n;
        nscd__collision_free(&fresh);
        for (int32_t i = 0; i < N; ++i) { /* move and turn */
            for (int k = 0; k < 3; ++k) {
                s[i].position[k] += v[i][k];
            }
            nscd__quat d = {uniform(-0.04, 0.04), uniform(-0.04, 0.04), uniform(-0.04, 0.04),
                            uniform(-0.04, 0.04)};
            q[i].w += d.w, q[i].x += d.x, q[i].y += d.y, q[i].z += d.z;
            q[i] = nscd__q_normalize(q[i]);
            nscd__mat3 r = nscd__q_to_mat3(q[i]);
            for (int a = 0; a < 3; ++a) {
                for (int b = 0; b < 3; ++b) {
                    s[i].rotation[3 * a + b] = r.m[a][b];
                }
            }
        }
    }
    print_message("%d contacts, %d cached pair axes over %d calls\n", total, cached_pairs, STEPS);
    assert_true(total > 100 * STEPS);        /* real contacts */
    assert_true(cached_pairs > 100 * STEPS); /* and a cache that works */
    nscd__collision_free(&kept);
    nscd__collision_free(&kept_threads);
    nscd__parallel_free(&par, &al);
    nscd__hull_free(&al, hulls[0]);
    nscd__hull_free(&al, hulls[1]);
    free(v);
    free(q);
    free(s);
}

/* ---------------------------------------------------------------- memory */

typedef struct budget {
    int64_t left; /* allocations still allowed */
    int64_t live;
} budget;

static void *limited_allocate(void *user, size_t size) {
    budget *b = user;
    if (b->left <= 0) {
        return NULL;
    }
    --b->left;
    ++b->live;
    return malloc(size);
}

static void limited_release(void *user, void *block, size_t size) {
    (void)size;
    budget *b = user;
    --b->live;
    free(block);
}

/* Every failing allocation leaves the previous output as it was. */
static void out_of_memory_keeps_output(void **state) {
    (void)state;
    enum { N = 400 };
    const int32_t types[] = {NSCD_SHAPE_SPHERE, NSCD_SHAPE_BOX, NSCD_SHAPE_HALF_SPACE};
    nscd__collision_shape small[3] = {sphere(0, 0, 0, 0, 1), sphere(1, 1.5, 0, 0, 1),
                                      sphere(2, 9, 9, 9, 1)};
    nscd__collision_shape *s = malloc(N * sizeof *s);
    assert_non_null(s);
    random_shapes(s, N, 8.0, types, 3);
    int failures = 0;
    for (int64_t allowed = 0;; ++allowed) {
        budget b = {1000, 0};
        nscd_allocator al = {limited_allocate, limited_release, &b};
        nscd__collision c;
        nscd__collision_init(&c, &al);
        assert_int_equal(collide_checked(&c, small, 3, 0.0), 1);
        nscd__contact_point before = c.contacts[0];
        b.left = allowed;
        nscd_status st = nscd__collide(&c, s, N, 0.01);
        if (st == NSCD_OK) {
            assert_true(c.n_contacts > 1);
            nscd__collision_free(&c);
            assert_int_equal(b.live, 0);
            break;
        }
        ++failures;
        assert_int_equal(st, NSCD_ERR_OUT_OF_MEMORY);
        assert_int_equal(c.n_contacts, 1);
        assert_memory_equal(&c.contacts[0], &before, sizeof before);
        nscd__collision_free(&c);
        assert_int_equal(b.live, 0);
    }
    assert_true(failures > 3);
    free(s);
}

/* Buffers are reused: a second call with the same shapes allocates nothing. */
static void no_allocation_when_sizes_do_not_grow(void **state) {
    (void)state;
    enum { N = 1000 };
    const int32_t types[] = {NSCD_SHAPE_SPHERE};
    nscd__collision_shape *s = malloc(N * sizeof *s);
    assert_non_null(s);
    random_shapes(s, N, 8.0, types, 1);
    budget b = {1000, 0};
    nscd_allocator al = {limited_allocate, limited_release, &b};
    nscd__collision c;
    nscd__collision_init(&c, &al);
    collide_checked(&c, s, N, 0.01);
    collide_checked(&c, s, N, 0.01); /* the output buffers of both parities exist now */
    b.left = 0;
    for (int32_t i = 0; i < N; ++i) {
        s[i].position[0] += 0.01; /* a step later */
    }
    int32_t n = collide_checked(&c, s, N, 0.01);
    assert_true(n > 0);
    nscd__collision_free(&c);
    assert_int_equal(b.live, 0);
    free(s);
}

/* ---------------------------------------------------------------- bad input */

static void bad_input(void **state) {
    (void)state;
    nscd__collision c;
    nscd__collision_init(&c, NULL);
    nscd__collision_shape s[2] = {sphere(0, 0, 0, 0, 1), sphere(1, 1, 0, 0, 1)};
    assert_int_equal(collide_checked(&c, s, 2, 0.0), 1);
    s[1].position[2] = NAN;
    assert_int_equal(nscd__collide(&c, s, 2, 0.0), NSCD_ERR_NOT_FINITE);
    s[1].position[2] = 0.0;
    s[1].radius = -1.0;
    assert_int_equal(nscd__collide(&c, s, 2, 0.0), NSCD_ERR_OUT_OF_RANGE);
    s[1].radius = 1e308; /* finite, but its bounding box overflows */
    s[1].position[0] = 1e308;
    assert_int_equal(nscd__collide(&c, s, 2, 0.0), NSCD_ERR_OUT_OF_RANGE);
    s[1].position[0] = 1.0;
    s[1].radius = 1.0;
    s[1].type = 17;
    assert_int_equal(nscd__collide(&c, s, 2, 0.0), NSCD_ERR_INVALID_ARGUMENT);
    s[1].type = NSCD_SHAPE_SPHERE;
    assert_int_equal(nscd__collide(&c, s, 2, -1.0), NSCD_ERR_OUT_OF_RANGE);
    assert_int_equal(nscd__collide(&c, s, 2, NAN), NSCD_ERR_NOT_FINITE);
    assert_int_equal(nscd__collide(&c, NULL, 2, 0.0), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd__collide(&c, s, -1, 0.0), NSCD_ERR_INVALID_ARGUMENT);
    assert_int_equal(nscd__collide(NULL, s, 2, 0.0), NSCD_ERR_NULL_POINTER);
    assert_int_equal(c.n_contacts, 1); /* the failures left the last output */
    assert_int_equal(collide_checked(&c, s, 0, 0.0), 0);
    nscd__collision_free(&c);
    nscd__collision_free(NULL);
}

/* Far from the origin the gaps keep their relative accuracy. */
static void large_coordinates(void **state) {
    (void)state;
    const double x0 = 1e7;
    nscd__collision_shape a = sphere(0, x0, x0, -x0, 1.0), b = sphere(1, x0 + 1.5, x0, -x0, 1.0);
    nscd__contact_point p = single_contact(&a, &b, 0.0);
    near_tol(p.gap, -0.5, 1e-9);
    near(p.normal[0], 1.0);
    near_tol(p.point[0], x0 + 0.75, 1e-15);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(sphere_sphere),
    cmocka_unit_test(sphere_sphere_coincident),
    cmocka_unit_test(sphere_half_space),
    cmocka_unit_test(half_space_box),
    cmocka_unit_test(sphere_box),
    cmocka_unit_test(box_box_faces),
    cmocka_unit_test(box_box_corners),
    cmocka_unit_test(box_box_edges),
    cmocka_unit_test(box_box_random_against_gjk),
    cmocka_unit_test(box_capsule),
    cmocka_unit_test(capsule_pairs),
    cmocka_unit_test(sphere_cylinder),
    cmocka_unit_test(half_space_cylinder),
    cmocka_unit_test(cylinder_gjk_pairs),
    cmocka_unit_test(cylinder_pairs_analytic),
    cmocka_unit_test(cylinder_box_analytic),
    cmocka_unit_test(cylinder_box_against_sampling),
    cmocka_unit_test(cylinder_box_random),
    cmocka_unit_test(cylinder_pairs_against_sampling),
    cmocka_unit_test(broad_phase_spheres),
    cmocka_unit_test(broad_phase_mixed),
    cmocka_unit_test(gap_follows_the_normal),
    cmocka_unit_test(strays_far_from_the_bulk),
    cmocka_unit_test(order_independent_of_input),
    cmocka_unit_test(pair_cache_matches_fresh_search),
    cmocka_unit_test(out_of_memory_keeps_output),
    cmocka_unit_test(no_allocation_when_sizes_do_not_grow),
    cmocka_unit_test(bad_input),
    cmocka_unit_test(large_coordinates),
};

int main(void) { return cmocka_run_group_tests(tests, NULL, NULL); }
