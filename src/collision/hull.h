/* Convex hull of a point set (NSCD_SHAPE_CONVEX): a deterministic 3-D
 * quickhull with a relative tolerance, coplanar triangles merged into
 * polygonal faces, and the polyhedron's mass properties by the divergence
 * theorem (docs/world.md, "Convex polyhedra").
 *
 * A hull is one block from the allocator, immutable once built: its
 * vertices, face planes and vertex loops, edges, and the user's points
 * (kept so that a checkpoint rebuilds the same hull from them: the build is
 * deterministic, the same points in the same order give the same hull, bit
 * for bit). Everything is in the shape frame. */
#ifndef NSCD_COLLISION_HULL_H
#define NSCD_COLLISION_HULL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "nscd/host.h"

/* Largest point count of one convex shape (documented in world.h). */
#define NSCD__HULL_MAX_POINTS 4096

typedef struct nscd__hull {
    size_t bytes; /* of the block (the allocator wants it back) */
    int32_t n_points, n_vertices, n_faces, n_edges;
    double *points;   /* 3 n_points: the user's points, as given */
    double *vertices; /* 3 n_vertices: the hull's corners, in the order of the points */
    /* 4 n_faces: unit outward normal n and offset d; the solid is
     * {x : n.x <= d} for every face */
    double *planes;
    int32_t *face_first;    /* n_faces + 1: face f's loop is face_vertices[first[f], first[f+1]) */
    int32_t *face_vertices; /* vertex indices, counter-clockwise seen from outside */
    /* 4 n_edges: vertices v0, v1; the face whose loop runs v0 -> v1; the
     * face whose loop runs v1 -> v0 */
    int32_t *edges;
    /* Mass properties at unit density: volume, centroid, inertia tensor
     * about the centroid (row-major), shape frame. */
    double volume, centroid[3], inertia[9];
    double radius;       /* largest distance of a vertex from the shape origin */
    double inradius;     /* smallest distance of a face plane from the centroid */
    double lo[3], hi[3]; /* bounding box of the vertices */
} nscd__hull;

typedef enum nscd__hull_status {
    NSCD__HULL_OK = 0,
    NSCD__HULL_TOO_FEW,    /* fewer than 4 points */
    NSCD__HULL_TOO_MANY,   /* more than NSCD__HULL_MAX_POINTS */
    NSCD__HULL_NOT_FINITE, /* a NaN or infinite coordinate */
    NSCD__HULL_FLAT,       /* coplanar (or collinear, coincident) points: no volume */
    NSCD__HULL_FAILED,     /* round-off defeated the construction (checked, never silent) */
    NSCD__HULL_NO_MEMORY
} nscd__hull_status;

/* Builds the hull of n points (3 doubles each) into *out (unchanged on
 * failure). */
nscd__hull_status nscd__hull_build(const nscd_allocator *al, const double *points, int32_t n,
                                   nscd__hull **out);
/* Frees a hull built by nscd__hull_build (NULL is ignored). */
void nscd__hull_free(const nscd_allocator *al, nscd__hull *hull);

/* The index of the row farthest along the direction d (hull frame) among
 * `count` rows of `stride` doubles whose first three are a vector: the
 * support vertex (vertices, stride 3) or the face facing d (planes, stride
 * 4). Ties: the first. */
static inline int32_t nscd__hull_farthest(const double *rows, size_t stride, int32_t count,
                                          const double d[3]) {
    int32_t best = 0;
    double top = -INFINITY;
    for (int32_t k = 0; k < count; ++k) {
        const double *x = rows + stride * (size_t)k;
        double e = d[0] * x[0] + d[1] * x[1] + d[2] * x[2];
        if (e > top) {
            top = e, best = k;
        }
    }
    return best;
}

#endif
