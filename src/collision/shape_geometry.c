/* Frames, bounding boxes and segments of shapes (see narrow.h). */
#include "core/vec3.h"
#include "collision/narrow.h"

#include <math.h>

#include "collision/hull.h"
#include "nscd/types.h"

void nscd__shape_axis(const nscd__collision_shape *s, int i, double out[3]) {
    out[0] = s->rotation[i];
    out[1] = s->rotation[3 + i];
    out[2] = s->rotation[6 + i];
}

void nscd__to_local(const nscd__collision_shape *s, const double p[3], double out[3]) {
    const double *r = s->rotation;
    double d[3] = {p[0] - s->position[0], p[1] - s->position[1], p[2] - s->position[2]};
    for (int i = 0; i < 3; ++i) {
        out[i] = r[i] * d[0] + r[3 + i] * d[1] + r[6 + i] * d[2];
    }
}

void nscd__dir_to_world(const nscd__collision_shape *s, const double d[3], double out[3]) {
    const double *r = s->rotation;
    for (int i = 0; i < 3; ++i) {
        out[i] = r[3 * i] * d[0] + r[3 * i + 1] * d[1] + r[3 * i + 2] * d[2];
    }
}

void nscd__to_world(const nscd__collision_shape *s, const double p[3], double out[3]) {
    nscd__dir_to_world(s, p, out);
    for (int i = 0; i < 3; ++i) {
        out[i] += s->position[i];
    }
}

double nscd__support_along(const nscd__collision_shape *s, const double d[3]) {
    const double *r = s->rotation;
    double local[3]; /* R^T d */
    for (int i = 0; i < 3; ++i) {
        local[i] = r[i] * d[0] + r[3 + i] * d[1] + r[6 + i] * d[2];
    }
    double base = nscd__dot3(d, s->position);
    switch (s->type) {
    case NSCD_SHAPE_SPHERE: return base + s->radius;
    case NSCD_SHAPE_BOX:
        return base + s->half_extents[0] * fabs(local[0]) + s->half_extents[1] * fabs(local[1]) +
               s->half_extents[2] * fabs(local[2]);
    case NSCD_SHAPE_CAPSULE: return base + s->half_height * fabs(local[2]) + s->radius;
    case NSCD_SHAPE_CYLINDER:
        return base + s->half_height * fabs(local[2]) +
               s->radius * sqrt(local[0] * local[0] + local[1] * local[1]);
    default: { /* convex */
        const nscd__hull *h = s->hull;
        const double *v =
            h->vertices + 3 * (size_t)nscd__hull_farthest(h->vertices, 3, h->n_vertices, local);
        return base + nscd__dot3(local, v);
    }
    }
}

double nscd__shape_extent(int32_t type, double radius, double half_height,
                          const double half_extents[3], const nscd__hull *hull) {
    switch (type) {
    case NSCD_SHAPE_SPHERE: return radius;
    case NSCD_SHAPE_BOX: return sqrt(nscd__dot3(half_extents, half_extents));
    case NSCD_SHAPE_CAPSULE: return half_height + radius;
    case NSCD_SHAPE_CYLINDER: return sqrt(half_height * half_height + radius * radius);
    default: return hull->radius; /* convex */
    }
}

/* Half-width along world axis i of a shape-frame box of half extents h. */
static double box_reach(const double *r, int i, const double h[3]) {
    return fabs(r[3 * i]) * h[0] + fabs(r[3 * i + 1]) * h[1] + fabs(r[3 * i + 2]) * h[2];
}

/* A convex shape's box: the extremes of its vertices along each world axis. */
static void convex_aabb(const nscd__collision_shape *s, double pad, nscd__aabb *box) {
    const nscd__hull *h = s->hull;
    const double *r = s->rotation;
    for (int i = 0; i < 3; ++i) {
        double lo = INFINITY, hi = -INFINITY;
        for (int32_t v = 0; v < h->n_vertices; ++v) {
            const double *x = h->vertices + 3 * (size_t)v;
            double c = r[3 * i] * x[0] + r[3 * i + 1] * x[1] + r[3 * i + 2] * x[2];
            /* not fmin / fmax: gcc calls libm's for them (12 calls per
             * axis); the same values, a NaN c ignored as they ignore it */
            lo = c < lo ? c : lo, hi = c > hi ? c : hi;
        }
        box->lo[i] = s->position[i] + lo - pad;
        box->hi[i] = s->position[i] + hi + pad;
    }
}

void nscd__shape_aabb(const nscd__collision_shape *s, double pad, nscd__aabb *box) {
    if (s->type == NSCD_SHAPE_CONVEX) {
        convex_aabb(s, pad, box);
        return;
    }
    const double *r = s->rotation;
    double reach[3];
    for (int i = 0; i < 3; ++i) {
        double az = fabs(r[3 * i + 2]); /* world axis i . shape z */
        switch (s->type) {
        case NSCD_SHAPE_BOX: reach[i] = box_reach(r, i, s->half_extents); break;
        case NSCD_SHAPE_CAPSULE: reach[i] = az * s->half_height + s->radius; break;
        case NSCD_SHAPE_CYLINDER: {
            /* The rim circle reaches radius * sin(angle between axis i and z). */
            double sin_angle = sqrt(fmax(0.0, 1.0 - az * az));
            reach[i] = az * s->half_height + s->radius * sin_angle;
            break;
        }
        default: reach[i] = s->radius; break; /* sphere */
        }
        box->lo[i] = s->position[i] - reach[i] - pad;
        box->hi[i] = s->position[i] + reach[i] + pad;
    }
}

void nscd__manifold_add(nscd__manifold *m, const double point[3], const double normal[3],
                        double gap, uint32_t feature) {
    if (m->n >= NSCD__MANIFOLD_MAX) {
        return;
    }
    nscd__manifold_point *p = &m->p[m->n++];
    for (int i = 0; i < 3; ++i) {
        p->point[i] = point[i];
        p->normal[i] = normal[i];
    }
    p->gap = gap;
    p->feature = feature;
}

double nscd__segment_closest_t(const double p[3], const double q[3], const double x[3]) {
    double d[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]};
    double dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    if (dd <= 0.0) {
        return 0.0;
    }
    double t = ((x[0] - p[0]) * d[0] + (x[1] - p[1]) * d[1] + (x[2] - p[2]) * d[2]) / dd;
    return t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
}

void nscd__axis_segment(const nscd__collision_shape *s, double p[3], double q[3]) {
    for (int i = 0; i < 3; ++i) {
        double reach = s->rotation[3 * i + 2] * s->half_height;
        p[i] = s->position[i] - reach;
        q[i] = s->position[i] + reach;
    }
}

static double clamp01(double x) { return x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x); }

void nscd__segments_closest(const double p1[3], const double q1[3], const double p2[3],
                            const double q2[3], double *s, double *t) {
    double d1[3], d2[3], r[3];
    for (int i = 0; i < 3; ++i) {
        d1[i] = q1[i] - p1[i], d2[i] = q2[i] - p2[i], r[i] = p1[i] - p2[i];
    }
    double a = nscd__dot3(d1, d1), e = nscd__dot3(d2, d2), f = nscd__dot3(d2, r);
    if (a <= 0.0 && e <= 0.0) {
        *s = *t = 0.0;
        return;
    }
    if (a <= 0.0) {
        *s = 0.0;
        *t = clamp01(f / e);
        return;
    }
    double c = nscd__dot3(d1, r);
    if (e <= 0.0) {
        *t = 0.0;
        *s = clamp01(-c / a);
        return;
    }
    double b = nscd__dot3(d1, d2), denom = a * e - b * b;
    /* Parallel segments (denom 0): any s works; 0 is the deterministic pick. */
    double ss = denom > 0.0 ? clamp01((b * f - c * e) / denom) : 0.0;
    double tt = (b * ss + f) / e;
    if (tt < 0.0) {
        tt = 0.0;
        ss = clamp01(-c / a);
    } else if (tt > 1.0) {
        tt = 1.0;
        ss = clamp01((b - c) / a);
    }
    *s = ss, *t = tt;
}

void nscd__keep_deepest_four(nscd__manifold *m) {
    while (m->n > 4) {
        int32_t worst = 0;
        for (int32_t k = 1; k < m->n; ++k) {
            const nscd__manifold_point *p = &m->p[k], *w = &m->p[worst];
            if (p->gap > w->gap || (p->gap == w->gap && p->feature > w->feature)) {
                worst = k;
            }
        }
        /* keep the order of the others: the caller sorts by feature anyway */
        for (int32_t k = worst; k + 1 < m->n; ++k) {
            m->p[k] = m->p[k + 1];
        }
        --m->n;
    }
}

int nscd__clip_polygon(const nscd__clip_vertex *in, int n_in, const double nrm[3], double limit,
                       int32_t side, nscd__clip_vertex *out) {
    int n_out = 0;
    for (int k = 0; k < n_in; ++k) {
        const nscd__clip_vertex *v = &in[(k + n_in - 1) % n_in], *w = &in[k];
        double dv = nscd__dot3(nrm, v->p) - limit, dw = nscd__dot3(nrm, w->p) - limit;
        if ((dv <= 0.0) != (dw <= 0.0)) {
            double t = dv / (dv - dw);
            nscd__clip_vertex *x = &out[n_out++];
            for (int i = 0; i < 3; ++i) {
                x->p[i] = v->p[i] + t * (w->p[i] - v->p[i]);
            }
            int32_t edge = v->e_out;
            x->e_in = dv <= 0.0 ? edge : side;
            x->e_out = dv <= 0.0 ? side : edge;
        }
        if (dw <= 0.0) {
            out[n_out++] = *w;
        }
    }
    return n_out;
}

void nscd__reduce_to_four(nscd__manifold *m, const double n[3]) {
    if (m->n <= 4) {
        return;
    }
    int32_t pick[4] = {0, -1, -1, -1};
    for (int32_t k = 1; k < m->n; ++k) {
        if (m->p[k].gap < m->p[pick[0]].gap) {
            pick[0] = k;
        }
    }
    const double *p0 = m->p[pick[0]].point;
    double best = -1.0;
    for (int32_t k = 0; k < m->n; ++k) {
        double d[3] = {m->p[k].point[0] - p0[0], m->p[k].point[1] - p0[1],
                       m->p[k].point[2] - p0[2]};
        if (nscd__dot3(d, d) > best) {
            best = nscd__dot3(d, d), pick[1] = k;
        }
    }
    const double *p1 = m->p[pick[1]].point;
    double lo = 0.0, hi = 0.0;
    for (int32_t k = 0; k < m->n; ++k) {
        const double *q = m->p[k].point;
        double e1[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
        double e2[3] = {q[0] - p0[0], q[1] - p0[1], q[2] - p0[2]};
        double c[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                       e1[0] * e2[1] - e1[1] * e2[0]};
        double area = nscd__dot3(c, n);
        if (area > hi) {
            hi = area, pick[2] = k;
        }
        if (area < lo) {
            lo = area, pick[3] = k;
        }
    }
    nscd__manifold kept = {0};
    for (int j = 0; j < 4; ++j) {
        int repeated = 0; /* degenerate polygons: one point picked twice */
        for (int i = 0; i < j; ++i) {
            repeated |= pick[i] == pick[j];
        }
        if (pick[j] >= 0 && !repeated) {
            kept.p[kept.n++] = m->p[pick[j]];
        }
    }
    *m = kept;
}

void nscd__any_perpendicular(const double a[3], double out[3]) {
    /* Cross a with the world axis least aligned with it. */
    int k = fabs(a[0]) <= fabs(a[1]) ? (fabs(a[0]) <= fabs(a[2]) ? 0 : 2)
                                     : (fabs(a[1]) <= fabs(a[2]) ? 1 : 2);
    double e[3] = {0, 0, 0};
    e[k] = 1.0;
    double c[3] = {a[1] * e[2] - a[2] * e[1], a[2] * e[0] - a[0] * e[2], a[0] * e[1] - a[1] * e[0]};
    double len = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
    for (int i = 0; i < 3; ++i) {
        out[i] = c[i] / len;
    }
}
