/* Ownership, shadows and migration (docs/distributed.md, "Ownership").
 *
 * Before each step every owner decides, from the body's centre, its new
 * owner, and from its bounding sphere widened by the halo the ranks that
 * need a copy (the owner and the shadows); it sends the body's row to each
 * of them but itself. A rank that receives a body it holds updates the
 * copy in place (so the local id, and the contact keys and warm start built
 * on it, survive), else appends it. Shadows that nobody sent are removed.
 * The plan of the sweeps' exchanges follows from the same rule. The rows
 * travel point to point between near ranks (all-to-all for a step where a
 * body needs a copy farther away). The cuts are equal cells, or moved to
 * the quantiles of the bodies' weight (one unit each, and more for the
 * contacts they resolved) by nscd__mpi_balance. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collision/hull.h"
#include "core/memory.h"
#include "mpi/world_mpi_impl.h"

/* What travels for one body: its row, the caller's user id and the new
 * owner, then its shapes, then for each convex shape in shape order its
 * point count (int64) and points (3 doubles each; the receiver rebuilds
 * the hulls from them: the
 * build is deterministic, so every rank holds the same hull). Ranks run
 * the same binary (a homogeneous cluster), so the structs travel as bytes;
 * a shape's hull pointer travels too but is meaningless on another rank. */
typedef struct body_message {
    nscd__world_row row;
    uint64_t user;
    int32_t owner, pad;
} body_message;

static size_t message_size(int32_t n_shapes) {
    return sizeof(body_message) + (size_t)n_shapes * sizeof(nscd__world_shape);
}

/* Bytes of the convex shapes' points that follow n shapes. */
static size_t points_size(const nscd__world_shape *shapes, int32_t n) {
    size_t bytes = 0;
    for (int32_t s = 0; s < n; ++s) {
        if (shapes[s].type == NSCD_SHAPE_CONVEX && shapes[s].hull != NULL) {
            bytes += sizeof(int64_t) + 3 * (size_t)shapes[s].hull->n_points * sizeof(double);
        }
    }
    return bytes;
}

/* The whole message of local body i. */
static size_t body_message_size(const nscd_world *l, int32_t i) {
    return message_size(l->shape_count[i]) +
           points_size(&l->shapes[l->shape_first[i]], l->shape_count[i]);
}

/* ------------------------------------------------------------ geometry */

/* Cell index of coordinate x on axis k; the outer cells extend to infinity.
 * Equal cells: the division of the first release; moved cuts: the number of
 * inner cuts at or below x (a binary search). NaN is in cell 0. */
static int32_t cell_of(const nscd_world_mpi *w, int k, double x) {
    if (w->dims[k] == 1) {
        return 0;
    }
    if (!w->cuts_moved) {
        double t = (x - w->lower[k]) / w->width[k];
        if (!(t >= 1.0)) { /* also NaN */
            return 0;
        }
        if (t >= (double)(w->dims[k] - 1)) {
            return w->dims[k] - 1;
        }
        return (int32_t)t;
    }
    const double *b = w->cut + w->cut_first[k];
    int32_t lo = 0, hi = w->dims[k] - 1; /* the answer is in [lo, hi] */
    if (!(x >= b[1])) {
        return 0;
    }
    while (lo < hi) { /* the largest c with b[c] <= x (b[0] is never read) */
        int32_t mid = lo + (hi - lo + 1) / 2;
        if (b[mid] <= x) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    return lo;
}

void nscd__mpi_cell_bounds(const nscd_world_mpi *w, int k, int32_t c, double *lo, double *hi) {
    if (!w->cuts_moved) {
        *lo = w->lower[k] + c * w->width[k];
        *hi = c + 1 == w->dims[k] ? w->upper[k] : *lo + w->width[k];
        return;
    }
    const double *b = w->cut + w->cut_first[k];
    *lo = b[c];
    *hi = b[c + 1];
}

static int32_t rank_of(const nscd_world_mpi *w, const int32_t c[3]) {
    return (c[0] * w->dims[1] + c[1]) * w->dims[2] + c[2];
}

int32_t nscd__mpi_owner_of(const nscd_world_mpi *w, const double x[3]) {
    int32_t c[3] = {cell_of(w, 0, x[0]), cell_of(w, 1, x[1]), cell_of(w, 2, x[2])};
    return rank_of(w, c);
}

/* Bounding radius of body i about its centre of mass, from its shapes (the
 * writers' radius of a world body is the first sphere's, not a bound). */
static double bound_of(const nscd_world *l, int32_t i) {
    double bound = 0.0;
    for (int32_t s = 0; s < l->shape_count[i]; ++s) {
        const nscd__world_shape *sh = &l->shapes[l->shape_first[i] + s];
        const double *p = sh->position, *e = sh->half_extents;
        double c = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]), r = 0.0;
        switch (sh->type) {
        case NSCD_SHAPE_SPHERE: r = sh->radius; break;
        case NSCD_SHAPE_BOX: r = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]); break;
        case NSCD_SHAPE_CAPSULE: r = sh->half_height + sh->radius; break;
        case NSCD_SHAPE_CYLINDER:
            r = sqrt(sh->half_height * sh->half_height + sh->radius * sh->radius);
            break;
        case NSCD_SHAPE_CONVEX: r = sh->hull->radius; break;
        default: r = 0.0; break;
        }
        bound = c + r > bound ? c + r : bound;
    }
    return bound;
}

/* Grows a per-slot cache to the local world's slots, keeping its content
 * (new entries have gid 0, which no dynamic body has). */
static nscd_status reserve_cache(nscd_world_mpi *w, void **block, size_t *capacity, size_t size) {
    size_t needed = (size_t)w->local->n_slots + 1;
    if (needed <= *capacity) {
        return NSCD_OK;
    }
    size_t cap = *capacity ? 2 * *capacity : 64;
    while (cap < needed) {
        cap *= 2;
    }
    char *fresh = nscd__alloc_array(&w->allocator, cap, size);
    if (fresh == NULL) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    memset(fresh, 0, cap * size);
    if (*capacity > 0) {
        memcpy(fresh, *block, *capacity * size);
    }
    nscd__free(&w->allocator, *block, *capacity * size);
    *block = fresh;
    *capacity = cap;
    return NSCD_OK;
}

/* The bound of dynamic body i, from the slot's cache (the shapes of a body
 * never change; a slot reused by another body has another global id). */
static double cached_bound(nscd_world_mpi *w, int32_t i) {
    const nscd_world *l = w->local;
    int32_t slot = nscd__mpi_slot(l, i);
    if ((size_t)slot >= w->slot_bound_capacity) { /* the cache could not grow */
        return bound_of(l, i);
    }
    nscd__mpi_bound *b = &w->slot_bound[slot];
    if (b->gid != l->user_id[i]) {
        b->gid = l->user_id[i];
        b->radius = bound_of(l, i);
    }
    return b->radius;
}

/* Both caches for every slot of the local world (when memory fails, the
 * values are computed each time instead). */
static void reserve_caches(nscd_world_mpi *w) {
    reserve_cache(w, (void **)&w->slot_bound, &w->slot_bound_capacity, sizeof *w->slot_bound);
    reserve_cache(w, (void **)&w->slot_cells, &w->slot_cells_capacity, sizeof *w->slot_cells);
}

double nscd__mpi_local_bound(nscd_world_mpi *w) {
    const nscd_world *l = w->local;
    double mine = 0.0;
    reserve_caches(w);
    for (int32_t i = 0; w->halo_option == 0.0 && i < l->n_bodies; ++i) {
        if (l->type[i] == NSCD_BODY_DYNAMIC) {
            double b = cached_bound(w, i);
            mine = b > mine ? b : mine;
        }
    }
    return mine;
}

/* The cells a body's widened bounding sphere overlaps (its bounding box:
 * a superset of the exact test, never a miss) and its new owner, computed
 * once per migration into the slot's cache. */
static const nscd__mpi_cells *cells_of(nscd_world_mpi *w, int32_t i, nscd__mpi_cells *scratch) {
    const nscd_world *l = w->local;
    int32_t slot = nscd__mpi_slot(l, i);
    nscd__mpi_cells *c = scratch;
    if ((size_t)slot < w->slot_cells_capacity) {
        c = &w->slot_cells[slot];
        if (c->mark == w->epoch && c->gid == l->user_id[i]) {
            return c;
        }
    }
    const double *x = l->position + 3 * (size_t)i;
    double reach = cached_bound(w, i) + w->halo;
    for (int k = 0; k < 3; ++k) {
        c->lo[k] = cell_of(w, k, x[k] - reach);
        c->hi[k] = cell_of(w, k, x[k] + reach);
    }
    c->owner = nscd__mpi_owner_of(w, x);
    c->gid = l->user_id[i];
    c->mark = w->epoch;
    return c;
}

/* The halo in use: the option, or the largest bound of a dynamic body over
 * every rank (max_bound, agreed by the caller) plus the contact margin. With
 * it, a body b that touches body a (centres at most r_a + r_b + margin
 * apart) has a copy on a's owner: its sphere widened by the halo contains
 * a's centre. Then the ranks near this one: those whose subdomain lies
 * within twice the reach (largest bound + halo) along every axis, a
 * symmetric relation (both sides evaluate the same expression). */
static void update_halo_and_near(nscd_world_mpi *w) {
    w->halo = w->halo_option > 0.0 ? w->halo_option : w->max_bound + w->local->desc.contact_margin;
    double reach = 2.0 * (w->max_bound + w->halo), mine[3][2];
    for (int k = 0; k < 3; ++k) {
        nscd__mpi_cell_bounds(w, k, w->coords[k], &mine[k][0], &mine[k][1]);
        mine[k][0] = w->coords[k] == 0 ? -INFINITY : mine[k][0];
        mine[k][1] = w->coords[k] + 1 == w->dims[k] ? INFINITY : mine[k][1];
    }
    w->n_near = 0;
    for (int32_t r = 0; r < w->size; ++r) {
        int32_t c[3] = {r / (w->dims[1] * w->dims[2]), (r / w->dims[2]) % w->dims[1],
                        r % w->dims[2]};
        bool near = r != w->rank;
        for (int k = 0; near && k < 3; ++k) {
            double lo, hi;
            nscd__mpi_cell_bounds(w, k, c[k], &lo, &hi);
            lo = c[k] == 0 ? -INFINITY : lo;
            hi = c[k] + 1 == w->dims[k] ? INFINITY : hi;
            double gap_a = lo - mine[k][1], gap_b = mine[k][0] - hi;
            near = (gap_a > gap_b ? gap_a : gap_b) <= reach;
        }
        w->near[r] = near;
        if (near) {
            w->near_list[w->n_near++] = r;
        }
    }
}

/* ------------------------------------------------------------ packing */

/* Calls visit(w, i, rank, user) for every rank but this one that needs a
 * copy of owned body i; returns whether this rank is among them. */
typedef void (*target_fn)(nscd_world_mpi *w, int32_t i, int32_t rank, void *user);

static bool for_each_target(nscd_world_mpi *w, int32_t i, target_fn visit, void *user) {
    if (w->size == 1) {
        return true;
    }
    nscd__mpi_cells scratch;
    const nscd__mpi_cells t = *cells_of(w, i, &scratch);
    if (t.lo[0] == t.hi[0] && t.lo[1] == t.hi[1] && t.lo[2] == t.hi[2] && t.owner == w->rank) {
        return true; /* the common case: one cell, this one */
    }
    int32_t c[3];
    bool here = false;
    for (c[0] = t.lo[0]; c[0] <= t.hi[0]; ++c[0]) {
        for (c[1] = t.lo[1]; c[1] <= t.hi[1]; ++c[1]) {
            for (c[2] = t.lo[2]; c[2] <= t.hi[2]; ++c[2]) {
                int32_t r = rank_of(w, c);
                if (r == w->rank) {
                    here = true;
                } else if (visit != NULL) {
                    visit(w, i, r, user);
                }
            }
        }
    }
    return here;
}

typedef struct count_state {
    size_t *bytes;
    int far;
} count_state;

static void count_target(nscd_world_mpi *w, int32_t i, int32_t rank, void *user) {
    count_state *st = user;
    st->bytes[rank] += body_message_size(w->local, i);
    st->far |= !w->near[rank];
}

static void pack_target(nscd_world_mpi *w, int32_t i, int32_t rank, void *user) {
    size_t *cursor = user;
    const nscd_world *l = w->local;
    body_message m;
    memset(&m, 0, sizeof m);
    nscd__world_get_row(l, i, &m.row);
    int32_t slot = nscd__mpi_slot(l, i);
    m.user = w->slot_user[slot];
    nscd__mpi_cells scratch;
    m.owner = cells_of(w, i, &scratch)->owner;
    char *out = w->send_bytes + cursor[rank];
    memcpy(out, &m, sizeof m);
    size_t shapes = (size_t)l->shape_count[i] * sizeof(nscd__world_shape);
    if (shapes > 0) {
        memcpy(out + sizeof m, &l->shapes[l->shape_first[i]], shapes);
    }
    out += message_size(l->shape_count[i]);
    for (int32_t s = 0; s < l->shape_count[i]; ++s) {
        const nscd__world_shape *sh = &l->shapes[l->shape_first[i] + s];
        if (sh->type == NSCD_SHAPE_CONVEX) {
            int64_t count = sh->hull->n_points;
            size_t bytes = 3 * (size_t)count * sizeof(double);
            memcpy(out, &count, sizeof count);
            memcpy(out + sizeof count, sh->hull->points, bytes);
            out += sizeof count + bytes;
        }
    }
    cursor[rank] += body_message_size(l, i);
}

static bool owned_dynamic(const nscd_world_mpi *w, int32_t i) {
    return w->local->type[i] == NSCD_BODY_DYNAMIC && nscd__mpi_owned(w, i);
}

/* Byte counts per rank (MPI counts are int: a larger message fails), then
 * the rows; *far when a body needs a copy on a rank that is not near.
 * w->rank_bytes holds the counts and the packing cursors. */
static nscd_status pack_all(nscd_world_mpi *w, int *far) {
    const nscd_world *l = w->local;
    size_t n = (size_t)w->size, *bytes = w->rank_bytes;
    memset(bytes, 0, 2 * n * sizeof *bytes);
    count_state st = {bytes, 0};
    for (int32_t i = 0; i < l->n_bodies; ++i) {
        if (owned_dynamic(w, i)) {
            for_each_target(w, i, count_target, &st);
        }
    }
    *far = st.far;
    size_t total = 0;
    nscd_status rc = NSCD_OK;
    for (size_t r = 0; r < n; ++r) {
        bytes[n + r] = total; /* cursor */
        w->send_displ[r] = (int)total;
        w->send_count[r] = (int)bytes[r];
        total += bytes[r];
        rc = bytes[r] > (size_t)INT32_MAX || total > (size_t)INT32_MAX ? NSCD_ERR_OUT_OF_RANGE : rc;
    }
    if (rc == NSCD_OK) {
        rc = nscd__mpi_reserve(w, (void **)&w->send_bytes, &w->send_bytes_capacity, total + 1, 1);
    }
    for (int32_t i = 0; rc == NSCD_OK && i < l->n_bodies; ++i) {
        if (owned_dynamic(w, i)) {
            for_each_target(w, i, pack_target, bytes + n);
        }
    }
    if (rc != NSCD_OK) { /* nothing goes out */
        memset(w->send_count, 0, n * sizeof *w->send_count);
    }
    return rc;
}

/* ------------------------------------------------------------ exchange */

/* One int per near rank each way (the non-near ones' recv set to 0): point
 * to point, no collective. */
static void exchange_ints_near(nscd_world_mpi *w, int *send, int *recv, int tag) {
    int n = 0;
    for (int r = 0; r < w->size; ++r) {
        recv[r] = 0;
    }
    for (int32_t j = 0; j < w->n_near; ++j) {
        int r = w->near_list[j];
        MPI_Irecv(&recv[r], 1, MPI_INT, r, tag, w->comm, &w->requests[n++]);
        MPI_Isend(&send[r], 1, MPI_INT, r, tag, w->comm, &w->requests[n++]);
    }
    MPI_Waitall(n, w->requests, MPI_STATUSES_IGNORE);
}

/* Displacements of the received bytes, in rank order, and room for them. */
static nscd_status receive_room(nscd_world_mpi *w) {
    size_t total = 0;
    for (int r = 0; r < w->size; ++r) {
        w->recv_displ[r] = (int)total;
        total += (size_t)w->recv_count[r];
        if (total > (size_t)INT32_MAX) {
            return NSCD_ERR_OUT_OF_RANGE;
        }
    }
    return nscd__mpi_reserve(w, (void **)&w->recv_bytes, &w->recv_bytes_capacity, total + 1, 1);
}

/* Most negative status and any far body over the ranks (one collective). */
static nscd_status agree_far(nscd_world_mpi *w, nscd_status rc, int *far) {
    int mine[2] = {-(int)rc, *far}, all[2];
    MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MAX, w->comm);
    *far = all[1];
    return (nscd_status)-all[0];
}

/* The rows: to and from the near ranks point to point, or, when some body
 * needs a copy on a rank that is not near (a body added far from its owner,
 * a jump), all-to-all. Either way the received rows lie in rank order, so
 * the result does not depend on the path. Collective. */
static nscd_status exchange_bytes(nscd_world_mpi *w, nscd_status packed, int *far) {
    exchange_ints_near(w, w->send_count, w->recv_count, NSCD__MPI_TAG_COUNT);
    nscd_status rc = agree_far(w, packed != NSCD_OK ? packed : receive_room(w), far);
    if (rc != NSCD_OK) {
        return rc; /* nothing sent */
    }
    if (*far) {
        MPI_Alltoall(w->send_count, 1, MPI_INT, w->recv_count, 1, MPI_INT, w->comm);
        int none = 0;
        rc = agree_far(w, receive_room(w), &none);
        if (rc == NSCD_OK) {
            MPI_Alltoallv(w->send_bytes, w->send_count, w->send_displ, MPI_BYTE, w->recv_bytes,
                          w->recv_count, w->recv_displ, MPI_BYTE, w->comm);
        }
        return rc;
    }
    int n = 0;
    for (int32_t j = 0; j < w->n_near; ++j) {
        int r = w->near_list[j];
        if (w->recv_count[r] > 0) {
            MPI_Irecv(w->recv_bytes + w->recv_displ[r], w->recv_count[r], MPI_BYTE, r,
                      NSCD__MPI_TAG_ROWS, w->comm, &w->requests[n++]);
        }
        if (w->send_count[r] > 0) {
            MPI_Isend(w->send_bytes + w->send_displ[r], w->send_count[r], MPI_BYTE, r,
                      NSCD__MPI_TAG_ROWS, w->comm, &w->requests[n++]);
        }
    }
    MPI_Waitall(n, w->requests, MPI_STATUSES_IGNORE);
    return NSCD_OK;
}

/* The owner's own copy: kept (as owner or shadow) or dropped. */
static void settle_own_copies(nscd_world_mpi *w) {
    nscd_world *l = w->local;
    for (int32_t i = 0; i < l->n_bodies; ++i) {
        if (!owned_dynamic(w, i)) {
            continue;
        }
        int32_t slot = nscd__mpi_slot(l, i);
        if (for_each_target(w, i, NULL, NULL)) {
            nscd__mpi_cells scratch;
            w->slot_owner[slot] = w->size == 1 ? 0 : cells_of(w, i, &scratch)->owner;
            w->slot_mark[slot] = w->epoch;
        } else {
            nscd__world_kill(l, i);
        }
    }
}

typedef struct gid_index {
    uint64_t gid;
    int32_t dense;
} gid_index;

static int compare_gid(const void *a, const void *b) {
    uint64_t x = ((const gid_index *)a)->gid, y = ((const gid_index *)b)->gid;
    return x < y ? -1 : x > y;
}

/* The bodies a received row may update, by global id (before any append),
 * in the world's persistent buffer w->index_bytes: the dynamic bodies this
 * rank does not own. A row comes from the body's owner, which is never this
 * rank, so its local copy, when there is one, is a shadow (the rank's own
 * bodies, most of them, need no index). */
static gid_index *index_by_gid(nscd_world_mpi *w, int32_t *n) {
    const nscd_world *l = w->local;
    *n = 0;
    size_t bytes = ((size_t)l->n_bodies + 1) * sizeof(gid_index);
    if (nscd__mpi_reserve(w, (void **)&w->index_bytes, &w->index_bytes_capacity, bytes, 1) !=
        NSCD_OK) {
        return NULL;
    }
    gid_index *index = (gid_index *)(void *)w->index_bytes;
    for (int32_t i = 0; i < l->n_bodies; ++i) {
        if (l->type[i] == NSCD_BODY_DYNAMIC && !nscd__mpi_owned(w, i)) {
            index[(*n)++] = (gid_index){l->user_id[i], i};
        }
    }
    qsort(index, (size_t)*n, sizeof *index, compare_gid);
    return index;
}

/* One received body: update the copy in place, or append it. */
static nscd_status receive_body(nscd_world_mpi *w, const body_message *m, nscd__world_shape *shapes,
                                const char *points, const gid_index *index, int32_t n_index) {
    nscd_world *l = w->local;
    gid_index key = {m->row.user_id, 0};
    const gid_index *hit = bsearch(&key, index, (size_t)n_index, sizeof key, compare_gid);
    int32_t slot;
    if (hit != NULL) {
        size_t i = (size_t)hit->dense;
        memcpy(l->position + 3 * i, m->row.position, sizeof m->row.position);
        memcpy(l->orientation + 4 * i, m->row.orientation, sizeof m->row.orientation);
        memcpy(l->velocity + 3 * i, m->row.velocity, sizeof m->row.velocity);
        memcpy(l->omega + 3 * i, m->row.omega, sizeof m->row.omega);
        slot = nscd__mpi_slot(l, hit->dense);
    } else {
        /* the convex shapes' hulls, rebuilt from the points that follow */
        int32_t n = m->row.shape_count;
        nscd_status rc = NSCD_OK;
        for (int32_t s = 0; s < n; ++s) {
            shapes[s].hull = NULL;
            if (shapes[s].type == NSCD_SHAPE_CONVEX && rc == NSCD_OK) {
                int64_t count;
                memcpy(&count, points, sizeof count);
                double *p = nscd__alloc_array(&l->allocator, 3 * (size_t)count, sizeof(double));
                if (p == NULL) {
                    rc = NSCD_ERR_OUT_OF_MEMORY;
                    continue;
                }
                memcpy(p, points + sizeof count, 3 * (size_t)count * sizeof(double));
                nscd__hull_status hs =
                    nscd__hull_build(&l->allocator, p, (int32_t)count, &shapes[s].hull);
                nscd__free(&l->allocator, p, 3 * (size_t)count * sizeof(double));
                rc = hs == NSCD__HULL_OK
                         ? NSCD_OK
                         : (hs == NSCD__HULL_NO_MEMORY ? NSCD_ERR_OUT_OF_MEMORY : NSCD_ERR_STATE);
                points += sizeof count + 3 * (size_t)count * sizeof(double);
            }
        }
        nscd_body_id id;
        if (rc == NSCD_OK) {
            rc = nscd__world_append_row(l, &m->row, shapes, &id);
        }
        if (rc != NSCD_OK) { /* the hulls are still ours */
            for (int32_t s = 0; s < n; ++s) {
                nscd__hull_free(&l->allocator, shapes[s].hull);
            }
            return rc;
        }
        if (nscd__mpi_reserve_slots(w) != NSCD_OK) {
            return NSCD_ERR_OUT_OF_MEMORY;
        }
        slot = (int32_t)(id & 0xffffffffu);
    }
    w->slot_owner[slot] = m->owner;
    w->slot_user[slot] = m->user;
    w->slot_mark[slot] = w->epoch;
    return NSCD_OK;
}

static nscd_status receive_all(nscd_world_mpi *w) {
    size_t total = (size_t)w->recv_displ[w->size - 1] + (size_t)w->recv_count[w->size - 1];
    if (total == 0) {
        return NSCD_OK;
    }
    int32_t n_index = 0;
    gid_index *index = index_by_gid(w, &n_index);
    if (index == NULL) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    nscd_status rc = NSCD_OK;
    for (size_t at = 0; rc == NSCD_OK && at < total;) {
        body_message m;
        memcpy(&m, w->recv_bytes + at, sizeof m);
        nscd__world_shape shapes[NSCD__WORLD_MAX_SHAPES];
        size_t bytes = (size_t)m.row.shape_count * sizeof(nscd__world_shape);
        if (m.row.shape_count < 0 || m.row.shape_count > NSCD__WORLD_MAX_SHAPES ||
            at + message_size(m.row.shape_count) > total) {
            rc = NSCD_ERR_STATE;
            break;
        }
        if (bytes > 0) {
            memcpy(shapes, w->recv_bytes + at + sizeof m, bytes);
        }
        /* the convex shapes' points: their counts say how far the message goes */
        const char *points = w->recv_bytes + at + message_size(m.row.shape_count);
        size_t end = at + message_size(m.row.shape_count);
        for (int32_t s = 0; s < m.row.shape_count && rc == NSCD_OK; ++s) {
            if (shapes[s].type == NSCD_SHAPE_CONVEX) {
                int64_t count = 0;
                if (end + sizeof count > total) {
                    rc = NSCD_ERR_STATE;
                    break;
                }
                memcpy(&count, w->recv_bytes + end, sizeof count);
                if (count < 4 || count > NSCD__HULL_MAX_POINTS ||
                    end + sizeof count + 3 * (size_t)count * sizeof(double) > total) {
                    rc = NSCD_ERR_STATE;
                    break;
                }
                end += sizeof count + 3 * (size_t)count * sizeof(double);
            }
        }
        if (rc != NSCD_OK) {
            break;
        }
        rc = receive_body(w, &m, shapes, points, index, n_index);
        at = end;
    }
    return rc;
}

/* Shadows nobody sent this time are no longer needed. */
static void drop_stale_shadows(nscd_world_mpi *w) {
    nscd_world *l = w->local;
    for (int32_t i = 0; i < l->n_bodies; ++i) {
        int32_t slot = nscd__mpi_slot(l, i);
        if (l->type[i] == NSCD_BODY_DYNAMIC && w->slot_mark[slot] != w->epoch) {
            nscd__world_kill(l, i);
        }
    }
}

/* ------------------------------------------------------------ plan */

static int compare_link(const void *a, const void *b) {
    const nscd__mpi_link *x = a, *y = b;
    if (x->rank != y->rank) {
        return x->rank < y->rank ? -1 : 1;
    }
    return x->gid < y->gid ? -1 : x->gid > y->gid;
}

static void add_send_link(nscd_world_mpi *w, int32_t i, int32_t rank, void *user) {
    (void)user;
    w->plan.send[w->plan.n_send++] =
        (nscd__mpi_link){rank, nscd__mpi_slot(w->local, i), w->local->user_id[i]};
}

static void count_link(nscd_world_mpi *w, int32_t i, int32_t rank, void *user) {
    (void)w, (void)i, (void)rank;
    ++*(int32_t *)user;
}

static void offsets(const nscd__mpi_link *links, int32_t n, int32_t size, int32_t *offset) {
    int32_t j = 0;
    for (int32_t r = 0; r <= size; ++r) {
        while (j < n && links[j].rank < r) {
            ++j;
        }
        offset[r] = j;
    }
}

/* The links of the blend: for every dynamic body held here (owned or
 * shadow), every other rank that holds it. The holders of a body are its
 * target ranks, which every holder finds alike from the same position (the
 * row of this migration), halo and cuts, so the relation is symmetric: both
 * sides of a pair list the same bodies, sorted by (rank, global id), and
 * the sweeps exchange bare arrays of 6 doubles per link. Also the ranks with
 * a link. */
static nscd_status build_plan(nscd_world_mpi *w) {
    const nscd_world *l = w->local;
    nscd__mpi_plan *p = &w->plan;
    int32_t n_links = 0;
    for (int32_t i = 0; i < l->n_bodies; ++i) {
        if (l->type[i] == NSCD_BODY_DYNAMIC) {
            for_each_target(w, i, count_link, &n_links);
        }
    }
    size_t cap = (size_t)p->send_capacity;
    if (nscd__mpi_reserve(w, (void **)&p->send, &cap, (size_t)n_links + 1, sizeof *p->send) !=
        NSCD_OK) {
        p->n_send = p->n_partners = 0;
        offsets(p->send, 0, w->size, p->send_offset);
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    p->send_capacity = (int32_t)cap;
    p->n_send = 0;
    for (int32_t i = 0; i < l->n_bodies; ++i) {
        if (l->type[i] == NSCD_BODY_DYNAMIC) {
            for_each_target(w, i, add_send_link, NULL);
        }
    }
    qsort(p->send, (size_t)p->n_send, sizeof *p->send, compare_link);
    offsets(p->send, p->n_send, w->size, p->send_offset);
    p->n_partners = 0;
    for (int32_t r = 0; r < w->size; ++r) {
        if (p->send_offset[r + 1] > p->send_offset[r]) {
            p->partners[p->n_partners++] = r;
        }
    }
    return NSCD_OK;
}

/* Both sides of every pair of ranks agree on how many bodies they share
 * (a check of the rule: a mismatch would corrupt the sweeps): point to point
 * with the near ranks (a link with any other rank is then an error), or
 * all-to-all after a far exchange. */
static nscd_status check_plan(nscd_world_mpi *w, int far) {
    for (int r = 0; r < w->size; ++r) {
        w->send_count[r] = w->plan.send_offset[r + 1] - w->plan.send_offset[r];
    }
    if (far) {
        MPI_Alltoall(w->send_count, 1, MPI_INT, w->recv_count, 1, MPI_INT, w->comm);
    } else {
        exchange_ints_near(w, w->send_count, w->recv_count, NSCD__MPI_TAG_PLAN);
    }
    nscd_status rc = NSCD_OK;
    for (int r = 0; r < w->size; ++r) {
        if (w->recv_count[r] != w->send_count[r] ||
            (!far && !w->near[r] && w->send_count[r] != 0)) {
            rc = NSCD_ERR_STATE;
        }
    }
    return rc;
}

/* The exchanges are the same on every rank whatever the local statuses (a
 * rank that failed sends empty messages), so no rank waits forever; the
 * statuses are agreed on the way (the pack and the room for the rows, before
 * any row travels) and by the caller (the rest). */
nscd_status nscd__mpi_migrate(nscd_world_mpi *w) {
    nscd__world_compact(w->local); /* removals since the last step */
    update_halo_and_near(w);
    reserve_caches(w);
    w->epoch++;
    int far = 0;
    nscd_status packed = pack_all(w, &far);
    nscd_status rc = exchange_bytes(w, packed, &far);
    if (rc != NSCD_OK) {
        return rc; /* nothing sent: the world is as it was */
    }
    settle_own_copies(w);
    rc = receive_all(w);
    if (rc == NSCD_OK) {
        drop_stale_shadows(w);
        nscd__world_compact(w->local);
        reserve_caches(w); /* the slots of the bodies received */
        rc = build_plan(w);
    }
    nscd_status checked = check_plan(w, far);
    return rc != NSCD_OK ? rc : checked;
}

/* ------------------------------------------------------------ balance */

/* Adds `weight` to the bins of the centre of body i along the cut axes. */
static void add_to_histogram(nscd_world_mpi *w, const int *axes, int n_axes, int32_t i,
                             int64_t weight) {
    const int bins = NSCD__MPI_BALANCE_BINS;
    for (int a = 0; a < n_axes; ++a) {
        int k = axes[a];
        double t =
            (w->local->position[3 * (size_t)i + k] - w->lower[k]) / (w->upper[k] - w->lower[k]);
        double u = t * bins;
        int b = !(u >= 0.0) ? 0 : u >= (double)(bins - 1) ? bins - 1 : (int)u;
        w->histogram[a * bins + b] += weight;
    }
}

/* The weight of the work along each cut axis: every owned dynamic body
 * counts one unit, and each contact resolved here in the last step counts
 * balance_contact_weight units at its resolving body (the rule of
 * keep_resolved), if the rank still owns it. The contacts are the local
 * world's records (kept for the warm start, and saved in the checkpoint,
 * so a restarted run balances as the uninterrupted one). Integers: the
 * sums over the ranks are exact, so every rank gets the same cuts. */
static void fill_histogram(nscd_world_mpi *w, const int *axes, int n_axes) {
    const nscd_world *l = w->local;
    memset(w->histogram, 0, (size_t)n_axes * NSCD__MPI_BALANCE_BINS * sizeof *w->histogram);
    for (int32_t i = 0; i < l->n_bodies; ++i) {
        if (owned_dynamic(w, i)) {
            add_to_histogram(w, axes, n_axes, i, NSCD__MPI_BALANCE_UNIT);
        }
    }
    for (int32_t j = 0; w->balance_contact_weight > 0 && j < l->n_records; ++j) {
        int32_t a = nscd__world_lookup(l, l->records[j].id_a);
        int32_t b = nscd__world_lookup(l, l->records[j].id_b), i = a;
        bool b_moves = b >= 0 && l->type[b] == NSCD_BODY_DYNAMIC;
        if (a < 0 || l->type[a] != NSCD_BODY_DYNAMIC ||
            (b_moves && l->user_id[b] < l->user_id[a])) {
            i = b;
        }
        if (i >= 0 && owned_dynamic(w, i)) {
            add_to_histogram(w, axes, n_axes, i, w->balance_contact_weight);
        }
    }
}

nscd_status nscd__mpi_balance(nscd_world_mpi *w) {
    int axes[3], n_axes = 0;
    for (int k = 0; k < 3; ++k) {
        if (w->dims[k] > 1) {
            axes[n_axes++] = k;
        }
    }
    if (n_axes == 0) {
        return NSCD_OK;
    }
    const int bins = NSCD__MPI_BALANCE_BINS;
    int64_t *h = w->histogram;
    fill_histogram(w, axes, n_axes);
    MPI_Allreduce(MPI_IN_PLACE, h, n_axes * bins, MPI_INT64_T, MPI_SUM, w->comm);
    int64_t total = 0;
    for (int b = 0; b < bins; ++b) {
        total += h[b];
    }
    if (total == 0) {
        return NSCD_OK;
    }
    /* the same integers on every rank, the same arithmetic: the same cuts */
    for (int a = 0; a < n_axes; ++a) {
        int k = axes[a];
        const int64_t *hk = h + (size_t)a * (size_t)bins;
        double *cut = w->cut + w->cut_first[k], width = (w->upper[k] - w->lower[k]) / bins;
        int64_t below = 0; /* weight in the bins before b */
        int b = 0;
        cut[0] = w->lower[k];
        for (int32_t c = 1; c < w->dims[k]; ++c) {
            double target = (double)total * c / w->dims[k];
            while (b < bins - 1 && (double)(below + hk[b]) < target) {
                below += hk[b++];
            }
            double inside = hk[b] > 0 ? (target - (double)below) / (double)hk[b] : 0.0;
            inside = inside < 0.0 ? 0.0 : inside > 1.0 ? 1.0 : inside;
            double x = w->lower[k] + ((double)b + inside) * width;
            cut[c] = x > cut[c - 1] ? x : cut[c - 1];
        }
        cut[w->dims[k]] = w->upper[k];
    }
    w->cuts_moved = 1;
    return NSCD_OK;
}
