/* Narrow phase of the sphere against every shape (narrow.h). Sphere-sphere
 * is the fast path of granular flows: one squared-distance test rejects a
 * far pair before any square root. All pairs here are exact: the closest
 * points of a sphere and a convex shape are those of its centre and the shape
 * (shifted by the radius along their normal), and a centre inside the shape
 * leaves along the direction of least penetration. */
#include "collision/narrow.h"

#include <math.h>
#include <stdbool.h>

/* A sphere of centre c (world) and radius r touching the surface point q of
 * the other shape, whose outward normal there is u (world, unit), with the
 * centre at signed distance `dist` from q along u: midway point and gap.
 * `sign` = +1 when the normal from first to second shape is u (the sphere is
 * the second shape), -1 when it is -u. */
static void add_sphere_point(nscd__manifold *m, const double q[3], const double u[3], double dist,
                             double r, double sign) {
    double gap = dist - r;
    double point[3], normal[3];
    for (int i = 0; i < 3; ++i) {
        point[i] = q[i] + u[i] * 0.5 * gap;
        normal[i] = sign * u[i];
    }
    nscd__manifold_add(m, point, normal, gap, 0);
}

/* Sphere of centre c and radius r against a point-like core: a centre p of
 * radius rp (a sphere, or the closest point of a capsule's segment). The
 * normal goes from c to p; `fallback` (unit) serves when they coincide. */
static void sphere_vs_core(const double c[3], double r, const double p[3], double rp,
                           const double fallback[3], double margin, nscd__manifold *m) {
    double d[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
    double dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    double reach = r + rp + margin;
    if (dd >= reach * reach) {
        return;
    }
    double dist = sqrt(dd);
    double n[3];
    for (int i = 0; i < 3; ++i) {
        n[i] = dist > 0.0 ? d[i] / dist : fallback[i];
    }
    double gap = dist - r - rp;
    double point[3];
    for (int i = 0; i < 3; ++i) {
        point[i] = c[i] + n[i] * (r + 0.5 * gap);
    }
    nscd__manifold_add(m, point, n, gap, 0);
}

void nscd__collide_sphere_sphere(const nscd__collision_shape *a, const nscd__collision_shape *b,
                                 double margin, nscd__manifold *m) {
    /* Coincident centres: +z, an arbitrary but fixed unit normal. */
    static const double up[3] = {0.0, 0.0, 1.0};
    sphere_vs_core(a->position, a->radius, b->position, b->radius, up, margin, m);
}

void nscd__collide_half_space_sphere(const nscd__collision_shape *a, const nscd__collision_shape *b,
                                     double margin, nscd__manifold *m) {
    double n[3];
    nscd__shape_axis(a, 2, n);
    const double *c = b->position;
    double dist = n[0] * (c[0] - a->position[0]) + n[1] * (c[1] - a->position[1]) +
                  n[2] * (c[2] - a->position[2]);
    if (dist - b->radius >= margin) {
        return;
    }
    double q[3] = {c[0] - n[0] * dist, c[1] - n[1] * dist, c[2] - n[2] * dist};
    add_sphere_point(m, q, n, dist, b->radius, 1.0);
}

/* Sphere centre c outside shape b, q the closest point of b (both in b's
 * frame): the unit normal u from q to c and the distance *dist between them;
 * false when the sphere's surface is beyond the margin. */
static bool normal_from_outside(const double c[3], const double q[3], double radius, double margin,
                                double u[3], double *dist) {
    double d[3] = {c[0] - q[0], c[1] - q[1], c[2] - q[2]};
    *dist = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    if (*dist - radius >= margin) {
        return false;
    }
    for (int i = 0; i < 3; ++i) {
        u[i] = d[i] / *dist;
    }
    return true;
}

/* The contact of sphere a with shape b from b's surface point q and outward
 * normal u in b's frame, dist the signed distance of a's centre to q. */
static void add_local_point(const nscd__collision_shape *b, const double q[3], const double u[3],
                            double dist, double radius, nscd__manifold *m) {
    double qw[3], uw[3];
    nscd__to_world(b, q, qw);
    nscd__dir_to_world(b, u, uw);
    add_sphere_point(m, qw, uw, dist, radius, -1.0);
}

void nscd__collide_sphere_box(const nscd__collision_shape *a, const nscd__collision_shape *b,
                              double margin, nscd__manifold *m) {
    double c[3], q[3], u[3] = {0, 0, 0};
    nscd__to_local(b, a->position, c);
    const double *h = b->half_extents;
    int outside = 0;
    for (int i = 0; i < 3; ++i) {
        q[i] = c[i] < -h[i] ? -h[i] : (c[i] > h[i] ? h[i] : c[i]);
        outside |= q[i] != c[i];
    }
    double dist;
    if (outside) {
        if (!normal_from_outside(c, q, a->radius, margin, u, &dist)) {
            return;
        }
    } else {
        /* Centre inside: leave through the face of least depth (the lowest axis
         * on a tie, so the choice is deterministic). */
        int k = 0;
        double depth = h[0] - fabs(c[0]);
        for (int i = 1; i < 3; ++i) {
            if (h[i] - fabs(c[i]) < depth) {
                depth = h[i] - fabs(c[i]);
                k = i;
            }
        }
        u[k] = c[k] < 0.0 ? -1.0 : 1.0;
        q[k] = u[k] * h[k];
        dist = -depth;
    }
    add_local_point(b, q, u, dist, a->radius, m);
}

void nscd__collide_sphere_capsule(const nscd__collision_shape *a, const nscd__collision_shape *b,
                                  double margin, nscd__manifold *m) {
    double p[3], q[3], axis[3], fallback[3];
    nscd__axis_segment(b, p, q);
    double t = nscd__segment_closest_t(p, q, a->position);
    double s[3];
    for (int i = 0; i < 3; ++i) {
        s[i] = p[i] + t * (q[i] - p[i]);
    }
    nscd__shape_axis(b, 2, axis);
    nscd__any_perpendicular(axis, fallback);
    sphere_vs_core(a->position, a->radius, s, b->radius, fallback, margin, m);
}

void nscd__collide_sphere_cylinder(const nscd__collision_shape *a, const nscd__collision_shape *b,
                                   double margin, nscd__manifold *m) {
    double c[3], q[3], u[3] = {0, 0, 0};
    nscd__to_local(b, a->position, c);
    double R = b->radius, h = b->half_height;
    double rho = sqrt(c[0] * c[0] + c[1] * c[1]);
    double radial[2] = {1.0, 0.0}; /* on the axis: the local x direction */
    if (rho > 0.0) {
        radial[0] = c[0] / rho, radial[1] = c[1] / rho;
    }
    double dist;
    if (rho > R || fabs(c[2]) > h) {
        double qr = rho > R ? R : rho;
        q[0] = radial[0] * qr, q[1] = radial[1] * qr;
        q[2] = c[2] < -h ? -h : (c[2] > h ? h : c[2]);
        if (!normal_from_outside(c, q, a->radius, margin, u, &dist)) {
            return;
        }
    } else if (R - rho < h - fabs(c[2])) { /* inside, nearer the mantle */
        u[0] = radial[0], u[1] = radial[1];
        q[0] = radial[0] * R, q[1] = radial[1] * R, q[2] = c[2];
        dist = rho - R;
    } else { /* inside, nearer a cap */
        u[2] = c[2] < 0.0 ? -1.0 : 1.0;
        q[0] = c[0], q[1] = c[1], q[2] = u[2] * h;
        dist = fabs(c[2]) - h;
    }
    add_local_point(b, q, u, dist, a->radius, m);
}
