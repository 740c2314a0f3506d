/* Collision detection entry points (collision.h): validation and bounding
 * boxes, the broad phase (broad_phase.c), the ordering of pairs by shape
 * key, and the dispatch of each pair to its narrow-phase function.
 *
 * Determinism: candidate pairs are put in the order of their shape keys by
 * radix sort (ranks of the keys, then pairs by rank), and the points of one
 * manifold by feature, so the output depends on the keys and the geometry
 * only, not on the order of the input shapes. */
#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include "collision/collision_internal.h"
#include "collision/radix_sort.h"
#include "core/check.h"
#include "core/memory.h"
#include "nscd/types.h"

void nscd__collision_init(nscd__collision *collision, const nscd_allocator *allocator) {
    memset(collision, 0, sizeof *collision);
    collision->allocator = allocator;
}

static void release_state(const nscd_allocator *al, nscd__collision_state *st) {
    nscd__buffer *all[] = {&st->aabbs,
                           &st->sort_keys,
                           &st->sort_keys_scratch,
                           &st->sort_values,
                           &st->sort_values_scratch,
                           &st->rank,
                           &st->grid,
                           &st->large,
                           &st->half_spaces,
                           &st->extents,
                           &st->cell_keys,
                           &st->cell_start,
                           &st->cell_items,
                           &st->pairs,
                           &st->pair_keys,
                           &st->pair_keys_scratch,
                           &st->pair_order,
                           &st->pair_order_scratch,
                           &st->chunk_out,
                           &st->chunk_count,
                           &st->radix_scratch,
                           &st->bounds,
                           &st->axes,
                           &st->axes_next,
                           &st->next};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) {
        nscd__buffer_release(al, all[i]);
    }
}

void nscd__collision_free(nscd__collision *collision) {
    if (collision == NULL) {
        return;
    }
    nscd_allocator al = nscd__allocator_resolve(collision->allocator);
    nscd__collision_state *st = collision->internal;
    if (st != NULL) { /* the output block exists only once the state does */
        nscd__free(&al, collision->contacts, st->output_bytes);
        release_state(&al, st);
        nscd__free(&al, st, sizeof *st);
    }
    const nscd_allocator *keep = collision->allocator;
    memset(collision, 0, sizeof *collision);
    collision->allocator = keep;
}

static nscd_status check_shape(const nscd__collision_shape *s) {
    if (s->type < NSCD_SHAPE_SPHERE || s->type > NSCD_SHAPE_CONVEX ||
        (s->type == NSCD_SHAPE_CONVEX && s->hull == NULL)) {
        return NSCD_ERR_INVALID_ARGUMENT;
    }
    double sizes[6] = {s->radius,          s->half_height,     s->half_extents[0],
                       s->half_extents[1], s->half_extents[2], s->reach};
    if (!nscd__all_finite(s->position, 3) || !nscd__all_finite(s->rotation, 9) ||
        !nscd__all_finite(sizes, 6)) {
        return NSCD_ERR_NOT_FINITE;
    }
    for (int i = 0; i < 6; ++i) {
        if (sizes[i] < 0.0) {
            return NSCD_ERR_OUT_OF_RANGE;
        }
    }
    return NSCD_OK;
}

/* Every per-shape buffer sized for n shapes (before anything is written). */
static int reserve_shapes(nscd__collision_state *st, const nscd_allocator *al, int32_t n) {
    size_t m = (size_t)n + 1;
    return nscd__buffer_reserve(al, &st->aabbs, m * sizeof(nscd__aabb), 0) &&
           nscd__buffer_reserve(al, &st->sort_keys, m * sizeof(uint64_t), 0) &&
           nscd__buffer_reserve(al, &st->sort_keys_scratch, m * sizeof(uint64_t), 0) &&
           nscd__buffer_reserve(al, &st->sort_values, m * sizeof(int32_t), 0) &&
           nscd__buffer_reserve(al, &st->sort_values_scratch, m * sizeof(int32_t), 0) &&
           nscd__buffer_reserve(al, &st->rank, m * sizeof(int32_t), 0) &&
           nscd__buffer_reserve(al, &st->grid, m * sizeof(int32_t), 0) &&
           nscd__buffer_reserve(al, &st->large, m * sizeof(int32_t), 0) &&
           nscd__buffer_reserve(al, &st->half_spaces, m * sizeof(int32_t), 0) &&
           nscd__buffer_reserve(al, &st->extents, m * sizeof(double), 0) &&
           nscd__buffer_reserve(al, &st->cell_keys, m * sizeof(uint64_t), 0) &&
           nscd__buffer_reserve(al, &st->cell_start, m * sizeof(int32_t), 0) &&
           nscd__buffer_reserve(al, &st->cell_items, m * sizeof(nscd__grid_item), 0);
}

/* rank[i] = position of shape i in ascending key order (ties: input order). */
typedef struct rank_job {
    nscd__collision_state *st;
    const nscd__collision_shape *shapes;
} rank_job;

static void rank_keys_range(int32_t begin, int32_t end, int32_t worker, void *ctx) {
    (void)worker;
    const rank_job *t = ctx;
    uint64_t *keys = t->st->sort_keys.data;
    int32_t *values = t->st->sort_values.data;
    for (int32_t i = begin; i < end; ++i) {
        keys[i] = t->shapes[i].key;
        values[i] = i;
    }
}

static void rank_range(int32_t begin, int32_t end, int32_t worker, void *ctx) {
    (void)worker;
    const rank_job *t = ctx;
    const int32_t *values = t->st->sort_values.data;
    int32_t *rank = t->st->rank.data;
    for (int32_t i = begin; i < end; ++i) {
        rank[values[i]] = i;
    }
}

static void rank_shapes(nscd__collision_state *st, const nscd__collision_shape *shapes, int32_t n) {
    rank_job job = {st, shapes};
    nscd__parallel_for(st->parallel, n, 4096, rank_keys_range, &job);
    nscd__radix_sort_parallel(st->parallel, st->radix_scratch.data, st->sort_keys.data,
                              st->sort_values.data, st->sort_keys_scratch.data,
                              st->sort_values_scratch.data, n);
    nscd__parallel_for(st->parallel, n, 4096, rank_range, &job);
}

typedef struct order_job {
    nscd__collision_state *st;
    const nscd__collision_shape *shapes;
    int32_t n;
} order_job;

static void order_range(int32_t begin, int32_t end, int32_t worker, void *ctx);

/* Puts each pair in output order (a half-space first, else the smaller key
 * first) and sorts the pairs by (rank a, rank b) into pair_order. */
static int order_pairs(nscd__collision_state *st, const nscd_allocator *al,
                       const nscd__collision_shape *shapes, int32_t n) {
    int32_t np = st->n_pairs;
    size_t m = (size_t)np + 1;
    if (!nscd__buffer_reserve(al, &st->pair_keys, m * sizeof(uint64_t), 0) ||
        !nscd__buffer_reserve(al, &st->pair_keys_scratch, m * sizeof(uint64_t), 0) ||
        !nscd__buffer_reserve(al, &st->pair_order, m * sizeof(int32_t), 0) ||
        !nscd__buffer_reserve(al, &st->pair_order_scratch, m * sizeof(int32_t), 0)) {
        return 0;
    }
    order_job job = {st, shapes, n};
    nscd__parallel_for(st->parallel, np, 4096, order_range, &job);
    nscd__radix_sort_parallel(st->parallel, st->radix_scratch.data, st->pair_keys.data,
                              st->pair_order.data, st->pair_keys_scratch.data,
                              st->pair_order_scratch.data, np);
    return 1;
}

static void order_range(int32_t begin, int32_t end, int32_t worker, void *ctx) {
    (void)worker;
    const order_job *job = ctx;
    nscd__collision_state *st = job->st;
    const nscd__collision_shape *shapes = job->shapes;
    uint64_t n = (uint64_t)job->n;
    nscd__pair *pairs = st->pairs.data;
    const int32_t *rank = st->rank.data;
    uint64_t *keys = st->pair_keys.data;
    int32_t *order = st->pair_order.data;
    for (int32_t k = begin; k < end; ++k) {
        nscd__pair *p = &pairs[k];
        int a_half = shapes[p->a].type == NSCD_SHAPE_HALF_SPACE;
        int b_half = shapes[p->b].type == NSCD_SHAPE_HALF_SPACE;
        if (b_half > a_half || (a_half == b_half && rank[p->a] > rank[p->b])) {
            int32_t t = p->a;
            p->a = p->b, p->b = t;
        }
        keys[k] = (uint64_t)rank[p->a] * n + (uint64_t)rank[p->b];
        order[k] = k;
    }
}

/* Position of each shape type in the argument order of the narrow functions. */
static int narrow_rank(int32_t type) {
    switch (type) {
    case NSCD_SHAPE_HALF_SPACE: return 0;
    case NSCD_SHAPE_SPHERE: return 1;
    case NSCD_SHAPE_BOX: return 2;
    case NSCD_SHAPE_CAPSULE: return 3;
    case NSCD_SHAPE_CYLINDER: return 4;
    default: return 5; /* convex */
    }
}

/* [first][second] in narrow_rank order; NULL: no contact (two half-spaces). */
static const nscd__narrow_fn narrow_table[6][6] = {
    {NULL, nscd__collide_half_space_sphere, nscd__collide_half_space_box,
     nscd__collide_half_space_capsule, nscd__collide_half_space_cylinder,
     nscd__collide_half_space_convex},
    {NULL, nscd__collide_sphere_sphere, nscd__collide_sphere_box, nscd__collide_sphere_capsule,
     nscd__collide_sphere_cylinder, nscd__collide_sphere_convex},
    {NULL, NULL, nscd__collide_box_box, nscd__collide_box_capsule, nscd__collide_box_cylinder,
     nscd__collide_box_convex},
    {NULL, NULL, NULL, nscd__collide_capsule_capsule, nscd__collide_capsule_cylinder,
     nscd__collide_capsule_convex},
    {NULL, NULL, NULL, NULL, nscd__collide_cylinder_cylinder, nscd__collide_cylinder_convex},
    {NULL, NULL, NULL, NULL, NULL, nscd__collide_convex_convex},
};

/* The manifold of shapes a and b with the normal from a to b, points by feature. */
static void narrow_pair(const nscd__collision_shape *a, const nscd__collision_shape *b,
                        double margin, nscd__manifold *m) {
    m->n = 0;
    m->has_axis = 0;
    int ra = narrow_rank(a->type), rb = narrow_rank(b->type);
    int flip = ra > rb;
    nscd__narrow_fn fn = flip ? narrow_table[rb][ra] : narrow_table[ra][rb];
    if (fn == NULL) {
        return;
    }
    if (flip) {
        fn(b, a, margin, m);
        for (int i = 0; i < 3; ++i) {
            m->axis[i] = -m->axis[i];
        }
        for (int32_t k = 0; k < m->n; ++k) {
            for (int i = 0; i < 3; ++i) {
                m->p[k].normal[i] = -m->p[k].normal[i];
            }
        }
    } else {
        fn(a, b, margin, m);
    }
    for (int32_t k = 1; k < m->n; ++k) { /* insertion sort: at most 12 points */
        nscd__manifold_point p = m->p[k];
        int32_t j = k;
        for (; j > 0 && m->p[j - 1].feature > p.feature; --j) {
            m->p[j] = m->p[j - 1];
        }
        m->p[j] = p;
    }
}

/* ------------------------------------------------------ the pair cache */

/* Pairs whose search the cache may skip: those whose search names its
 * separating axis (narrow.h: has_axis), the exact searches of cylinders
 * against boxes, capsules and cylinders (collide_round) and of convex
 * polyhedra against boxes and polyhedra (polytope_pair). */
static int cached_pair(int32_t ta, int32_t tb) {
    int convex = ta == NSCD_SHAPE_CONVEX || tb == NSCD_SHAPE_CONVEX;
    int cylinder = ta == NSCD_SHAPE_CYLINDER || tb == NSCD_SHAPE_CYLINDER;
    int other =
        convex ? (ta == NSCD_SHAPE_CONVEX ? tb : ta) : (ta == NSCD_SHAPE_CYLINDER ? tb : ta);
    if (convex) {
        return other == NSCD_SHAPE_CONVEX || other == NSCD_SHAPE_BOX;
    }
    return cylinder &&
           (other == NSCD_SHAPE_BOX || other == NSCD_SHAPE_CAPSULE || other == NSCD_SHAPE_CYLINDER);
}

/* The last call's entry of the pair (key_a, key_b), or NULL. */
static const nscd__pair_axis *cached_axis(const nscd__collision_state *st, uint64_t key_a,
                                          uint64_t key_b) {
    const nscd__pair_axis *e = st->axes.data;
    int32_t lo = 0, hi = st->n_axes;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (e[mid].key_a < key_a || (e[mid].key_a == key_a && e[mid].key_b < key_b)) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo < st->n_axes && e[lo].key_a == key_a && e[lo].key_b == key_b ? &e[lo] : NULL;
}

/* Does the unit axis n (from a to b) separate a and b by the margin, with
 * room for the searches' tolerance? Then every search finds the pair
 * separated too (its largest separation is at least this one's) and gives
 * no contact: the early out changes nothing. */
static int still_separated(const nscd__collision_shape *a, const nscd__collision_shape *b,
                           const double n[3], double margin) {
    double far = 0.0;
    for (int i = 0; i < 3; ++i) { /* no libm fmax calls: the same value */
        double pa = fabs(a->position[i]), pb = fabs(b->position[i]);
        far = pa > far ? pa : far;
        far = pb > far ? pb : far;
    }
    double ea = nscd__shape_extent(a->type, a->radius, a->half_height, a->half_extents, a->hull);
    double eb = nscd__shape_extent(b->type, b->radius, b->half_height, b->half_extents, b->hull);
    double room = 1e-6 * (ea + eb) + 1e-12 * far;
    /* The bounding spheres first (issue 24, hull speed): each shape's
     * support along n is at most n.position + its extent, so the
     * separation is at least n.(pb - pa) - ea - eb; when that clears the
     * test by another `room` (far beyond both computations' round-off),
     * the supports below would pass it too and need not be searched (4 in
     * 10 of the cached hull pairs of bench_world's pour). */
    double lower = n[0] * (b->position[0] - a->position[0]) +
                   n[1] * (b->position[1] - a->position[1]) +
                   n[2] * (b->position[2] - a->position[2]) - ea - eb;
    if (lower >= margin + 2.0 * room) {
        return 1;
    }
    double mn[3] = {-n[0], -n[1], -n[2]};
    double sep = -nscd__support_along(b, mn) - nscd__support_along(a, n);
    return sep >= margin + room;
}

/* The manifold of sorted pair k (shapes a, b, output order) and its slot of
 * the next pair cache: a cached axis that still separates the pair ends it
 * before its search. */
static void collide_pair(const nscd__collision_state *st, int32_t k, const nscd__collision_shape *a,
                         const nscd__collision_shape *b, double margin, nscd__manifold *m) {
    if (a->type == NSCD_SHAPE_SPHERE && b->type == NSCD_SHAPE_SPHERE) {
        /* the fast path of granular flows: no dispatch, no sorting */
        m->n = 0;
        nscd__collide_sphere_sphere(a, b, margin, m);
        return;
    }
    if (!cached_pair(a->type, b->type)) {
        narrow_pair(a, b, margin, m);
        return;
    }
    nscd__pair_axis *slot = (nscd__pair_axis *)st->axes_next.data + k;
    slot->key_a = a->key, slot->key_b = b->key;
    const nscd__pair_axis *last = cached_axis(st, a->key, b->key);
    if (last != NULL && last->valid && still_separated(a, b, last->axis, margin)) {
        m->n = 0;
        memcpy(slot->axis, last->axis, sizeof slot->axis);
        slot->valid = 1;
        return;
    }
    narrow_pair(a, b, margin, m);
    /* only separated pairs keep an axis: a touching pair mostly still
     * touches at the next call, where its normal would not separate */
    slot->valid = m->n == 0 && m->has_axis;
    if (slot->valid) {
        memcpy(slot->axis, m->axis, sizeof slot->axis);
    }
}

/* The slots of the cached pairs (in sorted pair order, so by (key_a,
 * key_b)) become the pair cache. */
static void keep_axes(nscd__collision_state *st, const nscd__collision_shape *shapes) {
    const nscd__pair *pairs = st->pairs.data;
    const int32_t *order = st->pair_order.data;
    nscd__pair_axis *slots = st->axes_next.data;
    int32_t n = 0;
    for (int32_t k = 0; k < st->n_pairs; ++k) {
        const nscd__pair *p = &pairs[order[k]];
        if (cached_pair(shapes[p->a].type, shapes[p->b].type) && slots[k].valid) {
            slots[n++] = slots[k];
        }
    }
    nscd__buffer t = st->axes;
    st->axes = st->axes_next;
    st->axes_next = t;
    st->n_axes = n;
}

/* Runs the narrow phase on the sorted pairs into st->next; returns the count or -1. */
static int32_t narrow_phase(nscd__collision_state *st, const nscd_allocator *al,
                            const nscd__collision_shape *shapes, double margin) {
    const nscd__pair *pairs = st->pairs.data;
    const int32_t *order = st->pair_order.data;
    int32_t count = 0;
    nscd__manifold m;
    for (int32_t k = 0; k < st->n_pairs; ++k) {
        const nscd__pair *p = &pairs[order[k]];
        const nscd__collision_shape *a = &shapes[p->a], *b = &shapes[p->b];
        collide_pair(st, k, a, b, margin + a->reach + b->reach, &m);
        if (m.n == 0) {
            continue;
        }
        size_t need = ((size_t)count + (size_t)m.n) * sizeof(nscd__contact_point);
        if (count + m.n > INT32_MAX / 2 ||
            !nscd__buffer_reserve(al, &st->next, need,
                                  (size_t)count * sizeof(nscd__contact_point))) {
            return -1;
        }
        nscd__contact_point *out = (nscd__contact_point *)st->next.data + count;
        for (int32_t j = 0; j < m.n; ++j, ++out) {
            out->shape_a = p->a, out->shape_b = p->b;
            out->key_a = a->key, out->key_b = b->key;
            out->feature = m.p[j].feature;
            memcpy(out->point, m.p[j].point, sizeof out->point);
            memcpy(out->normal, m.p[j].normal, sizeof out->normal);
            out->gap = m.p[j].gap;
        }
        count += m.n;
    }
    return count;
}

/* ------------------------------------------------------------ threads */

typedef struct chunk_job {
    nscd__collision_state *st;
    nscd__chunk_fn *run;
    void *ctx;
    size_t element;
    int32_t capacity;
    const int32_t *list; /* the chunks to run (NULL: all) */
} chunk_job;

static void chunk_range(int32_t begin, int32_t end, int32_t worker, void *ctx) {
    (void)worker;
    chunk_job *t = ctx;
    int32_t *counts = t->st->chunk_count.data;
    for (int32_t i = begin; i < end; ++i) {
        int32_t k = t->list != NULL ? t->list[i] : i;
        void *out = (char *)t->st->chunk_out.data + (size_t)k * (size_t)t->capacity * t->element;
        t->run(k, out, t->capacity, &counts[k], t->ctx);
    }
}

int64_t nscd__run_chunks(nscd__collision_state *st, const nscd_allocator *al,
                         const struct nscd__parallel *parallel, int32_t chunks, size_t element,
                         int32_t *capacity, nscd__chunk_fn *run, void *ctx) {
    /* counts, then the list of the chunks to run again (2 ints per chunk) */
    if (!nscd__buffer_reserve(al, &st->chunk_count, 2 * ((size_t)chunks + 1) * sizeof(int32_t),
                              0)) {
        return -1;
    }
    int32_t cap = *capacity > 0 ? *capacity : 16;
    int32_t *counts = st->chunk_count.data, *again = counts + chunks;
    const int32_t *list = NULL;
    int32_t n_run = chunks;
    for (;;) {
        size_t bytes = (size_t)chunks * (size_t)cap * element;
        if ((uint64_t)chunks * (uint64_t)cap * element > SIZE_MAX / 2 ||
            !nscd__buffer_reserve(al, &st->chunk_out, bytes ? bytes : 1,
                                  list != NULL ? st->chunk_out.bytes : 0)) {
            return -1;
        }
        chunk_job t = {st, run, ctx, element, cap, list};
        nscd__parallel_for(parallel, n_run, 1, chunk_range, &t);
        int32_t need = 0, n_again = 0;
        for (int32_t k = 0; k < chunks; ++k) {
            if (counts[k] > cap) {
                again[n_again++] = k;
                need = counts[k] > need ? counts[k] : need;
            }
        }
        if (n_again == 0) {
            break;
        }
        /* the others keep their output: it moves to the new layout */
        int32_t old = cap;
        cap = need + need / 4;
        size_t grown = (size_t)chunks * (size_t)cap * element;
        if (!nscd__buffer_reserve(al, &st->chunk_out, grown, st->chunk_out.bytes)) {
            return -1;
        }
        char *base = st->chunk_out.data;
        for (int32_t k = chunks - 1; k >= 0; --k) { /* backwards: no overlap lost */
            if (counts[k] <= old) {
                memmove(base + (size_t)k * (size_t)cap * element,
                        base + (size_t)k * (size_t)old * element, (size_t)counts[k] * element);
            }
        }
        list = again;
        n_run = n_again;
    }
    *capacity = cap;
    int64_t total = 0;
    for (int32_t k = 0; k < chunks; ++k) {
        total += counts[k];
    }
    return total;
}

/* Pairs per chunk of the threaded narrow phase. */
#define PAIR_CHUNK 256

typedef struct narrow_job {
    const nscd__collision_state *st;
    const nscd__collision_shape *shapes;
    double margin;
} narrow_job;

/* The contact points of pairs [k PAIR_CHUNK, ...) of the sorted pairs: what
 * narrow_phase writes for them, in the same order. */
static void narrow_chunk(int32_t k, void *out, int32_t capacity, int32_t *count, void *ctx) {
    const narrow_job *t = ctx;
    const nscd__pair *pairs = t->st->pairs.data;
    const int32_t *order = t->st->pair_order.data;
    int32_t lo = k * PAIR_CHUNK;
    int32_t hi = t->st->n_pairs - lo > PAIR_CHUNK ? lo + PAIR_CHUNK : t->st->n_pairs;
    nscd__contact_point *points = out;
    int32_t n = 0;
    nscd__manifold m;
    for (int32_t i = lo; i < hi; ++i) {
        const nscd__pair *p = &pairs[order[i]];
        const nscd__collision_shape *a = &t->shapes[p->a], *b = &t->shapes[p->b];
        collide_pair(t->st, i, a, b, t->margin + a->reach + b->reach, &m);
        for (int32_t j = 0; j < m.n; ++j, ++n) {
            if (n >= capacity) {
                continue; /* counted: the chunk runs again with room */
            }
            nscd__contact_point *o = &points[n];
            o->shape_a = p->a, o->shape_b = p->b;
            o->key_a = a->key, o->key_b = b->key;
            o->feature = m.p[j].feature;
            memcpy(o->point, m.p[j].point, sizeof o->point);
            memcpy(o->normal, m.p[j].normal, sizeof o->normal);
            o->gap = m.p[j].gap;
        }
    }
    *count = n;
}

typedef struct gather_job {
    nscd__collision_state *st;
    int32_t capacity;
    const int64_t *offset;
} gather_job;

static void gather_range(int32_t begin, int32_t end, int32_t worker, void *ctx) {
    (void)worker;
    gather_job *t = ctx;
    const int32_t *counts = t->st->chunk_count.data;
    const nscd__contact_point *in = t->st->chunk_out.data;
    nscd__contact_point *out = t->st->next.data;
    for (int32_t k = begin; k < end; ++k) {
        memcpy(out + t->offset[k], in + (size_t)k * (size_t)t->capacity,
               (size_t)counts[k] * sizeof *out);
    }
}

/* narrow_phase with threads: the same points in the same order. */
static int32_t narrow_phase_threaded(nscd__collision_state *st, const nscd_allocator *al,
                                     const nscd__collision_shape *shapes, double margin,
                                     const struct nscd__parallel *parallel) {
    int32_t chunks = (st->n_pairs + PAIR_CHUNK - 1) / PAIR_CHUNK;
    narrow_job job = {st, shapes, margin};
    int64_t total = nscd__run_chunks(st, al, parallel, chunks, sizeof(nscd__contact_point),
                                     &st->point_capacity, narrow_chunk, &job);
    if (total < 0 || total > INT32_MAX / 2) {
        return -1;
    }
    /* offsets (in the pair buffer's room: int64 per chunk, after the pairs'
     * sort scratch is no longer needed) */
    if (!nscd__buffer_reserve(al, &st->pair_keys_scratch, ((size_t)chunks + 1) * sizeof(int64_t),
                              0) ||
        !nscd__buffer_reserve(al, &st->next, ((size_t)total + 1) * sizeof(nscd__contact_point),
                              0)) {
        return -1;
    }
    int64_t *offset = st->pair_keys_scratch.data;
    const int32_t *counts = st->chunk_count.data;
    offset[0] = 0;
    for (int32_t k = 0; k < chunks; ++k) {
        offset[k + 1] = offset[k] + counts[k];
    }
    gather_job g = {st, st->point_capacity, offset};
    nscd__parallel_for(parallel, chunks, 8, gather_range, &g);
    return (int32_t)total;
}

/* *first = min(*first, i): the smallest index any range found (a result
 * independent of the ranges and their order). */
static void atomic_min(atomic_int_fast32_t *first, int32_t i) {
    int_fast32_t seen = atomic_load_explicit(first, memory_order_relaxed);
    while (i < seen && !atomic_compare_exchange_weak_explicit(first, &seen, i, memory_order_relaxed,
                                                              memory_order_relaxed)) {
    }
}

typedef struct aabb_job {
    const nscd__collision_shape *shapes;
    nscd__aabb *boxes;
    double margin;
    atomic_int_fast32_t first_bad; /* the first shape with a non-finite box, or n */
} aabb_job;

static void aabb_range(int32_t begin, int32_t end, int32_t worker, void *ctx) {
    (void)worker;
    aabb_job *t = ctx;
    for (int32_t i = begin; i < end; ++i) {
        if (t->shapes[i].type != NSCD_SHAPE_HALF_SPACE) {
            nscd__aabb *b = &t->boxes[i];
            nscd__shape_aabb(&t->shapes[i], 0.5 * t->margin + t->shapes[i].reach, b);
            if (!nscd__all_finite(b->lo, 3) || !nscd__all_finite(b->hi, 3)) {
                atomic_min(&t->first_bad, i);
            }
        }
    }
}

typedef struct check_job {
    const nscd__collision_shape *shapes;
    atomic_int_fast32_t first_bad; /* the first shape check_shape refuses, or n */
} check_job;

static void check_range(int32_t begin, int32_t end, int32_t worker, void *ctx) {
    (void)worker;
    check_job *t = ctx;
    for (int32_t i = begin; i < end; ++i) {
        if (check_shape(&t->shapes[i]) != NSCD_OK) {
            atomic_min(&t->first_bad, i);
            return;
        }
    }
}

static nscd_status check_input(const nscd__collision *collision,
                               const nscd__collision_shape *shapes, int32_t n, double margin) {
    if (collision == NULL || (shapes == NULL && n > 0)) {
        return NSCD_ERR_NULL_POINTER;
    }
    if (n < 0 || n > INT32_MAX / 4) {
        return NSCD_ERR_INVALID_ARGUMENT;
    }
    if (!isfinite(margin)) {
        return NSCD_ERR_NOT_FINITE;
    }
    if (margin < 0.0) {
        return NSCD_ERR_OUT_OF_RANGE;
    }
    if (collision->parallel != NULL) { /* the first refused shape's status, as below */
        check_job job;
        job.shapes = shapes;
        atomic_init(&job.first_bad, n);
        nscd__parallel_for(collision->parallel, n, 2048, check_range, &job);
        int32_t first = (int32_t)atomic_load(&job.first_bad);
        return first < n ? check_shape(&shapes[first]) : NSCD_OK;
    }
    for (int32_t i = 0; i < n; ++i) {
        nscd_status s = check_shape(&shapes[i]);
        if (s != NSCD_OK) {
            return s;
        }
    }
    return NSCD_OK;
}

nscd_status nscd__collide(nscd__collision *collision, const nscd__collision_shape *shapes,
                          int32_t n, double margin) {
    nscd_status status = check_input(collision, shapes, n, margin);
    if (status != NSCD_OK) {
        return status;
    }
    nscd_allocator al = nscd__allocator_resolve(collision->allocator);
    if (collision->internal == NULL) {
        collision->internal = nscd__alloc(&al, sizeof(nscd__collision_state));
        if (collision->internal == NULL) {
            return NSCD_ERR_OUT_OF_MEMORY;
        }
    }
    nscd__collision_state *st = collision->internal;
    if (!reserve_shapes(st, &al, n) ||
        (collision->parallel != NULL &&
         !nscd__buffer_reserve(&al, &st->radix_scratch, nscd__radix_scratch_bytes(), 0))) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    st->parallel = collision->parallel;
    nscd__aabb *boxes = st->aabbs.data;
    const struct nscd__parallel *par = collision->parallel;
    if (par != NULL) {
        aabb_job job;
        job.shapes = shapes, job.boxes = boxes, job.margin = margin;
        atomic_init(&job.first_bad, n);
        nscd__parallel_for(par, n, 512, aabb_range, &job);
        if (atomic_load(&job.first_bad) < n) {
            return NSCD_ERR_OUT_OF_RANGE;
        }
    }
    for (int32_t i = 0; par == NULL && i < n; ++i) {
        if (shapes[i].type != NSCD_SHAPE_HALF_SPACE) {
            if (par == NULL) {
                nscd__shape_aabb(&shapes[i], 0.5 * margin + shapes[i].reach, &boxes[i]);
            }
            /* finite inputs near DBL_MAX can still overflow the box */
            if (!nscd__all_finite(boxes[i].lo, 3) || !nscd__all_finite(boxes[i].hi, 3)) {
                return NSCD_ERR_OUT_OF_RANGE;
            }
        }
    }
    status = nscd__broad_phase(st, &al, shapes, n, margin, par);
    if (status != NSCD_OK) {
        return status;
    }
    rank_shapes(st, shapes, n);
    if (!order_pairs(st, &al, shapes, n)) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    /* Never a NULL output after success, even without contacts (callers may
     * memcpy from it). */
    if (!nscd__buffer_reserve(&al, &st->next, sizeof(nscd__contact_point), 0) ||
        !nscd__buffer_reserve(&al, &st->axes_next,
                              ((size_t)st->n_pairs + 1) * sizeof(nscd__pair_axis), 0)) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    int32_t count = par != NULL ? narrow_phase_threaded(st, &al, shapes, margin, par)
                                : narrow_phase(st, &al, shapes, margin);
    if (count < 0) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    keep_axes(st, shapes);
    /* Success: the new contacts become the output, the old block the next scratch. */
    nscd__buffer old = {collision->contacts, st->output_bytes};
    collision->contacts = st->next.data;
    st->output_bytes = st->next.bytes;
    collision->contacts_capacity = (int32_t)(st->next.bytes / sizeof(nscd__contact_point));
    collision->n_contacts = count;
    collision->n_pairs = st->n_pairs;
    st->next = old;
    return NSCD_OK;
}
