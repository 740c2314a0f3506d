/* Convex hull of a point set (hull.h).
 *
 * Quickhull (Barber, Dobkin, Huhdanpaa 1996) with conflict lists: each point
 * outside the current hull belongs to the triangle it is farthest above;
 * each round takes the point farthest above its triangle (ties: the lowest
 * index), finds the triangles it sees by a walk over the adjacency from its
 * own, and replaces them by a cone from the horizon to the point. Everything
 * runs on the points moved to the centre of their bounding box, with one
 * tolerance relative to the box's largest side: a point within it of the
 * hull is not outside. The order of every choice depends on the points and
 * their order only, so the hull is deterministic.
 *
 * Coplanar triangles (a cube gives 12) are then merged into polygonal faces
 * (6): neighbours whose far vertices lie within a tolerance of each other's
 * plane. The faces' planes come from Newell's normal of the loop; the whole
 * is checked (every point below every plane, Euler's V - E + F = 2, every
 * edge in two faces), so round-off that defeats the construction gives
 * NSCD__HULL_FAILED, never a wrong hull.
 *
 * Mass properties: the divergence theorem on the faces fanned into
 * triangles, each triangle with the box centre the apex of a tetrahedron
 * whose volume, first and second moments are closed forms (the canonical
 * tetrahedron's covariance mapped by the tetrahedron's matrix, as in
 * Eberly's and Mirtich's polyhedral mass properties). */
#include "core/vec3.h"
#include "collision/hull.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/memory.h"

/* Tolerances, relative to the largest side of the points' bounding box. */
#define HULL_EPS 1e-10   /* a point within this of a plane is on it */
#define HULL_MERGE 1e-9  /* neighbouring triangles this close are one face */
#define HULL_VERIFY 1e-8 /* the final check of containment and planarity */
#define HULL_FLAT 1e-9   /* a volume below this times the side cubed is flat */

typedef struct tri {
    int32_t v[3];
    int32_t adj[3]; /* the triangle across edge k, from v[k] to v[(k + 1) % 3] */
    double n[3], d;
    int32_t alive, mark;
} tri;

typedef struct horizon_edge {
    int32_t a, b, nb;
} horizon_edge;

typedef struct work {
    const nscd_allocator *al;
    double *p; /* centred points */
    int32_t n;
    double eps;
    tri *t;
    int32_t nt, t_cap;
    int32_t *owner;
    int32_t *list; /* visible triangles */
    int32_t list_cap;
    horizon_edge *hz;
    int32_t hz_cap;
} work;

/* Grows *data (elements of `elem` bytes, *cap of them) to hold `need`. */
static int grow(const nscd_allocator *al, void **data, int32_t *cap, int32_t need, size_t elem) {
    if (need <= *cap) {
        return 1;
    }
    int32_t c = *cap > 0 ? *cap : 16;
    while (c < need) {
        if (c > INT32_MAX / 2) {
            return 0;
        }
        c *= 2;
    }
    void *block = nscd__alloc(al, (size_t)c * elem);
    if (block == NULL) {
        return 0;
    }
    if (*cap > 0) {
        memcpy(block, *data, (size_t)*cap * elem);
        nscd__free(al, *data, (size_t)*cap * elem);
    }
    *data = block;
    *cap = c;
    return 1;
}

static const double *pt(const work *w, int32_t i) { return w->p + 3 * (size_t)i; }

static double dist(const work *w, const tri *f, int32_t i) {
    return nscd__dot3(f->n, pt(w, i)) - f->d;
}

/* Appends triangle (a, b, c); its plane from the cross product. */
static int32_t add_tri(work *w, int32_t a, int32_t b, int32_t c) {
    if (!grow(w->al, (void **)&w->t, &w->t_cap, w->nt + 1, sizeof(tri))) {
        return -1;
    }
    tri *f = &w->t[w->nt];
    f->v[0] = a, f->v[1] = b, f->v[2] = c;
    f->adj[0] = f->adj[1] = f->adj[2] = -1;
    const double *pa = pt(w, a), *pb = pt(w, b), *pc = pt(w, c);
    double e1[3] = {pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]};
    double e2[3] = {pc[0] - pa[0], pc[1] - pa[1], pc[2] - pa[2]};
    nscd__cross3(e1, e2, f->n);
    double len = sqrt(nscd__dot3(f->n, f->n));
    if (!(len > 0.0)) {
        return -2;
    }
    for (int k = 0; k < 3; ++k) {
        f->n[k] /= len;
    }
    f->d = (nscd__dot3(f->n, pa) + nscd__dot3(f->n, pb) + nscd__dot3(f->n, pc)) / 3.0;
    f->alive = 1;
    f->mark = -1;
    return w->nt++;
}

/* The edge of triangle f that runs from a to b, or -1. */
static int edge_of(const tri *f, int32_t a, int32_t b) {
    for (int k = 0; k < 3; ++k) {
        if (f->v[k] == a && f->v[(k + 1) % 3] == b) {
            return k;
        }
    }
    return -1;
}

/* Extreme points and the first tetrahedron (its 4 triangles linked). */
static nscd__hull_status initial_simplex(work *w, double extent) {
    int32_t ext[6];
    for (int k = 0; k < 3; ++k) {
        ext[2 * k] = ext[2 * k + 1] = 0;
        for (int32_t i = 1; i < w->n; ++i) {
            if (pt(w, i)[k] < pt(w, ext[2 * k])[k]) {
                ext[2 * k] = i;
            }
            if (pt(w, i)[k] > pt(w, ext[2 * k + 1])[k]) {
                ext[2 * k + 1] = i;
            }
        }
    }
    int32_t i0 = ext[0], i1 = ext[1];
    double best = -1.0;
    for (int a = 0; a < 6; ++a) {
        for (int b = a + 1; b < 6; ++b) {
            const double *pa = pt(w, ext[a]), *pb = pt(w, ext[b]);
            double d[3] = {pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]};
            if (nscd__dot3(d, d) > best) {
                best = nscd__dot3(d, d), i0 = ext[a], i1 = ext[b];
            }
        }
    }
    const double *p0 = pt(w, i0), *p1 = pt(w, i1);
    double u[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
    double ul = sqrt(nscd__dot3(u, u));
    if (!(ul > HULL_FLAT * extent)) {
        return NSCD__HULL_FLAT;
    }
    int32_t i2 = -1;
    best = HULL_FLAT * extent;
    for (int32_t i = 0; i < w->n; ++i) {
        const double *q = pt(w, i);
        double d[3] = {q[0] - p0[0], q[1] - p0[1], q[2] - p0[2]}, c[3];
        nscd__cross3(u, d, c);
        double l = sqrt(nscd__dot3(c, c)) / ul;
        if (l > best) {
            best = l, i2 = i;
        }
    }
    if (i2 < 0) {
        return NSCD__HULL_FLAT;
    }
    const double *p2 = pt(w, i2);
    double v[3] = {p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]}, nrm[3];
    nscd__cross3(u, v, nrm);
    double nl = sqrt(nscd__dot3(nrm, nrm));
    int32_t i3 = -1;
    best = HULL_FLAT * extent;
    double side = 0.0;
    for (int32_t i = 0; i < w->n; ++i) {
        const double *q = pt(w, i);
        double d[3] = {q[0] - p0[0], q[1] - p0[1], q[2] - p0[2]};
        double h = nscd__dot3(nrm, d) / nl;
        if (fabs(h) > best) {
            best = fabs(h), i3 = i, side = h;
        }
    }
    if (i3 < 0) {
        return NSCD__HULL_FLAT;
    }
    int32_t a = i0, b = i1, c = i2, d = i3;
    if (side > 0.0) { /* d above (a, b, c): turn the base over */
        b = i2, c = i1;
    }
    int32_t f[4] = {add_tri(w, a, b, c), add_tri(w, a, d, b), add_tri(w, b, d, c),
                    add_tri(w, c, d, a)};
    for (int k = 0; k < 4; ++k) {
        if (f[k] == -1) {
            return NSCD__HULL_NO_MEMORY;
        }
        if (f[k] < 0) {
            return NSCD__HULL_FLAT;
        }
    }
    for (int x = 0; x < 4; ++x) {
        for (int e = 0; e < 3; ++e) {
            tri *t = &w->t[x];
            for (int y = 0; y < 4; ++y) {
                if (y != x && edge_of(&w->t[y], t->v[(e + 1) % 3], t->v[e]) >= 0) {
                    t->adj[e] = y;
                }
            }
        }
    }
    return NSCD__HULL_OK;
}

/* Sets the owner of point i among triangles [from, to): the one it is
 * farthest above by more than eps, or -1. */
static void assign(work *w, int32_t i, int32_t from, int32_t to) {
    int32_t o = -1;
    double best = w->eps;
    for (int32_t f = from; f < to; ++f) {
        if (w->t[f].alive) {
            double h = dist(w, &w->t[f], i);
            if (h > best) {
                best = h, o = f;
            }
        }
    }
    w->owner[i] = o;
}

/* Adds point `apex`, seen from triangle `start`, at round `round`. */
static nscd__hull_status add_point(work *w, int32_t apex, int32_t start, int32_t round) {
    int32_t nv = 0;
    if (!grow(w->al, (void **)&w->list, &w->list_cap, 1, sizeof(int32_t))) {
        return NSCD__HULL_NO_MEMORY;
    }
    w->list[nv++] = start;
    w->t[start].mark = round;
    for (int32_t k = 0; k < nv; ++k) {
        for (int e = 0; e < 3; ++e) {
            int32_t nb = w->t[w->list[k]].adj[e];
            if (nb < 0) {
                return NSCD__HULL_FAILED;
            }
            if (w->t[nb].mark == round || !(dist(w, &w->t[nb], apex) > w->eps)) {
                continue;
            }
            if (!grow(w->al, (void **)&w->list, &w->list_cap, nv + 1, sizeof(int32_t))) {
                return NSCD__HULL_NO_MEMORY;
            }
            w->t[nb].mark = round;
            w->list[nv++] = nb;
        }
    }
    /* the horizon: edges of visible triangles whose neighbour is not */
    int32_t nh = 0;
    for (int32_t k = 0; k < nv; ++k) {
        const tri *f = &w->t[w->list[k]];
        for (int e = 0; e < 3; ++e) {
            if (w->t[f->adj[e]].mark != round) {
                if (!grow(w->al, (void **)&w->hz, &w->hz_cap, nh + 1, sizeof(horizon_edge))) {
                    return NSCD__HULL_NO_MEMORY;
                }
                w->hz[nh++] = (horizon_edge){f->v[e], f->v[(e + 1) % 3], f->adj[e]};
            }
        }
    }
    if (nh < 3) {
        return NSCD__HULL_FAILED;
    }
    /* chain the horizon into one loop; a vertex twice is not a simple loop */
    for (int32_t k = 1; k < nh; ++k) {
        int32_t j = k;
        while (j < nh && w->hz[j].a != w->hz[k - 1].b) {
            ++j;
        }
        if (j == nh) {
            return NSCD__HULL_FAILED;
        }
        horizon_edge t = w->hz[k];
        w->hz[k] = w->hz[j], w->hz[j] = t;
    }
    if (w->hz[nh - 1].b != w->hz[0].a) {
        return NSCD__HULL_FAILED;
    }
    for (int32_t k = 0; k < nh; ++k) {
        for (int32_t j = k + 1; j < nh; ++j) {
            if (w->hz[j].a == w->hz[k].a) {
                return NSCD__HULL_FAILED;
            }
        }
    }
    for (int32_t k = 0; k < nv; ++k) {
        w->t[w->list[k]].alive = 0;
    }
    int32_t base = w->nt;
    for (int32_t k = 0; k < nh; ++k) {
        int32_t f = add_tri(w, w->hz[k].a, w->hz[k].b, apex);
        if (f == -1) {
            return NSCD__HULL_NO_MEMORY;
        }
        if (f < 0) {
            return NSCD__HULL_FAILED;
        }
        tri *t = &w->t[f];
        t->adj[0] = w->hz[k].nb;
        t->adj[1] = base + (k + 1) % nh;
        t->adj[2] = base + (k + nh - 1) % nh;
        tri *nb = &w->t[w->hz[k].nb];
        int e = edge_of(nb, w->hz[k].b, w->hz[k].a);
        if (e < 0) {
            return NSCD__HULL_FAILED;
        }
        nb->adj[e] = f;
    }
    w->owner[apex] = -1;
    for (int32_t i = 0; i < w->n; ++i) {
        if (w->owner[i] >= 0 && !w->t[w->owner[i]].alive) {
            assign(w, i, base, w->nt);
        }
    }
    return NSCD__HULL_OK;
}

static int32_t find_root(int32_t *parent, int32_t x) {
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

typedef struct directed_edge {
    int32_t lo, hi, forward, face;
} directed_edge;

static int compare_edges(const void *x, const void *y) {
    const directed_edge *a = x, *b = y;
    if (a->lo != b->lo) {
        return a->lo < b->lo ? -1 : 1;
    }
    if (a->hi != b->hi) {
        return a->hi < b->hi ? -1 : 1;
    }
    return (a->forward < b->forward) - (a->forward > b->forward);
}

/* The faces: groups of coplanar neighbours, their loops, in the result. */
typedef struct faces {
    int32_t n_faces, n_loop;
    int32_t *group;      /* per triangle: its face, -1 dead */
    int32_t *first;      /* n_faces + 1 */
    int32_t *loop;       /* point indices */
    int32_t *vertex_map; /* per point: its vertex index, -1 */
    int32_t n_vertices;
} faces;

static nscd__hull_status merge_faces(work *w, double extent, faces *out, int32_t *parent,
                                     int32_t *scratch) {
    double tol = HULL_MERGE * extent;
    for (int32_t f = 0; f < w->nt; ++f) {
        parent[f] = f;
    }
    for (int32_t f = 0; f < w->nt; ++f) {
        const tri *a = &w->t[f];
        for (int e = 0; a->alive && e < 3; ++e) {
            int32_t g = a->adj[e];
            if (g < f) {
                continue;
            }
            const tri *b = &w->t[g];
            int32_t far_a = a->v[(e + 2) % 3];
            int32_t far_b = -1;
            for (int k = 0; k < 3; ++k) {
                if (b->v[k] != a->v[e] && b->v[k] != a->v[(e + 1) % 3]) {
                    far_b = b->v[k];
                }
            }
            if (nscd__dot3(a->n, b->n) > 0.0 && fabs(dist(w, a, far_b)) <= tol &&
                fabs(dist(w, b, far_a)) <= tol) {
                int32_t ra = find_root(parent, f), rb = find_root(parent, g);
                if (ra != rb) { /* the smaller root: deterministic */
                    parent[ra > rb ? ra : rb] = ra < rb ? ra : rb;
                }
            }
        }
    }
    /* faces numbered in the order of their first triangle */
    out->n_faces = 0;
    for (int32_t f = 0; f < w->nt; ++f) {
        out->group[f] = -1;
    }
    for (int32_t f = 0; f < w->nt; ++f) {
        if (w->t[f].alive) {
            int32_t r = find_root(parent, f); /* r <= f: the smallest of its set */
            if (out->group[r] < 0) {
                out->group[r] = out->n_faces++;
            }
            out->group[f] = out->group[r];
        }
    }
    /* loops: the boundary edges of each face, chained; scratch holds the
     * boundary edges (2 ints each) of one face at a time */
    out->n_loop = 0;
    int32_t face = 0;
    out->first[0] = 0;
    for (int32_t f = 0; f < w->nt; ++f) {
        if (!w->t[f].alive || find_root(parent, f) != f) {
            continue;
        }
        int32_t g = out->group[f];
        if (g != face) {
            return NSCD__HULL_FAILED;
        }
        int32_t nb = 0;
        for (int32_t h = f; h < w->nt; ++h) {
            if (!w->t[h].alive || out->group[h] != g) {
                continue;
            }
            for (int e = 0; e < 3; ++e) {
                if (out->group[w->t[h].adj[e]] != g) {
                    scratch[2 * nb] = w->t[h].v[e];
                    scratch[2 * nb + 1] = w->t[h].v[(e + 1) % 3];
                    ++nb;
                }
            }
        }
        if (nb < 3) {
            return NSCD__HULL_FAILED;
        }
        /* start at the lowest point index, then follow */
        int32_t s = 0;
        for (int32_t k = 1; k < nb; ++k) {
            if (scratch[2 * k] < scratch[2 * s]) {
                s = k;
            }
        }
        int32_t start = scratch[2 * s], cur = start, count = 0;
        do {
            int32_t j = 0;
            while (j < nb && scratch[2 * j] != cur) {
                ++j;
            }
            if (j == nb || count >= nb) {
                return NSCD__HULL_FAILED;
            }
            out->loop[out->n_loop++] = cur;
            cur = scratch[2 * j + 1];
            ++count;
        } while (cur != start);
        if (count != nb) { /* two loops: not a convex polygon */
            return NSCD__HULL_FAILED;
        }
        out->first[++face] = out->n_loop;
    }
    if (face != out->n_faces) {
        return NSCD__HULL_FAILED;
    }
    /* vertices: the points on a loop, in point order */
    for (int32_t i = 0; i < w->n; ++i) {
        out->vertex_map[i] = -1;
    }
    for (int32_t k = 0; k < out->n_loop; ++k) {
        out->vertex_map[out->loop[k]] = 0;
    }
    out->n_vertices = 0;
    for (int32_t i = 0; i < w->n; ++i) {
        if (out->vertex_map[i] == 0) {
            out->vertex_map[i] = out->n_vertices++;
        }
    }
    return NSCD__HULL_OK;
}

/* Fills the hull's faces, edges and mass properties; `centre` is what was
 * subtracted from the points. */
static nscd__hull_status finish(const work *w, const faces *fc, const double centre[3],
                                double extent, directed_edge *de, nscd__hull *h) {
    int32_t nf = fc->n_faces;
    for (int32_t i = 0; i < w->n; ++i) {
        if (fc->vertex_map[i] >= 0) {
            memcpy(h->vertices + 3 * (size_t)fc->vertex_map[i], h->points + 3 * (size_t)i,
                   3 * sizeof(double));
        }
    }
    for (int32_t k = 0; k <= nf; ++k) {
        h->face_first[k] = fc->first[k];
    }
    for (int32_t k = 0; k < fc->n_loop; ++k) {
        h->face_vertices[k] = fc->vertex_map[fc->loop[k]];
    }
    double tol = HULL_VERIFY * extent;
    double vol6 = 0.0, first[3] = {0, 0, 0}, C[9] = {0};
    for (int32_t f = 0; f < nf; ++f) {
        int32_t a = fc->first[f], b = fc->first[f + 1];
        double n[3] = {0, 0, 0};
        const double *o = pt(w, fc->loop[a]);
        for (int32_t k = a; k < b; ++k) { /* Newell, relative to the loop's first point */
            const double *p = pt(w, fc->loop[k]);
            const double *q = pt(w, fc->loop[k + 1 < b ? k + 1 : a]);
            double x0 = p[0] - o[0], y0 = p[1] - o[1], z0 = p[2] - o[2];
            double x1 = q[0] - o[0], y1 = q[1] - o[1], z1 = q[2] - o[2];
            n[0] += (y0 - y1) * (z0 + z1);
            n[1] += (z0 - z1) * (x0 + x1);
            n[2] += (x0 - x1) * (y0 + y1);
        }
        double len = sqrt(nscd__dot3(n, n));
        if (!(len > 0.0)) {
            return NSCD__HULL_FAILED;
        }
        double dmax = -INFINITY, dmin = INFINITY;
        for (int k = 0; k < 3; ++k) {
            n[k] /= len;
        }
        for (int32_t k = a; k < b; ++k) {
            double d = nscd__dot3(n, pt(w, fc->loop[k]));
            dmax = fmax(dmax, d), dmin = fmin(dmin, d);
        }
        if (dmax - dmin > tol) {
            return NSCD__HULL_FAILED; /* not planar */
        }
        for (int32_t i = 0; i < w->n; ++i) {
            if (nscd__dot3(n, pt(w, i)) > dmax + tol) {
                return NSCD__HULL_FAILED; /* a point outside */
            }
        }
        double *pl = h->planes + 4 * (size_t)f;
        memcpy(pl, n, sizeof n);
        /* the offset in the shape frame, from the user's own coordinates */
        pl[3] = -INFINITY;
        for (int32_t k = a; k < b; ++k) {
            pl[3] = fmax(pl[3], nscd__dot3(n, h->points + 3 * (size_t)fc->loop[k]));
        }
        /* the fan (o, p, q) with the box centre as apex */
        for (int32_t k = a + 1; k + 1 < b; ++k) {
            const double *p = pt(w, fc->loop[k]), *q = pt(w, fc->loop[k + 1]);
            double pq[3];
            nscd__cross3(p, q, pq);
            double det = nscd__dot3(o, pq);
            vol6 += det;
            for (int i = 0; i < 3; ++i) {
                double s_i = o[i] + p[i] + q[i];
                first[i] += det * s_i;
                for (int j = 0; j < 3; ++j) {
                    double s_j = o[j] + p[j] + q[j];
                    C[3 * i + j] += det * (o[i] * o[j] + p[i] * p[j] + q[i] * q[j] + s_i * s_j);
                }
            }
        }
    }
    double volume = vol6 / 6.0;
    if (!(volume > HULL_FLAT * extent * extent * extent)) {
        return NSCD__HULL_FLAT;
    }
    double c[3];
    for (int i = 0; i < 3; ++i) {
        c[i] = first[i] / 24.0 / volume;
    }
    for (int k = 0; k < 9; ++k) {
        C[k] /= 120.0;
    }
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            C[3 * i + j] -= volume * c[i] * c[j];
        }
    }
    double tr = C[0] + C[4] + C[8];
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            h->inertia[3 * i + j] = (i == j ? tr : 0.0) - C[3 * i + j];
        }
    }
    /* exactly symmetric */
    for (int i = 0; i < 3; ++i) {
        for (int j = i + 1; j < 3; ++j) {
            double m = 0.5 * (h->inertia[3 * i + j] + h->inertia[3 * j + i]);
            h->inertia[3 * i + j] = h->inertia[3 * j + i] = m;
        }
    }
    h->volume = volume;
    for (int i = 0; i < 3; ++i) {
        h->centroid[i] = c[i] + centre[i];
    }
    /* edges: each directed loop edge once, paired with its reverse */
    int32_t nd = 0;
    for (int32_t f = 0; f < nf; ++f) {
        int32_t a = h->face_first[f], b = h->face_first[f + 1];
        for (int32_t k = a; k < b; ++k) {
            int32_t u = h->face_vertices[k], v = h->face_vertices[k + 1 < b ? k + 1 : a];
            de[nd++] = (directed_edge){u < v ? u : v, u < v ? v : u, u < v, f};
        }
    }
    qsort(de, (size_t)nd, sizeof *de, compare_edges);
    if (nd % 2 != 0) {
        return NSCD__HULL_FAILED;
    }
    for (int32_t k = 0; k < nd; k += 2) {
        const directed_edge *x = &de[k], *y = &de[k + 1];
        if (x->lo != y->lo || x->hi != y->hi || !x->forward || y->forward ||
            (k + 2 < nd && de[k + 2].lo == x->lo && de[k + 2].hi == x->hi)) {
            return NSCD__HULL_FAILED;
        }
        int32_t *e = h->edges + 2 * (size_t)k;
        e[0] = x->lo, e[1] = x->hi, e[2] = x->face, e[3] = y->face;
    }
    h->n_edges = nd / 2;
    if (h->n_vertices - h->n_edges + h->n_faces != 2) {
        return NSCD__HULL_FAILED;
    }
    h->radius = 0.0;
    for (int i = 0; i < 3; ++i) {
        h->lo[i] = INFINITY, h->hi[i] = -INFINITY;
    }
    for (int32_t v = 0; v < h->n_vertices; ++v) {
        const double *x = h->vertices + 3 * (size_t)v;
        h->radius = fmax(h->radius, sqrt(nscd__dot3(x, x)));
        for (int i = 0; i < 3; ++i) {
            h->lo[i] = fmin(h->lo[i], x[i]), h->hi[i] = fmax(h->hi[i], x[i]);
        }
    }
    h->inradius = INFINITY;
    for (int32_t f = 0; f < nf; ++f) {
        const double *pl = h->planes + 4 * (size_t)f;
        h->inradius = fmin(h->inradius, pl[3] - nscd__dot3(pl, h->centroid));
    }
    if (!(h->inradius > 0.0)) {
        return NSCD__HULL_FAILED;
    }
    return NSCD__HULL_OK;
}

static size_t align8(size_t x) { return (x + 7) & ~(size_t)7; }

/* Allocates the result block for the given counts and sets its pointers. */
static nscd__hull *alloc_hull(const nscd_allocator *al, int32_t n, int32_t nv, int32_t nf,
                              int32_t nl) {
    size_t bytes = align8(sizeof(nscd__hull));
    size_t o_points = bytes;
    bytes += 3 * (size_t)n * sizeof(double);
    size_t o_vertices = bytes;
    bytes += 3 * (size_t)nv * sizeof(double);
    size_t o_planes = bytes;
    bytes += 4 * (size_t)nf * sizeof(double);
    size_t o_first = bytes;
    bytes += ((size_t)nf + 1) * sizeof(int32_t);
    size_t o_loop = bytes;
    bytes += (size_t)nl * sizeof(int32_t);
    size_t o_edges = bytes;
    bytes += 2 * (size_t)nl * sizeof(int32_t); /* nl / 2 edges of 4 */
    char *block = nscd__alloc(al, bytes);
    if (block == NULL) {
        return NULL;
    }
    memset(block, 0, bytes);
    nscd__hull *h = (nscd__hull *)block;
    h->bytes = bytes;
    h->n_points = n, h->n_vertices = nv, h->n_faces = nf;
    h->points = (double *)(block + o_points);
    h->vertices = (double *)(block + o_vertices);
    h->planes = (double *)(block + o_planes);
    h->face_first = (int32_t *)(block + o_first);
    h->face_vertices = (int32_t *)(block + o_loop);
    h->edges = (int32_t *)(block + o_edges);
    return h;
}

nscd__hull_status nscd__hull_build(const nscd_allocator *al, const double *points, int32_t n,
                                   nscd__hull **out) {
    if (n < 4) {
        return NSCD__HULL_TOO_FEW;
    }
    if (n > NSCD__HULL_MAX_POINTS) {
        return NSCD__HULL_TOO_MANY;
    }
    for (int32_t i = 0; i < 3 * n; ++i) {
        if (!isfinite(points[i])) {
            return NSCD__HULL_NOT_FINITE;
        }
    }
    double lo[3], hi[3], centre[3], extent = 0.0;
    for (int k = 0; k < 3; ++k) {
        lo[k] = hi[k] = points[k];
        for (int32_t i = 1; i < n; ++i) {
            lo[k] = fmin(lo[k], points[3 * i + k]), hi[k] = fmax(hi[k], points[3 * i + k]);
        }
        centre[k] = 0.5 * lo[k] + 0.5 * hi[k];
        extent = fmax(extent, hi[k] - lo[k]);
    }
    if (!(extent > 0.0) || !isfinite(extent)) {
        return extent > 0.0 ? NSCD__HULL_NOT_FINITE : NSCD__HULL_FLAT;
    }
    work w;
    memset(&w, 0, sizeof w);
    w.al = al;
    w.n = n;
    w.eps = HULL_EPS * extent;
    w.p = nscd__alloc(al, 3 * (size_t)n * sizeof(double));
    w.owner = nscd__alloc(al, (size_t)n * sizeof(int32_t));
    nscd__hull_status rc = NSCD__HULL_NO_MEMORY;
    int32_t *parent = NULL, *scratch = NULL;
    size_t scratch_bytes = 0, parent_bytes = 0;
    faces fc;
    memset(&fc, 0, sizeof fc);
    size_t fc_tri_bytes = 0, fc_loop_bytes = 0;
    directed_edge *de = NULL;
    nscd__hull *h = NULL;
    if (w.p == NULL || w.owner == NULL) {
        goto done;
    }
    for (int32_t i = 0; i < n; ++i) {
        for (int k = 0; k < 3; ++k) {
            w.p[3 * i + k] = points[3 * i + k] - centre[k];
        }
    }
    rc = initial_simplex(&w, extent);
    if (rc != NSCD__HULL_OK) {
        goto done;
    }
    for (int32_t i = 0; i < n; ++i) {
        assign(&w, i, 0, 4);
    }
    for (int32_t round = 0;; ++round) {
        int32_t apex = -1;
        double best = 0.0;
        for (int32_t i = 0; i < n; ++i) {
            if (w.owner[i] >= 0) {
                double d = dist(&w, &w.t[w.owner[i]], i);
                if (d > best) {
                    best = d, apex = i;
                }
            }
        }
        if (apex < 0) {
            break;
        }
        rc = add_point(&w, apex, w.owner[apex], round);
        if (rc != NSCD__HULL_OK) {
            goto done;
        }
    }
    rc = NSCD__HULL_NO_MEMORY;
    parent_bytes = (size_t)w.nt * sizeof(int32_t);
    parent = nscd__alloc(al, parent_bytes);
    fc_tri_bytes = (size_t)w.nt * sizeof(int32_t);
    fc.group = nscd__alloc(al, fc_tri_bytes);
    fc.first = nscd__alloc(al, fc_tri_bytes + sizeof(int32_t));
    fc_loop_bytes = 3 * (size_t)w.nt * sizeof(int32_t);
    fc.loop = nscd__alloc(al, fc_loop_bytes);
    fc.vertex_map = nscd__alloc(al, (size_t)n * sizeof(int32_t));
    scratch_bytes = 6 * (size_t)w.nt * sizeof(int32_t);
    scratch = nscd__alloc(al, scratch_bytes);
    if (parent == NULL || fc.group == NULL || fc.first == NULL || fc.loop == NULL ||
        fc.vertex_map == NULL || scratch == NULL) {
        goto done;
    }
    rc = merge_faces(&w, extent, &fc, parent, scratch);
    if (rc != NSCD__HULL_OK) {
        goto done;
    }
    rc = NSCD__HULL_NO_MEMORY;
    de = nscd__alloc(al, ((size_t)fc.n_loop + 1) * sizeof(directed_edge));
    h = alloc_hull(al, n, fc.n_vertices, fc.n_faces, fc.n_loop);
    if (de == NULL || h == NULL) {
        goto done;
    }
    memcpy(h->points, points, 3 * (size_t)n * sizeof(double));
    rc = finish(&w, &fc, centre, extent, de, h);
done:
    if (rc == NSCD__HULL_OK) {
        *out = h;
    } else if (h != NULL) {
        nscd__free(al, h, h->bytes);
    }
    nscd__free(al, de, ((size_t)fc.n_loop + 1) * sizeof(directed_edge));
    nscd__free(al, scratch, scratch_bytes);
    nscd__free(al, fc.vertex_map, fc.vertex_map ? (size_t)n * sizeof(int32_t) : 0);
    nscd__free(al, fc.loop, fc_loop_bytes);
    nscd__free(al, fc.first, fc.first ? fc_tri_bytes + sizeof(int32_t) : 0);
    nscd__free(al, fc.group, fc_tri_bytes);
    nscd__free(al, parent, parent_bytes);
    nscd__free(al, w.t, (size_t)w.t_cap * sizeof(tri));
    nscd__free(al, w.list, (size_t)w.list_cap * sizeof(int32_t));
    nscd__free(al, w.hz, (size_t)w.hz_cap * sizeof(horizon_edge));
    nscd__free(al, w.owner, (size_t)n * sizeof(int32_t));
    nscd__free(al, w.p, 3 * (size_t)n * sizeof(double));
    return rc;
}

void nscd__hull_free(const nscd_allocator *al, nscd__hull *hull) {
    if (hull != NULL) {
        nscd__free(al, hull, hull->bytes);
    }
}
