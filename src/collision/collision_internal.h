/* Private state of the collision layer: the reusable buffers behind
 * nscd__collision::internal, and the broad phase that fills the pair list. */
#ifndef NSCD_COLLISION_COLLISION_INTERNAL_H
#define NSCD_COLLISION_COLLISION_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "collision/collision.h"
#include "collision/narrow.h"
#include "core/parallel.h"

/* A block from the allocator with its size (the allocator wants it back). */
typedef struct nscd__buffer {
    void *data;
    size_t bytes;
} nscd__buffer;

/* Makes `b` hold at least `bytes`, keeping its first `keep` bytes; grows
 * geometrically so that a slowly growing world reallocates rarely. Returns 0
 * (and leaves `b` as it was) when the allocator fails or the size overflows. */
int nscd__buffer_reserve(const nscd_allocator *al, nscd__buffer *b, size_t bytes, size_t keep);
void nscd__buffer_release(const nscd_allocator *al, nscd__buffer *b);

/* What the grid's inner loops read of a shape, packed in cell order so that
 * neighbouring shapes are neighbours in memory. */
typedef struct nscd__grid_item {
    nscd__aabb box;
    double centre[3], radius; /* spheres: the exact-distance rejection */
    int32_t index, body;
    uint32_t category, mask;
    int32_t fixed, sphere;
} nscd__grid_item;

/* A candidate pair: two shape indices (unordered until collision.c orders them). */
typedef struct nscd__pair {
    int32_t a, b;
} nscd__pair;

/* One entry of the pair cache (collision.c, docs/collision.md): a unit
 * axis from shape a to shape b (output order) that the pair's last search
 * found separating. */
typedef struct nscd__pair_axis {
    uint64_t key_a, key_b;
    double axis[3];
    int32_t valid;
} nscd__pair_axis;

typedef struct nscd__collision_state {
    /* per shape */
    nscd__buffer aabbs;                            /* nscd__aabb, grown by margin / 2 */
    nscd__buffer sort_keys, sort_keys_scratch;     /* uint64_t */
    nscd__buffer sort_values, sort_values_scratch; /* int32_t */
    nscd__buffer rank;                     /* int32_t: position of each shape in key order */
    nscd__buffer grid, large, half_spaces; /* int32_t shape lists of the broad phase */
    nscd__buffer extents;                  /* double: largest AABB side of each grid candidate */
    nscd__buffer cell_keys;                /* uint64_t: occupied cells, ascending */
    nscd__buffer cell_start;               /* int32_t: first entry of each cell (+ end) */
    nscd__buffer cell_items;               /* nscd__grid_item: the grid shapes in cell order */
    /* pairs */
    nscd__buffer pairs; /* nscd__pair */
    int32_t n_pairs;
    nscd__buffer pair_keys, pair_keys_scratch;   /* uint64_t */
    nscd__buffer pair_order, pair_order_scratch; /* int32_t */
    /* threads (collision.c, broad_phase.c): fixed chunks of work, each with
     * `chunk_capacity` elements of output at chunk k * chunk_capacity and its
     * count (the count it needed when that was more: the chunk is run again
     * with more room) */
    nscd__buffer chunk_out;                               /* nscd__pair or nscd__contact_point */
    nscd__buffer chunk_count;                             /* int32_t */
    int32_t pair_capacity, point_capacity, half_capacity; /* per chunk, kept */
    nscd__buffer radix_scratch;                           /* nscd__radix_sort_parallel's */
    nscd__buffer bounds; /* double: 7 per chunk of the grid bounds (broad_phase.c) */
    const struct nscd__parallel *parallel; /* of the current nscd__collide (NULL: none) */
    /* The pair cache: axes[0 .. n_axes) of the last call, sorted by
     * (key_a, key_b); axes_next holds one slot per sorted pair of the
     * current call, compacted and swapped in on success. Its content never
     * changes the output, only how soon a pair is known to be separated. */
    nscd__buffer axes, axes_next; /* nscd__pair_axis */
    int32_t n_axes;
    /* the output being built; swapped with nscd__collision::contacts on success */
    nscd__buffer next;
    /* bytes of the block at nscd__collision::contacts (what the allocator gets back) */
    size_t output_bytes;
} nscd__collision_state;

/* Fills state->pairs with every pair of shapes of different bodies, not both
 * fixed, passing the category/mask filter, whose padded AABBs overlap (for a
 * half-space: whose AABB reaches within margin of its plane), each pair once.
 * aabbs must already hold the shapes' boxes grown by margin / 2. */
nscd_status nscd__broad_phase(nscd__collision_state *state, const nscd_allocator *al,
                              const nscd__collision_shape *shapes, int32_t n, double margin,
                              const struct nscd__parallel *parallel);

/* Runs `run` on chunks [0, chunks) through `parallel`, each writing at most
 * *capacity elements of `element` bytes at its place of st->chunk_out and
 * its count (the count it needed) in st->chunk_count; chunks that needed
 * more are run again with *capacity raised. Returns the total, or -1 when
 * memory fails. */
typedef void nscd__chunk_fn(int32_t chunk, void *out, int32_t capacity, int32_t *count, void *ctx);
int64_t nscd__run_chunks(nscd__collision_state *st, const nscd_allocator *al,
                         const struct nscd__parallel *parallel, int32_t chunks, size_t element,
                         int32_t *capacity, nscd__chunk_fn *run, void *ctx);

#endif
