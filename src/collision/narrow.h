/* Narrow phase of the collision layer: the contact manifold of one pair of
 * shapes, one function per pair of shape types (narrow_<family>.c), and the
 * small geometry helpers they share (shape_geometry.c).
 *
 * Every narrow function takes its two shapes in its own fixed type order
 * (half-space, sphere, box, capsule, cylinder, convex) and returns points whose normal
 * points from its first shape to its second; the dispatcher (collision.c)
 * swaps and flips as the output order requires. A point is returned when its
 * gap is below the margin. Feature numbers tell apart the points of one
 * manifold and depend on the geometry only (vertex, edge or end index), so
 * the same physical point keeps its number from step to step. */
#ifndef NSCD_COLLISION_NARROW_H
#define NSCD_COLLISION_NARROW_H

#include <stdint.h>

#include "collision/collision.h"

/* Room for the candidate points of one manifold before its reduction to at
 * most 4: the clipped face polygon of box-box (up to 8), the corners of a box
 * on a half-space (8), the rim points of a cylinder on a half-space (10), a
 * cap polygon of cylinder-cylinder clipped against the other cap (up to 51:
 * 13 vertices, 26 edge-circle crossings, 12 points of the other rim). */
#define NSCD__MANIFOLD_MAX 64

typedef struct nscd__manifold_point {
    double point[3];  /* midway between the surfaces */
    double normal[3]; /* unit, from the first shape to the second */
    double gap;
    uint32_t feature;
} nscd__manifold_point;

typedef struct nscd__manifold {
    int32_t n;
    /* A pair the search found separated (n = 0) may name the unit axis,
     * from the first shape to the second, that showed it (has_axis = 1):
     * the pair cache's next start (collision.c, docs/collision.md). Pair
     * functions that do not set it leave has_axis 0. */
    int32_t has_axis;
    double axis[3];
    nscd__manifold_point p[NSCD__MANIFOLD_MAX];
} nscd__manifold;

typedef struct nscd__aabb {
    double lo[3], hi[3];
} nscd__aabb;

/* ---- geometry helpers (shape_geometry.c) ---- */

/* Axis i (0, 1, 2) of the shape frame in the world frame: column i of R. */
void nscd__shape_axis(const nscd__collision_shape *s, int i, double out[3]);
/* World point -> shape frame: R^T (p - position). */
void nscd__to_local(const nscd__collision_shape *s, const double p[3], double out[3]);
/* Shape-frame point -> world: position + R p. */
void nscd__to_world(const nscd__collision_shape *s, const double p[3], double out[3]);
/* Shape-frame direction -> world: R d. */
void nscd__dir_to_world(const nscd__collision_shape *s, const double d[3], double out[3]);
/* Bounding box of a finite shape, grown by `pad` on every side. */
void nscd__shape_aabb(const nscd__collision_shape *s, double pad, nscd__aabb *box);
/* The largest d.x over the finite shape s (d unit, world frame): a sphere,
 * box, capsule, cylinder or convex polyhedron (the pair cache's separation
 * test, collision.c). */
double nscd__support_along(const nscd__collision_shape *s, const double d[3]);
/* Adds one point; `normal` must be unit. Ignored when the manifold is full. */
void nscd__manifold_add(nscd__manifold *m, const double point[3], const double normal[3],
                        double gap, uint32_t feature);
/* Point of the segment [p, q] closest to x: the parameter t in [0, 1]. */
double nscd__segment_closest_t(const double p[3], const double q[3], const double x[3]);
/* Keeps the 4 points of smallest gap (ties: the smaller feature). */
void nscd__keep_deepest_four(nscd__manifold *m);
/* Reduces a planar manifold of more than 4 points (normal n) to 4 that span
 * it: the deepest, the farthest from it, and the two of largest triangle
 * area on either side (box-box faces, cylinder caps). */
void nscd__reduce_to_four(nscd__manifold *m, const double n[3]);
/* A vertex of a polygon clipped by nscd__clip_polygon: the edges it joins
 * (incident-face edges and the reference face's side planes, numbered by
 * the caller) name it across steps (feature keys). */
typedef struct nscd__clip_vertex {
    double p[3];
    int32_t e_in, e_out;
} nscd__clip_vertex;
/* Sutherland–Hodgman: clips the polygon in[0..n_in) against the half-space
 * {x : nrm.x <= limit}, a new vertex taking the side id `side`; writes at
 * most n_in + 1 vertices to out and returns their count (box-box faces,
 * polyhedron faces). */
int nscd__clip_polygon(const nscd__clip_vertex *in, int n_in, const double nrm[3], double limit,
                       int32_t side, nscd__clip_vertex *out);
/* Points below the margin of the plane {x : n.x = offset} (n unit, toward the
 * shape), without reduction: the 8 corners of a box (features 0-7), the rim
 * points of a cylinder (features 0-9, see narrow_cylinder.c). */
void nscd__box_corners_below(const double n[3], double offset, const nscd__collision_shape *box,
                             double margin, nscd__manifold *m);
void nscd__cylinder_rim_below(const double n[3], double offset,
                              const nscd__collision_shape *cylinder, double margin,
                              nscd__manifold *m);
/* Closest points of the segments p1 + s (q1 - p1) and p2 + t (q2 - p2), s and
 * t in [0, 1] (Ericson, Real-Time Collision Detection, 5.1.9); degenerate
 * segments are points. */
void nscd__segments_closest(const double p1[3], const double q1[3], const double p2[3],
                            const double q2[3], double *s, double *t);
/* A unit vector perpendicular to the unit vector a: a crossed with the world
 * axis least aligned with it (deterministic). */
void nscd__any_perpendicular(const double a[3], double out[3]);
/* End points of a capsule's or cylinder's axis segment, world frame. */
void nscd__axis_segment(const nscd__collision_shape *s, double p[3], double q[3]);

/* ---- pair functions: normal from the first shape to the second ---- */
typedef void (*nscd__narrow_fn)(const nscd__collision_shape *a, const nscd__collision_shape *b,
                                double margin, nscd__manifold *m);

/* narrow_sphere.c */
void nscd__collide_sphere_sphere(const nscd__collision_shape *a, const nscd__collision_shape *b,
                                 double margin, nscd__manifold *m);
void nscd__collide_half_space_sphere(const nscd__collision_shape *a, const nscd__collision_shape *b,
                                     double margin, nscd__manifold *m);
void nscd__collide_sphere_box(const nscd__collision_shape *a, const nscd__collision_shape *b,
                              double margin, nscd__manifold *m);
void nscd__collide_sphere_capsule(const nscd__collision_shape *a, const nscd__collision_shape *b,
                                  double margin, nscd__manifold *m);
void nscd__collide_sphere_cylinder(const nscd__collision_shape *a, const nscd__collision_shape *b,
                                   double margin, nscd__manifold *m);
/* narrow_box.c */
void nscd__collide_half_space_box(const nscd__collision_shape *a, const nscd__collision_shape *b,
                                  double margin, nscd__manifold *m);
void nscd__collide_box_box(const nscd__collision_shape *a, const nscd__collision_shape *b,
                           double margin, nscd__manifold *m);
void nscd__collide_box_capsule(const nscd__collision_shape *a, const nscd__collision_shape *b,
                               double margin, nscd__manifold *m);
/* narrow_capsule.c */
void nscd__collide_half_space_capsule(const nscd__collision_shape *a,
                                      const nscd__collision_shape *b, double margin,
                                      nscd__manifold *m);
void nscd__collide_capsule_capsule(const nscd__collision_shape *a, const nscd__collision_shape *b,
                                   double margin, nscd__manifold *m);
/* narrow_cylinder.c */
void nscd__collide_half_space_cylinder(const nscd__collision_shape *a,
                                       const nscd__collision_shape *b, double margin,
                                       nscd__manifold *m);
void nscd__collide_box_cylinder(const nscd__collision_shape *a, const nscd__collision_shape *b,
                                double margin, nscd__manifold *m);
void nscd__collide_capsule_cylinder(const nscd__collision_shape *a, const nscd__collision_shape *b,
                                    double margin, nscd__manifold *m);
void nscd__collide_cylinder_cylinder(const nscd__collision_shape *a, const nscd__collision_shape *b,
                                     double margin, nscd__manifold *m);
/* narrow_convex.c: convex polyhedra (NSCD_SHAPE_CONVEX, collision/hull.h) */
void nscd__collide_half_space_convex(const nscd__collision_shape *a, const nscd__collision_shape *b,
                                     double margin, nscd__manifold *m);
void nscd__collide_sphere_convex(const nscd__collision_shape *a, const nscd__collision_shape *b,
                                 double margin, nscd__manifold *m);
void nscd__collide_box_convex(const nscd__collision_shape *a, const nscd__collision_shape *b,
                              double margin, nscd__manifold *m);
void nscd__collide_capsule_convex(const nscd__collision_shape *a, const nscd__collision_shape *b,
                                  double margin, nscd__manifold *m);
void nscd__collide_cylinder_convex(const nscd__collision_shape *a, const nscd__collision_shape *b,
                                   double margin, nscd__manifold *m);
void nscd__collide_convex_convex(const nscd__collision_shape *a, const nscd__collision_shape *b,
                                 double margin, nscd__manifold *m);

#endif
