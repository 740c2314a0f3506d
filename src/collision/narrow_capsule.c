/* Narrow phase of capsules (narrow.h): a capsule is its axis segment swept
 * by a sphere, so each pair is a segment problem shifted by the radii, exact.
 * Capsule-half-space: the two end spheres (features 0 and 1). Capsule-capsule:
 * the closest points of the two segments (feature 2); for parallel segments
 * that overlap along their axis, the two ends of the overlap (features 0, 1),
 * so that a capsule lying on another does not rock about one point. */
#include "core/vec3.h"
#include "collision/narrow.h"

#include <math.h>

void nscd__collide_half_space_capsule(const nscd__collision_shape *a,
                                      const nscd__collision_shape *b, double margin,
                                      nscd__manifold *m) {
    double n[3], ends[2][3];
    nscd__shape_axis(a, 2, n);
    nscd__axis_segment(b, ends[0], ends[1]);
    double offset = nscd__dot3(n, a->position);
    for (int e = 0; e < 2; ++e) {
        double gap = nscd__dot3(n, ends[e]) - offset - b->radius;
        if (gap < margin) {
            double point[3];
            for (int i = 0; i < 3; ++i) {
                point[i] = ends[e][i] - n[i] * (b->radius + 0.5 * gap);
            }
            nscd__manifold_add(m, point, n, gap, (uint32_t)e);
        }
    }
}

/* Unit normal for coincident cores: perpendicular to both axes when they
 * cross, else perpendicular to a's axis; oriented from a's centre to b's. */
static void coincident_normal(const double ua[3], const double ub[3], const double ca[3],
                              const double cb[3], double out[3]) {
    double c[3] = {ua[1] * ub[2] - ua[2] * ub[1], ua[2] * ub[0] - ua[0] * ub[2],
                   ua[0] * ub[1] - ua[1] * ub[0]};
    if (nscd__dot3(c, c) < 1e-12) { /* parallel: any perpendicular of ua */
        int k = fabs(ua[0]) <= fabs(ua[1]) ? (fabs(ua[0]) <= fabs(ua[2]) ? 0 : 2)
                                           : (fabs(ua[1]) <= fabs(ua[2]) ? 1 : 2);
        double e[3] = {0, 0, 0};
        e[k] = 1.0;
        c[0] = ua[1] * e[2] - ua[2] * e[1], c[1] = ua[2] * e[0] - ua[0] * e[2],
        c[2] = ua[0] * e[1] - ua[1] * e[0];
    }
    double len = sqrt(nscd__dot3(c, c));
    double d[3] = {cb[0] - ca[0], cb[1] - ca[1], cb[2] - ca[2]};
    double s = nscd__dot3(c, d) < 0.0 ? -1.0 / len : 1.0 / len;
    for (int i = 0; i < 3; ++i) {
        out[i] = c[i] * s;
    }
}

/* Two cores x (radius ra) and y (radius rb) of the capsules along ua and
 * ub centred at ca and cb: normal from x to y, or, when they coincide,
 * coincident_normal's (computed only then). */
static void add_cores(const double x[3], double ra, const double y[3], double rb,
                      const double ua[3], const double ub[3], const double ca[3],
                      const double cb[3], double margin, uint32_t feature, nscd__manifold *m) {
    double d[3] = {y[0] - x[0], y[1] - x[1], y[2] - x[2]};
    double dist = sqrt(nscd__dot3(d, d));
    double gap = dist - ra - rb;
    if (gap >= margin) {
        return;
    }
    double n[3], point[3];
    if (dist > 0.0) {
        double inv = 1.0 / dist; /* one division, not three */
        for (int i = 0; i < 3; ++i) {
            n[i] = d[i] * inv;
        }
    } else {
        coincident_normal(ua, ub, ca, cb, n);
    }
    for (int i = 0; i < 3; ++i) {
        point[i] = x[i] + n[i] * (ra + 0.5 * gap);
    }
    nscd__manifold_add(m, point, n, gap, feature);
}

void nscd__collide_capsule_capsule(const nscd__collision_shape *a, const nscd__collision_shape *b,
                                   double margin, nscd__manifold *m) {
    double pa[3], qa[3], pb[3], qb[3], ua[3], ub[3];
    nscd__axis_segment(a, pa, qa);
    nscd__axis_segment(b, pb, qb);
    nscd__shape_axis(a, 2, ua);
    nscd__shape_axis(b, 2, ub);
    double c[3] = {ua[1] * ub[2] - ua[2] * ub[1], ua[2] * ub[0] - ua[0] * ub[2],
                   ua[0] * ub[1] - ua[1] * ub[0]};
    double la = 2.0 * a->half_height;
    if (nscd__dot3(c, c) < 1e-6 && la > 0.0) {
        /* parallel: the overlap of b's projection onto a's segment */
        double sp = nscd__dot3(ua, pb) - nscd__dot3(ua, pa),
               sq = nscd__dot3(ua, qb) - nscd__dot3(ua, pa);
        double lo = fmax(0.0, fmin(sp, sq)), hi = fmin(la, fmax(sp, sq));
        if (hi > lo) {
            for (int e = 0; e < 2; ++e) {
                double s = e == 0 ? lo : hi, x[3], y[3];
                for (int i = 0; i < 3; ++i) {
                    x[i] = pa[i] + s * ua[i];
                }
                double t = nscd__segment_closest_t(pb, qb, x);
                for (int i = 0; i < 3; ++i) {
                    y[i] = pb[i] + t * (qb[i] - pb[i]);
                }
                add_cores(x, a->radius, y, b->radius, ua, ub, a->position, b->position, margin,
                          (uint32_t)e, m);
            }
            return;
        }
    }
    double s, t, x[3], y[3];
    nscd__segments_closest(pa, qa, pb, qb, &s, &t);
    for (int i = 0; i < 3; ++i) {
        x[i] = pa[i] + s * (qa[i] - pa[i]);
        y[i] = pb[i] + t * (qb[i] - pb[i]);
    }
    add_cores(x, a->radius, y, b->radius, ua, ub, a->position, b->position, margin, 2, m);
}
