/* Distance of two convex shapes given by support functions (Gilbert-Johnson-
 * Keerthi). The narrow phase uses it for cylinder-box and for separated
 * boxes whose closest features are corners, on "cores": each shape
 * shrunk by a rounding radius, so that the distance of the cores minus the
 * two radii is the gap of the rounded shapes, and contacts with a penetration
 * below the sum of the radii never need a penetration-depth algorithm. */
#ifndef NSCD_COLLISION_GJK_H
#define NSCD_COLLISION_GJK_H

#include "collision/narrow.h"

/* A shape's core: the shape shrunk by `rounding` (sphere: its centre;
 * capsule: its segment; box and cylinder: shrunk by a fraction of their
 * smallest size). */
typedef struct nscd__core {
    const nscd__collision_shape *shape;
    double rounding;
    double half_extents[3];     /* box core */
    double radius, half_height; /* cylinder core; capsule: half_height */
} nscd__core;

void nscd__core_of(const nscd__collision_shape *s, nscd__core *core);
/* The core of a box that is the box itself (rounding 0): GJK then gives the
 * exact distance of two separated boxes. */
void nscd__core_of_box(const nscd__collision_shape *s, nscd__core *core);
/* Point of the core farthest along d (world). */
void nscd__core_support(const nscd__core *core, const double d[3], double out[3]);

/* Closest points pa, pb of two cores; returns their distance, or 0 when the
 * cores overlap (within GJK's tolerance; pa, pb are then meaningless). */
double nscd__gjk_distance(const nscd__core *a, const nscd__core *b, double pa[3], double pb[3]);

#endif
