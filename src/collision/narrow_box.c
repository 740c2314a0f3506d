/* Narrow phase of boxes (narrow.h).
 *
 * Box-half-space: the corners below the margin, at most the 4 deepest (exact).
 * Box-box: separating axis test over the 15 axes (3 + 3 face normals, 9 edge
 * cross products). The axis of least penetration is the normal; its depth is
 * exact for overlapping boxes (SAT is exact for convex polytopes). A face axis
 * gives a manifold by clipping the incident face against the side planes of
 * the reference face (Sutherland-Hodgman), reduced to 4 points; an edge axis
 * gives the one point between the two closest edges. For separated boxes the
 * largest separation over the 15 axes is the distance when a face or an edge
 * pair is closest, only a lower bound when a corner is: GJK on the boxes
 * decides (closest_corner).
 * Box-capsule: the distance of the capsule's segment to the box, exact (the
 * squared distance is a convex piecewise quadratic of the segment parameter,
 * minimised piece by piece); overlapping, SAT over the 3 face normals and the
 * 3 cross products of the segment with the box axes (exact). */
#include "core/vec3.h"
#include "collision/narrow.h"

#include <math.h>

#include "collision/gjk.h"

/* An oriented box in the world frame. */
typedef struct obb {
    double c[3];
    double ax[3][3]; /* ax[i]: axis i, world */
    double h[3];
} obb;

static void obb_of(const nscd__collision_shape *s, obb *o) {
    for (int i = 0; i < 3; ++i) {
        o->c[i] = s->position[i];
        o->h[i] = s->half_extents[i];
        nscd__shape_axis(s, i, o->ax[i]);
    }
}

/* Half-width of the box's projection on the unit direction L. */
static double obb_reach(const obb *o, const double L[3]) {
    return o->h[0] * fabs(nscd__dot3(L, o->ax[0])) + o->h[1] * fabs(nscd__dot3(L, o->ax[1])) +
           o->h[2] * fabs(nscd__dot3(L, o->ax[2]));
}

static double sign_of(double x) { return x < 0.0 ? -1.0 : 1.0; }

/* Corner k of the box: bit i of k set = +h_i along axis i. */
static void obb_corner(const obb *o, int k, double out[3]) {
    for (int i = 0; i < 3; ++i) {
        out[i] = o->c[i];
    }
    for (int j = 0; j < 3; ++j) {
        double sj = (k >> j) & 1 ? o->h[j] : -o->h[j];
        for (int i = 0; i < 3; ++i) {
            out[i] += sj * o->ax[j][i];
        }
    }
}

void nscd__box_corners_below(const double n[3], double offset, const nscd__collision_shape *box,
                             double margin, nscd__manifold *m) {
    obb o;
    obb_of(box, &o);
    if (nscd__dot3(n, o.c) - offset - obb_reach(&o, n) >= margin) {
        return;
    }
    for (int k = 0; k < 8; ++k) {
        double v[3];
        obb_corner(&o, k, v);
        double gap = nscd__dot3(n, v) - offset;
        if (gap < margin) {
            double point[3] = {v[0] - 0.5 * gap * n[0], v[1] - 0.5 * gap * n[1],
                               v[2] - 0.5 * gap * n[2]};
            nscd__manifold_add(m, point, n, gap, (uint32_t)k);
        }
    }
}

void nscd__collide_half_space_box(const nscd__collision_shape *a, const nscd__collision_shape *b,
                                  double margin, nscd__manifold *m) {
    double n[3];
    nscd__shape_axis(a, 2, n);
    nscd__box_corners_below(n, nscd__dot3(n, a->position), b, margin, m);
    nscd__keep_deepest_four(m);
}

/* ---------------------------------------------------------------- box-box */

/* Face contact: reference box r (face along axis i, outward normal n toward
 * the incident box), incident box b. `flip`: r is the second shape, so the
 * normal from first to second is -n. */
static void face_contact(const obb *r, const obb *b, int i, const double n[3], int flip,
                         double margin, nscd__manifold *m) {
    /* incident face: the face of b most anti-parallel to n */
    int j = 0;
    for (int k = 1; k < 3; ++k) {
        if (fabs(nscd__dot3(b->ax[k], n)) > fabs(nscd__dot3(b->ax[j], n))) {
            j = k;
        }
    }
    double sj = -sign_of(nscd__dot3(b->ax[j], n));
    int k = (j + 1) % 3, l = (j + 2) % 3;
    static const double corner[4][2] = {{1, 1}, {-1, 1}, {-1, -1}, {1, -1}};
    /* the clipped polygon; its vertices name the edges they join: 0-3 the
     * incident face's edges, 4-7 the side planes of the reference face */
    nscd__clip_vertex poly[2][8];
    for (int q = 0; q < 4; ++q) {
        for (int d = 0; d < 3; ++d) {
            poly[0][q].p[d] = b->c[d] + sj * b->h[j] * b->ax[j][d] +
                              corner[q][0] * b->h[k] * b->ax[k][d] +
                              corner[q][1] * b->h[l] * b->ax[l][d];
        }
        poly[0][q].e_in = (q + 3) % 4, poly[0][q].e_out = q;
    }
    int count = 4, cur = 0;
    for (int side = 0; side < 4 && count > 0; ++side) {
        int axis = (i + 1 + side / 2) % 3;
        double s = side % 2 == 0 ? 1.0 : -1.0;
        double nrm[3] = {s * r->ax[axis][0], s * r->ax[axis][1], s * r->ax[axis][2]};
        double limit = nscd__dot3(nrm, r->c) + r->h[axis];
        count = nscd__clip_polygon(poly[cur], count, nrm, limit, 4 + side, poly[1 - cur]);
        cur = 1 - cur;
    }
    double face = nscd__dot3(n, r->c) + r->h[i];
    uint32_t base =
        (uint32_t)(((flip * 6 + i * 2 + (nscd__dot3(n, r->ax[i]) > 0.0)) * 6 + j * 2 + (sj > 0.0))
                   << 6);
    double normal[3] = {flip ? -n[0] : n[0], flip ? -n[1] : n[1], flip ? -n[2] : n[2]};
    for (int q = 0; q < count; ++q) {
        const nscd__clip_vertex *v = &poly[cur][q];
        double gap = nscd__dot3(n, v->p) - face;
        if (gap >= margin) {
            continue;
        }
        double point[3] = {v->p[0] - 0.5 * gap * n[0], v->p[1] - 0.5 * gap * n[1],
                           v->p[2] - 0.5 * gap * n[2]};
        int lo = v->e_in < v->e_out ? v->e_in : v->e_out;
        int hi = v->e_in < v->e_out ? v->e_out : v->e_in;
        nscd__manifold_add(m, point, normal, gap, base | (uint32_t)(lo * 8 + hi));
    }
    nscd__reduce_to_four(m, n);
}

/* Edge contact: edge i of a and edge k of b along the unit axis L (from a to
 * b) with separation `sep`: one point between the closest points of the edges. */
/* The edges of the edge contact below: a's edge along axis i that
 * supports L (from pa to qa), b's along axis k that supports -L (pb to
 * qb); their corner bits. */
static uint32_t edge_segments(const obb *a, const obb *b, int i, int k, const double L[3],
                              double pa[3], double qa[3], double pb[3], double qb[3]) {
    uint32_t bits = 0;
    for (int d = 0; d < 3; ++d) {
        pa[d] = a->c[d], pb[d] = b->c[d];
    }
    for (int j = 0; j < 3; ++j) {
        double sa = sign_of(nscd__dot3(L, a->ax[j])), sb = -sign_of(nscd__dot3(L, b->ax[j]));
        bits |= (uint32_t)(sa > 0) << j | (uint32_t)(sb > 0) << (3 + j);
        for (int d = 0; d < 3; ++d) {
            if (j != i) {
                pa[d] += sa * a->h[j] * a->ax[j][d];
            }
            if (j != k) {
                pb[d] += sb * b->h[j] * b->ax[j][d];
            }
        }
    }
    for (int d = 0; d < 3; ++d) {
        qa[d] = pa[d] + a->h[i] * a->ax[i][d], pa[d] -= a->h[i] * a->ax[i][d];
        qb[d] = pb[d] + b->h[k] * b->ax[k][d], pb[d] -= b->h[k] * b->ax[k][d];
    }
    return bits;
}

static void edge_contact(const obb *a, const obb *b, int i, int k, const double L[3], double sep,
                         nscd__manifold *m) {
    double pa[3], qa[3], pb[3], qb[3];
    uint32_t bits = edge_segments(a, b, i, k, L, pa, qa, pb, qb);
    double s, t;
    nscd__segments_closest(pa, qa, pb, qb, &s, &t);
    double point[3];
    for (int d = 0; d < 3; ++d) {
        point[d] = 0.5 * (pa[d] + s * (qa[d] - pa[d]) + pb[d] + t * (qb[d] - pb[d]));
    }
    uint32_t feature = 1u << 14 | (uint32_t)(i * 3 + k) << 6 | bits;
    nscd__manifold_add(m, point, L, sep, feature);
}

/* Separated boxes: the largest SAT separation is their distance unless a
 * corner is closest (to a corner or an edge). GJK on the boxes themselves
 * gives the exact distance; when it exceeds the SAT separation, the one
 * point between the closest features (feature 1 << 15) replaces the SAT
 * manifold. Returns 1 when it decided (a point or nothing). */
static int closest_corner(const nscd__collision_shape *sa, const nscd__collision_shape *sb,
                          double sat_sep, double margin, nscd__manifold *m) {
    nscd__core ca, cb;
    nscd__core_of_box(sa, &ca);
    nscd__core_of_box(sb, &cb);
    double pa[3], pb[3];
    double dist = nscd__gjk_distance(&ca, &cb, pa, pb);
    if (!(dist > sat_sep * (1.0 + 1e-9) + 1e-12 * (1.0 + fabs(sat_sep)))) {
        return 0; /* a face or an edge pair is closest: the SAT manifold */
    }
    if (dist >= margin) {
        return 1;
    }
    double n[3], point[3];
    for (int i = 0; i < 3; ++i) {
        n[i] = (pb[i] - pa[i]) / dist;
        point[i] = 0.5 * (pa[i] + pb[i]);
    }
    nscd__manifold_add(m, point, n, dist, 1u << 15);
    return 1;
}

/* Is the corner of box o nearest the plane of r's face along axis i (the
 * face toward o) over that face, inside it by 1e-9 of r's sizes? Then the
 * boxes' distance is the face's separation (the corner and its projection
 * on the face are that far apart, and no two points are nearer), so GJK
 * (closest_corner) would only confirm the SAT manifold: it is skipped. */
static int corner_over_face(const obb *r, int i, const obb *o) {
    double d[3] = {o->c[0] - r->c[0], o->c[1] - r->c[1], o->c[2] - r->c[2]};
    double s = sign_of(nscd__dot3(d, r->ax[i]));
    double x[3] = {d[0], d[1], d[2]}; /* the corner, relative to r's centre */
    for (int k = 0; k < 3; ++k) {
        double t = -s * sign_of(nscd__dot3(r->ax[i], o->ax[k])) * o->h[k];
        for (int c = 0; c < 3; ++c) {
            x[c] += t * o->ax[k][c];
        }
    }
    double room = 1e-9 * (r->h[0] + r->h[1] + r->h[2]);
    for (int j = 0; j < 3; ++j) {
        if (j != i && !(fabs(nscd__dot3(x, r->ax[j])) <= r->h[j] - room)) {
            return 0;
        }
    }
    return 1;
}

/* The edge axis L (unit, from a to b) of a's edge i and b's edge k
 * separating the boxes by sep > 0, their largest SAT separation: are the
 * closest points of the two supporting edges' lines inside both edges, by
 * 1e-9 of their lengths? Then those points are sep apart (their offset is
 * normal to both edges, along L, and its L part is the separation), so
 * the boxes' distance, at least sep by SAT, is sep: GJK (closest_corner)
 * would only confirm the SAT manifold, and is skipped. */
static int edge_over_edge(const obb *a, const obb *b, int i, int k, const double L[3]) {
    double pa[3], qa[3], pb[3], qb[3], s, t;
    (void)edge_segments(a, b, i, k, L, pa, qa, pb, qb);
    nscd__segments_closest(pa, qa, pb, qb, &s, &t);
    const double room = 1e-9;
    return s >= room && s <= 1.0 - room && t >= room && t <= 1.0 - room;
}

void nscd__collide_box_box(const nscd__collision_shape *sa, const nscd__collision_shape *sb,
                           double margin, nscd__manifold *m) {
    obb a, b;
    obb_of(sa, &a);
    obb_of(sb, &b);
    double d[3] = {b.c[0] - a.c[0], b.c[1] - a.c[1], b.c[2] - a.c[2]};
    /* The 15 axes in a's frame, as in Gottschalk's OBB test (and ODE's
     * dBoxBox): R[i][k] = a_i . b_k, Q = |R|, the centre offset along each
     * box's axes; then the projections of both boxes on any axis are sums
     * of h Q, with no product of world vectors per axis. */
    double R[3][3], Q[3][3], da[3], db[3];
    for (int i = 0; i < 3; ++i) {
        da[i] = nscd__dot3(d, a.ax[i]);
        db[i] = nscd__dot3(d, b.ax[i]);
        for (int k = 0; k < 3; ++k) {
            R[i][k] = nscd__dot3(a.ax[i], b.ax[k]);
            Q[i][k] = fabs(R[i][k]);
        }
    }
    /* faces of a, faces of b */
    double best_face[2] = {-INFINITY, -INFINITY};
    int face_axis[2] = {0, 0};
    for (int i = 0; i < 3; ++i) {
        double sep =
            fabs(da[i]) - a.h[i] - (b.h[0] * Q[i][0] + b.h[1] * Q[i][1] + b.h[2] * Q[i][2]);
        if (sep >= margin) {
            return;
        }
        if (sep > best_face[0]) {
            best_face[0] = sep, face_axis[0] = i;
        }
    }
    for (int k = 0; k < 3; ++k) {
        double sep =
            fabs(db[k]) - b.h[k] - (a.h[0] * Q[0][k] + a.h[1] * Q[1][k] + a.h[2] * Q[2][k]);
        if (sep >= margin) {
            return;
        }
        if (sep > best_face[1]) {
            best_face[1] = sep, face_axis[1] = k;
        }
    }
    /* edges: L = a_i x b_k, in a's frame e_i x R[.][k]; |L|^2 is the sum
     * of the squares of R's other two entries of column k; L . b_m =
     * a_i . (b_k x b_m) = +-R[i][n] (n the third index; both frames
     * right-handed) */
    double best_edge = -INFINITY;
    int edge_i = 0, edge_k = 0;
    for (int i = 0; i < 3; ++i) {
        const int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
        for (int k = 0; k < 3; ++k) {
            const int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
            double len = sqrt(R[i1][k] * R[i1][k] + R[i2][k] * R[i2][k]);
            if (len < 1e-9) {
                continue; /* parallel edges: the face axes cover them */
            }
            double proj = fabs(da[i2] * R[i1][k] - da[i1] * R[i2][k]);
            double reach =
                a.h[i1] * Q[i2][k] + a.h[i2] * Q[i1][k] + b.h[k1] * Q[i][k2] + b.h[k2] * Q[i][k1];
            double sep = (proj - reach) / len;
            if (sep >= margin) {
                return;
            }
            if (sep > best_edge) {
                best_edge = sep, edge_i = i, edge_k = k;
            }
        }
    }
    /* the best edge axis in the world, unit, from a to b */
    double edge_L[3] = {0, 0, 0};
    if (best_edge > -INFINITY) {
        const double *u = a.ax[edge_i], *v = b.ax[edge_k];
        double L[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2],
                       u[0] * v[1] - u[1] * v[0]};
        double len = sqrt(nscd__dot3(L, L));
        double f = nscd__dot3(d, L) < 0.0 ? -1.0 / len : 1.0 / len;
        for (int c = 0; c < 3; ++c) {
            edge_L[c] = L[c] * f;
        }
    }
    /* Prefer faces (stable manifolds) unless an axis is clearly better. */
    double scale = fmin(fmin(fmin(a.h[0], a.h[1]), a.h[2]), fmin(fmin(b.h[0], b.h[1]), b.h[2]));
    double tol = 1e-3 * scale;
    double face_best = fmax(best_face[0], best_face[1]);
    int ref = best_face[1] > best_face[0]; /* the face of face_best */
    if (fmax(face_best, best_edge) > 0.0 &&
        !(face_best >= best_edge ? corner_over_face(ref ? &b : &a, face_axis[ref], ref ? &a : &b)
                                 : edge_over_edge(&a, &b, edge_i, edge_k, edge_L)) &&
        closest_corner(sa, sb, fmax(face_best, best_edge), margin, m)) {
        return;
    }
    if (best_edge > face_best + tol) {
        edge_contact(&a, &b, edge_i, edge_k, edge_L, best_edge, m);
        return;
    }
    int ref_b = best_face[1] > best_face[0] + tol;
    const obb *r = ref_b ? &b : &a, *inc = ref_b ? &a : &b;
    int i = face_axis[ref_b];
    /* normal of the reference face, toward the incident box */
    double toward = ref_b ? -nscd__dot3(d, r->ax[i]) : nscd__dot3(d, r->ax[i]);
    double s = sign_of(toward);
    double n[3] = {s * r->ax[i][0], s * r->ax[i][1], s * r->ax[i][2]};
    face_contact(r, inc, i, n, ref_b, margin, m);
}

/* ---------------------------------------------------------------- box-capsule */

/* Squared distance of the local point x to the box [-h, h]. */
static double box_dist2(const double x[3], const double h[3]) {
    double s = 0.0;
    for (int i = 0; i < 3; ++i) {
        double e = fabs(x[i]) - h[i];
        s += e > 0.0 ? e * e : 0.0;
    }
    return s;
}

/* The parameter t in [0, 1] minimising the squared distance of p + t d to
 * the box [-h, h] (box frame): on each piece between the parameters where a
 * coordinate crosses a face plane the function is one quadratic. */
static double segment_box_closest(const double p[3], const double d[3], const double h[3]) {
    double ts[8] = {0.0, 1.0};
    int n = 2;
    for (int i = 0; i < 3; ++i) {
        for (int s = -1; s <= 1; s += 2) {
            if (d[i] != 0.0) {
                double t = (s * h[i] - p[i]) / d[i];
                if (t > 0.0 && t < 1.0) {
                    ts[n++] = t;
                }
            }
        }
    }
    for (int k = 1; k < n; ++k) { /* insertion sort */
        double t = ts[k];
        int j = k;
        for (; j > 0 && ts[j - 1] > t; --j) {
            ts[j] = ts[j - 1];
        }
        ts[j] = t;
    }
    double best_t = 0.0, best = INFINITY;
    for (int k = 0; k + 1 < n; ++k) {
        double t0 = ts[k], t1 = ts[k + 1], tm = 0.5 * (t0 + t1);
        double qa = 0.0, qb = 0.0; /* f = qa t^2 + qb t + const on this piece */
        for (int i = 0; i < 3; ++i) {
            double x = p[i] + tm * d[i];
            if (fabs(x) > h[i]) {
                double alpha = p[i] - sign_of(x) * h[i];
                qa += d[i] * d[i], qb += 2.0 * alpha * d[i];
            }
        }
        double t = qa > 0.0 ? -qb / (2.0 * qa) : t0;
        t = t < t0 ? t0 : (t > t1 ? t1 : t);
        for (int e = 0; e < 3; ++e) { /* the piece's minimiser and its two ends */
            double te = e == 0 ? t : (e == 1 ? t0 : t1);
            double x[3] = {p[0] + te * d[0], p[1] + te * d[1], p[2] + te * d[2]};
            double f = box_dist2(x, h);
            if (f < best) {
                best = f, best_t = te;
            }
        }
    }
    return best_t;
}

/* Adds a point at the segment point x (box frame) of the capsule, with unit
 * normal u from box to capsule (box frame) and gap; output in world frame with
 * the normal from box (first shape) to capsule. */
static void add_local(const nscd__collision_shape *box_shape, const double x[3], const double u[3],
                      double radius, double gap, uint32_t feature, nscd__manifold *m) {
    double local[3], point[3], normal[3];
    for (int i = 0; i < 3; ++i) {
        local[i] = x[i] - u[i] * (radius + 0.5 * gap);
    }
    nscd__to_world(box_shape, local, point);
    nscd__dir_to_world(box_shape, u, normal);
    nscd__manifold_add(m, point, normal, gap, feature);
}

/* Separated capsule: the closest point, or, when it lies over a face, the
 * segment clipped to that face (two points, so a capsule lying on a box rests). */
static void capsule_separated(const nscd__collision_shape *sb, const double p[3], const double d[3],
                              double t, double r, double margin, nscd__manifold *m) {
    const double *h = sb->half_extents;
    double x[3] = {p[0] + t * d[0], p[1] + t * d[1], p[2] + t * d[2]};
    int clamped = 0, axis = 0;
    for (int i = 0; i < 3; ++i) {
        if (fabs(x[i]) > h[i]) {
            ++clamped, axis = i;
        }
    }
    if (clamped == 1) { /* over face `axis`: clip the segment to the face */
        double lo = 0.0, hi = 1.0;
        for (int i = 0; i < 3; ++i) {
            if (i == axis) {
                continue;
            }
            if (d[i] == 0.0) {
                continue; /* inside the slab all along: x[i] is */
            }
            double t0 = (-h[i] - p[i]) / d[i], t1 = (h[i] - p[i]) / d[i];
            lo = fmax(lo, fmin(t0, t1)), hi = fmin(hi, fmax(t0, t1));
        }
        double s = sign_of(x[axis]);
        double u[3] = {0, 0, 0};
        u[axis] = s;
        for (int e = 0; e < 2; ++e) {
            double te = e == 0 ? lo : hi;
            if (e == 1 && !(hi > lo)) {
                break;
            }
            double xe[3] = {p[0] + te * d[0], p[1] + te * d[1], p[2] + te * d[2]};
            double gap = s * xe[axis] - h[axis] - r;
            if (gap < margin) {
                add_local(sb, xe, u, r, gap, (uint32_t)e, m);
            }
        }
        return;
    }
    double q[3], u[3];
    for (int i = 0; i < 3; ++i) {
        q[i] = fmax(-h[i], fmin(h[i], x[i]));
    }
    double dist = sqrt(box_dist2(x, h));
    for (int i = 0; i < 3; ++i) {
        u[i] = (x[i] - q[i]) / dist;
    }
    if (dist - r < margin) {
        add_local(sb, x, u, r, dist - r, 2, m);
    }
}

/* Overlapping segment and box: SAT over the face normals and the cross
 * products of the segment with the box axes, in the box frame. */
static void capsule_overlapping(const nscd__collision_shape *sb, const double p[3],
                                const double d[3], double r, double margin, nscd__manifold *m) {
    const double *h = sb->half_extents;
    double q[3] = {p[0] + d[0], p[1] + d[1], p[2] + d[2]};
    double best = INFINITY, best_u[3] = {0, 0, 1};
    int best_axis = 0;
    for (int axis = 0; axis < 6; ++axis) {
        double L[3] = {0, 0, 0};
        if (axis < 3) {
            L[axis] = 1.0;
        } else {
            int i = axis - 3; /* d x e_i */
            double e[3] = {0, 0, 0};
            e[i] = 1.0;
            L[0] = d[1] * e[2] - d[2] * e[1], L[1] = d[2] * e[0] - d[0] * e[2],
            L[2] = d[0] * e[1] - d[1] * e[0];
            double len = sqrt(nscd__dot3(L, L));
            if (len < 1e-9 * sqrt(nscd__dot3(d, d)) || len == 0.0) {
                continue;
            }
            for (int c = 0; c < 3; ++c) {
                L[c] /= len;
            }
        }
        double reach = h[0] * fabs(L[0]) + h[1] * fabs(L[1]) + h[2] * fabs(L[2]);
        double sp = nscd__dot3(L, p), sq = nscd__dot3(L, q);
        double up = reach - fmin(sp, sq);   /* push the segment along +L */
        double down = fmax(sp, sq) + reach; /* along -L */
        double depth = fmin(up, down);
        /* faces win ties and near-ties (stable manifolds) */
        if (depth < best - (axis < 3 ? 0.0 : 1e-9 * (1.0 + best))) {
            best = depth, best_axis = axis;
            double s = up <= down ? 1.0 : -1.0;
            best_u[0] = s * L[0], best_u[1] = s * L[1], best_u[2] = s * L[2];
        }
    }
    double reach = h[0] * fabs(best_u[0]) + h[1] * fabs(best_u[1]) + h[2] * fabs(best_u[2]);
    if (best_axis < 3) { /* the segment's ends that are within the margin */
        for (int e = 0; e < 2; ++e) {
            const double *x = e == 0 ? p : q;
            double gap = nscd__dot3(best_u, x) - reach - r;
            if (gap < margin) {
                add_local(sb, x, best_u, r, gap, (uint32_t)e, m);
            }
        }
        return;
    }
    /* edge axis: the box edge along e_i that supports -best_u... i.e. the one
     * farthest along best_u, against the segment */
    int i = best_axis - 3;
    double ea[3], eb[3];
    for (int c = 0; c < 3; ++c) {
        double v = c == i ? h[c] : sign_of(best_u[c]) * h[c];
        ea[c] = v, eb[c] = v;
    }
    ea[i] = -h[i];
    double s, t;
    nscd__segments_closest(p, q, ea, eb, &s, &t);
    double x[3] = {p[0] + s * d[0], p[1] + s * d[1], p[2] + s * d[2]};
    add_local(sb, x, best_u, r, -best - r, (uint32_t)(3 + i), m);
}

void nscd__collide_box_capsule(const nscd__collision_shape *a, const nscd__collision_shape *b,
                               double margin, nscd__manifold *m) {
    double wp[3], wq[3], p[3], q[3], d[3];
    nscd__axis_segment(b, wp, wq);
    nscd__to_local(a, wp, p);
    nscd__to_local(a, wq, q);
    for (int i = 0; i < 3; ++i) {
        d[i] = q[i] - p[i];
    }
    double t = segment_box_closest(p, d, a->half_extents);
    double x[3] = {p[0] + t * d[0], p[1] + t * d[1], p[2] + t * d[2]};
    if (box_dist2(x, a->half_extents) > 0.0) {
        capsule_separated(a, p, d, t, b->radius, margin, m);
    } else {
        capsule_overlapping(a, p, d, b->radius, margin, m);
    }
}
