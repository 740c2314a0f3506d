/* Narrow phase of cylinders (narrow.h).
 *
 * Cylinder-half-space, exact: the rim points of both caps below the margin:
 * the deepest rim point of each cap (features 8, 9) and four fixed rim points
 * per cap at the local +-x, +-y (features 0-3, 4-7), so that a cylinder
 * standing on its cap rests on 4 points and one lying on its side on 2; at
 * most the 4 deepest are kept.
 *
 * Cylinder-box, cylinder-capsule, cylinder-cylinder: approximate, one point
 * (cylinder-box: a planar manifold when flat lies on flat, see below).
 * GJK distance of the cores (gjk.h): the cylinder and the box shrunk by 5 % of
 * their smallest size and rounded back by as much, so their edges and rims
 * are rounded by that radius (faces, mantles and capsules stay exact). When
 * the penetration exceeds the sum of the roundings, the cores overlap and the
 * normal is the best of a sampled separating-axis test (face normals, axes,
 * their cross products and the centre line): approximate. For cylinder-box,
 * a normal of either test along a box face normal or the cylinder's axis
 * gives the planar manifold (rim points under the face, corners over the
 * cap), in deep overlap too; only an edge-like normal keeps one point. */
#include "collision/narrow.h"

#include <math.h>

#include "collision/gjk.h"
#include "nscd/types.h"

static double dot3(const double a[3], const double b[3]) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void add_below(const double n[3], double offset, const double v[3], double margin,
                      uint32_t feature, nscd__manifold *m) {
    double gap = dot3(n, v) - offset;
    if (gap < margin) {
        double point[3] = {v[0] - 0.5 * gap * n[0], v[1] - 0.5 * gap * n[1],
                           v[2] - 0.5 * gap * n[2]};
        nscd__manifold_add(m, point, n, gap, feature);
    }
}

void nscd__cylinder_rim_below(const double n[3], double offset, const nscd__collision_shape *b,
                              double margin, nscd__manifold *m) {
    double axis[3];
    nscd__shape_axis(b, 2, axis);
    double R = b->radius, h = b->half_height;
    /* quick reject: the lowest point of the cylinder */
    double na = dot3(n, axis);
    double lowest = dot3(n, b->position) - h * fabs(na) - R * sqrt(fmax(0.0, 1.0 - na * na));
    if (lowest - offset >= margin) {
        return;
    }
    static const double rim[4][2] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
    /* in-plane direction of steepest descent: -(n - (n.a) a) */
    double w[3] = {n[0] - na * axis[0], n[1] - na * axis[1], n[2] - na * axis[2]};
    double wl = sqrt(dot3(w, w));
    /* w in the cylinder's x, y: the deepest rim point is skipped when one of
     * the four fixed ones is it */
    double wx = dot3(w, (double[]){b->rotation[0], b->rotation[3], b->rotation[6]});
    double wy = dot3(w, (double[]){b->rotation[1], b->rotation[4], b->rotation[7]});
    int deepest_is_new = wl > 1e-12 && fmax(fabs(wx), fabs(wy)) < (1.0 - 1e-9) * wl;
    for (int cap = 0; cap < 2; ++cap) {
        double z = cap == 0 ? -h : h;
        for (int k = 0; k < 4; ++k) {
            double local[3] = {R * rim[k][0], R * rim[k][1], z}, v[3];
            nscd__to_world(b, local, v);
            add_below(n, offset, v, margin, (uint32_t)(4 * cap + k), m);
        }
        if (deepest_is_new) {
            double local[3] = {0, 0, z}, v[3];
            nscd__to_world(b, local, v);
            for (int i = 0; i < 3; ++i) {
                v[i] -= R * w[i] / wl;
            }
            add_below(n, offset, v, margin, (uint32_t)(8 + cap), m);
        }
    }
}

void nscd__collide_half_space_cylinder(const nscd__collision_shape *a,
                                       const nscd__collision_shape *b, double margin,
                                       nscd__manifold *m) {
    double n[3];
    nscd__shape_axis(a, 2, n);
    nscd__cylinder_rim_below(n, dot3(n, a->position), b, margin, m);
    nscd__keep_deepest_four(m);
}

/* Support of the full shape (core plus rounding) along unit L. */
static void full_support(const nscd__core *c, const double L[3], double out[3]) {
    nscd__core_support(c, L, out);
    for (int i = 0; i < 3; ++i) {
        out[i] += c->rounding * L[i];
    }
}

/* Candidate axes of the sampled SAT: the shapes' frame axes, their cross
 * products and the centre line. Returns the count. */
static int candidate_axes(const nscd__collision_shape *a, const nscd__collision_shape *b,
                          double axes[16][3]) {
    int n = 0;
    double ua[3][3], ub[3][3];
    for (int i = 0; i < 3; ++i) {
        nscd__shape_axis(a, i, ua[i]);
        nscd__shape_axis(b, i, ub[i]);
    }
    for (int i = 0; i < 3; ++i) {
        for (int c = 0; c < 3; ++c) {
            axes[n][c] = ua[i][c], axes[n + 1][c] = ub[i][c];
        }
        n += 2;
    }
    for (int i = 0; i < 3; ++i) {
        for (int k = 0; k < 3; ++k) {
            const double *u = ua[i], *v = ub[k];
            double L[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2],
                           u[0] * v[1] - u[1] * v[0]};
            double len = sqrt(dot3(L, L));
            if (len > 1e-6 && n < 15) {
                for (int c = 0; c < 3; ++c) {
                    axes[n][c] = L[c] / len;
                }
                ++n;
            }
        }
    }
    double d[3] = {b->position[0] - a->position[0], b->position[1] - a->position[1],
                   b->position[2] - a->position[2]};
    double len = sqrt(dot3(d, d));
    if (len > 0.0) {
        for (int c = 0; c < 3; ++c) {
            axes[n][c] = d[c] / len;
        }
        ++n;
    }
    return n;
}

/* Deep overlap: the candidate axis of largest separation (least penetration). */
static void sampled_sat(const nscd__core *ca, const nscd__core *cb, double margin,
                        nscd__manifold *m) {
    double axes[16][3];
    int n = candidate_axes(ca->shape, cb->shape, axes);
    double best = -INFINITY, bn[3] = {0, 0, 1}, bpa[3] = {0, 0, 0}, bpb[3] = {0, 0, 0};
    for (int k = 0; k < n; ++k) {
        for (int s = -1; s <= 1; s += 2) {
            double L[3] = {s * axes[k][0], s * axes[k][1], s * axes[k][2]};
            double nL[3] = {-L[0], -L[1], -L[2]}, pa[3], pb[3];
            full_support(ca, L, pa);
            full_support(cb, nL, pb);
            double sep = dot3(L, pb) - dot3(L, pa);
            if (sep > best) {
                best = sep;
                for (int c = 0; c < 3; ++c) {
                    bn[c] = L[c], bpa[c] = pa[c], bpb[c] = pb[c];
                }
            }
        }
    }
    if (best >= margin) {
        return;
    }
    double point[3] = {0.5 * (bpa[0] + bpb[0]), 0.5 * (bpa[1] + bpb[1]), 0.5 * (bpa[2] + bpb[2])};
    nscd__manifold_add(m, point, bn, best, 1);
}

/* Any pair of rounded cores, normal from a to b, one point (feature 0). */
static void rounded_pair(const nscd__collision_shape *a, const nscd__collision_shape *b,
                         double margin, nscd__manifold *m) {
    nscd__core ca, cb;
    nscd__core_of(a, &ca);
    nscd__core_of(b, &cb);
    double pa[3], pb[3];
    double dist = nscd__gjk_distance(&ca, &cb, pa, pb);
    double gap = dist - ca.rounding - cb.rounding;
    if (gap >= margin) {
        return;
    }
    if (!(dist > 1e-12 * (ca.rounding + cb.rounding))) {
        sampled_sat(&ca, &cb, margin, m);
        return;
    }
    double n[3], point[3];
    for (int i = 0; i < 3; ++i) {
        n[i] = (pb[i] - pa[i]) / dist;
        point[i] = pa[i] + n[i] * (ca.rounding + 0.5 * gap);
    }
    nscd__manifold_add(m, point, n, gap, 0);
}

/* Keeps the points whose projection lies on face i of the box (within
 * rounding), shifting their features by `base`. */
static void keep_on_box_face(const nscd__collision_shape *box, int i, uint32_t base,
                             nscd__manifold *m) {
    int32_t kept = 0;
    for (int32_t k = 0; k < m->n; ++k) {
        double local[3];
        nscd__to_local(box, m->p[k].point, local);
        int inside = 1;
        for (int j = 0; j < 3; ++j) {
            inside &= j == i || fabs(local[j]) <= box->half_extents[j] * (1.0 + 1e-9);
        }
        if (inside) {
            m->p[kept] = m->p[k];
            m->p[kept++].feature += base;
        }
    }
    m->n = kept;
}

/* Keeps the points within the cylinder's radius of its axis, flipping their
 * normals and shifting their features by `base`. */
static void keep_on_cap(const nscd__collision_shape *cyl, uint32_t base, nscd__manifold *m) {
    int32_t kept = 0;
    for (int32_t k = 0; k < m->n; ++k) {
        double local[3];
        nscd__to_local(cyl, m->p[k].point, local);
        if (hypot(local[0], local[1]) <= cyl->radius * (1.0 + 1e-9)) {
            m->p[kept] = m->p[k];
            for (int i = 0; i < 3; ++i) {
                m->p[kept].normal[i] = -m->p[kept].normal[i];
            }
            m->p[kept++].feature += base;
        }
    }
    m->n = kept;
}

/* How parallel a contact normal must be to a face normal or the axis for the
 * flat-on-flat manifolds below. */
#define FLAT_COSINE (1.0 - 1e-6)

/* Box-cylinder: the GJK point, and when its normal is a box face normal (the
 * cylinder's cap or side lies on a box face) the cylinder's rim points on that
 * face (features 16-25), or when it is the cylinder's axis (the box lies on a
 * cap) the box's corners over the cap (features 32-39): exact planar contact
 * regions with up to 4 points, so that one rests on the other. */
void nscd__collide_box_cylinder(const nscd__collision_shape *a, const nscd__collision_shape *b,
                                double margin, nscd__manifold *m) {
    nscd__manifold single = {0};
    rounded_pair(a, b, margin, &single);
    if (single.n != 1) {
        *m = single; /* nothing */
        return;
    }
    /* A deep overlap (feature 1: the sampled separating-axis normal) goes
     * through the same planar manifolds: when its axis is a box face normal
     * or the cylinder's axis, the points are the cylinder's rim points under
     * the face (or the box's corners over the cap), each midway between the
     * incident feature and the reference plane, so inside both shapes. The
     * sampled test's own point, the midpoint of the two supports, is not:
     * a box's support along a face normal is any corner of that face, and
     * the impulse there went into spin and let cylinders through walls
     * (issue 24). */
    const double *n = single.p[0].normal; /* from the box to the cylinder */
    nscd__manifold face = {0}, cap = {0};
    for (int i = 0; i < 3; ++i) {
        double ax[3];
        nscd__shape_axis(a, i, ax);
        double d = dot3(n, ax);
        if (fabs(d) > FLAT_COSINE) {
            double u[3] = {d < 0 ? -ax[0] : ax[0], d < 0 ? -ax[1] : ax[1], d < 0 ? -ax[2] : ax[2]};
            nscd__cylinder_rim_below(u, dot3(u, a->position) + a->half_extents[i], b, margin,
                                     &face);
            keep_on_box_face(a, i, 16, &face);
            nscd__keep_deepest_four(&face);
        }
    }
    double axis[3];
    nscd__shape_axis(b, 2, axis);
    double d = dot3(n, axis);
    if (fabs(d) > FLAT_COSINE) {
        /* the cap facing the box: outward normal u toward the box */
        double s = d < 0 ? 1.0 : -1.0;
        double u[3] = {s * axis[0], s * axis[1], s * axis[2]};
        double offset = dot3(u, b->position) + b->half_height;
        nscd__box_corners_below(u, offset, a, margin, &cap);
        keep_on_cap(b, 32, &cap);
        nscd__keep_deepest_four(&cap);
    }
    const nscd__manifold *best = face.n >= cap.n ? &face : &cap;
    *m = best->n > 0 ? *best : single;
}

void nscd__collide_capsule_cylinder(const nscd__collision_shape *a, const nscd__collision_shape *b,
                                    double margin, nscd__manifold *m) {
    rounded_pair(a, b, margin, m);
}

void nscd__collide_cylinder_cylinder(const nscd__collision_shape *a, const nscd__collision_shape *b,
                                     double margin, nscd__manifold *m) {
    rounded_pair(a, b, margin, m);
}
