/* Broad phase: a uniform cell grid built by radix sort (collision_internal.h).
 *
 * Why a grid: in a granular packing every particle has a bounded number of
 * neighbours within one diameter, so hashing each shape into the cell of its
 * AABB's lower corner and testing it against its own cell and the 26
 * neighbours costs O(n), without the insertion-order sensitivity and the
 * per-axis re-sorting of sort-and-sweep in dense 3D piles.
 *
 * Cell size: the largest AABB side among the grid shapes (so that two
 * overlapping boxes have their lower corners in the same or adjacent cells).
 * Shapes bigger than LARGE_FACTOR times the median side (a channel's obstacle,
 * a floor box) would blow the cells up for everyone, so they stay out of the
 * grid and are tested against every shape by AABB; half-spaces, unbounded,
 * are tested against every shape by the exact plane-box test. Cells are
 * sorted (cell key, shape) pairs: the occupied cells in ascending key order,
 * the 13 "forward" neighbours of a cell found by merge walks, so the grid has
 * no hash table, costs memory in proportion to the shapes only, and gives the
 * same pairs whatever the memory layout. Each pair is emitted exactly once. */
#include <math.h>
#include <string.h>

#include "collision/collision_internal.h"
#include "collision/radix_sort.h"
#include "nscd/types.h"

/* Shapes whose largest AABB side exceeds this many median sides stay out of the grid. */
#define LARGE_FACTOR 4.0
/* At most this many cells per axis, so that cell keys fit 64 bits (3 x 21 bits). */
#define MAX_CELLS_PER_AXIS ((double)(1 << 20))

static int pair_allowed(const nscd__collision_shape *a, const nscd__collision_shape *b) {
    return a->body != b->body && !(a->fixed && b->fixed) && (a->category & b->mask) != 0 &&
           (b->category & a->mask) != 0;
}

static int aabb_overlap(const nscd__aabb *a, const nscd__aabb *b) {
    return a->lo[0] <= b->hi[0] && b->lo[0] <= a->hi[0] && a->lo[1] <= b->hi[1] &&
           b->lo[1] <= a->hi[1] && a->lo[2] <= b->hi[2] && b->lo[2] <= a->hi[2];
}

/* Appends a pair, growing the list (kept) when full. */
static int emit(nscd__collision_state *st, const nscd_allocator *al, int32_t a, int32_t b) {
    size_t need = ((size_t)st->n_pairs + 1) * sizeof(nscd__pair);
    if (need > st->pairs.bytes &&
        !nscd__buffer_reserve(al, &st->pairs, need, (size_t)st->n_pairs * sizeof(nscd__pair))) {
        return 0;
    }
    nscd__pair *p = (nscd__pair *)st->pairs.data + st->n_pairs++;
    p->a = a, p->b = b;
    return 1;
}

/* Tests and emits the pair (a, b) of finite shapes. */
static int consider(nscd__collision_state *st, const nscd_allocator *al,
                    const nscd__collision_shape *shapes, const nscd__aabb *boxes, int32_t a,
                    int32_t b) {
    if (!aabb_overlap(&boxes[a], &boxes[b]) || !pair_allowed(&shapes[a], &shapes[b])) {
        return 1;
    }
    return emit(st, al, a, b);
}

/* k-th smallest of x[0..n) by quickselect (median-of-three pivot); reorders x. */
static double select_kth(double *x, int32_t n, int32_t k) {
    int32_t lo = 0, hi = n - 1;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        double a = x[lo], b = x[mid], c = x[hi];
        double pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
        int32_t i = lo, j = hi;
        while (i <= j) {
            while (x[i] < pivot) {
                ++i;
            }
            while (x[j] > pivot) {
                --j;
            }
            if (i <= j) {
                double t = x[i];
                x[i] = x[j], x[j] = t;
                ++i, --j;
            }
        }
        if (k <= j) {
            hi = j;
        } else if (k >= i) {
            lo = i;
        } else {
            return x[k];
        }
    }
    return x[k];
}

static double largest_side(const nscd__aabb *b) {
    return fmax(b->hi[0] - b->lo[0], fmax(b->hi[1] - b->lo[1], b->hi[2] - b->lo[2]));
}

/* Splits the shapes into half-spaces, large shapes and grid shapes. */
static void classify(nscd__collision_state *st, const nscd__collision_shape *shapes, int32_t n,
                     int32_t *n_grid, int32_t *n_large, int32_t *n_half) {
    const nscd__aabb *boxes = st->aabbs.data;
    int32_t *grid = st->grid.data, *large = st->large.data, *half = st->half_spaces.data;
    double *ext = st->extents.data;
    int32_t nf = 0;
    *n_half = 0;
    for (int32_t i = 0; i < n; ++i) {
        if (shapes[i].type == NSCD_SHAPE_HALF_SPACE) {
            half[(*n_half)++] = i;
        } else {
            ext[nf++] = largest_side(&boxes[i]);
        }
    }
    double limit = nf > 0 ? LARGE_FACTOR * select_kth(ext, nf, nf / 2) : 0.0;
    *n_grid = *n_large = 0;
    for (int32_t i = 0; i < n; ++i) {
        if (shapes[i].type == NSCD_SHAPE_HALF_SPACE) {
            continue;
        }
        if (largest_side(&boxes[i]) > limit) {
            large[(*n_large)++] = i;
        } else {
            grid[(*n_grid)++] = i;
        }
    }
}

/* Bounds of the grid shapes' lower corners and their largest side. */
static void grid_bounds_in(const nscd__collision_state *st, int32_t begin, int32_t end,
                           double lo[3], double hi[3], double *side) {
    const nscd__aabb *boxes = st->aabbs.data;
    const int32_t *grid = st->grid.data;
    for (int i = 0; i < 3; ++i) {
        lo[i] = INFINITY, hi[i] = -INFINITY;
    }
    *side = 0.0;
    for (int32_t k = begin; k < end; ++k) {
        const nscd__aabb *b = &boxes[grid[k]];
        for (int i = 0; i < 3; ++i) {
            lo[i] = fmin(lo[i], b->lo[i]);
            hi[i] = fmax(hi[i], b->lo[i]);
        }
        *side = fmax(*side, largest_side(b));
    }
}

/* Grid shapes per chunk of the threaded bounds. */
#define BOUNDS_CHUNK 8192

typedef struct bounds_job {
    const nscd__collision_state *st;
    int32_t n_grid;
    double *out; /* lo, hi, side: 7 per chunk */
} bounds_job;

static void bounds_range(int32_t begin, int32_t end, int32_t worker, void *ctx) {
    (void)worker;
    const bounds_job *t = ctx;
    for (int32_t k = begin; k < end; ++k) {
        int32_t lo = k * BOUNDS_CHUNK;
        int32_t hi = t->n_grid - lo > BOUNDS_CHUNK ? lo + BOUNDS_CHUNK : t->n_grid;
        double *o = t->out + 7 * (size_t)k;
        grid_bounds_in(t->st, lo, hi, o, o + 3, o + 6);
    }
}

/* Bounds of the grid shapes' lower corners and their largest side: minima
 * and maxima, whatever the chunks (a signed zero aside, which moves no cell). */
static void grid_bounds(const nscd__collision_state *st, int32_t n_grid, double lo[3], double hi[3],
                        double *side) {
    int32_t chunks = (n_grid + BOUNDS_CHUNK - 1) / BOUNDS_CHUNK;
    if (st->parallel == NULL || chunks < 2 ||
        st->bounds.bytes < 7 * (size_t)chunks * sizeof(double)) {
        grid_bounds_in(st, 0, n_grid, lo, hi, side);
        return;
    }
    bounds_job job = {st, n_grid, st->bounds.data};
    nscd__parallel_for(st->parallel, chunks, 1, bounds_range, &job);
    for (int i = 0; i < 3; ++i) {
        lo[i] = INFINITY, hi[i] = -INFINITY;
    }
    *side = 0.0;
    for (int32_t k = 0; k < chunks; ++k) {
        const double *o = job.out + 7 * (size_t)k;
        for (int i = 0; i < 3; ++i) {
            lo[i] = fmin(lo[i], o[i]);
            hi[i] = fmax(hi[i], o[3 + i]);
        }
        *side = fmax(*side, o[6]);
    }
}

/* When the grid shapes spread over more than MAX_CELLS_PER_AXIS cells on an
 * axis (a few stray bodies far from the bulk), the shapes farther than half
 * that from the median lower corner leave the grid for the large list
 * (tested against all by AABB): correct whatever the spread, and O(n) while
 * the strays are few. */
static void evict_strays(nscd__collision_state *st, int32_t *n_grid, int32_t *n_large,
                         double side) {
    const nscd__aabb *boxes = st->aabbs.data;
    int32_t *grid = st->grid.data, *large = st->large.data;
    double *scratch = st->extents.data;
    double half_window = 0.5 * (MAX_CELLS_PER_AXIS - 8.0) * side;
    double centre[3];
    for (int i = 0; i < 3; ++i) {
        for (int32_t k = 0; k < *n_grid; ++k) {
            scratch[k] = boxes[grid[k]].lo[i];
        }
        centre[i] = select_kth(scratch, *n_grid, *n_grid / 2);
    }
    int32_t kept = 0;
    for (int32_t k = 0; k < *n_grid; ++k) {
        const nscd__aabb *b = &boxes[grid[k]];
        int stray = 0;
        for (int i = 0; i < 3; ++i) {
            stray |= !(fabs(b->lo[i] - centre[i]) <= half_window);
        }
        if (stray) {
            large[(*n_large)++] = grid[k];
        } else {
            grid[kept++] = grid[k];
        }
    }
    *n_grid = kept;
}

typedef struct cell_job {
    nscd__collision_state *st;
    double lo[3], cell[3];
    uint64_t count[3], stride[3];
} cell_job;

/* The cell key of grid shapes [begin, end). */
static void cell_keys_range(int32_t begin, int32_t end, int32_t worker, void *ctx) {
    (void)worker;
    const cell_job *t = ctx;
    const nscd__aabb *boxes = t->st->aabbs.data;
    const int32_t *grid = t->st->grid.data;
    uint64_t *keys = t->st->sort_keys.data;
    int32_t *values = t->st->sort_values.data;
    for (int32_t k = begin; k < end; ++k) {
        const nscd__aabb *b = &boxes[grid[k]];
        uint64_t key = 0;
        for (int i = 0; i < 3; ++i) {
            uint64_t c = (uint64_t)floor((b->lo[i] - t->lo[i]) / t->cell[i]) + 1;
            c = c > t->count[i] - 2 ? t->count[i] - 2 : c; /* rounding at the top edge */
            key += c * t->stride[i];
        }
        keys[k] = key;
        values[k] = grid[k];
    }
}

/* Grid of the grid shapes: sorted (cell key, shape) entries in sort_keys /
 * sort_values, occupied cells in cell_keys / cell_start. Returns the number
 * of cells; `stride` receives the key steps of +1 cell in x, y and z. */
static int32_t build_grid(nscd__collision_state *st, int32_t *n_grid, int32_t *n_large,
                          uint64_t stride[3]) {
    double lo[3], hi[3], side;
    grid_bounds(st, *n_grid, lo, hi, &side);
    /* A little over the largest side, so that rounding never puts two
     * overlapping boxes two cells apart; never zero (point shapes). */
    side = side > 0.0 ? side * (1.0 + 1e-9) : 1.0;
    int too_wide = 0;
    for (int i = 0; i < 3; ++i) {
        too_wide |= !((hi[i] - lo[i]) / side < MAX_CELLS_PER_AXIS - 8.0);
    }
    if (too_wide) {
        evict_strays(st, n_grid, n_large, side);
        double unused;
        grid_bounds(st, *n_grid, lo, hi, &unused);
    }
    /* Every shape was a stray: empty bounds (lo = +inf, hi = -inf) have no
     * cells; converting their -inf extent to a count was undefined (found by
     * fuzz_world, bodies thrown far apart). */
    if (*n_grid == 0) {
        return 0;
    }
    double cell[3];
    uint64_t count[3];
    for (int i = 0; i < 3; ++i) {
        cell[i] = side;
        /* One empty layer of cells on each side: neighbour keys never wrap. */
        count[i] = (uint64_t)floor((hi[i] - lo[i]) / cell[i]) + 3;
    }
    stride[0] = 1, stride[1] = count[0], stride[2] = count[0] * count[1];
    cell_job job;
    job.st = st;
    for (int i = 0; i < 3; ++i) {
        job.lo[i] = lo[i], job.cell[i] = cell[i], job.count[i] = count[i],
        job.stride[i] = stride[i];
    }
    nscd__parallel_for(st->parallel, *n_grid, 8192, cell_keys_range, &job);
    uint64_t *keys = st->sort_keys.data;
    int32_t *values = st->sort_values.data;
    nscd__radix_sort_parallel(st->parallel, st->radix_scratch.data, keys, values,
                              st->sort_keys_scratch.data, st->sort_values_scratch.data, *n_grid);
    uint64_t *cell_keys = st->cell_keys.data;
    int32_t *cell_start = st->cell_start.data;
    int32_t n_cells = 0;
    for (int32_t k = 0; k < *n_grid; ++k) {
        if (k == 0 || keys[k] != keys[k - 1]) {
            cell_keys[n_cells] = keys[k];
            cell_start[n_cells++] = k;
        }
    }
    cell_start[n_cells] = *n_grid;
    return n_cells;
}

static int items_allowed(const nscd__grid_item *a, const nscd__grid_item *b) {
    return a->body != b->body && !(a->fixed && b->fixed) && (a->category & b->mask) != 0 &&
           (b->category & a->mask) != 0;
}

/* Tests and emits a pair of grid shapes whose boxes overlap (the callers
 * test that inline: most candidates end there). Two spheres farther apart
 * than their radii plus the margin are dropped here already, by the very
 * test the narrow phase would make (nscd__collide_sphere_sphere), so that
 * the bulk of a packing's candidates never reaches the pair list. */
static int consider_items(nscd__collision_state *st, const nscd_allocator *al,
                          const nscd__grid_item *a, const nscd__grid_item *b, double margin) {
    if (!items_allowed(a, b)) {
        return 1;
    }
    if (a->sphere && b->sphere) {
        double d[3] = {b->centre[0] - a->centre[0], b->centre[1] - a->centre[1],
                       b->centre[2] - a->centre[2]};
        double reach = a->radius + b->radius + margin;
        if (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] >= reach * reach) {
            return 1;
        }
    }
    return emit(st, al, a->index, b->index);
}

/* The grid shapes in cell order, with what the pair loops read. */
typedef struct pack_job {
    nscd__collision_state *st;
    const nscd__collision_shape *shapes;
} pack_job;

static void pack_range(int32_t begin, int32_t end, int32_t worker, void *ctx) {
    (void)worker;
    const pack_job *t = ctx;
    const nscd__collision_shape *shapes = t->shapes;
    const nscd__aabb *boxes = t->st->aabbs.data;
    const int32_t *entry = t->st->sort_values.data;
    nscd__grid_item *items = t->st->cell_items.data;
    for (int32_t k = begin; k < end; ++k) {
        const nscd__collision_shape *s = &shapes[entry[k]];
        nscd__grid_item *it = &items[k];
        it->box = boxes[entry[k]];
        it->centre[0] = s->position[0], it->centre[1] = s->position[1];
        it->centre[2] = s->position[2];
        it->radius = s->radius + s->reach; /* the sphere rejection's reach */
        it->index = entry[k], it->body = s->body;
        it->category = s->category, it->mask = s->mask;
        it->fixed = s->fixed, it->sphere = s->type == NSCD_SHAPE_SPHERE;
    }
}

static void pack_items(nscd__collision_state *st, const nscd__collision_shape *shapes,
                       int32_t n_grid) {
    pack_job job = {st, shapes};
    nscd__parallel_for(st->parallel, n_grid, 4096, pack_range, &job);
}

/* Pairs inside each cell and between each cell and its 13 forward neighbours
 * (those after it in key order), found by one merge walk per neighbour offset. */
static int grid_pairs(nscd__collision_state *st, const nscd_allocator *al, int32_t n_cells,
                      const uint64_t stride[3], double margin) {
    const uint64_t *cell_keys = st->cell_keys.data;
    const int32_t *start = st->cell_start.data;
    const nscd__grid_item *items = st->cell_items.data;
    for (int32_t c = 0; c < n_cells; ++c) {
        for (int32_t i = start[c]; i < start[c + 1]; ++i) {
            for (int32_t j = i + 1; j < start[c + 1]; ++j) {
                if (aabb_overlap(&items[i].box, &items[j].box) &&
                    !consider_items(st, al, &items[i], &items[j], margin)) {
                    return 0;
                }
            }
        }
    }
    for (int dz = 0; dz <= 1; ++dz) {
        for (int dy = -1; dy <= 1; ++dy) {
            for (int dx = -1; dx <= 1; ++dx) {
                if (dz == 0 && (dy < 0 || (dy == 0 && dx <= 0))) {
                    continue; /* the backward half and the cell itself */
                }
                /* offset = dx + dy sy + dz sz > 0, computed without negative
                 * unsigned intermediate values */
                uint64_t plus =
                    (dx > 0 ? stride[0] : 0) + (dy > 0 ? stride[1] : 0) + (dz > 0 ? stride[2] : 0);
                uint64_t minus = (dx < 0 ? stride[0] : 0) + (dy < 0 ? stride[1] : 0);
                uint64_t offset = plus - minus;
                int32_t other = 0;
                for (int32_t c = 0; c < n_cells; ++c) {
                    uint64_t target = cell_keys[c] + offset;
                    while (other < n_cells && cell_keys[other] < target) {
                        ++other;
                    }
                    if (other == n_cells) {
                        break;
                    }
                    if (cell_keys[other] != target) {
                        continue;
                    }
                    for (int32_t i = start[c]; i < start[c + 1]; ++i) {
                        for (int32_t j = start[other]; j < start[other + 1]; ++j) {
                            if (aabb_overlap(&items[i].box, &items[j].box) &&
                                !consider_items(st, al, &items[i], &items[j], margin)) {
                                return 0;
                            }
                        }
                    }
                }
            }
        }
    }
    return 1;
}

/* ------------------------------------------------------------ threads
 *
 * The grid pairs in chunks of CELL_CHUNK cells: each chunk's pairs (inside
 * its cells and with their forward neighbours) into its own room, then
 * appended in chunk order. The pair list's order differs from the serial
 * walk's, but each pair is still emitted once and collision.c sorts them by
 * their unique (rank a, rank b) keys: the output is the same bits. */
#define CELL_CHUNK 128

typedef struct grid_job {
    const nscd__collision_state *st;
    int32_t n_cells;
    uint64_t offsets[13];
    double margin;
} grid_job;

/* First cell with key >= target. */
static int32_t lower_bound(const uint64_t *keys, int32_t n, uint64_t target) {
    int32_t lo = 0, hi = n;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (keys[mid] < target) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/* Appends the pairs the `chunks` chunks of nscd__run_chunks() left in their
 * rooms (`capacity` pairs each; `total` in all, or < 0 on failure) to
 * st->pairs, in chunk order: the serial order whatever the thread count. */
static int append_chunk_pairs(nscd__collision_state *st, const nscd_allocator *al, int32_t chunks,
                              int32_t capacity, int64_t total) {
    if (total < 0 || total > INT32_MAX / 4) {
        return 0;
    }
    size_t need = ((size_t)st->n_pairs + (size_t)total + 1) * sizeof(nscd__pair);
    if (!nscd__buffer_reserve(al, &st->pairs, need, (size_t)st->n_pairs * sizeof(nscd__pair))) {
        return 0;
    }
    const int32_t *counts = st->chunk_count.data;
    const nscd__pair *room = st->chunk_out.data;
    nscd__pair *pairs = st->pairs.data;
    for (int32_t k = 0; k < chunks; ++k) {
        memcpy(pairs + st->n_pairs, room + (size_t)k * (size_t)capacity,
               (size_t)counts[k] * sizeof(nscd__pair));
        st->n_pairs += counts[k];
    }
    return 1;
}

/* Appends to a chunk's room: counted always, written while it fits. */
static void chunk_emit(nscd__pair *out, int32_t capacity, int32_t *n, const nscd__grid_item *a,
                       const nscd__grid_item *b, double margin) {
    if (!aabb_overlap(&a->box, &b->box) || !items_allowed(a, b)) {
        return;
    }
    if (a->sphere && b->sphere) {
        double d[3] = {b->centre[0] - a->centre[0], b->centre[1] - a->centre[1],
                       b->centre[2] - a->centre[2]};
        double reach = a->radius + b->radius + margin;
        if (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] >= reach * reach) {
            return;
        }
    }
    if (*n < capacity) {
        out[*n].a = a->index, out[*n].b = b->index;
    }
    ++*n;
}

static void grid_chunk(int32_t k, void *room, int32_t capacity, int32_t *count, void *ctx) {
    const grid_job *t = ctx;
    const uint64_t *cell_keys = t->st->cell_keys.data;
    const int32_t *start = t->st->cell_start.data;
    const nscd__grid_item *items = t->st->cell_items.data;
    nscd__pair *out = room;
    int32_t c0 = k * CELL_CHUNK;
    int32_t c1 = t->n_cells - c0 > CELL_CHUNK ? c0 + CELL_CHUNK : t->n_cells;
    int32_t n = 0;
    for (int32_t c = c0; c < c1; ++c) {
        for (int32_t i = start[c]; i < start[c + 1]; ++i) {
            for (int32_t j = i + 1; j < start[c + 1]; ++j) {
                chunk_emit(out, capacity, &n, &items[i], &items[j], t->margin);
            }
        }
    }
    for (int o = 0; o < 13; ++o) {
        uint64_t offset = t->offsets[o];
        int32_t other = lower_bound(cell_keys, t->n_cells, cell_keys[c0] + offset);
        for (int32_t c = c0; c < c1; ++c) {
            uint64_t target = cell_keys[c] + offset;
            while (other < t->n_cells && cell_keys[other] < target) {
                ++other;
            }
            if (other == t->n_cells) {
                break;
            }
            if (cell_keys[other] != target) {
                continue;
            }
            for (int32_t i = start[c]; i < start[c + 1]; ++i) {
                for (int32_t j = start[other]; j < start[other + 1]; ++j) {
                    chunk_emit(out, capacity, &n, &items[i], &items[j], t->margin);
                }
            }
        }
    }
    *count = n;
}

static int grid_pairs_threaded(nscd__collision_state *st, const nscd_allocator *al, int32_t n_cells,
                               const uint64_t stride[3], double margin,
                               const struct nscd__parallel *parallel) {
    grid_job job;
    job.st = st;
    job.n_cells = n_cells;
    job.margin = margin;
    int o = 0;
    for (int dz = 0; dz <= 1; ++dz) {
        for (int dy = -1; dy <= 1; ++dy) {
            for (int dx = -1; dx <= 1; ++dx) {
                if (dz == 0 && (dy < 0 || (dy == 0 && dx <= 0))) {
                    continue;
                }
                uint64_t plus =
                    (dx > 0 ? stride[0] : 0) + (dy > 0 ? stride[1] : 0) + (dz > 0 ? stride[2] : 0);
                uint64_t minus = (dx < 0 ? stride[0] : 0) + (dy < 0 ? stride[1] : 0);
                job.offsets[o++] = plus - minus;
            }
        }
    }
    int32_t chunks = (n_cells + CELL_CHUNK - 1) / CELL_CHUNK;
    int64_t total = nscd__run_chunks(st, al, parallel, chunks, sizeof(nscd__pair),
                                     &st->pair_capacity, grid_chunk, &job);
    return append_chunk_pairs(st, al, chunks, st->pair_capacity, total);
}

/* Large shapes against every other finite shape. */
static int large_pairs(nscd__collision_state *st, const nscd_allocator *al,
                       const nscd__collision_shape *shapes, int32_t n_grid, int32_t n_large) {
    const nscd__aabb *boxes = st->aabbs.data;
    const int32_t *grid = st->grid.data, *large = st->large.data;
    for (int32_t i = 0; i < n_large; ++i) {
        for (int32_t j = i + 1; j < n_large; ++j) {
            if (!consider(st, al, shapes, boxes, large[i], large[j])) {
                return 0;
            }
        }
        for (int32_t k = 0; k < n_grid; ++k) {
            if (!consider(st, al, shapes, boxes, large[i], grid[k])) {
                return 0;
            }
        }
    }
    return 1;
}

/* Half-spaces against every finite shape whose padded AABB reaches within
 * margin / 2 of the plane (the AABB carries the other half of the margin).
 * The compact boxes are tested first: most shapes are far from most walls. */
static int half_space_pairs(nscd__collision_state *st, const nscd_allocator *al,
                            const nscd__collision_shape *shapes, int32_t n_grid, int32_t n_large,
                            int32_t n_half, double margin) {
    const nscd__aabb *boxes = st->aabbs.data;
    const int32_t *half = st->half_spaces.data;
    for (int32_t h = 0; h < n_half; ++h) {
        const nscd__collision_shape *plane = &shapes[half[h]];
        double nrm[3];
        nscd__shape_axis(plane, 2, nrm);
        double offset = nrm[0] * plane->position[0] + nrm[1] * plane->position[1] +
                        nrm[2] * plane->position[2] + 0.5 * margin;
        for (int list = 0; list < 2; ++list) {
            const int32_t *index = list == 0 ? st->grid.data : st->large.data;
            int32_t count = list == 0 ? n_grid : n_large;
            for (int32_t k = 0; k < count; ++k) {
                int32_t j = index[k];
                const nscd__aabb *b = &boxes[j];
                double lowest = 0.0; /* min of n . x over the box */
                for (int i = 0; i < 3; ++i) {
                    lowest += nrm[i] * (nrm[i] > 0.0 ? b->lo[i] : b->hi[i]);
                }
                if (lowest <= offset && pair_allowed(plane, &shapes[j]) &&
                    !emit(st, al, half[h], j)) {
                    return 0;
                }
            }
        }
    }
    return 1;
}

/* half_space_pairs with threads: chunks of HALF_CHUNK shapes of one plane
 * (the grid shapes, then the large ones), appended in chunk order (the
 * order does not matter: collision.c sorts the pairs). */
#define HALF_CHUNK 4096

typedef struct half_job {
    const nscd__collision_state *st;
    const nscd__collision_shape *shapes;
    int32_t n_grid, n_large, per_plane;
    double margin;
} half_job;

static void half_chunk(int32_t k, void *room, int32_t capacity, int32_t *count, void *ctx) {
    const half_job *t = ctx;
    const nscd__aabb *boxes = t->st->aabbs.data;
    const int32_t *half = t->st->half_spaces.data;
    int32_t h = k / t->per_plane, first = (k % t->per_plane) * HALF_CHUNK;
    const nscd__collision_shape *plane = &t->shapes[half[h]];
    double nrm[3];
    nscd__shape_axis(plane, 2, nrm);
    double offset = nrm[0] * plane->position[0] + nrm[1] * plane->position[1] +
                    nrm[2] * plane->position[2] + 0.5 * t->margin;
    nscd__pair *out = room;
    int32_t n = 0, total = t->n_grid + t->n_large;
    int32_t last = total - first > HALF_CHUNK ? first + HALF_CHUNK : total;
    for (int32_t e = first; e < last; ++e) {
        int32_t j = e < t->n_grid ? ((const int32_t *)t->st->grid.data)[e]
                                  : ((const int32_t *)t->st->large.data)[e - t->n_grid];
        const nscd__aabb *b = &boxes[j];
        double lowest = 0.0;
        for (int i = 0; i < 3; ++i) {
            lowest += nrm[i] * (nrm[i] > 0.0 ? b->lo[i] : b->hi[i]);
        }
        if (lowest <= offset && pair_allowed(plane, &t->shapes[j])) {
            if (n < capacity) {
                out[n].a = half[h], out[n].b = j;
            }
            ++n;
        }
    }
    *count = n;
}

static int half_space_pairs_threaded(nscd__collision_state *st, const nscd_allocator *al,
                                     const nscd__collision_shape *shapes, int32_t n_grid,
                                     int32_t n_large, int32_t n_half, double margin) {
    int32_t per_plane = (n_grid + n_large + HALF_CHUNK - 1) / HALF_CHUNK;
    if (n_half == 0 || per_plane == 0) {
        return 1;
    }
    half_job job = {st, shapes, n_grid, n_large, per_plane, margin};
    int32_t chunks = n_half * per_plane;
    /* the grid's room is reused: its pairs were copied out */
    int64_t total = nscd__run_chunks(st, al, st->parallel, chunks, sizeof(nscd__pair),
                                     &st->half_capacity, half_chunk, &job);
    return append_chunk_pairs(st, al, chunks, st->half_capacity, total);
}

nscd_status nscd__broad_phase(nscd__collision_state *st, const nscd_allocator *al,
                              const nscd__collision_shape *shapes, int32_t n, double margin,
                              const struct nscd__parallel *parallel) {
    st->n_pairs = 0;
    if (parallel != NULL &&
        !nscd__buffer_reserve(al, &st->bounds, 7 * ((size_t)n / BOUNDS_CHUNK + 1) * sizeof(double),
                              0)) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    int32_t n_grid, n_large, n_half;
    classify(st, shapes, n, &n_grid, &n_large, &n_half);
    uint64_t stride[3] = {0, 0, 0};
    int32_t n_cells = n_grid > 0 ? build_grid(st, &n_grid, &n_large, stride) : 0;
    pack_items(st, shapes, n_grid);
    int grid = parallel != NULL ? grid_pairs_threaded(st, al, n_cells, stride, margin, parallel)
                                : grid_pairs(st, al, n_cells, stride, margin);
    if (!grid || !large_pairs(st, al, shapes, n_grid, n_large) ||
        !(parallel != NULL
              ? half_space_pairs_threaded(st, al, shapes, n_grid, n_large, n_half, margin)
              : half_space_pairs(st, al, shapes, n_grid, n_large, n_half, margin))) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    return NSCD_OK;
}
