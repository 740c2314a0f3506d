/* Collision detection entry points (collision.h): validation and bounding
 * boxes, the broad phase (broad_phase.c), the ordering of pairs by shape
 * key, and the dispatch of each pair to its narrow-phase function.
 *
 * Determinism: candidate pairs are put in the order of their shape keys by
 * radix sort (ranks of the keys, then pairs by rank), and the points of one
 * manifold by feature, so the output depends on the keys and the geometry
 * only, not on the order of the input shapes. */
#include <math.h>
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
static void rank_shapes(nscd__collision_state *st, const nscd__collision_shape *shapes, int32_t n) {
    uint64_t *keys = st->sort_keys.data;
    int32_t *values = st->sort_values.data, *rank = st->rank.data;
    for (int32_t i = 0; i < n; ++i) {
        keys[i] = shapes[i].key;
        values[i] = i;
    }
    nscd__radix_sort(keys, values, st->sort_keys_scratch.data, st->sort_values_scratch.data, n);
    for (int32_t i = 0; i < n; ++i) {
        rank[values[i]] = i;
    }
}

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
    nscd__pair *pairs = st->pairs.data;
    const int32_t *rank = st->rank.data;
    uint64_t *keys = st->pair_keys.data;
    int32_t *order = st->pair_order.data;
    for (int32_t k = 0; k < np; ++k) {
        nscd__pair *p = &pairs[k];
        int a_half = shapes[p->a].type == NSCD_SHAPE_HALF_SPACE;
        int b_half = shapes[p->b].type == NSCD_SHAPE_HALF_SPACE;
        if (b_half > a_half || (a_half == b_half && rank[p->a] > rank[p->b])) {
            int32_t t = p->a;
            p->a = p->b, p->b = t;
        }
        keys[k] = (uint64_t)rank[p->a] * (uint64_t)n + (uint64_t)rank[p->b];
        order[k] = k;
    }
    nscd__radix_sort(keys, order, st->pair_keys_scratch.data, st->pair_order_scratch.data, np);
    return 1;
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
    int ra = narrow_rank(a->type), rb = narrow_rank(b->type);
    int flip = ra > rb;
    nscd__narrow_fn fn = flip ? narrow_table[rb][ra] : narrow_table[ra][rb];
    if (fn == NULL) {
        return;
    }
    if (flip) {
        fn(b, a, margin, m);
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
        if (a->type == NSCD_SHAPE_SPHERE && b->type == NSCD_SHAPE_SPHERE) {
            /* the fast path of granular flows: no dispatch, no sorting */
            m.n = 0;
            nscd__collide_sphere_sphere(a, b, margin + a->reach + b->reach, &m);
        } else {
            narrow_pair(a, b, margin + a->reach + b->reach, &m);
        }
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
    if (!reserve_shapes(st, &al, n)) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    nscd__aabb *boxes = st->aabbs.data;
    for (int32_t i = 0; i < n; ++i) {
        if (shapes[i].type != NSCD_SHAPE_HALF_SPACE) {
            nscd__shape_aabb(&shapes[i], 0.5 * margin + shapes[i].reach, &boxes[i]);
            /* finite inputs near DBL_MAX can still overflow the box */
            if (!nscd__all_finite(boxes[i].lo, 3) || !nscd__all_finite(boxes[i].hi, 3)) {
                return NSCD_ERR_OUT_OF_RANGE;
            }
        }
    }
    status = nscd__broad_phase(st, &al, shapes, n, margin);
    if (status != NSCD_OK) {
        return status;
    }
    rank_shapes(st, shapes, n);
    if (!order_pairs(st, &al, shapes, n)) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    /* Never a NULL output after success, even without contacts (callers may
     * memcpy from it). */
    if (!nscd__buffer_reserve(&al, &st->next, sizeof(nscd__contact_point), 0)) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    int32_t count = narrow_phase(st, &al, shapes, margin);
    if (count < 0) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
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
