/* Narrow phase of convex polyhedra (NSCD_SHAPE_CONVEX, narrow.h).
 *
 * Polyhedron-half-space, exact: the vertices below the margin; more than 4
 * reduced to the 4 that span them (the deepest, the farthest from it, the
 * two of largest triangle area on either side, as box-box reduces) when 4 or
 * more touch (gap <= 0), else to the 4 deepest.
 *
 * Polyhedron-polyhedron and polyhedron-box (the box as the polyhedron of
 * its 8 corners): separating axis test over the face normals of both and
 * the cross products of the edge pairs that build a face of the Minkowski
 * difference (Gregorius' Gauss-map test: the arcs of the two edges cross),
 * exact for polytopes. A face axis gives the incident face (the other
 * shape's face most anti-parallel to the reference face) clipped against
 * the reference face's side planes (Sutherland-Hodgman), reduced to 4
 * points; an edge axis the one point between the two edges. Faces are
 * preferred unless an edge axis separates more by 1e-3 of the smaller
 * inradius (box-box's rule). Separated shapes whose closest features are
 * not a face or an edge pair (a vertex): GJK gives the exact distance and
 * one point, as box-box does.
 *
 * Polyhedron-sphere, exact: separated, GJK of the centre and the hull;
 * centre inside, the face it is least deep under.
 *
 * Polyhedron-capsule, exact: separating axes of the segment and the
 * polyhedron (face normals, and the cross products of the segment with the
 * edges whose Gauss arc the segment's great circle crosses). Separated:
 * GJK's closest points, or, when the closest feature is a face, the segment
 * clipped to the face's prism (two points: a capsule lying on a face
 * rests). Overlapping: the face axis with the segment clipped, or one point
 * between the segment and the edge.
 *
 * Polyhedron-cylinder, approximate as the other cylinder pairs: GJK on the
 * cylinder's core (rounded by 5 % of its smaller size) and the hull, and
 * beyond the rounding the best of a sampled separating-axis test (the hull's
 * face normals, the cylinder's axis, its cross products with the hull's
 * edges and the centre line). A normal along a hull face normal gives the
 * cylinder's rim points over that face, one along the cylinder's axis the
 * hull's vertices over the cap (up to 4 points), as box-cylinder does.
 *
 * Features (persistent keys): face clipping 0x00000000 | 14 bits of the
 * (reference, incident) face pair | 16 bits of the clipped vertex's two
 * edges; edge pair 0x40000000 | the two edge numbers; GJK's single point
 * 0x80000000; vertices on a plane, the vertex number (hashed with the face
 * when a face clips them). Each is unique within a manifold for faces of up
 * to 127 vertices, and depends on the geometry only. */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "core/vec3.h"
#include "collision/gjk.h"
#include "collision/hull.h"
#include "collision/narrow.h"
#include "nscd/types.h"

#define FEATURE_EDGE 0x40000000u
#define FEATURE_CLOSEST 0x80000000u
/* Largest clipped polygon: the incident face's vertices plus the
 * reference face's side planes; larger faces fall back to one point. */
#define CLIP_MAX 256
/* How parallel a normal must be to a face normal or an axis for the planar
 * manifolds (as narrow_cylinder.c). */
#define FLAT_COSINE (1.0 - 1e-6)

/* ---------------------------------------------------------------- views */

/* nscd__dir_to_world and nscd__to_world (shape_geometry.c) inline: the
 * same arithmetic, so the same bits, without a call per vector (the hull
 * pairs transform a few hundred vectors each). */
static inline void dir_world(const nscd__collision_shape *s, const double d[3], double out[3]) {
    const double *r = s->rotation;
    for (int i = 0; i < 3; ++i) {
        out[i] = r[3 * i] * d[0] + r[3 * i + 1] * d[1] + r[3 * i + 2] * d[2];
    }
}

static inline void point_world(const nscd__collision_shape *s, const double p[3], double out[3]) {
    dir_world(s, p, out);
    for (int i = 0; i < 3; ++i) {
        out[i] += s->position[i];
    }
}

static inline void vertex_world(const nscd__collision_shape *s, int32_t v, double out[3]) {
    point_world(s, s->hull->vertices + 3 * (size_t)v, out);
}

/* Face f's outward unit normal and offset in the world frame. */
static double face_world(const nscd__collision_shape *s, int32_t f, double n[3]) {
    const double *pl = s->hull->planes + 4 * (size_t)f;
    dir_world(s, pl, n);
    return pl[3] + nscd__dot3(n, s->position);
}

/* The vertex farthest along the world direction d (ties: the first). */
static int32_t support(const nscd__collision_shape *s, const double d[3]) {
    const double *r = s->rotation;
    double local[3];
    for (int i = 0; i < 3; ++i) {
        local[i] = r[i] * d[0] + r[3 + i] * d[1] + r[6 + i] * d[2];
    }
    return nscd__hull_farthest(s->hull->vertices, 3, s->hull->n_vertices, local);
}

static void centroid_world(const nscd__collision_shape *s, double out[3]) {
    point_world(s, s->hull->centroid, out);
}

/* The box of half extents h as a hull (its storage in `st`). */
typedef struct box_hull {
    nscd__hull hull;
    double vertices[24], planes[24];
    int32_t first[7], loop[24], edges[48];
} box_hull;

static void make_box_hull(const double h[3], box_hull *b) {
    static const int32_t loops[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4},
                                        {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};
    memset(b, 0, sizeof *b);
    for (int k = 0; k < 8; ++k) {
        for (int i = 0; i < 3; ++i) {
            b->vertices[3 * k + i] = (k >> i) & 1 ? h[i] : -h[i];
        }
    }
    for (int f = 0; f < 6; ++f) {
        int axis = f / 2;
        double s = f % 2 ? 1.0 : -1.0;
        b->planes[4 * f + axis] = s;
        b->planes[4 * f + 3] = h[axis];
        b->first[f] = 4 * f;
        for (int k = 0; k < 4; ++k) {
            b->loop[4 * f + k] = loops[f][k];
        }
    }
    b->first[6] = 24;
    int n = 0;
    for (int f = 0; f < 6; ++f) { /* each edge once: from its lower vertex */
        for (int k = 0; k < 4; ++k) {
            int32_t u = loops[f][k], v = loops[f][(k + 1) % 4];
            if (u > v) {
                continue;
            }
            for (int g = 0; g < 6; ++g) {
                for (int j = 0; j < 4; ++j) {
                    if (loops[g][j] == v && loops[g][(j + 1) % 4] == u) {
                        int32_t *e = b->edges + 4 * n++;
                        e[0] = u, e[1] = v, e[2] = f, e[3] = g;
                    }
                }
            }
        }
    }
    nscd__hull *hl = &b->hull;
    hl->n_vertices = 8, hl->n_faces = 6, hl->n_edges = n;
    hl->vertices = b->vertices, hl->planes = b->planes;
    hl->face_first = b->first, hl->face_vertices = b->loop, hl->edges = b->edges;
    hl->inradius = fmin(h[0], fmin(h[1], h[2]));
    hl->radius = sqrt(h[0] * h[0] + h[1] * h[1] + h[2] * h[2]);
    for (int i = 0; i < 3; ++i) {
        hl->lo[i] = -h[i], hl->hi[i] = h[i];
    }
}

/* ---------------------------------------------------------------- reduction */

/* A candidate point: on the incident shape, with its gap to the reference. */
typedef struct candidate {
    double x[3], gap;
    uint32_t feature;
} candidate;

/* Adds up to 4 of the candidates that span them (the deepest, the farthest
 * from it, the largest triangle on either side of that line about the
 * normal n), each at the midpoint x - gap/2 n_ref, with `normal`. n_ref
 * points from the reference toward the incident shape. */
static void add_four(const candidate *c, int32_t nc, const double n_ref[3], const double normal[3],
                     nscd__manifold *m) {
    int32_t pick[4] = {-1, -1, -1, -1};
    if (nc <= 0) {
        return;
    }
    if (nc <= 4) {
        for (int32_t k = 0; k < nc; ++k) {
            pick[k] = k;
        }
    } else {
        pick[0] = 0;
        for (int32_t k = 1; k < nc; ++k) {
            if (c[k].gap < c[pick[0]].gap ||
                (c[k].gap == c[pick[0]].gap && c[k].feature < c[pick[0]].feature)) {
                pick[0] = k;
            }
        }
        const double *p0 = c[pick[0]].x;
        double best = -1.0;
        for (int32_t k = 0; k < nc; ++k) {
            double d[3] = {c[k].x[0] - p0[0], c[k].x[1] - p0[1], c[k].x[2] - p0[2]};
            if (nscd__dot3(d, d) > best) {
                best = nscd__dot3(d, d), pick[1] = k;
            }
        }
        const double *p1 = c[pick[1]].x;
        double e1[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
        double lo = 0.0, hi = 0.0;
        for (int32_t k = 0; k < nc; ++k) {
            double e2[3] = {c[k].x[0] - p0[0], c[k].x[1] - p0[1], c[k].x[2] - p0[2]}, cr[3];
            nscd__cross3(e1, e2, cr);
            double area = nscd__dot3(cr, n_ref);
            if (area > hi) {
                hi = area, pick[2] = k;
            }
            if (area < lo) {
                lo = area, pick[3] = k;
            }
        }
    }
    for (int j = 0; j < 4; ++j) {
        int repeated = 0;
        for (int i = 0; i < j; ++i) {
            repeated |= pick[i] == pick[j];
        }
        if (pick[j] < 0 || repeated) {
            continue;
        }
        const candidate *q = &c[pick[j]];
        double point[3] = {q->x[0] - 0.5 * q->gap * n_ref[0], q->x[1] - 0.5 * q->gap * n_ref[1],
                           q->x[2] - 0.5 * q->gap * n_ref[2]};
        nscd__manifold_add(m, point, normal, q->gap, q->feature);
    }
}

/* ---------------------------------------------------------------- half-space */

/* The vertices of s below the plane {n.x = offset} (n toward s) by less
 * than the margin, reduced to 4, normal n. Without storing them all: the
 * four picks are passes over the vertices. */
static void vertices_below(const double n[3], double offset, const nscd__collision_shape *s,
                           double margin, uint32_t base, nscd__manifold *m) {
    const nscd__hull *h = s->hull;
    double nl[3]; /* n in the shape frame */
    const double *r = s->rotation;
    for (int i = 0; i < 3; ++i) {
        nl[i] = r[i] * n[0] + r[3 + i] * n[1] + r[6 + i] * n[2];
    }
    double shift = nscd__dot3(n, s->position) - offset;
    /* deepest */
    int32_t deep = -1, count = 0, touching = 0;
    double lowest = INFINITY;
    for (int32_t v = 0; v < h->n_vertices; ++v) {
        double gap = nscd__dot3(nl, h->vertices + 3 * (size_t)v) + shift;
        touching += gap <= 0.0;
        if (gap < margin) {
            ++count;
            if (gap < lowest) {
                lowest = gap, deep = v;
            }
        }
    }
    if (deep < 0) {
        return;
    }
    candidate c[4];
    int32_t idx[4] = {deep, -1, -1, -1};
    if (count > 4 && touching < 4) {
        /* Fewer than four touch: the four deepest (the touching ones, then
         * the nearest of the others; equal gaps by index). The span of the
         * five or more below the margin would pick among speculative
         * vertices by near-equal areas, and a hull at rest on two vertices
         * flipped between two such sets every few steps, its impulses with
         * them (docs/world.md, "Light bodies"). The deepest is idx[0]. */
        for (int32_t k = 1; k < 4; ++k) {
            double bg = INFINITY;
            for (int32_t v = 0; v < h->n_vertices; ++v) {
                double g = nscd__dot3(nl, h->vertices + 3 * (size_t)v) + shift;
                int used = 0;
                for (int32_t i = 0; i < k; ++i) {
                    used |= idx[i] == v;
                }
                if (!used && g < bg) {
                    bg = g, idx[k] = v;
                }
            }
        }
    } else if (count > 4) {
        const double *p0 = h->vertices + 3 * (size_t)deep;
        double best = -1.0;
        for (int32_t v = 0; v < h->n_vertices; ++v) {
            const double *x = h->vertices + 3 * (size_t)v;
            if (nscd__dot3(nl, x) + shift < margin) {
                double d[3] = {x[0] - p0[0], x[1] - p0[1], x[2] - p0[2]};
                if (nscd__dot3(d, d) > best) {
                    best = nscd__dot3(d, d), idx[1] = v;
                }
            }
        }
        const double *p1 = h->vertices + 3 * (size_t)idx[1];
        double e1[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]}, lo = 0.0, hi = 0.0;
        for (int32_t v = 0; v < h->n_vertices; ++v) {
            const double *x = h->vertices + 3 * (size_t)v;
            if (nscd__dot3(nl, x) + shift < margin) {
                double e2[3] = {x[0] - p0[0], x[1] - p0[1], x[2] - p0[2]}, cr[3];
                nscd__cross3(e1, e2, cr);
                double area = nscd__dot3(cr, nl);
                if (area > hi) {
                    hi = area, idx[2] = v;
                }
                if (area < lo) {
                    lo = area, idx[3] = v;
                }
            }
        }
    } else {
        int32_t k = 0;
        for (int32_t v = 0; v < h->n_vertices; ++v) {
            if (nscd__dot3(nl, h->vertices + 3 * (size_t)v) + shift < margin) {
                idx[k++] = v;
            }
        }
    }
    int32_t nc = 0;
    for (int j = 0; j < 4; ++j) {
        int repeated = 0;
        for (int i = 0; i < j; ++i) {
            repeated |= idx[i] == idx[j];
        }
        if (idx[j] < 0 || repeated) {
            continue;
        }
        vertex_world(s, idx[j], c[nc].x);
        c[nc].gap = nscd__dot3(n, c[nc].x) - offset;
        c[nc].feature = base + (uint32_t)idx[j];
        ++nc;
    }
    add_four(c, nc, n, n, m);
}

void nscd__collide_half_space_convex(const nscd__collision_shape *a, const nscd__collision_shape *b,
                                     double margin, nscd__manifold *m) {
    double n[3];
    nscd__shape_axis(a, 2, n);
    vertices_below(n, nscd__dot3(n, a->position), b, margin, 0, m);
}

/* ---------------------------------------------------------------- sphere */

/* The face of s whose plane x is least deep under (largest n.x - d). */
static int32_t least_deep_face(const nscd__collision_shape *s, const double x[3], double *sep,
                               double n_out[3]) {
    int32_t best = 0;
    *sep = -INFINITY;
    for (int32_t f = 0; f < s->hull->n_faces; ++f) {
        double n[3];
        double d = face_world(s, f, n);
        double h = nscd__dot3(n, x) - d;
        if (h > *sep) {
            *sep = h, best = f;
            memcpy(n_out, n, sizeof n);
        }
    }
    return best;
}

void nscd__collide_sphere_convex(const nscd__collision_shape *a, const nscd__collision_shape *b,
                                 double margin, nscd__manifold *m) {
    double r = a->radius, sep, nf[3];
    least_deep_face(b, a->position, &sep, nf);
    if (sep - r >= margin) {
        return;
    }
    if (sep > 0.0) { /* outside: the closest point of the hull by GJK */
        nscd__core ca, cb;
        nscd__core_of(a, &ca);
        nscd__core_of(b, &cb);
        double pa[3], pb[3];
        double dist = nscd__gjk_distance(&ca, &cb, pa, pb);
        if (dist > 0.0) {
            double gap = dist - r;
            if (gap >= margin) {
                return;
            }
            double n[3], point[3];
            for (int i = 0; i < 3; ++i) {
                n[i] = (pb[i] - pa[i]) / dist;
                point[i] = pa[i] + n[i] * (r + 0.5 * gap);
            }
            nscd__manifold_add(m, point, n, gap, 0);
            return;
        }
    }
    /* inside (or on) the hull: out through the face it is least deep under */
    double gap = sep - r, n[3] = {-nf[0], -nf[1], -nf[2]}, point[3];
    for (int i = 0; i < 3; ++i) {
        point[i] = a->position[i] - nf[i] * 0.5 * (r + sep);
    }
    nscd__manifold_add(m, point, n, gap, 0);
}

/* ---------------------------------------------------------------- polyhedra */

/* The 14 bits of a face pair in a feature. */
static uint32_t face_pair_bits(int32_t ref, int32_t inc, int flip) {
    return (((uint32_t)ref * 2u + (uint32_t)flip) * 97u + (uint32_t)inc) & 0x3fffu;
}

/* Face contact: face `fr` of r (outward normal toward i), incident shape i.
 * flip: r is the second shape (the normal from first to second is -n). */
static void face_contact(const nscd__collision_shape *r, int32_t fr, const nscd__collision_shape *i,
                         int flip, double margin, nscd__manifold *m) {
    double n[3];
    double offset = face_world(r, fr, n);
    /* incident face: the face of i most anti-parallel to n */
    int32_t fi = 0;
    double lowest = INFINITY;
    for (int32_t f = 0; f < i->hull->n_faces; ++f) {
        double ni[3];
        dir_world(i, i->hull->planes + 4 * (size_t)f, ni);
        double c = nscd__dot3(ni, n);
        if (c < lowest) {
            lowest = c, fi = f;
        }
    }
    const nscd__hull *hr = r->hull, *hi = i->hull;
    int32_t ia = hi->face_first[fi], ib = hi->face_first[fi + 1];
    int32_t ra = hr->face_first[fr], rb = hr->face_first[fr + 1];
    double normal[3] = {flip ? -n[0] : n[0], flip ? -n[1] : n[1], flip ? -n[2] : n[2]};
    if ((ib - ia) + (rb - ra) > CLIP_MAX) { /* huge faces: the deepest vertex only */
        double nn[3] = {-n[0], -n[1], -n[2]}, x[3];
        vertex_world(i, support(i, nn), x);
        double gap = nscd__dot3(n, x) - offset;
        if (gap < margin) {
            candidate c = {{x[0], x[1], x[2]}, gap, FEATURE_CLOSEST | 1u};
            add_four(&c, 1, n, normal, m);
        }
        return;
    }
    nscd__clip_vertex poly[2][CLIP_MAX];
    int count = 0;
    for (int32_t k = ia; k < ib; ++k) {
        vertex_world(i, hi->face_vertices[k], poly[0][count].p);
        poly[0][count].e_in = (k - ia + (ib - ia) - 1) % (ib - ia);
        poly[0][count].e_out = k - ia;
        ++count;
    }
    int cur = 0;
    for (int32_t k = ra; k < rb && count > 0; ++k) {
        double v0[3], v1[3];
        vertex_world(r, hr->face_vertices[k], v0);
        vertex_world(r, hr->face_vertices[k + 1 < rb ? k + 1 : ra], v1);
        double e[3] = {v1[0] - v0[0], v1[1] - v0[1], v1[2] - v0[2]}, side[3];
        nscd__cross3(e, n, side);
        count = nscd__clip_polygon(poly[cur], count, side, nscd__dot3(side, v0), 128 + (k - ra),
                                   poly[1 - cur]);
        cur = 1 - cur;
    }
    candidate c[CLIP_MAX];
    int32_t nc = 0;
    uint32_t pair = face_pair_bits(fr, fi, flip) << 16;
    for (int q = 0; q < count; ++q) {
        const nscd__clip_vertex *v = &poly[cur][q];
        double gap = nscd__dot3(n, v->p) - offset;
        if (gap >= margin) {
            continue;
        }
        int32_t lo = v->e_in < v->e_out ? v->e_in : v->e_out;
        int32_t hi2 = v->e_in < v->e_out ? v->e_out : v->e_in;
        memcpy(c[nc].x, v->p, sizeof v->p);
        c[nc].gap = gap;
        c[nc].feature = pair | (((uint32_t)lo * 257u + (uint32_t)hi2) & 0xffffu);
        ++nc;
    }
    if (nc == 0 && count == 0) { /* clipped away by round-off: the deepest vertex */
        double nn[3] = {-n[0], -n[1], -n[2]};
        vertex_world(i, support(i, nn), c[0].x);
        c[0].gap = nscd__dot3(n, c[0].x) - offset;
        c[0].feature = FEATURE_CLOSEST | 1u;
        nc = c[0].gap < margin;
    }
    add_four(c, nc, n, normal, m);
}

/* A hull's face normals, vertices and Gauss-map arc normals in the world
 * frame, computed once per pair rather than once per use (the edge query
 * uses each many times): the same arithmetic as nscd__dir_to_world and
 * nscd__to_world, so the same bits. They are filled (view_fill) only when
 * the pair reaches the edge query: most pairs the broad phase passes are
 * separated, and the first face query, which reads each face normal of a
 * and one support vertex of b once, ends them (five in six pairs of
 * bench_world's hull pour). Until then, and for hulls beyond the buffers,
 * each use computes its own. */
#define VIEW_VERTICES 64
#define VIEW_FACES (2 * VIEW_VERTICES - 4)
#define VIEW_EDGES (3 * VIEW_VERTICES - 6)
typedef struct hull_view {
    const nscd__collision_shape *s;
    int fits;    /* the hull fits the buffers */
    int cached;  /* the buffers are filled */
    int bounded; /* bound[] holds every face's bound (face_query) */
    /* per face f of this hull: n.y - d for the other hull's vertex y
     * nearest this hull's origin along the centre line, an upper bound of
     * f's separation (face_query) and the edge query's prune (edge_floor) */
    double bound[VIEW_FACES];
    double normal[3 * VIEW_FACES], vertex[3 * VIEW_VERTICES];
    /* per edge (faces f, g): v x u, u and v the two faces' world normals,
     * the normal of the edge's arc in the Minkowski-face test; the arc of
     * the negated normals has the same normal, -v x -u = v x u bit for bit
     * (negation is exact); filled for the edges the edge query searches */
    double arc[3 * VIEW_EDGES];
} hull_view;

static void arc_normal(const double u[3], const double v[3], double arc[3]) {
    nscd__cross3(v, u, arc);
}

static void view_of(const nscd__collision_shape *s, hull_view *v) {
    const nscd__hull *h = s->hull;
    v->s = s;
    v->fits =
        h->n_vertices <= VIEW_VERTICES && h->n_faces <= VIEW_FACES && h->n_edges <= VIEW_EDGES;
    v->cached = 0;
    v->bounded = 0;
}

static void view_fill(hull_view *v) {
    if (!v->fits || v->cached) {
        return;
    }
    const nscd__collision_shape *s = v->s;
    const nscd__hull *h = s->hull;
    for (int32_t f = 0; f < h->n_faces; ++f) {
        dir_world(s, h->planes + 4 * (size_t)f, v->normal + 3 * f);
    }
    for (int32_t k = 0; k < h->n_vertices; ++k) {
        vertex_world(s, k, v->vertex + 3 * k);
    }
    for (int32_t i = 0; i < h->n_edges; ++i) {
        const int32_t *e = h->edges + 4 * (size_t)i;
        arc_normal(v->normal + 3 * e[2], v->normal + 3 * e[3], v->arc + 3 * i);
    }
    v->cached = 1;
}

/* Face f's world normal (into tmp when not cached). */
static const double *view_normal(const hull_view *v, int32_t f, double tmp[3]) {
    if (v->cached) {
        return v->normal + 3 * f;
    }
    dir_world(v->s, v->s->hull->planes + 4 * (size_t)f, tmp);
    return tmp;
}

static const double *view_vertex(const hull_view *v, int32_t k, double tmp[3]) {
    if (v->cached) {
        return v->vertex + 3 * k;
    }
    vertex_world(v->s, k, tmp);
    return tmp;
}

/* The separation of b from a's face f. Two buffers: an uncached normal
 * must survive the vertex (a hull beyond the view's buffers read the vertex
 * over the normal before). */
static double face_separation_at(const hull_view *va, const hull_view *vb, int32_t f,
                                 double x_out[3]) {
    const nscd__collision_shape *a = va->s, *b = vb->s;
    double tmp[3], tmp_x[3];
    const double *n = view_normal(va, f, tmp);
    double d = a->hull->planes[4 * (size_t)f + 3] + nscd__dot3(n, a->position);
    double nn[3] = {-n[0], -n[1], -n[2]};
    const double *x = view_vertex(vb, support(b, nn), tmp_x);
    memcpy(x_out, x, 3 * sizeof(double));
    return nscd__dot3(n, x) - d;
}

static double face_separation(const hull_view *va, const hull_view *vb, int32_t f) {
    double x[3];
    return face_separation_at(va, vb, f, x);
}

/* Largest separation of b from a's faces: the face and its separation;
 * it stops at the first face that separates by the margin (no contact).
 * The face of a facing b's origin is tried first: a pair the broad phase
 * passed is mostly separated, and that face mostly shows it at once (the
 * caller reads only "separated" then, so which separating face is returned
 * changes nothing). Faces below `floor` may be left out as faces below the
 * facing face are (the caller does not need them; -INFINITY: none). */
static double face_query(hull_view *va, const hull_view *vb, double margin, double floor,
                         int32_t *face) {
    const nscd__collision_shape *a = va->s, *b = vb->s;
    const nscd__hull *h = a->hull;
    const double *r = a->rotation;
    double w[3] = {b->position[0] - a->position[0], b->position[1] - a->position[1],
                   b->position[2] - a->position[2]};
    /* A bound that skips faces (issue 24, speed): a face's separation is
     * the least n.x - d over b's vertices, so at most n.x0 - d for any one
     * vertex x0; with x0 the vertex of b nearest a's origin along the
     * centre line, a's frame, one product per face. A face whose bound is
     * below the first face's separation (less room for round-off, 1e-10
     * of the coordinates' size) is neither the largest nor separating, so
     * the loop below returns what it returns without the bound. */
    double toward[3] = {-w[0], -w[1], -w[2]}, x0[3], y[3];
    vertex_world(b, support(b, toward), x0);
    for (int i = 0; i < 3; ++i) {
        x0[i] -= a->position[i];
    }
    double size = 1.0 + h->radius + b->hull->radius;
    for (int i = 0; i < 3; ++i) {
        y[i] = r[i] * x0[0] + r[3 + i] * x0[1] + r[6 + i] * x0[2];
        size += fabs(a->position[i]) + fabs(b->position[i]);
    }
    /* The first face: the one x0 stands highest over (its bounds kept for
     * the loop and the edge query), or for hulls beyond the views the face
     * facing b's origin. Which face comes first changes only how much the
     * loop skips. */
    int keep = va->fits;
    int32_t facing = 0;
    if (keep) {
        double top = -INFINITY;
        for (int32_t f = 0; f < h->n_faces; ++f) {
            const double *pl = h->planes + 4 * (size_t)f;
            double bound = pl[0] * y[0] + pl[1] * y[1] + pl[2] * y[2] - pl[3];
            va->bound[f] = bound;
            if (bound > top) {
                top = bound, facing = f;
            }
        }
    } else {
        double local[3];
        for (int i = 0; i < 3; ++i) {
            local[i] = r[i] * w[0] + r[3 + i] * w[1] + r[6 + i] * w[2];
        }
        facing = nscd__hull_farthest(h->planes, 4, h->n_faces, local);
    }
    double x1[3]; /* b's vertex deepest under the first face */
    double first = face_separation_at(va, vb, facing, x1);
    if (first >= margin) {
        *face = facing;
        return first;
    }
    double y1[3]; /* x1 as a second bound's vertex: the least of the two */
    for (int i = 0; i < 3; ++i) {
        x1[i] -= a->position[i];
    }
    for (int i = 0; i < 3; ++i) {
        y1[i] = r[i] * x1[0] + r[3 + i] * x1[1] + r[6 + i] * x1[2];
    }
    double below = fmax(first, floor) - 1e-10 * size;
    double best = -INFINITY;
    *face = 0;
    for (int32_t f = 0; f < h->n_faces; ++f) {
        const double *pl = h->planes + 4 * (size_t)f;
        double bound = keep ? va->bound[f] : pl[0] * y[0] + pl[1] * y[1] + pl[2] * y[2] - pl[3];
        if (bound < below || pl[0] * y1[0] + pl[1] * y1[1] + pl[2] * y1[2] - pl[3] < below) {
            continue;
        }
        /* the first face's separation is `first` (the same bits) */
        double sep = f == facing ? first : face_separation(va, vb, f);
        if (sep > best) {
            best = sep, *face = f;
            if (sep >= margin) {
                return best;
            }
        }
    }
    va->bounded = keep;
    return best;
}

typedef struct edge_result {
    double sep, axis[3];
    int32_t ea, eb;
} edge_result;

/* The axis of edge pair (i, j) whose arcs cross: L = ea x eb, unit, from a
 * to b (oriented away from a's centroid ca), its separation kept in out
 * when it beats out's. true when it separates by the margin (no contact:
 * the query ends). Parallel edges are left to the face axes. */
static bool edge_pair_axis(const double p0[3], const double ea[3], const double q0[3],
                           const double q1[3], const double ca[3], int32_t i, int32_t j,
                           double margin, edge_result *out) {
    double eb[3] = {q1[0] - q0[0], q1[1] - q0[1], q1[2] - q0[2]}, L[3];
    nscd__cross3(ea, eb, L);
    double len = sqrt(nscd__dot3(L, L));
    if (!(len > 1e-9 * sqrt(nscd__dot3(ea, ea) * nscd__dot3(eb, eb)))) {
        return false; /* parallel edges: the face axes cover them */
    }
    double toward = (p0[0] - ca[0]) * L[0] + (p0[1] - ca[1]) * L[1] + (p0[2] - ca[2]) * L[2];
    double s = toward < 0.0 ? -1.0 / len : 1.0 / len;
    for (int k = 0; k < 3; ++k) {
        L[k] *= s;
    }
    double sep = L[0] * (q0[0] - p0[0]) + L[1] * (q0[1] - p0[1]) + L[2] * (q0[2] - p0[2]);
    if (sep > out->sep) {
        out->sep = sep, out->ea = i, out->eb = j;
        memcpy(out->axis, L, sizeof L);
    }
    return sep >= margin; /* a separating axis: no contact */
}

/* Largest separation over the edge pairs that build a Minkowski face
 * (Gregorius, "The Separating Axis Test between Convex Polyhedra", GDC
 * 2013: the arcs u1-v1 of a's Gauss map and -u2 - -v2 of b's cross);
 * -INFINITY when none does (axis from a to b). */
static void edge_query(const hull_view *va, const hull_view *vb, double margin, edge_result *out) {
    const nscd__collision_shape *a = va->s, *b = vb->s;
    out->sep = -INFINITY, out->ea = out->eb = -1;
    double ca[3];
    centroid_world(a, ca);
    const nscd__hull *ha = a->hull, *hb = b->hull;
    for (int32_t i = 0; i < ha->n_edges; ++i) {
        const int32_t *e = ha->edges + 4 * (size_t)i;
        double t0[3], t1[3], t2[3], t3[3], bxa_tmp[3];
        const double *u1 = view_normal(va, e[2], t0), *v1 = view_normal(va, e[3], t1);
        const double *p0 = view_vertex(va, e[0], t2), *p1 = view_vertex(va, e[1], t3);
        const double *bxa = bxa_tmp;
        if (va->cached) {
            bxa = va->arc + 3 * i;
        } else {
            arc_normal(u1, v1, bxa_tmp);
        }
        double ea[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
        /* the side of a-b's plane each of b's negated face normals lies on,
         * once per face rather than twice per edge pair */
        double side[VIEW_FACES];
        /* b's edges whose faces lie on opposite sides of a-b's plane (the
         * first test below), listed without a branch: the test's outcome is
         * unpredictable, and most edges fail it */
        int32_t list[VIEW_EDGES];
        int32_t n_list = hb->n_edges;
        if (vb->cached) {
            for (int32_t f = 0; f < hb->n_faces; ++f) {
                const double *u2 = vb->normal + 3 * f;
                side[f] = -u2[0] * bxa[0] + -u2[1] * bxa[1] + -u2[2] * bxa[2];
            }
            n_list = 0;
            for (int32_t j = 0; j < hb->n_edges; ++j) {
                const int32_t *g = hb->edges + 4 * (size_t)j;
                list[n_list] = j;
                n_list += side[g[2]] * side[g[3]] < 0.0;
            }
        }
        for (int32_t at = 0; at < n_list; ++at) {
            int32_t j = vb->cached ? list[at] : at;
            const int32_t *g = hb->edges + 4 * (size_t)j;
            /* do the arcs cross: c, d = -u2, -v2 on either side of a-b's
             * plane, a, b on either side of c-d's, on the same hemisphere */
            double cba = 0.0, dba = 0.0;
            if (vb->cached) {
                cba = side[g[2]], dba = side[g[3]];
                if (!(cba * dba < 0.0)) {
                    continue;
                }
            }
            double s0[3], s1[3], dxc_tmp[3];
            const double *u2 = view_normal(vb, g[2], s0), *v2 = view_normal(vb, g[3], s1);
            const double *dxc = dxc_tmp;
            if (vb->cached) {
                dxc = vb->arc + 3 * j;
            } else {
                arc_normal(u2, v2, dxc_tmp);
                cba = -u2[0] * bxa[0] + -u2[1] * bxa[1] + -u2[2] * bxa[2];
                dba = -v2[0] * bxa[0] + -v2[1] * bxa[1] + -v2[2] * bxa[2];
            }
            double adc = nscd__dot3(u1, dxc), bdc = nscd__dot3(v1, dxc);
            if (!(cba * dba < 0.0 && adc * bdc < 0.0 && cba * bdc > 0.0)) {
                continue;
            }
            double t4[3], t5[3];
            const double *q0 = view_vertex(vb, g[0], t4), *q1 = view_vertex(vb, g[1], t5);
            if (edge_pair_axis(p0, ea, q0, q1, ca, i, j, margin, out)) {
                return;
            }
        }
    }
}

/* The edge pairs the edge query may leave out (issue 24, hull speed): its
 * answer only matters when an edge pair separates more than the faces
 * (face_best; polytope_pair reads er only through er.sep > face_best + tol,
 * er.sep >= margin and max(face_best, er.sep)), so an edge whose every
 * axis separates by at most face_best can be skipped without changing the
 * result. The axes of a's edge (faces u, v) are L = (alpha u + beta v) /
 * |alpha u + beta v|, alpha, beta >= 0, its vertex p0 is a's support along
 * each, and its separation along L is at most L.(y - p0) for any point y of
 * b, = (alpha h_u(y) + beta h_v(y)) / |alpha u + beta v| with h_f(y) = n_f.y
 * - d_f the height of y over a's face f; as |alpha u + beta v| <= alpha +
 * beta, it is at most t whenever h_u(y) and h_v(y) are at most t <= 0. y is
 * the vertex of b nearest a's origin (face_query's bound[], already
 * computed): in a resting pair it lies below all of a's faces but those
 * about the contact, so only their edges are searched. b's edges likewise
 * (heights of a's vertex over b's faces). t = min(face_best - room, 0): the
 * room covers the edge axis's round-off (its direction, from a cross
 * product of edges up to 1e-9 of parallel, to about 1e-7 rad). Returns t;
 * an edge of a (b) is left out when a's (b's) bound[] of both its faces is
 * at most t (edge_set_fill), if both views hold their bounds (not for hulls
 * beyond the views). */
static double edge_floor(const hull_view *va, const hull_view *vb, double face_best) {
    const nscd__collision_shape *a = va->s, *b = vb->s;
    double size = 1.0 + a->hull->radius + b->hull->radius;
    for (int i = 0; i < 3; ++i) {
        size += fabs(a->position[i]) + fabs(b->position[i]);
    }
    return fmin(face_best - 1e-6 * (a->hull->radius + b->hull->radius) - 1e-10 * size, 0.0);
}

/* The edges of one hull the edge query searches and the faces they join
 * (in the order first met). */
typedef struct edge_set {
    int32_t n_edges, n_faces;
    int32_t edge[VIEW_EDGES], face[VIEW_FACES];
} edge_set;

/* Lists the edges of v (which fits the view) the edge query searches: all,
 * or with `pruned` those edge_floor's t does not rule out; fills the view's
 * normals, vertices and arcs of those only (view_fill's arithmetic, so the
 * same bits). */
static void edge_set_fill(hull_view *v, int pruned, double t, edge_set *set) {
    const nscd__collision_shape *s = v->s;
    const nscd__hull *h = s->hull;
    unsigned char face_done[VIEW_FACES], vertex_done[VIEW_VERTICES];
    memset(face_done, 0, sizeof face_done);
    memset(vertex_done, 0, sizeof vertex_done);
    set->n_edges = set->n_faces = 0;
    for (int32_t i = 0; i < h->n_edges; ++i) {
        const int32_t *e = h->edges + 4 * (size_t)i;
        if (pruned && v->bound[e[2]] <= t && v->bound[e[3]] <= t) {
            continue;
        }
        set->edge[set->n_edges++] = i;
        for (int k = 2; k < 4; ++k) {
            if (!face_done[e[k]]) {
                face_done[e[k]] = 1;
                set->face[set->n_faces++] = e[k];
                dir_world(s, h->planes + 4 * (size_t)e[k], v->normal + 3 * e[k]);
            }
        }
        for (int k = 0; k < 2; ++k) {
            if (!vertex_done[e[k]]) {
                vertex_done[e[k]] = 1;
                vertex_world(s, e[k], v->vertex + 3 * e[k]);
            }
        }
        arc_normal(v->normal + 3 * e[2], v->normal + 3 * e[3], v->arc + 3 * i);
    }
}

/* edge_query on the edges of two edge sets (the same tests, order and
 * arithmetic). */
static void edge_query_sets(const hull_view *va, const hull_view *vb, const edge_set *sa,
                            const edge_set *sb, double margin, edge_result *out) {
    const nscd__collision_shape *a = va->s;
    out->sep = -INFINITY, out->ea = out->eb = -1;
    double ca[3];
    centroid_world(a, ca);
    const nscd__hull *ha = a->hull, *hb = vb->s->hull;
    for (int32_t ia = 0; ia < sa->n_edges; ++ia) {
        int32_t i = sa->edge[ia];
        const int32_t *e = ha->edges + 4 * (size_t)i;
        const double *u1 = va->normal + 3 * e[2], *v1 = va->normal + 3 * e[3];
        const double *p0 = va->vertex + 3 * e[0], *p1 = va->vertex + 3 * e[1];
        const double *bxa = va->arc + 3 * i;
        double ea[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
        double side[VIEW_FACES];
        for (int32_t k = 0; k < sb->n_faces; ++k) {
            const double *u2 = vb->normal + 3 * sb->face[k];
            side[sb->face[k]] = -u2[0] * bxa[0] + -u2[1] * bxa[1] + -u2[2] * bxa[2];
        }
        int32_t list[VIEW_EDGES];
        int32_t n_list = 0;
        for (int32_t k = 0; k < sb->n_edges; ++k) {
            const int32_t *g = hb->edges + 4 * (size_t)sb->edge[k];
            list[n_list] = sb->edge[k];
            n_list += side[g[2]] * side[g[3]] < 0.0;
        }
        for (int32_t at = 0; at < n_list; ++at) {
            int32_t j = list[at];
            const int32_t *g = hb->edges + 4 * (size_t)j;
            double cba = side[g[2]], dba = side[g[3]];
            const double *dxc = vb->arc + 3 * j;
            double adc = nscd__dot3(u1, dxc), bdc = nscd__dot3(v1, dxc);
            if (!(cba * dba < 0.0 && adc * bdc < 0.0 && cba * bdc > 0.0)) {
                continue;
            }
            const double *q0 = vb->vertex + 3 * g[0], *q1 = vb->vertex + 3 * g[1];
            if (edge_pair_axis(p0, ea, q0, q1, ca, i, j, margin, out)) {
                return;
            }
        }
    }
}

/* One point between edge ea of a and edge eb of b, axis L from a to b. */
static void edge_contact(const nscd__collision_shape *a, const nscd__collision_shape *b,
                         const edge_result *er, nscd__manifold *m) {
    const int32_t *e = a->hull->edges + 4 * (size_t)er->ea;
    const int32_t *g = b->hull->edges + 4 * (size_t)er->eb;
    double p0[3], p1[3], q0[3], q1[3], s, t, point[3];
    vertex_world(a, e[0], p0);
    vertex_world(a, e[1], p1);
    vertex_world(b, g[0], q0);
    vertex_world(b, g[1], q1);
    nscd__segments_closest(p0, p1, q0, q1, &s, &t);
    for (int i = 0; i < 3; ++i) {
        point[i] = 0.5 * (p0[i] + s * (p1[i] - p0[i]) + q0[i] + t * (q1[i] - q0[i]));
    }
    uint32_t feature =
        FEATURE_EDGE | (((uint32_t)er->ea * 65599u + (uint32_t)er->eb) & 0x3fffffffu);
    nscd__manifold_add(m, point, er->axis, er->sep, feature);
}

/* Is the distance of separated shapes the SAT's best separation `best`
 * (issue 24, hull speed: then closest_vertex's GJK finds it too, to its
 * 1e-10, and decides nothing, so it need not run)? Yes when the best axis's
 * features touch across it: for a face f of r (sep = best), the vertex y of
 * i deepest along -n lies over the face, strictly inside its side planes
 * (y - best n is then a point of r at distance best from y, and no two
 * points are nearer than the SAT's separation); for an edge pair, the two
 * edges' lines are closest at interior points of both (their offset is then
 * along the axis, of length best). `room`: how far inside, against
 * round-off; edges less than 1e-3 from parallel are left to GJK. So is a
 * distance below 1e-5 of the sizes and coordinates: there the rounding of
 * GJK's v.w (1e-16 of the coordinates) exceeds its 1e-10 test, GJK stops
 * for want of progress, and its distance can exceed the true one by more
 * than closest_vertex's 1e-9 (seen in examples/mixed_pile: boxes resting on
 * hulls 1e-10 m apart, GJK's distance up to 4 times the SAT's); its answer
 * there must stay the same. */
static int face_touches(const nscd__collision_shape *r, int32_t f, const nscd__collision_shape *i,
                        double room) {
    double n[3], nn[3], y[3];
    face_world(r, f, n);
    nn[0] = -n[0], nn[1] = -n[1], nn[2] = -n[2];
    vertex_world(i, support(i, nn), y);
    const nscd__hull *h = r->hull;
    int32_t ra = h->face_first[f], rb = h->face_first[f + 1];
    const double *pl = h->planes + 4 * (size_t)f;
    for (int32_t k = ra; k < rb; ++k) {
        /* the face's vertices on its plane to round-off (a face merged from
         * near-coplanar triangles may leave them up to 1e-8 of the size
         * off it, and y - best n might then lie outside r) */
        const double *x = h->vertices + 3 * (size_t)h->face_vertices[k];
        if (!(fabs(pl[0] * x[0] + pl[1] * x[1] + pl[2] * x[2] - pl[3]) <= 1e-13 * h->radius)) {
            return 0;
        }
        double v0[3], v1[3];
        vertex_world(r, h->face_vertices[k], v0);
        vertex_world(r, h->face_vertices[k + 1 < rb ? k + 1 : ra], v1);
        double e[3] = {v1[0] - v0[0], v1[1] - v0[1], v1[2] - v0[2]}, side[3];
        nscd__cross3(e, n, side);
        double off[3] = {y[0] - v0[0], y[1] - v0[1], y[2] - v0[2]};
        if (!(nscd__dot3(side, off) < -room * sqrt(nscd__dot3(side, side)))) {
            return 0;
        }
    }
    return 1;
}

static int edges_touch(const nscd__collision_shape *a, const nscd__collision_shape *b,
                       const edge_result *er) {
    const int32_t *e = a->hull->edges + 4 * (size_t)er->ea;
    const int32_t *g = b->hull->edges + 4 * (size_t)er->eb;
    double p0[3], p1[3], q0[3], q1[3], s, t;
    vertex_world(a, e[0], p0);
    vertex_world(a, e[1], p1);
    vertex_world(b, g[0], q0);
    vertex_world(b, g[1], q1);
    double ea[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
    double eb[3] = {q1[0] - q0[0], q1[1] - q0[1], q1[2] - q0[2]}, c[3];
    nscd__cross3(ea, eb, c);
    if (!(nscd__dot3(c, c) > 1e-6 * nscd__dot3(ea, ea) * nscd__dot3(eb, eb))) {
        return 0;
    }
    nscd__segments_closest(p0, p1, q0, q1, &s, &t);
    return s > 1e-6 && s < 1.0 - 1e-6 && t > 1e-6 && t < 1.0 - 1e-6;
}

static int features_touch(const nscd__collision_shape *a, int32_t fa, double sa,
                          const nscd__collision_shape *b, int32_t fb, double sb,
                          const edge_result *er, double best) {
    double size = a->hull->radius + b->hull->radius, far = 0.0;
    for (int k = 0; k < 3; ++k) {
        double pa = fabs(a->position[k]), pb = fabs(b->position[k]);
        far = pa > far ? pa : far;
        far = pb > far ? pb : far;
    }
    if (!(best >= 1e-5 * (size + far))) {
        return 0; /* GJK's own accuracy is in doubt (see above) */
    }
    double room = 1e-9 * size;
    if (best == sa) {
        return face_touches(a, fa, b, room);
    }
    if (best == sb) {
        return face_touches(b, fb, a, room);
    }
    return er->ea >= 0 && best == er->sep && edges_touch(a, b, er);
}

/* Separated shapes: GJK's exact distance; when it exceeds the SAT
 * separation a vertex is closest: one point (or nothing). Returns 1 when
 * it decided. */
static int closest_vertex(const nscd__collision_shape *a, const nscd__collision_shape *b,
                          double sat_sep, double margin, nscd__manifold *m) {
    nscd__core ca, cb;
    nscd__core_of(a, &ca);
    nscd__core_of(b, &cb);
    double pa[3], pb[3];
    double dist = nscd__gjk_distance(&ca, &cb, pa, pb);
    if (!(dist > sat_sep * (1.0 + 1e-9) + 1e-12 * (1.0 + fabs(sat_sep)))) {
        return 0;
    }
    if (dist >= margin) {
        m->has_axis = 1;
        for (int i = 0; i < 3; ++i) {
            m->axis[i] = (pb[i] - pa[i]) / dist;
        }
        return 1;
    }
    double n[3], point[3];
    for (int i = 0; i < 3; ++i) {
        n[i] = (pb[i] - pa[i]) / dist;
        point[i] = 0.5 * (pa[i] + pb[i]);
    }
    nscd__manifold_add(m, point, n, dist, FEATURE_CLOSEST);
    return 1;
}

static void polytope_pair(const nscd__collision_shape *a, const nscd__collision_shape *b,
                          double margin, nscd__manifold *m) {
    int32_t fa, fb;
    hull_view va, vb;
    view_of(a, &va);
    view_of(b, &vb);
    double sa = face_query(&va, &vb, margin, -INFINITY, &fa);
    if (sa >= margin) {
        m->has_axis = 1; /* the pair cache's axis (narrow.h) */
        face_world(a, fa, m->axis);
        return;
    }
    /* b's faces below sa are left out (floor): such a face is neither
     * separating nor the best face, and the answer reads sb only through
     * max(sa, sb) and sb > sa + tol, which it leaves as they are */
    double sb = face_query(&vb, &va, margin, sa, &fb);
    if (sb >= margin) {
        m->has_axis = 1;
        face_world(b, fb, m->axis);
        for (int i = 0; i < 3; ++i) {
            m->axis[i] = -m->axis[i];
        }
        return;
    }
    edge_result er;
    if (va.fits && vb.fits) {
        edge_set set_a, set_b;
        int pruned = va.bounded && vb.bounded;
        double t = edge_floor(&va, &vb, fmax(sa, sb));
        edge_set_fill(&va, pruned, t, &set_a);
        edge_set_fill(&vb, pruned, t, &set_b);
        edge_query_sets(&va, &vb, &set_a, &set_b, margin, &er);
    } else {
        view_fill(&va);
        view_fill(&vb);
        edge_query(&va, &vb, margin, &er);
    }
    if (er.sep >= margin) {
        m->has_axis = 1;
        memcpy(m->axis, er.axis, sizeof er.axis);
        return;
    }
    double face_best = fmax(sa, sb);
    double best = fmax(face_best, er.sep);
    if (best > 0.0 && !features_touch(a, fa, sa, b, fb, sb, &er, best) &&
        closest_vertex(a, b, best, margin, m)) {
        return;
    }
    double tol = 1e-3 * fmin(a->hull->inradius, b->hull->inradius);
    if (er.ea >= 0 && er.sep > face_best + tol) {
        edge_contact(a, b, &er, m);
        return;
    }
    if (sb > sa + tol) {
        face_contact(b, fb, a, 1, margin, m);
    } else {
        face_contact(a, fa, b, 0, margin, m);
    }
}

void nscd__collide_convex_convex(const nscd__collision_shape *a, const nscd__collision_shape *b,
                                 double margin, nscd__manifold *m) {
    polytope_pair(a, b, margin, m);
}

void nscd__collide_box_convex(const nscd__collision_shape *a, const nscd__collision_shape *b,
                              double margin, nscd__manifold *m) {
    box_hull storage;
    make_box_hull(a->half_extents, &storage);
    nscd__collision_shape box = *a;
    box.type = NSCD_SHAPE_CONVEX;
    box.hull = &storage.hull;
    polytope_pair(&box, b, margin, m);
}

/* ---------------------------------------------------------------- capsule */

/* Clips the segment p + t d, t in [0, 1], to the prism over face f of s
 * (world); returns 0 when nothing is left, else the range [lo, hi]. */
static int clip_segment_to_face(const nscd__collision_shape *s, int32_t f, const double n[3],
                                const double p[3], const double d[3], double *lo, double *hi) {
    const nscd__hull *h = s->hull;
    int32_t a = h->face_first[f], b = h->face_first[f + 1];
    *lo = 0.0, *hi = 1.0;
    for (int32_t k = a; k < b; ++k) {
        double v0[3], v1[3];
        vertex_world(s, h->face_vertices[k], v0);
        vertex_world(s, h->face_vertices[k + 1 < b ? k + 1 : a], v1);
        double e[3] = {v1[0] - v0[0], v1[1] - v0[1], v1[2] - v0[2]}, side[3];
        nscd__cross3(e, n, side);
        double f0 = nscd__dot3(side, p) - nscd__dot3(side, v0), fd = nscd__dot3(side, d);
        /* f0 + t fd <= 0 */
        if (fd == 0.0) {
            if (f0 > 0.0) {
                return 0;
            }
        } else if (fd > 0.0) {
            *hi = fmin(*hi, -f0 / fd);
        } else {
            *lo = fmax(*lo, -f0 / fd);
        }
    }
    return *hi >= *lo;
}

/* Points of the segment clipped to face f (unit outward normal n, offset
 * off), each `r` from the face: the capsule rests on it. Normal from the
 * capsule (first) to the hull: -n. Returns the number added. */
static int capsule_on_face(const nscd__collision_shape *s, int32_t f, const double n[3], double off,
                           const double p[3], const double q[3], double r, double margin,
                           nscd__manifold *m) {
    double d[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]}, lo, hi;
    if (!clip_segment_to_face(s, f, n, p, d, &lo, &hi)) {
        return 0;
    }
    int added = 0;
    double normal[3] = {-n[0], -n[1], -n[2]};
    for (int e = 0; e < 2; ++e) {
        double t = e == 0 ? lo : hi;
        if (e == 1 && !(hi > lo)) {
            break;
        }
        double x[3] = {p[0] + t * d[0], p[1] + t * d[1], p[2] + t * d[2]};
        double gap = nscd__dot3(n, x) - off - r;
        if (gap < margin) {
            double point[3];
            for (int i = 0; i < 3; ++i) {
                point[i] = x[i] - n[i] * (r + 0.5 * gap);
            }
            nscd__manifold_add(m, point, normal, gap, (uint32_t)e);
            ++added;
        }
    }
    return added;
}

void nscd__collide_capsule_convex(const nscd__collision_shape *a, const nscd__collision_shape *b,
                                  double margin, nscd__manifold *m) {
    double p[3], q[3], r = a->radius;
    nscd__axis_segment(a, p, q);
    double d[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]};
    const nscd__hull *h = b->hull;
    /* faces */
    double best = -INFINITY, best_n[3] = {0, 0, 1}, best_off = 0.0;
    int32_t best_face = -1, best_edge = -1;
    for (int32_t f = 0; f < h->n_faces; ++f) {
        double n[3];
        double off = face_world(b, f, n);
        double sep = fmin(nscd__dot3(n, p), nscd__dot3(n, q)) - off;
        if (sep > best) {
            best = sep, best_face = f, best_off = off;
            memcpy(best_n, n, sizeof n);
        }
    }
    if (best - r >= margin) {
        return;
    }
    /* edges whose Gauss arc the segment's great circle crosses */
    double face_sep = best;
    double tol = 1e-9 * (1.0 + fabs(face_sep));
    for (int32_t i = 0; i < h->n_edges; ++i) {
        const int32_t *e = h->edges + 4 * (size_t)i;
        double u[3], v[3], v0[3], v1[3], L[3];
        dir_world(b, h->planes + 4 * (size_t)e[2], u);
        dir_world(b, h->planes + 4 * (size_t)e[3], v);
        if (!(nscd__dot3(u, d) * nscd__dot3(v, d) < 0.0)) {
            continue;
        }
        vertex_world(b, e[0], v0);
        vertex_world(b, e[1], v1);
        double ed[3] = {v1[0] - v0[0], v1[1] - v0[1], v1[2] - v0[2]};
        nscd__cross3(ed, d, L);
        double len = sqrt(nscd__dot3(L, L));
        if (!(len > 1e-9 * sqrt(nscd__dot3(ed, ed) * nscd__dot3(d, d)))) {
            continue;
        }
        double s = nscd__dot3(L, u) + nscd__dot3(L, v) < 0.0 ? -1.0 / len : 1.0 / len;
        for (int k = 0; k < 3; ++k) {
            L[k] *= s;
        }
        double sep = fmin(nscd__dot3(L, p), nscd__dot3(L, q)) - nscd__dot3(L, v0);
        if (sep - r >= margin) {
            return;
        }
        if (sep > best + tol) { /* faces win near-ties */
            best = sep, best_edge = i;
            memcpy(best_n, L, sizeof L);
        }
    }
    if (best > 0.0) { /* separated: the closest points by GJK */
        nscd__core ca, cb;
        nscd__core_of(a, &ca);
        nscd__core_of(b, &cb);
        double pa[3], pb[3];
        double dist = nscd__gjk_distance(&ca, &cb, pa, pb);
        if (dist > 0.0) {
            double gap = dist - r;
            if (gap >= margin) {
                return;
            }
            double n_h[3]; /* from the hull to the capsule */
            for (int i = 0; i < 3; ++i) {
                n_h[i] = (pa[i] - pb[i]) / dist;
            }
            for (int32_t f = 0; f < h->n_faces; ++f) { /* lying on a face? */
                double n[3];
                double off = face_world(b, f, n);
                if (nscd__dot3(n, n_h) > FLAT_COSINE) {
                    if (capsule_on_face(b, f, n, off, p, q, r, margin, m) > 0) {
                        return;
                    }
                    break;
                }
            }
            double point[3], normal[3] = {-n_h[0], -n_h[1], -n_h[2]};
            for (int i = 0; i < 3; ++i) {
                point[i] = pa[i] - n_h[i] * (r + 0.5 * gap);
            }
            nscd__manifold_add(m, point, normal, gap, 2);
            return;
        }
    }
    if (best_edge < 0) { /* a face axis: the segment clipped to that face */
        if (capsule_on_face(b, best_face, best_n, best_off, p, q, r, margin, m) > 0) {
            return;
        }
        /* nothing over the face: the deeper end */
        const double *x = nscd__dot3(best_n, p) <= nscd__dot3(best_n, q) ? p : q;
        double gap = nscd__dot3(best_n, x) - best_off - r, point[3];
        double normal[3] = {-best_n[0], -best_n[1], -best_n[2]};
        for (int i = 0; i < 3; ++i) {
            point[i] = x[i] - best_n[i] * (r + 0.5 * gap);
        }
        nscd__manifold_add(m, point, normal, gap, 2);
        return;
    }
    const int32_t *e = h->edges + 4 * (size_t)best_edge;
    double v0[3], v1[3], s, t;
    vertex_world(b, e[0], v0);
    vertex_world(b, e[1], v1);
    nscd__segments_closest(p, q, v0, v1, &s, &t);
    double gap = best - r, point[3], normal[3] = {-best_n[0], -best_n[1], -best_n[2]};
    for (int i = 0; i < 3; ++i) {
        point[i] = p[i] + s * d[i] - best_n[i] * (r + 0.5 * gap);
    }
    nscd__manifold_add(m, point, normal, gap, 3u + (uint32_t)best_edge);
}

/* ---------------------------------------------------------------- cylinder */

/* Support of the full shape (core plus rounding) along unit L. */
static void full_support(const nscd__core *c, const double L[3], double out[3]) {
    nscd__core_support(c, L, out);
    for (int i = 0; i < 3; ++i) {
        out[i] += c->rounding * L[i];
    }
}

/* Deep overlap of a cylinder (a) and a hull (b): the candidate axis of
 * largest separation (least penetration), one point. */
static void sampled_sat(const nscd__core *ca, const nscd__core *cb, double margin,
                        nscd__manifold *m) {
    const nscd__collision_shape *a = ca->shape, *b = cb->shape;
    const nscd__hull *h = b->hull;
    double axis[3];
    nscd__shape_axis(a, 2, axis);
    double best = -INFINITY, bn[3] = {0, 0, 1}, bpa[3] = {0, 0, 0}, bpb[3] = {0, 0, 0};
    int32_t n_axes = h->n_faces + 1 + h->n_edges + 1;
    for (int32_t k = 0; k < n_axes; ++k) {
        double L0[3];
        if (k < h->n_faces) {
            dir_world(b, h->planes + 4 * (size_t)k, L0);
        } else if (k == h->n_faces) {
            memcpy(L0, axis, sizeof axis);
        } else if (k < h->n_faces + 1 + h->n_edges) {
            const int32_t *e = h->edges + 4 * (size_t)(k - h->n_faces - 1);
            double v0[3], v1[3];
            vertex_world(b, e[0], v0);
            vertex_world(b, e[1], v1);
            double ed[3] = {v1[0] - v0[0], v1[1] - v0[1], v1[2] - v0[2]};
            nscd__cross3(axis, ed, L0);
        } else {
            double cb_w[3];
            centroid_world(b, cb_w);
            for (int i = 0; i < 3; ++i) {
                L0[i] = cb_w[i] - a->position[i];
            }
        }
        double len = sqrt(nscd__dot3(L0, L0));
        if (!(len > 1e-12)) {
            continue;
        }
        for (int s = -1; s <= 1; s += 2) {
            double L[3] = {s * L0[0] / len, s * L0[1] / len, s * L0[2] / len};
            double nL[3] = {-L[0], -L[1], -L[2]}, pa[3], pb[3];
            full_support(ca, L, pa);
            full_support(cb, nL, pb);
            double sep = nscd__dot3(L, pb) - nscd__dot3(L, pa);
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

/* Is the point's projection on face f of s inside the face (within a
 * relative tolerance)? */
static int over_face(const nscd__collision_shape *s, int32_t f, const double n[3],
                     const double x[3]) {
    const nscd__hull *h = s->hull;
    int32_t a = h->face_first[f], b = h->face_first[f + 1];
    double tol = 1e-9 * (h->radius + 1.0);
    for (int32_t k = a; k < b; ++k) {
        double v0[3], v1[3];
        vertex_world(s, h->face_vertices[k], v0);
        vertex_world(s, h->face_vertices[k + 1 < b ? k + 1 : a], v1);
        double e[3] = {v1[0] - v0[0], v1[1] - v0[1], v1[2] - v0[2]}, side[3];
        nscd__cross3(e, n, side);
        double len = sqrt(nscd__dot3(side, side));
        if (nscd__dot3(side, x) - nscd__dot3(side, v0) > tol * len) {
            return 0;
        }
    }
    return 1;
}

void nscd__collide_cylinder_convex(const nscd__collision_shape *a, const nscd__collision_shape *b,
                                   double margin, nscd__manifold *m) {
    nscd__core ca, cb;
    nscd__core_of(a, &ca);
    nscd__core_of(b, &cb);
    nscd__manifold single = {0};
    double pa[3], pb[3];
    double dist = nscd__gjk_distance(&ca, &cb, pa, pb);
    double gap = dist - ca.rounding;
    if (gap >= margin) {
        return;
    }
    if (dist > 1e-12 * ca.rounding) {
        double n[3], point[3];
        for (int i = 0; i < 3; ++i) {
            n[i] = (pb[i] - pa[i]) / dist;
            point[i] = pa[i] + n[i] * (ca.rounding + 0.5 * gap);
        }
        nscd__manifold_add(&single, point, n, gap, 0);
    } else {
        sampled_sat(&ca, &cb, margin, &single);
    }
    if (single.n != 1) {
        return;
    }
    const double *n = single.p[0].normal; /* from the cylinder to the hull */
    const nscd__hull *h = b->hull;
    nscd__manifold face = {0}, cap = {0};
    for (int32_t f = 0; f < h->n_faces; ++f) { /* the cylinder on a face of the hull */
        double u[3];
        double off = face_world(b, f, u);
        if (-nscd__dot3(u, n) > FLAT_COSINE) {
            nscd__cylinder_rim_below(u, off, a, margin, &face);
            int32_t kept = 0;
            for (int32_t k = 0; k < face.n; ++k) {
                if (over_face(b, f, u, face.p[k].point)) {
                    face.p[kept] = face.p[k];
                    for (int i = 0; i < 3; ++i) {
                        face.p[kept].normal[i] = -face.p[kept].normal[i];
                    }
                    face.p[kept++].feature += 16;
                }
            }
            face.n = kept;
            nscd__keep_deepest_four(&face);
            break;
        }
    }
    double axis[3];
    nscd__shape_axis(a, 2, axis);
    double da = nscd__dot3(n, axis);
    if (fabs(da) > FLAT_COSINE) { /* the hull on a cap: its vertices over the cap */
        double s = da < 0.0 ? -1.0 : 1.0;
        double u[3] = {s * axis[0], s * axis[1], s * axis[2]};
        double off = nscd__dot3(u, a->position) + a->half_height;
        /* the vertices below the margin and within the radius, as candidates */
        candidate c[64];
        int32_t nc = 0;
        for (int32_t v = 0; v < h->n_vertices && nc < 64; ++v) {
            double x[3], local[3];
            vertex_world(b, v, x);
            double g = nscd__dot3(u, x) - off;
            nscd__to_local(a, x, local);
            if (g < margin && hypot(local[0], local[1]) <= a->radius * (1.0 + 1e-9)) {
                memcpy(c[nc].x, x, sizeof x);
                c[nc].gap = g;
                c[nc].feature = 32u + (uint32_t)v;
                ++nc;
            }
        }
        add_four(c, nc, u, u, &cap);
    }
    const nscd__manifold *best = face.n >= cap.n ? &face : &cap;
    *m = best->n > 0 ? *best : single;
}
