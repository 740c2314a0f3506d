/* Narrow phase of cylinders (narrow.h).
 *
 * Cylinder-half-space, exact: the rim points of both caps below the margin:
 * the deepest rim point of each cap (features 8, 9) and four fixed rim points
 * per cap at the local +-x, +-y (features 0-3, 4-7), so that a cylinder
 * standing on its cap rests on 4 points and one lying on its side on 2; at
 * most the 4 deepest are kept.
 *
 * Cylinder-box: exact, in the same search as the round pairs (below): the
 * box is a polytope whose support along n is c.n + sum e_i |n.a_i|, smooth
 * except at its face normals (tried directly) and on the circles of
 * directions perpendicular to its edge directions (searched like a side
 * circle); the cross products of the cylinder's axis and the edge
 * directions are tried too, and a corner on a rim is smooth (the Newton
 * ascent). Manifold (box_manifold): a flat wholly over the other keeps the
 * planar manifold of the GJK version it replaced (the cylinder's rim points
 * on a box face, features 16-25; the box's corners over a cap, 32-39);
 * overhanging flats are clipped (the cap polygon to the face rectangle, the
 * box face to the cap disc); side lines and box edges as the round pairs'
 * lines; a corner or an edge on a rim, one point.
 *
 * Cylinder-capsule and cylinder-cylinder: exact (below, collide_round). The
 * signed distance of two convex shapes is the largest separation
 * sep(n) = min_B n.y - max_A n.x over unit n (minus the penetration depth
 * when they overlap), and a cylinder's support is closed-form. Over the
 * sphere of directions sep is smooth except on the caps' axes (a cone) and
 * on the great circles perpendicular to an axis (a ridge, where the support
 * is a side line; a capsule's segment is its side): the axes are tried
 * directly, with their cross product; each circle is sampled (24 directions)
 * and refined by Brent's minimiser (a golden section before issue 24's
 * second speed item); the smooth rest (rim on rim, a capsule's
 * end on a rim) by a trust-region Newton ascent from the best axis, and
 * again from the centre line when the manifold of the best axis does not
 * reach its separation or the overlap is deep (> 10 % of the smaller
 * radius). Shortcuts that keep the axis found (issue 24, speed): a circle
 * whose closed-form bound, or whose bound from the support points next to
 * its best sample, stays below the best axis is not searched; the ascent
 * reuses its probes after a rejected step, and stops once it has climbed
 * onto a side circle below the best axis (only creeping along it is left).
 * The bounds are proofs; the stop gave the same axes and manifolds, bit for
 * bit, on 160 000 random and bench_world pairs (tests/unit/
 * test_cylinder_search.c compares with the search before the shortcuts).
 * Two more proofs (issue 24, item 5): the ascent's tail of rejected steps
 * ends once a support point of A - B bounds every step left below the
 * point (rim_tail), and Brent's search on a circle stops once the support
 * points at its bracket's ends bound the arc below the best axis
 * (bracket_bound); the same axes and manifolds, bit for bit.
 * The normal's family gives the manifold, each point with its own
 * gap (from the reference feature's plane to the incident surface):
 * cap on cap: the incident cap as a polygon of 12 rim points plus its
 * deepest, clipped against the reference disc (vertices inside, edge-rim
 * crossings, the reference rim's 12 points inside the polygon), reduced to
 * 4; a side line (or capsule) on a cap: the line's part over the disc, 2
 * ends; a cap on a side line: the line's part under the cap, 2 ends; side
 * line on side line: parallel, the ends of the overlap, else the crossing
 * (or the incident support point); a rim: its one point. */
#include "core/vec3.h"
#include "collision/narrow.h"

#include <math.h>

#include "nscd/types.h"

static void add_below(const double n[3], double offset, const double v[3], double margin,
                      uint32_t feature, nscd__manifold *m) {
    double gap = nscd__dot3(n, v) - offset;
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
    double na = nscd__dot3(n, axis);
    double lowest = nscd__dot3(n, b->position) - h * fabs(na) - R * sqrt(fmax(0.0, 1.0 - na * na));
    if (lowest - offset >= margin) {
        return;
    }
    static const double rim[4][2] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
    /* in-plane direction of steepest descent: -(n - (n.a) a) */
    double w[3] = {n[0] - na * axis[0], n[1] - na * axis[1], n[2] - na * axis[2]};
    double wl = sqrt(nscd__dot3(w, w));
    /* w in the cylinder's x, y: the deepest rim point is skipped when one of
     * the four fixed ones is it */
    double wx = nscd__dot3(w, (double[]){b->rotation[0], b->rotation[3], b->rotation[6]});
    double wy = nscd__dot3(w, (double[]){b->rotation[1], b->rotation[4], b->rotation[7]});
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
    nscd__cylinder_rim_below(n, nscd__dot3(n, a->position), b, margin, m);
    nscd__keep_deepest_four(m);
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

/* ------------------------------------- cylinder-capsule and cylinder-cylinder */

/* A cylinder or a capsule as the points within r of a solid cylinder of
 * radius R and half height h about the axis u through c: a cylinder has
 * r = 0, a capsule R = 0 (its segment) and r its radius. Its "core" is the
 * solid cylinder (the segment). */
typedef struct round_shape {
    const nscd__collision_shape *s;
    double c[3], u[3];
    double R, h, r;
    /* a box (box = 1): half sizes e along the axes ax (a polytope: its
     * support is sum e_i |n.ax_i|; R = r = 0, h its half diagonal, the
     * scale of the tolerances) */
    int box;
    double e[3], ax[3][3];
} round_shape;

static void round_of(const nscd__collision_shape *s, round_shape *o) {
    o->s = s;
    for (int i = 0; i < 3; ++i) {
        o->c[i] = s->position[i];
    }
    nscd__shape_axis(s, 2, o->u);
    o->box = s->type == NSCD_SHAPE_BOX;
    if (o->box) {
        for (int i = 0; i < 3; ++i) {
            o->e[i] = s->half_extents[i];
            nscd__shape_axis(s, i, o->ax[i]);
        }
        o->R = 0.0, o->r = 0.0;
        o->h = sqrt(o->e[0] * o->e[0] + o->e[1] * o->e[1] + o->e[2] * o->e[2]);
        return;
    }
    o->h = s->half_height;
    o->R = s->type == NSCD_SHAPE_CAPSULE ? 0.0 : s->radius;
    o->r = s->type == NSCD_SHAPE_CAPSULE ? s->radius : 0.0;
}

/* Support value: the largest n.x over the shape (n unit). */
static double support_value(const round_shape *o, const double n[3]) {
    /* sin(n, u) as |n x u|: exact to round-off near the axis, where
     * sqrt(1 - c^2) would carry sqrt(1e-16), ~1e-8 of the radius, and let a
     * direction next to a cap's axis beat the axis itself */
    if (o->box) {
        return nscd__dot3(n, o->c) + o->e[0] * fabs(nscd__dot3(n, o->ax[0])) +
               o->e[1] * fabs(nscd__dot3(n, o->ax[1])) + o->e[2] * fabs(nscd__dot3(n, o->ax[2]));
    }
    const double *u = o->u;
    double x[3] = {n[1] * u[2] - n[2] * u[1], n[2] * u[0] - n[0] * u[2], n[0] * u[1] - n[1] * u[0]};
    return nscd__dot3(n, o->c) + o->h * fabs(nscd__dot3(n, u)) + o->R * sqrt(nscd__dot3(x, x)) +
           o->r;
}

/* Separation of b from a along the unit n: the smallest n.x over b minus the
 * largest over a. Its largest value over all n is the signed distance of the
 * two convex shapes (minus the penetration depth when they overlap). */
static double separation(const round_shape *a, const round_shape *b, const double n[3]) {
    double m[3] = {-n[0], -n[1], -n[2]};
    return -support_value(b, m) - support_value(a, n);
}

/* Adds to out the offset from a box's centre of its corner along n (the
 * face's centre line where n.ax_k = 0): sum_k sign(n.ax_k) e_k ax_k. */
static void add_box_corner(const round_shape *o, const double n[3], double out[3]) {
    for (int k = 0; k < 3; ++k) {
        double d = nscd__dot3(n, o->ax[k]), s = d > 0.0 ? o->e[k] : (d < 0.0 ? -o->e[k] : 0.0);
        for (int i = 0; i < 3; ++i) {
            out[i] += s * o->ax[k][i];
        }
    }
}

/* The core's point farthest along the unit n (on the rim of a cap, or a
 * segment end; the axis point when n is along the axis). */
static void core_support(const round_shape *o, const double n[3], double out[3]) {
    if (o->box) { /* its corner (the face's centre line where n.ax_i = 0) */
        for (int i = 0; i < 3; ++i) {
            out[i] = o->c[i];
        }
        add_box_corner(o, n, out);
        return;
    }
    double c = nscd__dot3(n, o->u);
    double w[3] = {n[0] - c * o->u[0], n[1] - c * o->u[1], n[2] - c * o->u[2]};
    double wl = sqrt(nscd__dot3(w, w));
    double sh = c < 0.0 ? -o->h : o->h, sr = wl > 0.0 ? o->R / wl : 0.0;
    for (int i = 0; i < 3; ++i) {
        out[i] = o->c[i] + sh * o->u[i] + sr * w[i];
    }
}

/* Which feature pair the normal belongs to: a cap face of a or b (n along an
 * axis), a side line of a or b (n perpendicular to an axis; a capsule's
 * segment is its side), or a rim or segment end on a rim (elsewhere). */
enum { FAMILY_CAP_A, FAMILY_CAP_B, FAMILY_SIDE_A, FAMILY_SIDE_B, FAMILY_RIM };

/* The separating-axis search: the best unit axis so far (from a to b). */
typedef struct axis_search {
    const round_shape *a, *b;
    double margin, slack;
    double sep, n[3];
    int family;
    int index;       /* a box's face or edge axis (0-2) of the family */
    int separated;   /* an axis with sep >= margin: no contact */
    double sep_n[3]; /* the first such axis (the pair cache's, collision.c) */
} axis_search;

static void mark_separated(axis_search *q, const double n[3]) {
    if (!q->separated) {
        q->separated = 1;
        for (int i = 0; i < 3; ++i) {
            q->sep_n[i] = n[i];
        }
    }
}

static void try_axis(axis_search *q, const double n[3], int family, int index) {
    double s = separation(q->a, q->b, n);
    if (s >= q->margin) {
        mark_separated(q, n);
    }
    /* the families come in order of preference (flat features first): a
     * later one must be better by more than round-off to replace */
    double slack = q->sep == -INFINITY ? 0.0 : q->slack;
    if (s > q->sep + slack) {
        q->sep = s, q->family = family, q->index = index;
        for (int i = 0; i < 3; ++i) {
            q->n[i] = n[i];
        }
    }
}

/* Tries the unit axis v or -v, whichever points from a toward b (it
 * separates more: sep(n) - sep(-n) = 2 n.(c_b - c_a)). */
static void try_line(axis_search *q, const double v[3], int family, int index) {
    double d[3] = {q->b->c[0] - q->a->c[0], q->b->c[1] - q->a->c[1], q->b->c[2] - q->a->c[2]};
    double s = nscd__dot3(v, d) < 0.0 ? -1.0 : 1.0;
    double n[3] = {s * v[0], s * v[1], s * v[2]};
    try_axis(q, n, family, index);
}

#define CIRCLE_SAMPLES 24
#define GOLDEN 0.61803398874989485

/* cos, sin of k * 15 degrees */
static const double circle_table[CIRCLE_SAMPLES][2] = {{1, 0},
                                                       {0.96592582628906831, 0.25881904510252074},
                                                       {0.86602540378443871, 0.49999999999999994},
                                                       {0.70710678118654757, 0.70710678118654746},
                                                       {0.50000000000000011, 0.8660254037844386},
                                                       {0.25881904510252074, 0.96592582628906831},
                                                       {6.123233995736766e-17, 1},
                                                       {-0.25881904510252063, 0.96592582628906831},
                                                       {-0.49999999999999978, 0.86602540378443871},
                                                       {-0.70710678118654746, 0.70710678118654757},
                                                       {-0.86602540378443871, 0.49999999999999994},
                                                       {-0.9659258262890682, 0.25881904510252102},
                                                       {-1, 1.2246467991473532e-16},
                                                       {-0.96592582628906831, -0.25881904510252079},
                                                       {-0.86602540378443882, -0.49999999999999972},
                                                       {-0.70710678118654791, -0.70710678118654713},
                                                       {-0.50000000000000044, -0.86602540378443837},
                                                       {-0.25881904510252063, -0.96592582628906831},
                                                       {-1.8369701987210297e-16, -1},
                                                       {0.2588190451025203, -0.96592582628906842},
                                                       {0.50000000000000011, -0.8660254037844386},
                                                       {0.70710678118654735, -0.70710678118654768},
                                                       {0.86602540378443837, -0.50000000000000044},
                                                       {0.96592582628906809, -0.25881904510252157}};

/* The separation along normalize(c + s c'), c and c' unit and orthogonal. */
static void arc_direction(const double c[3], const double cp[3], double s, double n[3]) {
    double len = sqrt(1.0 + s * s);
    for (int i = 0; i < 3; ++i) {
        n[i] = (c[i] + s * cp[i]) / len;
    }
}

/* The separation of the pair along the directions k0 b0 + k1 b1 + k2 b2 of
 * one orthonormal basis (a circle's e1, e2; the Newton ascent's n, t1, t2),
 * with every product of a basis vector and the pair's data formed once
 * (issue 24, speed): sep = n.d - hA(n) - hB(n), d = c_b - c_a, h the
 * support about the centre (the shapes are centrally symmetric, so hB(-n)
 * = hB(n)): a cylinder's or capsule's h |n.u| + R |n x u| + r, with n x u
 * summed from the b_j x u (exact to round-off near the axis, as
 * support_value's cross product), a box's sum e_i |n.ax_i|. The same
 * separation as separation() to round-off (about 1e-16 of the sizes): the
 * searches' steps use it, every axis they return is judged by
 * separation() (try_axis), and every "separated" it shows is confirmed by
 * separation() before the pair is dropped. */
typedef struct frame_shape {
    const round_shape *o;
    /* a cylinder or capsule: b_j.u and b_j x u; a box: b_j.ax_i in x[j] */
    double p[3], x[3][3];
} frame_shape;

typedef struct frame_eval {
    double kd[3]; /* b_j.d */
    double r;     /* r_a + r_b (+ R of the shape left out) */
    frame_shape s[2];
    /* the shape (0: a, 1: b) left out of the sums, -1 none: a cylinder or
     * capsule on its own side circle (b0, b1 perpendicular to its axis,
     * b2 unused), whose support about its centre is R + r on it */
    int skip;
} frame_eval;

/* basis[2] may be NULL (a circle: k2 is then 0) */
static void frame_init(frame_eval *F, const axis_search *q, const double *basis[3], int skip) {
    const round_shape *a = q->a, *b = q->b;
    double d[3] = {b->c[0] - a->c[0], b->c[1] - a->c[1], b->c[2] - a->c[2]};
    F->r = a->r + b->r;
    F->skip = skip;
    if (skip >= 0) {
        F->r += (skip == 0 ? a : b)->R;
    }
    F->s[0].o = a, F->s[1].o = b;
    for (int j = 0; j < 3; ++j) {
        const double *v = basis[j];
        if (v == NULL) {
            F->kd[j] = 0.0;
            for (int k = 0; k < 2; ++k) {
                F->s[k].p[j] = 0.0;
                F->s[k].x[j][0] = F->s[k].x[j][1] = F->s[k].x[j][2] = 0.0;
            }
            continue;
        }
        F->kd[j] = nscd__dot3(v, d);
        for (int k = 0; k < 2; ++k) {
            const round_shape *o = F->s[k].o;
            if (o->box) {
                F->s[k].p[j] = 0.0;
                for (int i = 0; i < 3; ++i) {
                    F->s[k].x[j][i] = nscd__dot3(v, o->ax[i]);
                }
            } else {
                const double *u = o->u;
                F->s[k].p[j] = nscd__dot3(v, u);
                F->s[k].x[j][0] = v[1] * u[2] - v[2] * u[1];
                F->s[k].x[j][1] = v[2] * u[0] - v[0] * u[2];
                F->s[k].x[j][2] = v[0] * u[1] - v[1] * u[0];
            }
        }
    }
}

/* The support of one shape about its centre along k0 b0 + k1 b1 + k2 b2
 * (not normalised: the support is positively homogeneous; r apart). */
static inline double frame_support(const frame_shape *f, double k0, double k1, double k2) {
    const double(*x)[3] = f->x;
    double y0 = k0 * x[0][0] + k1 * x[1][0] + k2 * x[2][0];
    double y1 = k0 * x[0][1] + k1 * x[1][1] + k2 * x[2][1];
    double y2 = k0 * x[0][2] + k1 * x[1][2] + k2 * x[2][2];
    const round_shape *o = f->o;
    if (o->box) {
        return o->e[0] * fabs(y0) + o->e[1] * fabs(y1) + o->e[2] * fabs(y2);
    }
    double p = k0 * f->p[0] + k1 * f->p[1] + k2 * f->p[2];
    return o->h * fabs(p) + o->R * sqrt(y0 * y0 + y1 * y1 + y2 * y2);
}

static double frame_sep(const frame_eval *F, double k0, double k1, double k2) {
    double nd = k0 * F->kd[0] + k1 * F->kd[1] + k2 * F->kd[2];
    double h = F->skip == 0 ? frame_support(&F->s[1], k0, k1, k2)
               : F->skip == 1
                   ? frame_support(&F->s[0], k0, k1, k2)
                   : frame_support(&F->s[0], k0, k1, k2) + frame_support(&F->s[1], k0, k1, k2);
    return (nd - h) / sqrt(k0 * k0 + k1 * k1 + k2 * k2) - F->r;
}

/* A lower bound of o's support about its centre, max over o of m.(x - c),
 * over the unit m perpendicular to the unit w. A cylinder or capsule:
 * h |m.u| + R |m x u| + r, concave in |m.u|, which ranges over
 * [0, |u x w|] on that circle: the smaller of its two ends. A box:
 * sum e_i |m.ax_i| >= its smallest half size (sum |m.ax_i| >= 1), or the
 * smaller of the other two when w is its axis i (m.ax_i = 0). */
static double circle_floor(const round_shape *o, const double w[3]) {
    if (o->box) {
        double lo = INFINITY;
        for (int i = 0; i < 3; ++i) {
            if (fabs(nscd__dot3(w, o->ax[i])) < 1.0 - 1e-12) {
                lo = fmin(lo, o->e[i]);
            }
        }
        return lo == INFINITY ? 0.0 : lo;
    }
    double c = fabs(nscd__dot3(o->u, w));
    double x[3] = {o->u[1] * w[2] - o->u[2] * w[1], o->u[2] * w[0] - o->u[0] * w[2],
                   o->u[0] * w[1] - o->u[1] * w[0]};
    double sn = sqrt(nscd__dot3(x, x));
    return o->r + fmax(0.0, fmin(o->R, o->h * sn + o->R * c));
}

/* The pair's size for the searches' room against round-off: both shapes'
 * R + h + r and the distance of their centres. */
static double pair_size(const axis_search *q) {
    const round_shape *a = q->a, *b = q->b;
    double d[3] = {b->c[0] - a->c[0], b->c[1] - a->c[1], b->c[2] - a->c[2]};
    return a->R + a->h + a->r + b->R + b->h + b->r + sqrt(nscd__dot3(d, d));
}

/* Can the circle of directions perpendicular to the unit w beat the best
 * axis? On it sep(n) = n.d - hA(n) - hB(-n) (d = c_b - c_a, hA, hB the
 * supports about the centres) <= |d - (d.w) w| - floor_A - floor_B. When
 * that bound (with room for the round-off of the separations) stays below
 * what try_axis would need to replace the best axis, and below the margin,
 * the circle changes nothing and is skipped. */
static int circle_can_win(const axis_search *q, const double w[3]) {
    if (q->sep == -INFINITY) {
        return 1;
    }
    const round_shape *a = q->a, *b = q->b;
    double d[3] = {b->c[0] - a->c[0], b->c[1] - a->c[1], b->c[2] - a->c[2]};
    double dw = nscd__dot3(d, w);
    double p[3] = {d[0] - dw * w[0], d[1] - dw * w[1], d[2] - dw * w[2]};
    double bound = sqrt(nscd__dot3(p, p)) - circle_floor(a, w) - circle_floor(b, w);
    double room = 1e-12 * pair_size(q);
    return bound + room > fmin(q->sep + q->slack, q->margin);
}

/* The support point of the Minkowski difference A - B along the unit n:
 * x with n.x = -sep(n), and m.x <= -sep(m) for every unit m. */
static void difference_support(const axis_search *q, const double n[3], double x[3]) {
    double mn[3] = {-n[0], -n[1], -n[2]}, pa[3], pb[3];
    core_support(q->a, n, pa);
    core_support(q->b, mn, pb);
    for (int i = 0; i < 3; ++i) {
        x[i] = pa[i] - pb[i] + (q->a->r + q->b->r) * n[i];
    }
}

/* An upper bound of sep over the arc of directions cos(p) c + sin(p) c',
 * p in [0, 15 degrees] (side > 0) or [-15 degrees, 0] (side < 0), c, c'
 * orthonormal, from the support points x0, x1 of A - B at its ends:
 * sep(m) <= min(-m.x0, -m.x1), two sinusoids in p whose minimum is largest
 * at an end of the arc, where they cross, or at the top of one of them
 * (each as its cos p, sin p, without trigonometric functions). */
static double arc_bound(const double c[3], const double cp[3], double side, const double x0[3],
                        const double x1[3]) {
    const double cos15 = 0.96592582628906831, sin15 = 0.25881904510252074;
    double X0 = nscd__dot3(x0, c), Y0 = nscd__dot3(x0, cp);
    double X1 = nscd__dot3(x1, c), Y1 = nscd__dot3(x1, cp);
    double cand[6][2] = {{1.0, 0.0}, {cos15, side > 0.0 ? sin15 : -sin15}};
    int count = 2;
    double tops[2][2] = {{-X0, -Y0}, {-X1, -Y1}};
    for (int k = 0; k < 2; ++k) {
        double len = hypot(tops[k][0], tops[k][1]);
        if (len > 0.0) {
            cand[count][0] = tops[k][0] / len, cand[count][1] = tops[k][1] / len, ++count;
        }
    }
    double A = X0 - X1, B = Y0 - Y1, len = hypot(A, B); /* A cos p + B sin p = 0 */
    if (len > 0.0) {
        cand[count][0] = B / len, cand[count][1] = -A / len, ++count;
        cand[count][0] = -B / len, cand[count][1] = A / len, ++count;
    }
    double bound = -INFINITY;
    for (int k = 0; k < count; ++k) {
        double cs = cand[k][0], sn = side > 0.0 ? cand[k][1] : -cand[k][1];
        if (k >= 2 && !(sn >= 0.0 && cs >= cos15)) { /* outside the arc */
            continue;
        }
        double g = fmin(-(X0 * cand[k][0] + Y0 * cand[k][1]), -(X1 * cand[k][0] + Y1 * cand[k][1]));
        bound = fmax(bound, g);
    }
    return bound;
}

/* The core's point farthest along m (not unit), from o's centre: a box's
 * corner, a rim point or a segment end. Unlike core_support, the radial
 * direction is projected off the axis twice: near the axis (|m x u| small)
 * one projection leaves a part along u of the round-off of m, which the
 * scaling R / |w| would carry to ~1e-16 R / |m x u| off the body, more
 * than this bound's room. */
static void tail_support(const round_shape *o, const double m[3], double out[3]) {
    if (o->box) {
        for (int i = 0; i < 3; ++i) {
            out[i] = 0.0;
        }
        add_box_corner(o, m, out);
        return;
    }
    double c = nscd__dot3(m, o->u);
    double w[3] = {m[0] - c * o->u[0], m[1] - c * o->u[1], m[2] - c * o->u[2]};
    double c2 = nscd__dot3(w, o->u);
    for (int i = 0; i < 3; ++i) {
        w[i] -= c2 * o->u[i];
    }
    double wl = sqrt(nscd__dot3(w, w));
    double sh = c < 0.0 ? -o->h : o->h, sr = wl > 0.0 ? o->R / wl : 0.0;
    for (int i = 0; i < 3; ++i) {
        out[i] = sh * o->u[i] + sr * w[i];
    }
}

/* difference_support by tail_support (exact near an axis) along m (not
 * unit), about the centres' offset d = c_b - c_a as frame_sep: x =
 * tail_support(a, m) - tail_support(b, -m) - d + r_m m, r_m = (r_a + r_b) /
 * |m| (the caller passes it: exactly r_a + r_b when m is unit), so that
 * sep(n) <= -n.x for every unit n. */
static void tail_difference_support(const axis_search *q, const double m[3], double r_m,
                                    double x[3]) {
    const round_shape *a = q->a, *b = q->b;
    double d[3] = {b->c[0] - a->c[0], b->c[1] - a->c[1], b->c[2] - a->c[2]};
    double mm[3] = {-m[0], -m[1], -m[2]}, pa[3], pb[3];
    tail_support(a, m, pa);
    tail_support(b, mm, pb);
    for (int i = 0; i < 3; ++i) {
        x[i] = pa[i] - pb[i] - d[i] + r_m * m[i];
    }
}

/* An upper bound of sep over the arc of directions normalize(c + s c'),
 * s in [lo, hi] (c, c' orthonormal), from the support points x0, x1 of
 * A - B at its ends (tail_support, about the centres): in the frame m0
 * (the arc's start), m0' (perpendicular, toward its end) the arc is
 * cos p m0 + sin p m0', p in [0, P], and sep(m) <= min(-m.x0, -m.x1), two
 * sinusoids whose minimum is largest at an end, where they cross, or at
 * the top of one of them (arc_bound, on any arc). */
static double bracket_bound(const axis_search *q, const double c[3], const double cp[3], double lo,
                            double hi) {
    double l0 = sqrt(1.0 + lo * lo), l1 = sqrt(1.0 + hi * hi);
    double m0[3], m0p[3], x[2][3];
    for (int i = 0; i < 3; ++i) {
        m0[i] = (c[i] + lo * cp[i]) / l0;
        m0p[i] = (cp[i] - lo * c[i]) / l0;
    }
    for (int j = 0; j < 2; ++j) {
        double s = j == 0 ? lo : hi, l = j == 0 ? l0 : l1, m[3];
        for (int i = 0; i < 3; ++i) {
            m[i] = (c[i] + s * cp[i]) / l;
        }
        tail_difference_support(q, m, q->a->r + q->b->r, x[j]);
    }
    double cosP = (1.0 + lo * hi) / (l0 * l1), sinP = (hi - lo) / (l0 * l1);
    double X0 = nscd__dot3(x[0], m0), Y0 = nscd__dot3(x[0], m0p);
    double X1 = nscd__dot3(x[1], m0), Y1 = nscd__dot3(x[1], m0p);
    double cand[6][2] = {{1.0, 0.0}, {cosP, sinP}};
    int count = 2;
    double tops[2][2] = {{-X0, -Y0}, {-X1, -Y1}};
    for (int k = 0; k < 2; ++k) {
        double len = sqrt(tops[k][0] * tops[k][0] + tops[k][1] * tops[k][1]);
        if (len > 0.0) {
            cand[count][0] = tops[k][0] / len, cand[count][1] = tops[k][1] / len, ++count;
        }
    }
    double A = X0 - X1, B = Y0 - Y1, len = sqrt(A * A + B * B); /* A cos p + B sin p = 0 */
    if (len > 0.0) {
        cand[count][0] = B / len, cand[count][1] = -A / len, ++count;
        cand[count][0] = -B / len, cand[count][1] = A / len, ++count;
    }
    double bound = -INFINITY;
    for (int k = 0; k < count; ++k) {
        double cs = cand[k][0], sn = cand[k][1];
        if (k >= 2 && !(sn >= 0.0 && cs >= cosP)) { /* outside the arc */
            continue;
        }
        bound = fmax(bound, fmin(-(X0 * cs + Y0 * sn), -(X1 * cs + Y1 * sn)));
    }
    return bound;
}

/* The best axis perpendicular to an axis (a side line, or a box's edges
 * along it, against the other shape), e1, e2 an orthonormal basis of the
 * circle: 24 samples, then Brent's search between the best sample's
 * neighbours down to 1e-9 rad. Skipped, whole (circle_can_win)
 * or after the samples (arc_bound), when a bound shows that it cannot
 * replace the best axis: the same axis as without the bounds. */
static void search_circle(axis_search *q, const double e1[3], const double e2[3], int family,
                          int index) {
    double n[3], c[3], cp[3];
    double axis[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                      e1[0] * e2[1] - e1[1] * e2[0]};
    if (!circle_can_win(q, axis)) {
        return;
    }
    const double *basis[3] = {e1, e2, NULL};
    const round_shape *owner = family == FAMILY_SIDE_A ? q->a : q->b;
    frame_eval F;
    frame_init(&F, q, basis, owner->box ? -1 : (family == FAMILY_SIDE_A ? 0 : 1));
    double best = -INFINITY;
    int bk = 0;
    for (int k = 0; k < CIRCLE_SAMPLES; ++k) {
        double s = frame_sep(&F, circle_table[k][0], circle_table[k][1], 0.0);
        if (s > best) {
            best = s, bk = k;
        }
    }
    if (best >= q->margin) {
        for (int i = 0; i < 3; ++i) {
            n[i] = circle_table[bk][0] * e1[i] + circle_table[bk][1] * e2[i];
        }
        if (separation(q->a, q->b, n) >= q->margin) {
            mark_separated(q, n);
            return;
        }
    }
    for (int i = 0; i < 3; ++i) {
        c[i] = circle_table[bk][0] * e1[i] + circle_table[bk][1] * e2[i];
        cp[i] = -circle_table[bk][1] * e1[i] + circle_table[bk][0] * e2[i];
    }
    /* Can the arcs on either side of the best sample beat the best axis?
     * Their bound from the support points of the three samples, with room
     * for round-off, against what try_axis needs to replace it. */
    if (q->sep != -INFINITY) {
        double x[3][3], m[3];
        for (int j = 0; j < 3; ++j) {
            int k = (bk + j - 1 + CIRCLE_SAMPLES) % CIRCLE_SAMPLES;
            for (int i = 0; i < 3; ++i) {
                m[i] = circle_table[k][0] * e1[i] + circle_table[k][1] * e2[i];
            }
            difference_support(q, m, x[j]);
        }
        double bound = fmax(arc_bound(c, cp, -1.0, x[1], x[0]), arc_bound(c, cp, 1.0, x[1], x[2]));
        double room = 1e-12 * pair_size(q);
        if (bound + room <= fmin(q->sep + q->slack, q->margin)) {
            return;
        }
    }
    /* Brent's minimiser (Brent 1973, "localmin"; parabolic steps
     * safeguarded by golden sections) of -sep over the tangent parameter
     * s in [-tan 15, tan 15] of normalize(c + s c'), from the best sample
     * (s = 0), down to a bracket of 1e-9 as the golden section it
     * replaced: the same maximum (to the ~1e-8 rad a derivative-free
     * search places a smooth maximum at) in a third of the evaluations */
    const double ck = circle_table[bk][0], sk = circle_table[bk][1];
    const double span = 0.26794919243112270; /* tan 15 degrees */
    const double tol1 = 2.5e-10, tol2 = 2.0 * tol1, cgold = 1.0 - GOLDEN;
    double lo = -span, hi = span;
    double x = 0.0, w = 0.0, v = 0.0, fx = best, fw = best, fv = best, step = 0.0, e = 0.0;
    /* Brent's x stays in [lo, hi], and only its end decides (try_axis):
     * once the bracket is narrower than 1e-4 (tangent parameter), the
     * bound of sep over the arc [lo, hi] from the support points at its
     * ends (with room for round-off) may show that the search cannot
     * replace the best axis; it stops there, changing nothing (issue 24,
     * item 5; checked once: also at 0.03 and 1e-3 it cost more than it
     * saved, and 1e-4 saved more than 3e-5 or 1e-5). */
    const double bracket_width = 1e-4;
    int bracket_checked = q->sep == -INFINITY;
    double room = 0.0;
    if (!bracket_checked) {
        room = 1e-12 * pair_size(q);
    }
    for (int iter = 0; iter < 100; ++iter) {
        double mid = 0.5 * (lo + hi);
        if (fabs(x - mid) <= tol2 - 0.5 * (hi - lo)) {
            break;
        }
        if (!bracket_checked && hi - lo < bracket_width) {
            bracket_checked = 1;
            if (bracket_bound(q, c, cp, lo, hi) + room <= fmin(q->sep + q->slack, q->margin)) {
                return;
            }
        }
        int golden = 1;
        if (fabs(e) > tol1) { /* the parabola through x, w, v (of -sep) */
            double r = (x - w) * (fv - fx), t = (x - v) * (fw - fx);
            double pp = (x - v) * t - (x - w) * r;
            t = 2.0 * (t - r);
            if (t > 0.0) {
                pp = -pp;
            }
            t = fabs(t);
            double last = e;
            if (fabs(pp) < fabs(0.5 * t * last) && pp > t * (lo - x) && pp < t * (hi - x)) {
                e = step;
                step = pp / t;
                double u = x + step;
                if (u - lo < tol2 || hi - u < tol2) {
                    step = mid > x ? tol1 : -tol1;
                }
                golden = 0;
            }
        }
        if (golden) {
            e = x >= mid ? lo - x : hi - x;
            step = cgold * e;
        }
        double u = fabs(step) >= tol1 ? x + step : x + (step > 0.0 ? tol1 : -tol1);
        double fu = frame_sep(&F, ck - u * sk, sk + u * ck, 0.0);
        if (fu >= fx) {
            if (u >= x) {
                lo = x;
            } else {
                hi = x;
            }
            v = w, fv = fw, w = x, fw = fx, x = u, fx = fu;
        } else {
            if (u < x) {
                lo = u;
            } else {
                hi = u;
            }
            if (fu >= fw || w == x) {
                v = w, fv = fw, w = u, fw = fu;
            } else if (fu >= fv || v == x || v == w) {
                v = u, fv = fu;
            }
        }
    }
    arc_direction(c, cp, x, n);
    try_axis(q, n, family, index);
}

/* The unit direction n + a t1 + b t2 (t1, t2 a tangent basis at n). */
static void tangent_step(const double n[3], const double t1[3], const double t2[3], double a,
                         double b, double out[3]) {
    for (int i = 0; i < 3; ++i) {
        out[i] = n[i] + a * t1[i] + b * t2[i];
    }
    double len = sqrt(nscd__dot3(out, out));
    for (int i = 0; i < 3; ++i) {
        out[i] /= len;
    }
}

/* Is n within 1e-6 rad of a ridge of the separation: the circle of
 * directions perpendicular to a cylinder's or capsule's axis, or to a box's
 * edges? */
static int on_ridge(const axis_search *q, const double n[3]) {
    const round_shape *o[2] = {q->a, q->b};
    for (int k = 0; k < 2; ++k) {
        if (o[k]->box) {
            for (int i = 0; i < 3; ++i) {
                if (fabs(nscd__dot3(n, o[k]->ax[i])) < 1e-6) {
                    return 1;
                }
            }
        } else if (o[k]->h > 0.0 && fabs(nscd__dot3(n, o[k]->u)) < 1e-6) {
            return 1;
        }
    }
    return 0;
}

/* The tail of rejected steps (issue 24, item 5). Once no probe beats n,
 * a rejected step leaves n, its probes, the step's direction t (unit, in
 * the tangent plane) and the next step's length sl / 4 as they were: the
 * ascent then tries the lengths sl, sl / 4, ... down to 1e-10 along t and
 * stops at n unless one of them beats f. The support point x of A - B along
 * n tilted a little toward t bounds every one of them: sep(m) <= -m.x for
 * every unit m, so along m = (n + s t) / sqrt(1 + s^2)
 * sep(m) <= (A0 + s B0) / sqrt(1 + s^2), A0 = -n.x, B0 = -t.x, and
 * (f - room) sqrt(1 + s^2) >= f - room - |f - room| s^2 / 2. When the
 * convex quadratic A0 - f + room + s B0 + |f - room| s^2 / 2 is <= 0 at
 * both ends of [0.5e-10, sl], no step of the tail beats f by more than the
 * room, which exceeds the round-off of the separations (frame_sep's and
 * this bound's, about 1e-15 of the sizes): every step would be rejected,
 * and the ascent ends at n as it would have, bit for bit. */
typedef struct rim_tail {
    int ready;      /* x known for the current n and direction */
    double A0, B0;  /* -n.x, -t.x */
    double room, f; /* the room; f - room's size, |f - room| */
} rim_tail;

static void tail_prepare(const axis_search *q, const double n[3], const double t[3], double f,
                         rim_tail *T) {
    const double eps = 1e-9;
    const round_shape *a = q->a, *b = q->b;
    double m[3], x[3];
    for (int i = 0; i < 3; ++i) {
        m[i] = n[i] + eps * t[i];
    }
    tail_difference_support(q, m, (a->r + b->r) / sqrt(nscd__dot3(m, m)), x);
    T->room = 1e-13 * pair_size(q);
    T->A0 = -nscd__dot3(n, x);
    T->B0 = -nscd__dot3(t, x);
    T->f = fabs(f - T->room);
    T->ready = 1;
}

/* Does the bound reject every step of length in [1e-10, sl]? */
static int tail_rejected(const rim_tail *T, double f, double sl) {
    if (!(T->B0 < 0.0)) {
        return 0;
    }
    double c0 = T->A0 - f + T->room;
    double lo = 0.5e-10, hi = sl; /* the tail's lengths exceed 1e-10 */
    return c0 + lo * T->B0 + 0.5 * T->f * lo * lo <= 0.0 &&
           c0 + hi * T->B0 + 0.5 * T->f * hi * hi <= 0.0;
}

/* Rim against rim (or a capsule's end against a rim): the separation is
 * smooth there; a trust-region Newton ascent over the sphere of directions
 * from `start` (gradient and Hessian by differences of 1e-6 rad in a tangent
 * basis; a gradient step where the Hessian is not negative definite), down
 * to steps of 1e-10 rad. Kinks (caps, side lines) are the other searches'. */
static void search_rim(axis_search *q, const double start[3]) {
    const double h = 1e-6;
    /* a slope (m/rad) above which the point is taken for a kink, not a
     * smooth maximum's neighbourhood */
    const double kink_slope = 1e-4 * (q->a->R + q->a->h + q->b->R + q->b->h);
    double n[3] = {start[0], start[1], start[2]};
    double f = 0.0, trust = 0.2;
    /* the tangent basis and the probes at n (in the frame n, t1, t2: the
     * separations of n and of the probes from the same products):
     * computed again only when n moved (a rejected step keeps n, and with
     * it all five probes) */
    double t1[3], t2[3], p[3], fv[5];
    static const double probe[5][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}};
    const double *basis[3] = {n, t1, t2};
    frame_eval F;
    rim_tail T = {0};
    int moved = 1;
    for (int iter = 0; iter < 200 && trust > 1e-10; ++iter) {
        if (moved) {
            T.ready = 0;
            nscd__any_perpendicular(n, t1);
            t2[0] = n[1] * t1[2] - n[2] * t1[1], t2[1] = n[2] * t1[0] - n[0] * t1[2],
            t2[2] = n[0] * t1[1] - n[1] * t1[0];
            frame_init(&F, q, basis, -1);
            f = frame_sep(&F, 1.0, 0.0, 0.0);
            for (int k = 0; k < 5; ++k) {
                fv[k] = frame_sep(&F, 1.0, h * probe[k][0], h * probe[k][1]);
            }
            moved = 0;
        }
        double g[2] = {(fv[0] - fv[1]) / (2.0 * h), (fv[2] - fv[3]) / (2.0 * h)};
        double H11 = (fv[0] - 2.0 * f + fv[1]) / (h * h), H22 = (fv[2] - 2.0 * f + fv[3]) / (h * h);
        double H12 = (fv[4] - fv[0] - fv[2] + f) / (h * h);
        double det = H11 * H22 - H12 * H12, gl = sqrt(g[0] * g[0] + g[1] * g[1]);
        if (!(gl > 0.0)) {
            break;
        }
        /* the Newton step -H^-1 g where H is negative definite and the slope
         * is not that of a kink (where the differences give a huge H and
         * the step would creep), else the gradient step of the trust length */
        double step[2] = {trust * g[0] / gl, trust * g[1] / gl};
        int newton = H11 < 0.0 && det > 0.0 && gl < kink_slope;
        if (newton) {
            step[0] = -(H22 * g[0] - H12 * g[1]) / det;
            step[1] = -(H11 * g[1] - H12 * g[0]) / det;
        }
        double sl = sqrt(step[0] * step[0] + step[1] * step[1]);
        if (sl > trust) {
            step[0] *= trust / sl, step[1] *= trust / sl, sl = trust;
        }
        int pk = 0; /* the best probe: next to a kink it can beat the step */
        for (int k = 1; k < 5; ++k) {
            pk = fv[k] > fv[pk] ? k : pk;
        }
        if (!(fv[pk] > f) && sl > 1e-10) { /* a rejection would start the tail */
            if (!T.ready) {
                double t[3] = {(step[0] * t1[0] + step[1] * t2[0]) / sl,
                               (step[0] * t1[1] + step[1] * t2[1]) / sl,
                               (step[0] * t1[2] + step[1] * t2[2]) / sl};
                tail_prepare(q, n, t, f, &T);
            }
            if (tail_rejected(&T, f, sl)) {
                /* the test that ends each iteration, with this n and f */
                if (f >= q->margin && separation(q->a, q->b, n) >= q->margin) {
                    mark_separated(q, n);
                    return;
                }
                break;
            }
        }
        double fp = frame_sep(&F, 1.0, step[0], step[1]);
        if (fp > f && fp >= fv[pk]) {
            tangent_step(n, t1, t2, step[0], step[1], p);
            f = fp, moved = 1;
            for (int i = 0; i < 3; ++i) {
                n[i] = p[i];
            }
            trust = fmin(0.5, fmax(trust, 2.0 * sl));
            if (newton && sl < 1e-10) {
                break;
            }
        } else if (fv[pk] > f) {
            tangent_step(n, t1, t2, h * probe[pk][0], h * probe[pk][1], p);
            f = fv[pk], moved = 1;
            for (int i = 0; i < 3; ++i) {
                n[i] = p[i];
            }
            trust = fmin(trust, 0.25 * sl);
        } else {
            trust = 0.25 * sl;
        }
        if (f >= q->margin && separation(q->a, q->b, n) >= q->margin) {
            mark_separated(q, n);
            return;
        }
        if (moved && !newton && f < q->sep && on_ridge(q, n)) {
            /* climbed onto a side circle (or a box's edge circle) below
             * the best axis: along it the separation is that circle's,
             * whose largest value the circle search has tried; across it
             * a kink. Creeping along it by probes cannot win. */
            break;
        }
    }
    try_axis(q, n, FAMILY_RIM, 0);
}

/* One manifold: reference shape x, incident shape y, unit normal n from x to
 * y, x's support plane {n.p = zref}. Gaps are measured along n from that
 * plane to y's surface; points lie midway. */
typedef struct pair_frame {
    const round_shape *x, *y;
    double n[3], zref, margin;
    uint32_t base; /* feature bits of the manifold kind */
} pair_frame;

/* A point of y's core (y's surface lies y->r below it along n). */
static void add_incident(const pair_frame *f, const double core[3], uint32_t index,
                         nscd__manifold *m) {
    double gap = nscd__dot3(f->n, core) - f->y->r - f->zref;
    if (gap < f->margin) {
        double k = f->y->r + 0.5 * gap;
        double point[3] = {core[0] - k * f->n[0], core[1] - k * f->n[1], core[2] - k * f->n[2]};
        nscd__manifold_add(m, point, f->n, gap, f->base | index);
    }
}

/* The ends p + t0 d and p + t1 d of a clipped piece of y's core (index 0,
 * 1); one point (0) when they coincide (a line touching a rim). */
static void add_ends(const pair_frame *f, const double p[3], const double d[3], double t0,
                     double t1, nscd__manifold *m) {
    double e[3] = {(t1 - t0) * d[0], (t1 - t0) * d[1], (t1 - t0) * d[2]};
    int both = sqrt(nscd__dot3(e, e)) > 1e-9 * (f->x->R + f->x->h + f->x->r);
    for (int k = 0; k < 1 + both; ++k) {
        double t = k == 0 ? t0 : t1;
        double q[3] = {p[0] + t * d[0], p[1] + t * d[1], p[2] + t * d[2]};
        add_incident(f, q, (uint32_t)k, m);
    }
}

/* Feature bits: flip (x is b), the manifold kind, x's and y's cap (1: the +u
 * cap), and an index below 64 within the kind. */
enum {
    KIND_CAP_POLYGON = 1, /* y's cap polygon on x's cap disc */
    KIND_CAP_LINE,        /* y's side line (a capsule's segment) on x's cap disc */
    KIND_SIDE_CAP,        /* y's cap on x's side line */
    KIND_SIDE_LINE,       /* y's side line on x's side line */
    KIND_RIM,             /* one point: y's support point */
    /* box (x or y) and cylinder, bits 13-15: the box's face or edge axis
     * and side (2 axis + side), index below 256 */
    KIND_FACE_POLYGON, /* the cylinder's cap polygon on a box face, clipped */
    KIND_FACE_LINE,    /* the cylinder's side line on a box face, clipped */
    KIND_BOX_ON_CAP,   /* a box face on the cylinder's cap disc, clipped */
    KIND_BOX_ON_SIDE,  /* a box face on the cylinder's side line, clipped */
    KIND_EDGE_ON_SIDE, /* a box edge on the cylinder's side line */
    KIND_CAP_ON_EDGE,  /* the cylinder's cap on a box edge */
    KIND_LINE_ON_EDGE  /* the cylinder's side line on a box edge */
};

static uint32_t feature_base(int flip, int kind, int cap_x, int cap_y) {
    return (uint32_t)flip << 12 | (uint32_t)kind << 8 | (uint32_t)cap_x << 6 | (uint32_t)cap_y << 7;
}

/* y's side line: the two ends of its core's line farthest along -n (a
 * capsule: its segment). */
static void incident_line(const round_shape *y, const double n[3], double p0[3], double p1[3]) {
    double m[3] = {-n[0], -n[1], -n[2]};
    double c = nscd__dot3(m, y->u);
    double w[3] = {m[0] - c * y->u[0], m[1] - c * y->u[1], m[2] - c * y->u[2]};
    double wl = sqrt(nscd__dot3(w, w)), sr = wl > 0.0 ? y->R / wl : 0.0;
    for (int i = 0; i < 3; ++i) {
        p0[i] = y->c[i] + sr * w[i] - y->h * y->u[i];
        p1[i] = y->c[i] + sr * w[i] + y->h * y->u[i];
    }
}

/* The parameters t in [lo, hi] where q0 + t q1 lies within R of the centre
 * (all in one plane through the centre): returns 0 when none. */
static int disc_interval(const double q0[3], const double q1[3], const double centre[3], double R,
                         double lo, double hi, double *t0, double *t1) {
    double d0[3] = {q0[0] - centre[0], q0[1] - centre[1], q0[2] - centre[2]};
    double a = nscd__dot3(q1, q1), b = nscd__dot3(d0, q1), c = nscd__dot3(d0, d0) - R * R;
    if (a <= 1e-24 * R * R) { /* a point */
        if (c > 0.0) {
            return 0;
        }
        *t0 = lo, *t1 = hi;
        return 1;
    }
    double disc = b * b - a * c;
    if (disc < 0.0) {
        return 0;
    }
    double root = sqrt(disc);
    *t0 = fmax(lo, (-b - root) / a);
    *t1 = fmin(hi, (-b + root) / a);
    return *t0 <= *t1;
}

/* y's cap facing x (against n): its centre and sign (1: the +u cap). */
static int incident_cap(const round_shape *y, const double n[3], double centre[3]) {
    int plus = nscd__dot3(n, y->u) < 0.0;
    double s = plus ? y->h : -y->h;
    for (int i = 0; i < 3; ++i) {
        centre[i] = y->c[i] + s * y->u[i];
    }
    return plus;
}

#define POLYGON_SIDES 12
#define CAP_FACING 0.70710678118654752 /* |cos| above which y's cap faces x */

/* x's cap disc (n = +-x's axis) against y's cap, y's cap a polygon of 12 rim
 * points plus y's deepest rim point: the vertices over x's disc (index
 * 0-12), the crossings of its edges with x's rim (16-41) and x's rim points
 * under it (48-59), each with its own gap; at most 4 kept. */
/* y's cap facing x as a polygon of 12 rim points plus its deepest rim point
 * along -n (index 12); its outward normal nu and centre ycap. Returns the
 * vertex count. */
static int cap_polygon(const round_shape *y, const double n[3], double v[POLYGON_SIDES + 1][3],
                       int id[POLYGON_SIDES + 1], double nu[3], double ycap[3]) {
    double yx[3], yy[3];
    int cap_y = incident_cap(y, n, ycap);
    for (int i = 0; i < 3; ++i) {
        nu[i] = cap_y ? y->u[i] : -y->u[i];
    }
    nscd__shape_axis(y->s, 0, yx);
    nscd__shape_axis(y->s, 1, yy);
    /* y's deepest rim point: its angle in y's frame */
    double c = -nscd__dot3(n, y->u);
    double w[3] = {-n[0] - c * y->u[0], -n[1] - c * y->u[1], -n[2] - c * y->u[2]};
    double wl = sqrt(nscd__dot3(w, w));
    const double step = 2.0 * 3.14159265358979323846 / POLYGON_SIDES;
    double deepest = -1.0;
    if (wl > 1e-9) {
        deepest = atan2(nscd__dot3(w, yy), nscd__dot3(w, yx));
        if (deepest < 0.0) {
            deepest += 2.0 * 3.14159265358979323846;
        }
        double k = deepest / step;
        if (fabs(k - floor(k + 0.5)) < 1e-9) {
            deepest = -1.0; /* one of the twelve */
        }
    }
    int nv = 0;
    for (int k = 0; k < POLYGON_SIDES; ++k) {
        double angles[2] = {k * step, deepest};
        int count = deepest > k * step && deepest < (k + 1) * step ? 2 : 1;
        for (int j = 0; j < count; ++j) {
            double ca = cos(angles[j]), sa = sin(angles[j]);
            for (int i = 0; i < 3; ++i) {
                v[nv][i] = ycap[i] + y->R * (ca * yx[i] + sa * yy[i]);
            }
            id[nv++] = j == 0 ? k : POLYGON_SIDES;
        }
    }
    return nv;
}

/* Whether the point p lies in the convex polygon q[0..nv-1] (2D, vertices
 * in order; orient = the sign of its area): on the inner side of every edge. */
static int inside_polygon(double (*q)[2], int nv, double orient, const double p[2]) {
    for (int k = 0; k < nv; ++k) {
        const double *a = q[k], *b = q[(k + 1) % nv];
        double cr = (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]);
        if (!(orient * cr >= 0.0)) {
            return 0;
        }
    }
    return 1;
}

/* y's flat face, the convex polygon v (nv <= 13 vertices, indices id, in
 * the plane through `yplane` with outward normal nu), against x's cap disc
 * (centre xcap, frame ex, ey): the vertices over the disc (index id), the
 * crossings of its edges with x's rim (16 + 2 id + 0/1) and x's 12 rim
 * points under the polygon (48-59), each with its own gap; reduced to 4. */
static void polygon_on_disc(const pair_frame *f, const double xcap[3], const double ex[3],
                            const double ey[3], int nv, double v[POLYGON_SIDES + 1][3],
                            const int id[POLYGON_SIDES + 1], const double nu[3],
                            const double yplane[3], nscd__manifold *m) {
    const round_shape *x = f->x;
    const double step = 2.0 * 3.14159265358979323846 / POLYGON_SIDES;
    double q[POLYGON_SIDES + 1][2];
    for (int k = 0; k < nv; ++k) {
        double r[3] = {v[k][0] - xcap[0], v[k][1] - xcap[1], v[k][2] - xcap[2]};
        q[k][0] = nscd__dot3(r, ex), q[k][1] = nscd__dot3(r, ey);
    }
    nscd__manifold cand = {0};
    double R2 = x->R * x->R;
    double area = 0.0;
    for (int k = 0; k < nv; ++k) {
        const double *a = q[k], *b = q[(k + 1) % nv];
        area += a[0] * b[1] - a[1] * b[0];
        if (a[0] * a[0] + a[1] * a[1] <= R2) {
            add_incident(f, v[k], (uint32_t)id[k], &cand);
        }
        /* crossings of the edge with x's rim, strictly inside the edge */
        double e[2] = {b[0] - a[0], b[1] - a[1]};
        double qa = e[0] * e[0] + e[1] * e[1], qb = a[0] * e[0] + a[1] * e[1];
        double qc = a[0] * a[0] + a[1] * a[1] - R2, disc = qb * qb - qa * qc;
        if (qa > 0.0 && disc > 0.0) {
            double root = sqrt(disc);
            for (int j = 0; j < 2; ++j) {
                double t = (-qb + (j == 0 ? -root : root)) / qa;
                if (t > 0.0 && t < 1.0) {
                    const double *vb = v[(k + 1) % nv];
                    double p[3] = {v[k][0] + t * (vb[0] - v[k][0]), v[k][1] + t * (vb[1] - v[k][1]),
                                   v[k][2] + t * (vb[2] - v[k][2])};
                    add_incident(f, p, (uint32_t)(16 + 2 * id[k] + j), &cand);
                }
            }
        }
    }
    /* x's rim points inside y's polygon (seen along n) */
    double orient = area < 0.0 ? -1.0 : 1.0, nn = nscd__dot3(nu, f->n);
    for (int j = 0; j < POLYGON_SIDES; ++j) {
        double ca = cos(j * step), sa = sin(j * step);
        double p[2] = {x->R * ca, x->R * sa};
        if (inside_polygon(q, nv, orient, p)) {
            double xp[3], yp[3];
            for (int i = 0; i < 3; ++i) {
                xp[i] = xcap[i] + p[0] * ex[i] + p[1] * ey[i];
            }
            /* along n onto y's cap plane */
            double z = (nscd__dot3(nu, yplane) - nscd__dot3(nu, xp)) / nn;
            for (int i = 0; i < 3; ++i) {
                yp[i] = xp[i] + z * f->n[i];
            }
            add_incident(f, yp, (uint32_t)(48 + j), &cand);
        }
    }
    nscd__reduce_to_four(&cand, f->n);
    for (int32_t k = 0; k < cand.n; ++k) {
        nscd__manifold_add(m, cand.p[k].point, cand.p[k].normal, cand.p[k].gap, cand.p[k].feature);
    }
}

/* x's cap disc (n = +-x's axis) against y's cap (cap_polygon, then
 * polygon_on_disc). */
static void cap_on_cap(const pair_frame *f, const double xcap[3], nscd__manifold *m) {
    double v[POLYGON_SIDES + 1][3], nu[3], ycap[3], ex[3], ey[3];
    int id[POLYGON_SIDES + 1];
    int nv = cap_polygon(f->y, f->n, v, id, nu, ycap);
    nscd__shape_axis(f->x->s, 0, ex);
    nscd__shape_axis(f->x->s, 1, ey);
    polygon_on_disc(f, xcap, ex, ey, nv, v, id, nu, ycap, m);
}

/* x's cap disc (n = +-x's axis) against y's side line: the part of the line
 * over the disc, its two ends (index 0, 1). Returns 0 when none. */
static int line_on_cap(const pair_frame *f, const double xcap[3], nscd__manifold *m) {
    double p0[3], p1[3], d[3], q0[3], q1[3];
    incident_line(f->y, f->n, p0, p1);
    for (int i = 0; i < 3; ++i) {
        d[i] = p1[i] - p0[i];
    }
    double z0 = nscd__dot3(f->n, p0) - nscd__dot3(f->n, xcap), z1 = nscd__dot3(f->n, d);
    for (int i = 0; i < 3; ++i) { /* the line seen along n on x's cap plane */
        q0[i] = p0[i] - z0 * f->n[i];
        q1[i] = d[i] - z1 * f->n[i];
    }
    double t0, t1;
    if (!disc_interval(q0, q1, xcap, f->x->R, 0.0, 1.0, &t0, &t1)) {
        return 0;
    }
    add_ends(f, p0, d, t0, t1, m);
    return 1;
}

/* x's side line (n perpendicular to x's axis) against y's cap facing it: the
 * part of the line under y's cap disc, its two ends on y's cap plane (0, 1).
 * A tilted cap's deepest rim point is one of them: it lies on the rim and,
 * the normal being the best axis, over x's line. Returns 0 when none. */
static int cap_on_side(const pair_frame *f, nscd__manifold *m) {
    const round_shape *x = f->x, *y = f->y;
    double ycap[3], p0[3];
    int cap_y = incident_cap(y, f->n, ycap);
    double nu[3] = {cap_y ? y->u[0] : -y->u[0], cap_y ? y->u[1] : -y->u[1],
                    cap_y ? y->u[2] : -y->u[2]};
    for (int i = 0; i < 3; ++i) {
        p0[i] = x->c[i] + x->R * f->n[i];
    }
    /* the side line p0 + s u moved along n onto y's cap plane: q0 + s q1 */
    double nn = nscd__dot3(nu, f->n);
    double z0 = (nscd__dot3(nu, ycap) - nscd__dot3(nu, p0)) / nn, z1 = -nscd__dot3(nu, x->u) / nn;
    double q0[3], q1[3];
    for (int i = 0; i < 3; ++i) {
        q0[i] = p0[i] + z0 * f->n[i];
        q1[i] = x->u[i] + z1 * f->n[i];
    }
    double s0, s1;
    if (!disc_interval(q0, q1, ycap, y->R, -x->h, x->h, &s0, &s1)) {
        return 0;
    }
    add_ends(f, q0, q1, s0, s1, m);
    return 1;
}

/* x's side line against y's side line: parallel (seen along n), the ends of
 * their overlap (0, 1); else one point: the crossing seen along n when both
 * lines are perpendicular to n (5), y's support point otherwise (its end at
 * -u 3, at +u 4). Features name points of the bodies: a warm-started impulse
 * moved to another point injects energy that 10 sweeps do not remove. */
static int line_on_side(const pair_frame *f, nscd__manifold *m) {
    const round_shape *x = f->x;
    double p0[3], p1[3], d[3], tp[3];
    incident_line(f->y, f->n, p0, p1);
    for (int i = 0; i < 3; ++i) {
        d[i] = p1[i] - p0[i];
    }
    tp[0] = f->n[1] * x->u[2] - f->n[2] * x->u[1], tp[1] = f->n[2] * x->u[0] - f->n[0] * x->u[2],
    tp[2] = f->n[0] * x->u[1] - f->n[1] * x->u[0]; /* across x's line, in its tangent plane */
    double len = sqrt(nscd__dot3(d, d)), k = nscd__dot3(d, tp), along = nscd__dot3(d, x->u);
    double r0[3] = {p0[0] - x->c[0], p0[1] - x->c[1], p0[2] - x->c[2]};
    if (fabs(k) <= 1e-3 * len && fabs(along) > 1e-9 * len) {
        /* parallel: where y's line is within x's half height */
        double s0 = nscd__dot3(r0, x->u);
        double ta = (-x->h - s0) / along, tb = (x->h - s0) / along;
        double t0 = fmax(0.0, fmin(ta, tb)), t1 = fmin(1.0, fmax(ta, tb));
        if (t0 > t1) {
            return 0;
        }
        add_ends(f, p0, d, t0, t1, m);
        return 1;
    }
    /* Lines perpendicular to n (crossed side lines: n is their cross
     * product): the crossing seen along n. Otherwise y's support point, its
     * end nearest x: the normal is exact to about 1e-8 rad only (a
     * golden-section search), and the crossing of a line steep to n would
     * move by that over the line's slope. */
    double dn = nscd__dot3(d, f->n), t = dn > 0.0 ? 0.0 : 1.0;
    uint32_t index = dn > 0.0 ? 3 : 4; /* which end: a different point */
    if (fabs(dn) <= 1e-6 * len && k != 0.0) {
        t = -nscd__dot3(r0, tp) / k;
        t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
        index = 5;
    }
    double p[3] = {p0[0] + t * d[0], p0[1] + t * d[1], p0[2] + t * d[2]};
    add_incident(f, p, index, m);
    return 1;
}

/* ------------------------------------------------------------ cylinder-box */

static uint32_t box_base(int flip, int kind, int axis, int side) {
    return (uint32_t)flip << 12 | (uint32_t)kind << 8 | (uint32_t)(2 * axis + side) << 13;
}

/* Box o's edge along axis j farthest along n, as a segment (R = r = 0). */
static void box_edge(const round_shape *o, const double n[3], int j, round_shape *edge) {
    *edge = *o;
    edge->box = 0, edge->R = 0.0, edge->r = 0.0, edge->h = o->e[j];
    for (int i = 0; i < 3; ++i) {
        edge->u[i] = o->ax[j][i];
    }
    for (int k = 0; k < 3; ++k) {
        if (k != j) {
            double s = nscd__dot3(n, o->ax[k]) >= 0.0 ? o->e[k] : -o->e[k];
            for (int i = 0; i < 3; ++i) {
                edge->c[i] += s * o->ax[k][i];
            }
        }
    }
}

/* Box o's face most against n: its 4 corners in order (index: the corner
 * number, bit k for +ax_k), outward normal nu and centre; returns its
 * axis. */
static int box_face_against(const round_shape *o, const double n[3], double v[POLYGON_SIDES + 1][3],
                            int id[POLYGON_SIDES + 1], double nu[3], double centre[3]) {
    int k = 0;
    for (int i = 1; i < 3; ++i) {
        k = fabs(nscd__dot3(n, o->ax[i])) > fabs(nscd__dot3(n, o->ax[k])) ? i : k;
    }
    double s = nscd__dot3(n, o->ax[k]) > 0.0 ? -1.0 : 1.0;
    int j1 = (k + 1) % 3, j2 = (k + 2) % 3;
    for (int i = 0; i < 3; ++i) {
        nu[i] = s * o->ax[k][i];
        centre[i] = o->c[i] + s * o->e[k] * o->ax[k][i];
    }
    static const double sg[4][2] = {{1, 1}, {-1, 1}, {-1, -1}, {1, -1}};
    for (int c = 0; c < 4; ++c) {
        for (int i = 0; i < 3; ++i) {
            v[c][i] =
                centre[i] + sg[c][0] * o->e[j1] * o->ax[j1][i] + sg[c][1] * o->e[j2] * o->ax[j2][i];
        }
        id[c] = (s > 0.0) << k | (sg[c][0] > 0.0) << j1 | (sg[c][1] > 0.0) << j2;
    }
    return k;
}

/* The parameters t in [*t0, *t1] where p + t d lies within the half sizes
 * e_j of the box face across axis i (coordinates from the box's centre). */
static int clip_to_face(const round_shape *box, int i, const double p[3], const double d[3],
                        double *t0, double *t1) {
    for (int j = 0; j < 3; ++j) {
        if (j == i) {
            continue;
        }
        double r0 = nscd__dot3(p, box->ax[j]) - nscd__dot3(box->c, box->ax[j]),
               dj = nscd__dot3(d, box->ax[j]);
        double E = box->e[j] * (1.0 + 1e-12);
        if (fabs(dj) <= 1e-300) {
            if (fabs(r0) > E) {
                return 0;
            }
            continue;
        }
        double ta = (-E - r0) / dj, tb = (E - r0) / dj;
        *t0 = fmax(*t0, fmin(ta, tb));
        *t1 = fmin(*t1, fmax(ta, tb));
    }
    return *t0 <= *t1;
}

/* x (a box) on its face across axis i (n its outward normal) against y's
 * cylinder: the cap facing it as a polygon (cap_polygon) clipped to the
 * face (vertices over it 0-12, crossings of its edges with the face's sides
 * 16 + 4 id + side, the face's corners under the polygon 80-83), reduced to
 * 4; else y's side line clipped to the face, its 2 ends. Returns 0 when
 * none. */
static int face_on_cylinder(const pair_frame *f, int i, nscd__manifold *m) {
    const round_shape *x = f->x, *y = f->y;
    int j1 = (i + 1) % 3, j2 = (i + 2) % 3;
    if (fabs(nscd__dot3(f->n, y->u)) < CAP_FACING) {
        double p0[3], p1[3], d[3], t0 = 0.0, t1 = 1.0;
        incident_line(y, f->n, p0, p1);
        for (int k = 0; k < 3; ++k) {
            d[k] = p1[k] - p0[k];
        }
        if (!clip_to_face(x, i, p0, d, &t0, &t1)) {
            return 0;
        }
        add_ends(f, p0, d, t0, t1, m);
        return 1;
    }
    double v[POLYGON_SIDES + 1][3], nu[3], ycap[3], q[POLYGON_SIDES + 1][2];
    int id[POLYGON_SIDES + 1];
    int nv = cap_polygon(y, f->n, v, id, nu, ycap);
    const double E[2] = {x->e[j1], x->e[j2]};
    for (int k = 0; k < nv; ++k) {
        double r[3] = {v[k][0] - x->c[0], v[k][1] - x->c[1], v[k][2] - x->c[2]};
        q[k][0] = nscd__dot3(r, x->ax[j1]), q[k][1] = nscd__dot3(r, x->ax[j2]);
    }
    nscd__manifold cand = {0};
    double area = 0.0;
    for (int k = 0; k < nv; ++k) {
        const double *a = q[k], *b = q[(k + 1) % nv];
        area += a[0] * b[1] - a[1] * b[0];
        if (fabs(a[0]) <= E[0] && fabs(a[1]) <= E[1]) {
            add_incident(f, v[k], (uint32_t)id[k], &cand);
        }
        for (int side = 0; side < 4; ++side) { /* the face's side lines */
            int c = side / 2, o = 1 - c;
            double bound = side % 2 ? -E[c] : E[c], dc = b[c] - a[c];
            if (dc == 0.0) {
                continue;
            }
            double t = (bound - a[c]) / dc;
            if (t > 0.0 && t < 1.0 && fabs(a[o] + t * (b[o] - a[o])) <= E[o]) {
                const double *vb = v[(k + 1) % nv];
                double p[3] = {v[k][0] + t * (vb[0] - v[k][0]), v[k][1] + t * (vb[1] - v[k][1]),
                               v[k][2] + t * (vb[2] - v[k][2])};
                add_incident(f, p, (uint32_t)(16 + 4 * id[k] + side), &cand);
            }
        }
    }
    /* the face's corners under the polygon (seen along n) */
    static const double sg[4][2] = {{1, 1}, {-1, 1}, {-1, -1}, {1, -1}};
    double orient = area < 0.0 ? -1.0 : 1.0, nn = nscd__dot3(nu, f->n);
    for (int c = 0; c < 4; ++c) {
        double p[2] = {sg[c][0] * E[0], sg[c][1] * E[1]};
        if (inside_polygon(q, nv, orient, p)) {
            double xp[3], yp[3];
            for (int k = 0; k < 3; ++k) {
                xp[k] = x->c[k] + p[0] * x->ax[j1][k] + p[1] * x->ax[j2][k];
            }
            double z =
                (nscd__dot3(nu, ycap) - nscd__dot3(nu, xp)) / nn; /* along n onto the cap plane */
            for (int k = 0; k < 3; ++k) {
                yp[k] = xp[k] + z * f->n[k];
            }
            add_incident(f, yp, (uint32_t)(80 + c), &cand);
        }
    }
    nscd__reduce_to_four(&cand, f->n);
    for (int32_t k = 0; k < cand.n; ++k) {
        nscd__manifold_add(m, cand.p[k].point, cand.p[k].normal, cand.p[k].gap, cand.p[k].feature);
    }
    return cand.n > 0;
}

/* Whether y's cap (facing the box face i) or its side line lies over the
 * face entirely: then the rim points of the half-space pair are the exact
 * manifold (the planar manifold of the GJK version: features kept). */
static int cylinder_over_face(const round_shape *x, int i, const round_shape *y,
                              const double n[3]) {
    double p[2][3];
    int cap = fabs(nscd__dot3(n, y->u)) >= CAP_FACING;
    if (cap) {
        incident_cap(y, n, p[0]);
    } else {
        incident_line(y, n, p[0], p[1]);
    }
    for (int k = 0; k < 2 - cap; ++k) {
        for (int j = 0; j < 3; ++j) {
            if (j == i) {
                continue;
            }
            double xu[3] = {x->ax[j][1] * y->u[2] - x->ax[j][2] * y->u[1],
                            x->ax[j][2] * y->u[0] - x->ax[j][0] * y->u[2],
                            x->ax[j][0] * y->u[1] - x->ax[j][1] * y->u[0]};
            double reach = cap ? y->R * sqrt(nscd__dot3(xu, xu)) : 0.0;
            double r = nscd__dot3(p[k], x->ax[j]) - nscd__dot3(x->c, x->ax[j]);
            if (fabs(r) + reach > x->e[j] * (1.0 - 1e-9)) {
                return 0;
            }
        }
    }
    return 1;
}

/* Whether the box's face against n (toward the cylinder) lies within the
 * cylinder's radius of its axis. */
static int box_over_cap(const round_shape *box, const round_shape *cyl, const double n[3]) {
    double v[POLYGON_SIDES + 1][3], nu[3], centre[3];
    int id[POLYGON_SIDES + 1];
    box_face_against(box, n, v, id, nu, centre);
    for (int c = 0; c < 4; ++c) {
        double r[3] = {v[c][0] - cyl->c[0], v[c][1] - cyl->c[1], v[c][2] - cyl->c[2]};
        double x[3] = {r[1] * cyl->u[2] - r[2] * cyl->u[1], r[2] * cyl->u[0] - r[0] * cyl->u[2],
                       r[0] * cyl->u[1] - r[1] * cyl->u[0]};
        if (sqrt(nscd__dot3(x, x)) > cyl->R * (1.0 - 1e-9)) {
            return 0;
        }
    }
    return 1;
}

/* The manifold of the best axis of a box (a) and a cylinder (b), normal
 * from a to b. */
static void box_manifold(const axis_search *q, double margin, nscd__manifold *m) {
    const round_shape *box = q->a, *cyl = q->b;
    int family = q->family;
    if (family == FAMILY_CAP_A && fabs(nscd__dot3(q->n, cyl->u)) > 1.0 - 1e-9) {
        /* a box face parallel to a cap: the smaller flat on the larger */
        double mn[3] = {-q->n[0], -q->n[1], -q->n[2]};
        if (!cylinder_over_face(box, q->index, cyl, q->n) && box_over_cap(box, cyl, mn)) {
            family = FAMILY_CAP_B;
        }
    }
    int flip = family == FAMILY_CAP_B || family == FAMILY_SIDE_B;
    pair_frame f;
    round_shape edge;
    f.x = flip ? cyl : box, f.y = flip ? box : cyl;
    for (int i = 0; i < 3; ++i) {
        f.n[i] = flip ? -q->n[i] : q->n[i];
    }
    f.zref = support_value(f.x, f.n);
    f.margin = margin;
    nscd__manifold local = {0};
    int done = 0;
    if (family == FAMILY_CAP_A) { /* a box face */
        int i = q->index, side = nscd__dot3(f.n, box->ax[i]) > 0.0;
        if (cylinder_over_face(box, i, cyl, f.n)) {
            nscd__cylinder_rim_below(f.n, f.zref, cyl->s, margin, &local);
            keep_on_box_face(box->s, i, 16, &local);
            nscd__keep_deepest_four(&local);
            done = local.n > 0;
        } else {
            int cap = fabs(nscd__dot3(f.n, cyl->u)) >= CAP_FACING;
            f.base = box_base(0, cap ? KIND_FACE_POLYGON : KIND_FACE_LINE, i, side);
            done = face_on_cylinder(&f, i, &local);
        }
    } else if (family == FAMILY_CAP_B) { /* the cylinder's cap */
        if (box_over_cap(box, cyl, f.n)) {
            /* the corners of the GJK version (32-39): normals from the box */
            double u[3] = {f.n[0], f.n[1], f.n[2]};
            nscd__box_corners_below(u, f.zref, box->s, margin, &local);
            keep_on_cap(cyl->s, 32, &local);
            nscd__keep_deepest_four(&local);
            for (int32_t k = 0; k < local.n; ++k) {
                nscd__manifold_add(m, local.p[k].point, local.p[k].normal, local.p[k].gap,
                                   local.p[k].feature);
            }
            if (local.n > 0) {
                return;
            }
        } else {
            double v[POLYGON_SIDES + 1][3], nu[3], centre[3], xcap[3], ex[3], ey[3];
            int id[POLYGON_SIDES + 1];
            int k = box_face_against(box, f.n, v, id, nu, centre);
            int cap_x = nscd__dot3(f.n, cyl->u) > 0.0;
            for (int i = 0; i < 3; ++i) {
                xcap[i] = cyl->c[i] + (cap_x ? cyl->h : -cyl->h) * cyl->u[i];
            }
            nscd__shape_axis(cyl->s, 0, ex);
            nscd__shape_axis(cyl->s, 1, ey);
            f.base = box_base(1, KIND_BOX_ON_CAP, k, cap_x);
            polygon_on_disc(&f, xcap, ex, ey, 4, v, id, nu, centre, &local);
            done = local.n > 0;
        }
    } else if (family == FAMILY_SIDE_B) { /* the cylinder's side line */
        int k = 0, j = 0;
        for (int i = 1; i < 3; ++i) {
            k = fabs(nscd__dot3(f.n, box->ax[i])) > fabs(nscd__dot3(f.n, box->ax[k])) ? i : k;
            j = fabs(nscd__dot3(f.n, box->ax[i])) < fabs(nscd__dot3(f.n, box->ax[j])) ? i : j;
        }
        if (fabs(nscd__dot3(f.n, box->ax[k])) >= CAP_FACING) {
            /* the side line moved along n onto the box face, clipped to it */
            double v[POLYGON_SIDES + 1][3], nu[3], centre[3], p0[3], q0[3], q1[3];
            int id[POLYGON_SIDES + 1];
            box_face_against(box, f.n, v, id, nu, centre);
            for (int i = 0; i < 3; ++i) {
                p0[i] = cyl->c[i] + cyl->R * f.n[i];
            }
            double nn = nscd__dot3(nu, f.n);
            double z0 = (nscd__dot3(nu, centre) - nscd__dot3(nu, p0)) / nn,
                   z1 = -nscd__dot3(nu, cyl->u) / nn;
            for (int i = 0; i < 3; ++i) {
                q0[i] = p0[i] + z0 * f.n[i];
                q1[i] = cyl->u[i] + z1 * f.n[i];
            }
            double s0 = -cyl->h, s1 = cyl->h;
            f.base = box_base(1, KIND_BOX_ON_SIDE, k, nscd__dot3(nu, box->ax[k]) > 0.0);
            if (clip_to_face(box, k, q0, q1, &s0, &s1)) {
                add_ends(&f, q0, q1, s0, s1, &local);
                done = 1;
            }
        } else {
            double mn[3] = {-f.n[0], -f.n[1], -f.n[2]};
            box_edge(box, mn, j, &edge);
            f.y = &edge;
            f.base = box_base(1, KIND_EDGE_ON_SIDE, j, 0);
            done = line_on_side(&f, &local);
            f.y = box;
        }
    } else if (family == FAMILY_SIDE_A) { /* a box edge */
        int j = q->index;
        box_edge(box, f.n, j, &edge);
        f.x = &edge;
        if (fabs(nscd__dot3(f.n, cyl->u)) >= CAP_FACING) {
            double ycap[3];
            f.base = box_base(0, KIND_CAP_ON_EDGE, j, incident_cap(cyl, f.n, ycap));
            done = cap_on_side(&f, &local);
        } else {
            f.base = box_base(0, KIND_LINE_ON_EDGE, j, 0);
            done = line_on_side(&f, &local);
        }
        f.x = box;
    }
    if (!done) { /* corner or edge on a rim: y's support point */
        double mn[3] = {-f.n[0], -f.n[1], -f.n[2]}, v[3];
        core_support(f.y, mn, v);
        int corner = 0;
        for (int k = 0; k < 3; ++k) {
            corner |= (nscd__dot3(q->n, box->ax[k]) > 0.0) << k;
        }
        f.base = box_base(flip, KIND_RIM, 0, 0) | (uint32_t)corner << 3 |
                 (uint32_t)(nscd__dot3(q->n, cyl->u) < 0.0) << 6;
        local.n = 0;
        add_incident(&f, v, 0, &local);
    }
    for (int32_t k = 0; k < local.n; ++k) {
        double nrm[3];
        for (int i = 0; i < 3; ++i) {
            nrm[i] = flip ? -local.p[k].normal[i] : local.p[k].normal[i];
        }
        nscd__manifold_add(m, local.p[k].point, nrm, local.p[k].gap, local.p[k].feature);
    }
}

/* The manifold of the best axis: reference x (whose cap or side the normal
 * belongs to), incident y. */
static void round_manifold(const axis_search *q, double margin, nscd__manifold *m) {
    if (q->a->box) {
        box_manifold(q, margin, m);
        return;
    }
    int flip = q->family == FAMILY_CAP_B || q->family == FAMILY_SIDE_B;
    pair_frame f;
    f.x = flip ? q->b : q->a, f.y = flip ? q->a : q->b;
    for (int i = 0; i < 3; ++i) {
        f.n[i] = flip ? -q->n[i] : q->n[i];
    }
    f.zref = support_value(f.x, f.n);
    f.margin = margin;
    nscd__manifold local = {0};
    int done = 0;
    double c = fabs(nscd__dot3(f.n, f.y->u));
    int y_cap = f.y->R > 0.0 && c >= CAP_FACING;
    if (q->family == FAMILY_CAP_A || q->family == FAMILY_CAP_B) {
        double xcap[3];
        int cap_x = nscd__dot3(f.n, f.x->u) > 0.0;
        double s = cap_x ? f.x->h : -f.x->h;
        for (int i = 0; i < 3; ++i) {
            xcap[i] = f.x->c[i] + s * f.x->u[i];
        }
        if (y_cap) {
            double ycap[3];
            f.base = feature_base(flip, KIND_CAP_POLYGON, cap_x, incident_cap(f.y, f.n, ycap));
            cap_on_cap(&f, xcap, &local);
            done = 1;
        } else {
            f.base = feature_base(flip, KIND_CAP_LINE, cap_x, 0);
            done = line_on_cap(&f, xcap, &local);
        }
    } else if (q->family == FAMILY_SIDE_A || q->family == FAMILY_SIDE_B) {
        if (y_cap) {
            double ycap[3];
            f.base = feature_base(flip, KIND_SIDE_CAP, 0, incident_cap(f.y, f.n, ycap));
            done = cap_on_side(&f, &local);
        } else {
            f.base = feature_base(flip, KIND_SIDE_LINE, 0, 0);
            done = line_on_side(&f, &local);
        }
    }
    if (!done) { /* rim on rim, or no overlap of the features: y's support point */
        double mn[3] = {-f.n[0], -f.n[1], -f.n[2]}, v[3];
        core_support(f.y, mn, v);
        /* the caps (or capsule ends) of the two supports: a jump from one
         * rim to the other is a new point, not this one moved */
        f.base = feature_base(flip, KIND_RIM, nscd__dot3(f.n, f.x->u) > 0.0,
                              nscd__dot3(mn, f.y->u) > 0.0);
        local.n = 0;
        add_incident(&f, v, 0, &local);
    }
    for (int32_t k = 0; k < local.n; ++k) {
        double nrm[3];
        for (int i = 0; i < 3; ++i) {
            nrm[i] = flip ? -local.p[k].normal[i] : local.p[k].normal[i];
        }
        nscd__manifold_add(m, local.p[k].point, nrm, local.p[k].gap, local.p[k].feature);
    }
}

/* The manifold of the best axis has a point as deep as the axis's
 * separation (y's deepest point lies over x's feature), and for a rim the
 * two support points are apart along the axis only. */
static int consistent(const axis_search *q, const nscd__manifold *m) {
    double scale = q->a->R + q->a->h + q->a->r + q->b->R + q->b->h + q->b->r;
    if (q->family == FAMILY_RIM) {
        double mn[3] = {-q->n[0], -q->n[1], -q->n[2]}, pa[3], pb[3], w[3];
        core_support(q->a, q->n, pa);
        core_support(q->b, mn, pb);
        for (int i = 0; i < 3; ++i) {
            w[i] = pb[i] - pa[i] - (q->sep + q->a->r + q->b->r) * q->n[i];
        }
        return sqrt(nscd__dot3(w, w)) <= 1e-6 * scale;
    }
    double deepest = INFINITY;
    for (int32_t k = 0; k < m->n; ++k) {
        deepest = fmin(deepest, m->p[k].gap);
    }
    return deepest <= q->sep + 1e-9 * scale;
}

/* The size below which an overlap is shallow: a round shape's radius, a
 * box's smallest half size. */
static double scale_of(const round_shape *o) {
    return o->box ? fmin(o->e[0], fmin(o->e[1], o->e[2])) : fmax(o->R, o->r);
}

/* The flat features' normals of o: a box's three face normals (index: the
 * axis), a cylinder's axis (a capsule has none). */
static void try_faces(axis_search *q, const round_shape *o, int family) {
    if (o->box) {
        for (int i = 0; i < 3; ++i) {
            try_line(q, o->ax[i], family, i);
        }
    } else if (o->R > 0.0) {
        try_line(q, o->u, family, 0);
    }
}

/* The circles of directions perpendicular to o's side line, or to each of
 * a box's three edge directions (index: the edges' axis). */
static void search_circles(axis_search *q, const round_shape *o, int family) {
    if (o->box) {
        for (int i = 0; i < 3 && !q->separated; ++i) {
            search_circle(q, o->ax[(i + 1) % 3], o->ax[(i + 2) % 3], family, i);
        }
        return;
    }
    double e1[3], e2[3];
    nscd__shape_axis(o->s, 0, e1);
    nscd__shape_axis(o->s, 1, e2);
    search_circle(q, e1, e2, family, 0);
}

/* The separating axis v * scale for the pair cache (narrow.h). */
static void round_axis(nscd__manifold *m, const double v[3], double scale) {
    m->has_axis = 1;
    for (int i = 0; i < 3; ++i) {
        m->axis[i] = v[i] * scale;
    }
}

/* Exact pair of two round shapes (cylinders, capsules): the separating axis
 * of largest separation over the caps' axes, the axes' cross product, the
 * circles of directions perpendicular to each axis (side lines) and the
 * smooth rest (rims), then the manifold of its features. */
static void collide_round(const nscd__collision_shape *sa, const nscd__collision_shape *sb,
                          double margin, nscd__manifold *m) {
    round_shape a, b;
    round_of(sa, &a);
    round_of(sb, &b);
    double d[3] = {b.c[0] - a.c[0], b.c[1] - a.c[1], b.c[2] - a.c[2]};
    double dist = sqrt(nscd__dot3(d, d));
    double bound_a = sqrt(a.h * a.h + a.R * a.R) + a.r, bound_b = sqrt(b.h * b.h + b.R * b.R) + b.r;
    if (dist - bound_a - bound_b >= margin) {
        if (dist > 0.0) {
            round_axis(m, d, 1.0 / dist);
        }
        return;
    }
    axis_search q = {0};
    q.a = &a, q.b = &b, q.margin = margin, q.sep = -INFINITY;
    q.slack = 1e-8 * (bound_a + bound_b);
    try_faces(&q, &a, FAMILY_CAP_A);
    try_faces(&q, &b, FAMILY_CAP_B);
    /* the cross products of the edge (side line) directions */
    int na = a.box ? 3 : 1, nb = b.box ? 3 : 1;
    for (int i = 0; i < na; ++i) {
        for (int j = 0; j < nb; ++j) {
            const double *da = a.box ? a.ax[i] : a.u, *db = b.box ? b.ax[j] : b.u;
            double x[3] = {da[1] * db[2] - da[2] * db[1], da[2] * db[0] - da[0] * db[2],
                           da[0] * db[1] - da[1] * db[0]};
            double xl = sqrt(nscd__dot3(x, x));
            if (xl > 1e-9) {
                for (int k = 0; k < 3; ++k) {
                    x[k] /= xl;
                }
                /* a box's edge crossing a side line: the side line is the
                 * reference */
                try_line(&q, x, a.box ? FAMILY_SIDE_B : FAMILY_SIDE_A, a.box ? j : i);
            }
        }
    }
    if (q.separated) {
        round_axis(m, q.sep_n, 1.0);
        return;
    }
    search_circles(&q, &a, FAMILY_SIDE_A);
    if (!q.separated) {
        search_circles(&q, &b, FAMILY_SIDE_B);
    }
    if (!q.separated) {
        double start[3] = {q.n[0], q.n[1], q.n[2]};
        search_rim(&q, start);
    }
    if (q.separated || q.sep >= margin) {
        round_axis(m, q.separated ? q.sep_n : q.n, 1.0);
        return;
    }
    /* The best axis so far is a local maximum of the separation. Its
     * manifold, when its deepest point has the axis's separation (the
     * features touch) and the overlap is shallow, is the answer; otherwise
     * the search starts again from the centre line, which finds the rim
     * contacts the candidate axes miss. */
    nscd__manifold local = {0};
    round_manifold(&q, margin, &local);
    double scale = fmin(scale_of(&a), scale_of(&b));
    if (!consistent(&q, &local) || q.sep < -0.1 * scale) {
        if (dist > 0.0) {
            double start[3] = {d[0] / dist, d[1] / dist, d[2] / dist};
            double before = q.sep;
            search_rim(&q, start);
            if (q.separated) {
                round_axis(m, q.sep_n, 1.0);
                return;
            }
            if (q.sep != before) {
                local.n = 0;
                round_manifold(&q, margin, &local);
            }
        }
    }
    for (int32_t k = 0; k < local.n; ++k) {
        nscd__manifold_add(m, local.p[k].point, local.p[k].normal, local.p[k].gap,
                           local.p[k].feature);
    }
}

/* Box-cylinder: exact, the box as a round_shape (a polytope) in the same
 * search; the manifold by box_manifold. */
void nscd__collide_box_cylinder(const nscd__collision_shape *a, const nscd__collision_shape *b,
                                double margin, nscd__manifold *m) {
    collide_round(a, b, margin, m);
}

void nscd__collide_capsule_cylinder(const nscd__collision_shape *a, const nscd__collision_shape *b,
                                    double margin, nscd__manifold *m) {
    collide_round(a, b, margin, m);
}

void nscd__collide_cylinder_cylinder(const nscd__collision_shape *a, const nscd__collision_shape *b,
                                     double margin, nscd__manifold *m) {
    collide_round(a, b, margin, m);
}
