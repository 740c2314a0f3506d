/* The cylinder pairs' separating-axis search (src/collision/narrow_cylinder.c)
 * against the search it replaced (tests/unit/reference/narrow_cylinder_v0.c,
 * the file as of commit 0b048bd, compiled here under other names: the
 * search without the shortcuts of issue 24's speed item). On
 * random box-cylinder, capsule-cylinder and cylinder-cylinder pairs, at
 * random distances and just touching (+-5 % of the smaller size about the
 * touching distance), the optimised search's normal separates the shapes
 * at least as much as the reference's (the signed distance is the largest
 * separation over all directions, so a smaller one would be an error),
 * within 1e-9 of the sizes where the overlap is shallow (the regime the
 * search is built for: less than 10 % of the smaller size) and 1e-2 beyond;
 * both find a contact, or both none, unless the reference's separation is
 * within 1e-9 of the margin. The separation along each normal is computed
 * here, from the shapes' closed-form supports. Almost every normal and
 * deepest gap agree (normals within 1e-5: a search that evaluates other
 * directions, Brent's instead of the golden section say, places a smooth
 * maximum only to about sqrt(round-off), 1e-8; gaps within 1e-6 of the
 * sizes: a clipped manifold point can move more when a line crosses a face
 * edge at a grazing angle). Since issue 24's second speed item the
 * circles are refined by Brent's search and the separations summed over a
 * basis (narrow_cylinder.c, frame_eval): the same maxima by other steps,
 * so the pairs agree to these bounds, no longer bit for bit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "collision/collision.h"
#include "collision/narrow.h"
#include "core/vec3.h"
#include "nscd/types.h"

/* The reference search under other names (narrow.h is already included,
 * so its declarations keep the library's names). */
#define nscd__cylinder_rim_below ref_cylinder_rim_below
#define nscd__collide_half_space_cylinder ref_collide_half_space_cylinder
#define nscd__collide_box_cylinder ref_collide_box_cylinder
#define nscd__collide_capsule_cylinder ref_collide_capsule_cylinder
#define nscd__collide_cylinder_cylinder ref_collide_cylinder_cylinder
void ref_cylinder_rim_below(const double n[3], double offset, const nscd__collision_shape *b,
                            double margin, nscd__manifold *m);
void ref_collide_half_space_cylinder(const nscd__collision_shape *a, const nscd__collision_shape *b,
                                     double margin, nscd__manifold *m);
void ref_collide_box_cylinder(const nscd__collision_shape *a, const nscd__collision_shape *b,
                              double margin, nscd__manifold *m);
void ref_collide_capsule_cylinder(const nscd__collision_shape *a, const nscd__collision_shape *b,
                                  double margin, nscd__manifold *m);
void ref_collide_cylinder_cylinder(const nscd__collision_shape *a, const nscd__collision_shape *b,
                                   double margin, nscd__manifold *m);
#include "reference/narrow_cylinder_v0.c"
#undef nscd__cylinder_rim_below
#undef nscd__collide_half_space_cylinder
#undef nscd__collide_box_cylinder
#undef nscd__collide_capsule_cylinder
#undef nscd__collide_cylinder_cylinder

typedef void (*collide_fn)(const nscd__collision_shape *, const nscd__collision_shape *, double,
                           nscd__manifold *);

static uint64_t t_rng = 0x9E3779B97F4A7C15ull;

static double t_uniform(void) {
    t_rng ^= t_rng << 13, t_rng ^= t_rng >> 7, t_rng ^= t_rng << 17;
    return (double)(t_rng >> 11) / 9007199254740992.0;
}

/* A uniformly random rotation (row-major), from a random unit quaternion. */
static void t_rotation(double r[9]) {
    double q[4], len = 0.0;
    do {
        len = 0.0;
        for (int i = 0; i < 4; ++i) {
            q[i] = 2.0 * t_uniform() - 1.0;
            len += q[i] * q[i];
        }
    } while (len > 1.0 || len < 1e-6);
    len = sqrt(len);
    double w = q[0] / len, x = q[1] / len, y = q[2] / len, z = q[3] / len;
    double m[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
                   2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                   2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
    memcpy(r, m, sizeof m);
}

/* A shape of 1-3 cm at the origin, randomly oriented. */
static nscd__collision_shape t_shape(int32_t type, int32_t body) {
    nscd__collision_shape s;
    memset(&s, 0, sizeof s);
    s.type = type;
    s.body = body;
    s.key = nscd__shape_key((uint64_t)body + 1, 0);
    s.category = s.mask = 0xffffffffu;
    t_rotation(s.rotation);
    s.radius = 0.005 + 0.01 * t_uniform();
    s.half_height = 0.004 + 0.012 * t_uniform();
    for (int i = 0; i < 3; ++i) {
        s.half_extents[i] = 0.004 + 0.01 * t_uniform();
    }
    return s;
}

/* Bounding radius and smallest size of a box, capsule or cylinder. */
static double t_bound(const nscd__collision_shape *s) {
    const double *e = s->half_extents;
    if (s->type == NSCD_SHAPE_BOX) {
        return sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
    }
    return s->type == NSCD_SHAPE_CAPSULE ? s->half_height + s->radius
                                         : hypot(s->half_height, s->radius);
}

static double t_small(const nscd__collision_shape *s) {
    const double *e = s->half_extents;
    if (s->type == NSCD_SHAPE_BOX) {
        return fmin(e[0], fmin(e[1], e[2]));
    }
    return s->type == NSCD_SHAPE_CAPSULE ? s->radius : fmin(s->radius, s->half_height);
}

/* The largest n.x over the shape, from its closed form (n unit, world). */
static double t_support(const nscd__collision_shape *s, const double n[3]) {
    const double *r = s->rotation;
    double l[3];
    for (int i = 0; i < 3; ++i) {
        l[i] = r[i] * n[0] + r[3 + i] * n[1] + r[6 + i] * n[2];
    }
    double c = n[0] * s->position[0] + n[1] * s->position[1] + n[2] * s->position[2];
    if (s->type == NSCD_SHAPE_BOX) {
        return c + s->half_extents[0] * fabs(l[0]) + s->half_extents[1] * fabs(l[1]) +
               s->half_extents[2] * fabs(l[2]);
    }
    if (s->type == NSCD_SHAPE_CAPSULE) {
        return c + s->half_height * fabs(l[2]) + s->radius;
    }
    return c + s->half_height * fabs(l[2]) + s->radius * hypot(l[0], l[1]);
}

/* Separation of b from a along the unit n (from a to b). */
static double t_separation(const nscd__collision_shape *a, const nscd__collision_shape *b,
                           const double n[3]) {
    double m[3] = {-n[0], -n[1], -n[2]};
    return -t_support(b, m) - t_support(a, n);
}

static double t_deepest(const nscd__manifold *m, int32_t *k) {
    double g = INFINITY;
    for (int32_t j = 0; j < m->n; ++j) {
        if (m->p[j].gap < g) {
            g = m->p[j].gap, *k = j;
        }
    }
    return g;
}

typedef struct t_stats {
    int pairs, contacts, normals_apart, gaps_apart, better;
    double worst_shallow, worst_deep; /* how much less the new normal separates, / size */
} t_stats;

static void t_compare(const nscd__collision_shape *a, const nscd__collision_shape *b, double margin,
                      collide_fn now, collide_fn ref, t_stats *st) {
    nscd__manifold mn = {0}, mr = {0};
    now(a, b, margin, &mn);
    ref(a, b, margin, &mr);
    ++st->pairs;
    double size = t_bound(a) + t_bound(b), small = fmin(t_small(a), t_small(b));
    if (mr.n == 0 || mn.n == 0) {
        if (mr.n != mn.n) { /* only at the margin itself */
            int32_t k = 0;
            const nscd__manifold *one = mr.n > 0 ? &mr : &mn;
            t_deepest(one, &k);
            double s = t_separation(a, b, one->p[k].normal);
            print_message("contact in one search only: separation %.12g, margin %g\n", s, margin);
            assert_true(fabs(s - margin) <= 1e-9 * size);
        }
        return;
    }
    ++st->contacts;
    int32_t kn = 0, kr = 0;
    double gn = t_deepest(&mn, &kn), gr = t_deepest(&mr, &kr);
    const double *nn = mn.p[kn].normal, *nr = mr.p[kr].normal;
    for (int32_t j = 0; j < mn.n; ++j) { /* one normal per manifold */
        double d[3] = {mn.p[j].normal[0] - nn[0], mn.p[j].normal[1] - nn[1],
                       mn.p[j].normal[2] - nn[2]};
        assert_true(sqrt(nscd__dot3(d, d)) < 1e-12);
    }
    double sn = t_separation(a, b, nn), sr = t_separation(a, b, nr);
    double worse = (sr - sn) / size;
    if (sr >= -0.1 * small) {
        st->worst_shallow = fmax(st->worst_shallow, worse);
    } else {
        st->worst_deep = fmax(st->worst_deep, worse);
    }
    st->better += sn > sr + 1e-9 * size;
    double dn[3] = {nn[0] - nr[0], nn[1] - nr[1], nn[2] - nr[2]};
    st->normals_apart += sqrt(nscd__dot3(dn, dn)) > 1e-5;
    st->gaps_apart += fabs(gn - gr) > 1e-6 * size;
}

static void t_run(int32_t type_a, collide_fn now, collide_fn ref, const char *name) {
    t_stats st = {0};
    for (int pass = 0; pass < 2; ++pass) {
        for (int t = 0; t < 300; ++t) {
            nscd__collision_shape a = t_shape(type_a, 0), b = t_shape(NSCD_SHAPE_CYLINDER, 1);
            double ba = t_bound(&a), bb = t_bound(&b), margin = 0.1 * fmin(a.radius, b.radius);
            if (type_a == NSCD_SHAPE_BOX) {
                margin = 0.1 * b.radius;
            }
            double dir[3] = {t_uniform() - 0.5, t_uniform() - 0.5, t_uniform() - 0.5};
            double len = sqrt(nscd__dot3(dir, dir)), dist;
            if (pass == 0) { /* anywhere the bounding spheres overlap, deep included */
                dist = (0.3 + 0.75 * t_uniform()) * (ba + bb);
            } else { /* about the touching distance along dir (the reference's) */
                double lo = 0.0, hi = ba + bb;
                for (int it = 0; it < 30; ++it) {
                    double mid = 0.5 * (lo + hi);
                    nscd__manifold m = {0};
                    for (int i = 0; i < 3; ++i) {
                        b.position[i] = mid * dir[i] / len;
                    }
                    ref(&a, &b, 0.0, &m);
                    if (m.n > 0) {
                        lo = mid;
                    } else {
                        hi = mid;
                    }
                }
                dist = lo + (t_uniform() - 0.6) * 0.1 * fmin(t_small(&a), t_small(&b));
            }
            for (int i = 0; i < 3; ++i) {
                b.position[i] = dist * dir[i] / len;
            }
            t_compare(&a, &b, margin, now, ref, &st);
        }
    }
    print_message("%s: %d pairs, %d in contact; the new normal separates less by at most %.3g "
                  "(shallow) %.3g (deep) of the sizes, more in %d; normals apart (> 1e-5) %d, "
                  "deepest gaps apart (> 1e-6) %d\n",
                  name, st.pairs, st.contacts, st.worst_shallow, st.worst_deep, st.better,
                  st.normals_apart, st.gaps_apart);
    assert_true(st.contacts > st.pairs / 4);
    assert_true(st.worst_shallow <= 1e-9);
    assert_true(st.worst_deep <= 1e-2);
    assert_true(st.normals_apart <= st.contacts / 100);
    assert_true(st.gaps_apart <= st.contacts / 100);
}

static void box_cylinder_as_reference(void **state) {
    (void)state;
    t_run(NSCD_SHAPE_BOX, nscd__collide_box_cylinder, ref_collide_box_cylinder, "box-cylinder");
}

static void capsule_cylinder_as_reference(void **state) {
    (void)state;
    t_run(NSCD_SHAPE_CAPSULE, nscd__collide_capsule_cylinder, ref_collide_capsule_cylinder,
          "capsule-cylinder");
}

static void cylinder_cylinder_as_reference(void **state) {
    (void)state;
    t_run(NSCD_SHAPE_CYLINDER, nscd__collide_cylinder_cylinder, ref_collide_cylinder_cylinder,
          "cylinder-cylinder");
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(box_cylinder_as_reference),
    cmocka_unit_test(capsule_cylinder_as_reference),
    cmocka_unit_test(cylinder_cylinder_as_reference),
};

int main(void) { return cmocka_run_group_tests(tests, NULL, NULL); }
