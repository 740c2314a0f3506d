/* GJK distance of two convex cores (gjk.h), with Ericson's closest point on
 * a segment, triangle and tetrahedron (Real-Time Collision Detection 5.1) as
 * the sub-algorithm; the simplex keeps the support points of both shapes, so
 * the witness points follow from the barycentric coordinates. */
#include "core/vec3.h"
#include "collision/gjk.h"

#include <math.h>
#include <string.h>

#include "collision/hull.h"
#include "nscd/types.h"

/* Fraction of the smallest size of a box or cylinder used as its rounding. */
#define ROUNDING_FRACTION 0.05
#define GJK_MAX_ITERATIONS 64

void nscd__core_of(const nscd__collision_shape *s, nscd__core *core) {
    memset(core, 0, sizeof *core);
    core->shape = s;
    switch (s->type) {
    case NSCD_SHAPE_BOX: {
        const double *h = s->half_extents;
        core->rounding = ROUNDING_FRACTION * fmin(h[0], fmin(h[1], h[2]));
        for (int i = 0; i < 3; ++i) {
            core->half_extents[i] = h[i] - core->rounding;
        }
        break;
    }
    case NSCD_SHAPE_CYLINDER:
        core->rounding = ROUNDING_FRACTION * fmin(s->radius, s->half_height);
        core->radius = s->radius - core->rounding;
        core->half_height = s->half_height - core->rounding;
        break;
    case NSCD_SHAPE_CAPSULE:
        core->rounding = s->radius;
        core->half_height = s->half_height;
        break;
    case NSCD_SHAPE_CONVEX: break;              /* the hull itself, not rounded */
    default: core->rounding = s->radius; break; /* sphere */
    }
}

void nscd__core_of_box(const nscd__collision_shape *s, nscd__core *core) {
    memset(core, 0, sizeof *core);
    core->shape = s;
    for (int i = 0; i < 3; ++i) {
        core->half_extents[i] = s->half_extents[i];
    }
}

void nscd__core_support(const nscd__core *core, const double d[3], double out[3]) {
    const nscd__collision_shape *s = core->shape;
    double local[3];
    const double *r = s->rotation;
    for (int i = 0; i < 3; ++i) { /* R^T d */
        local[i] = r[i] * d[0] + r[3 + i] * d[1] + r[6 + i] * d[2];
    }
    double p[3] = {0, 0, 0};
    switch (s->type) {
    case NSCD_SHAPE_BOX:
        for (int i = 0; i < 3; ++i) {
            p[i] = local[i] < 0.0 ? -core->half_extents[i] : core->half_extents[i];
        }
        break;
    case NSCD_SHAPE_CYLINDER: {
        double w = sqrt(local[0] * local[0] + local[1] * local[1]);
        if (w > 0.0) {
            p[0] = core->radius * local[0] / w, p[1] = core->radius * local[1] / w;
        }
        p[2] = local[2] < 0.0 ? -core->half_height : core->half_height;
        break;
    }
    case NSCD_SHAPE_CAPSULE: p[2] = local[2] < 0.0 ? -core->half_height : core->half_height; break;
    case NSCD_SHAPE_CONVEX: { /* the vertex farthest along d (ties: the first) */
        const nscd__hull *h = s->hull;
        int32_t best = nscd__hull_farthest(h->vertices, 3, h->n_vertices, local);
        for (int i = 0; i < 3; ++i) {
            p[i] = h->vertices[3 * (size_t)best + i];
        }
        break;
    }
    default: break; /* sphere: its centre */
    }
    nscd__to_world(s, p, out);
}

/* Simplex of up to 4 vertices w = a - b with their support points. */
typedef struct simplex {
    int n;
    double w[4][3], a[4][3], b[4][3];
    double lambda[4];
} simplex;

static void keep(simplex *s, const int *idx, const double *lambda, int n) {
    simplex t = *s;
    for (int k = 0; k < n; ++k) {
        memcpy(s->w[k], t.w[idx[k]], sizeof s->w[k]);
        memcpy(s->a[k], t.a[idx[k]], sizeof s->a[k]);
        memcpy(s->b[k], t.b[idx[k]], sizeof s->b[k]);
        s->lambda[k] = lambda[k];
    }
    s->n = n;
}

static void sub(const double a[3], const double b[3], double out[3]) {
    out[0] = a[0] - b[0], out[1] = a[1] - b[1], out[2] = a[2] - b[2];
}

/* Closest point of triangle (i, j, k) of the simplex to the origin:
 * barycentrics into lam (over i, j, k), returns the squared distance. */
static double triangle_closest(const simplex *s, int i, int j, int k, double lam[3]) {
    const double *a = s->w[i], *b = s->w[j], *c = s->w[k];
    double ab[3], ac[3], na[3] = {-a[0], -a[1], -a[2]};
    sub(b, a, ab);
    sub(c, a, ac);
    double d1 = nscd__dot3(ab, na), d2 = nscd__dot3(ac, na);
    lam[0] = lam[1] = lam[2] = 0.0;
    if (d1 <= 0.0 && d2 <= 0.0) {
        lam[0] = 1.0;
    } else {
        double nb[3] = {-b[0], -b[1], -b[2]}, nc[3] = {-c[0], -c[1], -c[2]};
        double d3 = nscd__dot3(ab, nb), d4 = nscd__dot3(ac, nb);
        double d5 = nscd__dot3(ab, nc), d6 = nscd__dot3(ac, nc);
        double vc = d1 * d4 - d3 * d2, vb = d5 * d2 - d1 * d6, va = d3 * d6 - d5 * d4;
        if (d3 >= 0.0 && d4 <= d3) {
            lam[1] = 1.0;
        } else if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
            double v = d1 / (d1 - d3);
            lam[0] = 1.0 - v, lam[1] = v;
        } else if (d6 >= 0.0 && d5 <= d6) {
            lam[2] = 1.0;
        } else if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
            double w = d2 / (d2 - d6);
            lam[0] = 1.0 - w, lam[2] = w;
        } else if (va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0) {
            double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
            lam[1] = 1.0 - w, lam[2] = w;
        } else {
            double den = 1.0 / (va + vb + vc);
            lam[1] = vb * den, lam[2] = vc * den, lam[0] = 1.0 - lam[1] - lam[2];
        }
    }
    double p[3];
    for (int d = 0; d < 3; ++d) {
        p[d] = lam[0] * a[d] + lam[1] * b[d] + lam[2] * c[d];
    }
    return nscd__dot3(p, p);
}

/* Reduces the simplex to the vertices that support its closest point to the
 * origin and sets their barycentrics; returns 1 when the origin is inside a
 * tetrahedron (overlap). */
static int reduce_simplex(simplex *s) {
    if (s->n == 1) {
        s->lambda[0] = 1.0;
        return 0;
    }
    if (s->n == 2) {
        double ab[3];
        sub(s->w[1], s->w[0], ab);
        double len2 = nscd__dot3(ab, ab);
        double t = len2 > 0.0 ? -nscd__dot3(s->w[0], ab) / len2 : 0.0;
        if (t <= 0.0) {
            keep(s, (int[]){0}, (double[]){1.0}, 1);
        } else if (t >= 1.0) {
            keep(s, (int[]){1}, (double[]){1.0}, 1);
        } else {
            s->lambda[0] = 1.0 - t, s->lambda[1] = t;
        }
        return 0;
    }
    static const int faces[4][4] = {{0, 1, 2, 3}, {0, 1, 3, 2}, {0, 2, 3, 1}, {1, 2, 3, 0}};
    int n_faces = s->n == 3 ? 1 : 4;
    /* A flat tetrahedron (rounding) contains nothing: then every face counts. */
    int flat = 0;
    if (s->n == 4) {
        double ab[3], ac[3], ad[3];
        sub(s->w[1], s->w[0], ab);
        sub(s->w[2], s->w[0], ac);
        sub(s->w[3], s->w[0], ad);
        double c[3] = {ab[1] * ac[2] - ab[2] * ac[1], ab[2] * ac[0] - ab[0] * ac[2],
                       ab[0] * ac[1] - ab[1] * ac[0]};
        double size = sqrt(nscd__dot3(ab, ab) * nscd__dot3(ac, ac) * nscd__dot3(ad, ad));
        flat = !(fabs(nscd__dot3(c, ad)) > 1e-9 * size);
    }
    double best = INFINITY, best_lam[3] = {1, 0, 0};
    int best_face = -1;
    for (int f = 0; f < n_faces; ++f) {
        const int *v = faces[f];
        if (s->n == 4 && !flat) { /* skip faces the origin is not outside of */
            double ab[3], ac[3], ad[3], nrm[3];
            sub(s->w[v[1]], s->w[v[0]], ab);
            sub(s->w[v[2]], s->w[v[0]], ac);
            sub(s->w[v[3]], s->w[v[0]], ad);
            nrm[0] = ab[1] * ac[2] - ab[2] * ac[1], nrm[1] = ab[2] * ac[0] - ab[0] * ac[2],
            nrm[2] = ab[0] * ac[1] - ab[1] * ac[0];
            double side_origin = -nscd__dot3(nrm, s->w[v[0]]), side_d = nscd__dot3(nrm, ad);
            if (side_origin * side_d > 0.0) {
                continue; /* origin on the inner side of this face */
            }
        }
        double lam[3];
        double d2 = triangle_closest(s, v[0], v[1], v[2], lam);
        if (d2 < best) {
            best = d2, best_face = f;
            memcpy(best_lam, lam, sizeof lam);
        }
    }
    if (best_face < 0) {
        return 1; /* inside every face: the tetrahedron contains the origin */
    }
    int idx[3], n = 0;
    double lam[3];
    for (int k = 0; k < 3; ++k) {
        if (best_lam[k] > 0.0) {
            idx[n] = faces[best_face][k], lam[n] = best_lam[k], ++n;
        }
    }
    keep(s, idx, lam, n);
    return 0;
}

double nscd__gjk_distance(const nscd__core *ca, const nscd__core *cb, double pa[3], double pb[3]) {
    simplex s;
    memset(&s, 0, sizeof s);
    double d[3];
    sub(cb->shape->position, ca->shape->position, d);
    if (nscd__dot3(d, d) == 0.0) {
        d[0] = 1.0;
    }
    /* first vertex: supports toward each other */
    double nd[3] = {-d[0], -d[1], -d[2]};
    nscd__core_support(ca, d, s.a[0]);
    nscd__core_support(cb, nd, s.b[0]);
    sub(s.a[0], s.b[0], s.w[0]);
    s.n = 1;
    /* The best simplex so far: rounding can make a step go backwards (the
     * closest point of a near-degenerate simplex), and then the previous one
     * is the answer. */
    simplex best = s;
    double best_vv = INFINITY;
    for (int it = 0; it < GJK_MAX_ITERATIONS; ++it) {
        if (reduce_simplex(&s)) {
            return 0.0;
        }
        double v[3] = {0, 0, 0};
        for (int c = 0; c < 3; ++c) {
            for (int k = 0; k < s.n; ++k) {
                v[c] += s.lambda[k] * s.w[k][c];
            }
        }
        double vv = nscd__dot3(v, v);
        if (!(vv < best_vv)) {
            break; /* no progress */
        }
        best = s, best_vv = vv;
        double scale = nscd__dot3(s.w[0], s.w[0]);
        if (vv <= 1e-24 * (1.0 + scale)) {
            return 0.0;
        }
        /* next support of A - B in direction -v */
        double dir[3] = {-v[0], -v[1], -v[2]}, a[3], b[3], w[3];
        nscd__core_support(ca, dir, a);
        nscd__core_support(cb, v, b);
        sub(a, b, w);
        /* converged: the new point is hardly closer along v (relative
         * tolerance: the distance is then right to about 1e-10 of itself) */
        if (vv - nscd__dot3(v, w) <= 1e-10 * vv) {
            break;
        }
        int duplicate = 0;
        for (int k = 0; k < s.n; ++k) {
            duplicate |= s.w[k][0] == w[0] && s.w[k][1] == w[1] && s.w[k][2] == w[2];
        }
        if (duplicate) {
            break;
        }
        memcpy(s.w[s.n], w, sizeof w);
        memcpy(s.a[s.n], a, sizeof a);
        memcpy(s.b[s.n], b, sizeof b);
        ++s.n;
    }
    for (int c = 0; c < 3; ++c) {
        pa[c] = pb[c] = 0.0;
        for (int k = 0; k < best.n; ++k) {
            pa[c] += best.lambda[k] * best.a[k][c];
            pb[c] += best.lambda[k] * best.b[k][c];
        }
    }
    double diff[3];
    sub(pa, pb, diff);
    return sqrt(nscd__dot3(diff, diff));
}
