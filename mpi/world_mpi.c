/* The distributed world's handle, bodies and copy-out (docs/distributed.md). */
#include <math.h>
#include <string.h>

#include "core/memory.h"
#include "mpi/world_mpi_impl.h"

/* ------------------------------------------------------------ helpers */

nscd_status nscd__mpi_reserve(nscd_world_mpi *w, void **block, size_t *capacity, size_t needed,
                              size_t size) {
    if (needed <= *capacity) {
        return NSCD_OK;
    }
    size_t cap = *capacity ? *capacity : 64;
    while (cap < needed) {
        cap *= 2;
    }
    void *fresh = nscd__alloc_array(&w->allocator, cap, size);
    if (fresh == NULL) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    nscd__free(&w->allocator, *block, *capacity * size);
    *block = fresh;
    *capacity = cap;
    return NSCD_OK;
}

/* Grows the per-slot tables, keeping their content. */
nscd_status nscd__mpi_reserve_slots(nscd_world_mpi *w) {
    int32_t needed = w->local->n_slots;
    if (needed <= w->slots_capacity) {
        return NSCD_OK;
    }
    size_t old = (size_t)w->slots_capacity, cap = old ? 2 * old : 64;
    while (cap < (size_t)needed) {
        cap *= 2;
    }
    int32_t *owner = nscd__alloc_array(&w->allocator, cap, sizeof *owner);
    uint64_t *user = nscd__alloc_array(&w->allocator, cap, sizeof *user);
    uint32_t *mark = nscd__alloc_array(&w->allocator, cap, sizeof *mark);
    if (owner == NULL || user == NULL || mark == NULL) {
        nscd__free(&w->allocator, owner, cap * sizeof *owner);
        nscd__free(&w->allocator, user, cap * sizeof *user);
        nscd__free(&w->allocator, mark, cap * sizeof *mark);
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    if (old > 0) {
        memcpy(owner, w->slot_owner, old * sizeof *owner);
        memcpy(user, w->slot_user, old * sizeof *user);
        memcpy(mark, w->slot_mark, old * sizeof *mark);
    }
    memset(mark + old, 0, (cap - old) * sizeof *mark);
    nscd__free(&w->allocator, w->slot_owner, old * sizeof *owner);
    nscd__free(&w->allocator, w->slot_user, old * sizeof *user);
    nscd__free(&w->allocator, w->slot_mark, old * sizeof *mark);
    w->slot_owner = owner;
    w->slot_user = user;
    w->slot_mark = mark;
    w->slots_capacity = (int32_t)cap;
    return NSCD_OK;
}

/* ------------------------------------------------------------ handle */

nscd_status nscd_world_mpi_desc_init(nscd_world_mpi_desc *desc, size_t struct_size) {
    nscd_world_mpi_desc d;
    memset(&d, 0, sizeof d);
    d.balance_contact_weight = 1.5;
    return nscd__struct_init(desc, struct_size, &d, sizeof d, NSCD__WORLD_MPI_DESC_SIZE_0_1);
}

/* The decomposition: dims (zeros filled by MPI_Dims_create), this rank's
 * cell (x slowest, z fastest, as MPI_Cart_create numbers them) and the box. */
static nscd_status decompose(nscd_world_mpi *w, const nscd_world_desc *world,
                             const nscd_world_mpi_desc *d) {
    int dims[3] = {d->dims[0], d->dims[1], d->dims[2]};
    for (int k = 0; k < 3; ++k) {
        if (dims[k] < 0 || !(world->domain_max[k] > world->domain_min[k])) {
            return NSCD_ERR_OUT_OF_RANGE;
        }
    }
    long long product =
        (long long)(dims[0] ? dims[0] : 1) * (dims[1] ? dims[1] : 1) * (dims[2] ? dims[2] : 1);
    if (product < 1 || w->size % product != 0 ||
        ((dims[0] && dims[1] && dims[2]) && product != w->size) ||
        MPI_Dims_create(w->size, 3, dims) != MPI_SUCCESS) {
        return NSCD_ERR_INVALID_ARGUMENT;
    }
    int rest = w->rank;
    for (int k = 2; k >= 0; --k) {
        w->dims[k] = dims[k];
        w->coords[k] = rest % dims[k];
        rest /= dims[k];
        w->lower[k] = world->domain_min[k];
        w->upper[k] = world->domain_max[k];
        w->width[k] = (world->domain_max[k] - world->domain_min[k]) / dims[k];
    }
    w->halo_option = d->halo;
    w->balance_every = d->balance_every;
    double weight = d->balance_contact_weight;
    if (!(d->halo >= 0.0 && d->balance_every >= 0 && weight >= 0.0 && weight <= 1e6)) {
        return NSCD_ERR_OUT_OF_RANGE; /* also NaN */
    }
    w->balance_contact_weight = llround(weight * NSCD__MPI_BALANCE_UNIT);
    return NSCD_OK;
}

/* The equal cells' boundaries, the tables of the near ranks, the requests,
 * the plan's partners, the balance's histogram, the mixed reduction. */
static nscd_status allocate_tables(nscd_world_mpi *w) {
    size_t n = (size_t)w->size, cuts = (size_t)w->dims[0] + w->dims[1] + w->dims[2] + 3;
    w->cut = nscd__alloc_array(&w->allocator, cuts, sizeof(double));
    w->near = nscd__alloc_array(&w->allocator, n, 1);
    w->near_list = nscd__alloc_array(&w->allocator, n, sizeof(int32_t));
    w->plan.partners = nscd__alloc_array(&w->allocator, n, sizeof(int32_t));
    w->requests = nscd__alloc_array(&w->allocator, 2 * n, sizeof(MPI_Request));
    w->histogram =
        nscd__alloc_array(&w->allocator, 3 * (size_t)NSCD__MPI_BALANCE_BINS, sizeof(int64_t));
    if (w->cut == NULL || w->near == NULL || w->near_list == NULL || w->plan.partners == NULL ||
        w->requests == NULL || w->histogram == NULL) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    memset(w->near, 0, n);
    int32_t first = 0;
    for (int k = 0; k < 3; ++k) {
        w->cut_first[k] = first;
        for (int32_t c = 0; c <= w->dims[k]; ++c) {
            w->cut[first + c] = c == w->dims[k] ? w->upper[k] : w->lower[k] + c * w->width[k];
        }
        first += w->dims[k] + 1;
    }
    return NSCD_OK;
}

/* v[0..3] maxima, v[4..7] sums (the operation of nscd__mpi_mixed). */
static void mixed_op(void *in, void *inout, int *len, MPI_Datatype *type) {
    (void)type;
    const double *a = in;
    double *b = inout;
    for (int j = 0; j + NSCD__MPI_MIXED <= *len; j += NSCD__MPI_MIXED) {
        for (int k = 0; k < NSCD__MPI_MIXED / 2; ++k) {
            b[j + k] = a[j + k] > b[j + k] ? a[j + k] : b[j + k];
        }
        for (int k = NSCD__MPI_MIXED / 2; k < NSCD__MPI_MIXED; ++k) {
            b[j + k] = a[j + k] + b[j + k];
        }
    }
}

void nscd__mpi_mixed(nscd_world_mpi *w, double v[NSCD__MPI_MIXED]) {
    MPI_Allreduce(MPI_IN_PLACE, v, NSCD__MPI_MIXED, MPI_DOUBLE, w->mixed, w->comm);
}

/* Every rank gets the most negative status of any rank. */
static nscd_status agree(MPI_Comm comm, nscd_status rc) {
    int mine = rc, all = rc;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm);
    return all;
}

static nscd_status create_local(nscd_world_mpi *w, int32_t comm_f, const nscd_world_desc *world,
                                const nscd_world_mpi_desc *desc) {
    nscd_world_mpi_desc d;
    nscd_world_mpi_desc_init(&d, sizeof d);
    if (desc != NULL &&
        nscd__struct_read(&d, sizeof d, desc, NSCD__WORLD_MPI_DESC_SIZE_0_1) != NSCD_OK) {
        return NSCD_ERR_STRUCT_SIZE;
    }
    nscd_world_desc given;
    nscd_world_desc_init(&given, sizeof given);
    nscd_status rc = nscd__struct_read(&given, sizeof given, world, NSCD__WORLD_DESC_SIZE_0_2);
    if (rc != NSCD_OK) {
        return rc;
    }
    if (MPI_Comm_dup(MPI_Comm_f2c((MPI_Fint)comm_f), &w->comm) != MPI_SUCCESS) {
        return NSCD_ERR_INVALID_ARGUMENT;
    }
    MPI_Comm_rank(w->comm, &w->rank);
    MPI_Comm_size(w->comm, &w->size);
    rc = decompose(w, &given, &d);
    if (rc == NSCD_OK) {
        rc = allocate_tables(w);
    }
    if (rc == NSCD_OK) {
        rc =
            MPI_Op_create(mixed_op, 1, &w->mixed) == MPI_SUCCESS ? NSCD_OK : NSCD_ERR_OUT_OF_MEMORY;
    }
    if (rc == NSCD_OK) {
        rc = nscd_world_create(&given, &w->local);
    }
    size_t n = (size_t)w->size + 1;
    if (rc == NSCD_OK) {
        int **ints[4] = {&w->send_count, &w->send_displ, &w->recv_count, &w->recv_displ};
        for (int k = 0; k < 4; ++k) {
            *ints[k] = nscd__alloc_array(&w->allocator, n, sizeof(int));
            rc = *ints[k] == NULL ? NSCD_ERR_OUT_OF_MEMORY : rc;
        }
        w->rank_bytes = nscd__alloc_array(&w->allocator, 2 * n, sizeof(size_t));
        rc = w->rank_bytes == NULL ? NSCD_ERR_OUT_OF_MEMORY : rc;
        w->plan.send_offset = nscd__alloc_array(&w->allocator, n, sizeof(int32_t));
        if (w->plan.send_offset == NULL) {
            rc = NSCD_ERR_OUT_OF_MEMORY;
        }
    }
    return rc;
}

nscd_status nscd_world_mpi_create(int32_t comm_f, const nscd_world_desc *world,
                                  const nscd_world_mpi_desc *desc, nscd_world_mpi **out) {
    if (world == NULL || out == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd_allocator a = nscd__allocator_resolve(&world->allocator);
    nscd_world_mpi *w = nscd__alloc(&a, sizeof *w);
    if (w == NULL) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    memset(w, 0, sizeof *w);
    w->comm = MPI_COMM_NULL;
    w->mixed = MPI_OP_NULL;
    w->allocator = a;
    w->diag.log = world->log;
    w->diag.log_user = world->log_user;
    nscd_status rc = create_local(w, comm_f, world, desc);
    if (w->comm != MPI_COMM_NULL) {
        rc = agree(w->comm, rc);
    }
    if (rc != NSCD_OK) {
        nscd_world_mpi_destroy(w);
        return rc;
    }
    memset(w->plan.send_offset, 0, ((size_t)w->size + 1) * sizeof(int32_t));
    *out = w;
    return NSCD_OK;
}

void nscd_world_mpi_destroy(nscd_world_mpi *w) {
    if (w == NULL) {
        return;
    }
    nscd_allocator a = w->allocator;
    size_t n = (size_t)w->size + 1, s = (size_t)w->slots_capacity;
    nscd_world_destroy(w->local);
    nscd__free(&a, w->slot_owner, s * sizeof(int32_t));
    nscd__free(&a, w->slot_user, s * sizeof(uint64_t));
    nscd__free(&a, w->slot_mark, s * sizeof(uint32_t));
    nscd__free(&a, w->plan.send, (size_t)w->plan.send_capacity * sizeof(nscd__mpi_link));
    nscd__free(&a, w->plan.send_offset, n * sizeof(int32_t));
    nscd__free(&a, w->send_bytes, w->send_bytes_capacity);
    nscd__free(&a, w->recv_bytes, w->recv_bytes_capacity);
    nscd__free(&a, w->send_real, w->send_real_capacity * sizeof(double));
    nscd__free(&a, w->recv_real, w->recv_real_capacity * sizeof(double));
    int *ints[4] = {w->send_count, w->send_displ, w->recv_count, w->recv_displ};
    for (int k = 0; k < 4; ++k) {
        nscd__free(&a, ints[k], n * sizeof(int));
    }
    nscd__free(&a, w->rank_bytes, 2 * n * sizeof(size_t));
    nscd__free(&a, w->index_bytes, w->index_bytes_capacity);
    nscd__free(&a, w->start_velocity, w->velocity_capacity * sizeof(double));
    nscd__free(&a, w->change, w->change_capacity * sizeof(double));
    nscd__free(&a, w->start_impulse, w->impulse_capacity * sizeof(double));
    size_t cuts = (size_t)w->dims[0] + w->dims[1] + w->dims[2] + 3, size = (size_t)w->size;
    nscd__free(&a, w->cut, cuts * sizeof(double));
    nscd__free(&a, w->near, size);
    nscd__free(&a, w->near_list, size * sizeof(int32_t));
    nscd__free(&a, w->plan.partners, size * sizeof(int32_t));
    nscd__free(&a, w->requests, 2 * size * sizeof(MPI_Request));
    nscd__free(&a, w->histogram, 3 * (size_t)NSCD__MPI_BALANCE_BINS * sizeof(int64_t));
    nscd__free(&a, w->slot_cells, w->slot_cells_capacity * sizeof *w->slot_cells);
    nscd__free(&a, w->slot_bound, w->slot_bound_capacity * sizeof *w->slot_bound);
    nscd__free(&a, w->shared, w->shared_capacity * sizeof *w->shared);
    if (w->mixed != MPI_OP_NULL) {
        MPI_Op_free(&w->mixed);
    }
    if (w->comm != MPI_COMM_NULL) {
        MPI_Comm_free(&w->comm);
    }
    nscd__free(&a, w, sizeof *w);
}

const char *nscd_world_mpi_last_error(const nscd_world_mpi *w) {
    return w == NULL ? "null world handle" : w->diag.last_error;
}

double nscd_world_mpi_time(const nscd_world_mpi *w) {
    return w == NULL ? 0.0 : nscd_world_time(w->local);
}

nscd_status nscd_world_mpi_subdomain(const nscd_world_mpi *w, int32_t *rank, int32_t *size,
                                     double lower[3], double upper[3]) {
    if (w == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    if (rank != NULL) {
        *rank = w->rank;
    }
    if (size != NULL) {
        *size = w->size;
    }
    for (int k = 0; k < 3; ++k) {
        double lo, hi;
        nscd__mpi_cell_bounds(w, k, w->coords[k], &lo, &hi);
        if (lower != NULL) {
            lower[k] = lo;
        }
        if (upper != NULL) {
            upper[k] = hi;
        }
    }
    return NSCD_OK;
}

nscd_status nscd_world_mpi_balance(nscd_world_mpi *w) {
    if (w == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd__diag_clear(&w->diag);
    nscd_status rc = agree(w->comm, w->broken ? NSCD_ERR_STATE : NSCD_OK);
    if (rc != NSCD_OK) {
        return nscd__fail(&w->diag, rc, "a failed migration: the world must be destroyed");
    }
    return nscd__mpi_balance(w);
}

/* ------------------------------------------------------------ bodies */

nscd_status nscd_world_mpi_add_material(nscd_world_mpi *w, double friction, int32_t *material) {
    if (w == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd__diag_clear(&w->diag);
    nscd_status rc = nscd_world_add_material(w->local, friction, material);
    return rc == NSCD_OK ? rc : nscd__fail(&w->diag, rc, "%s", nscd_world_last_error(w->local));
}

nscd_status nscd_world_mpi_set_pair_friction(nscd_world_mpi *w, int32_t material_a,
                                             int32_t material_b, double friction) {
    if (w == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd__diag_clear(&w->diag);
    nscd_status rc = nscd_world_set_pair_friction(w->local, material_a, material_b, friction);
    return rc == NSCD_OK ? rc : nscd__fail(&w->diag, rc, "%s", nscd_world_last_error(w->local));
}

nscd_status nscd_world_mpi_add_body(nscd_world_mpi *w, const nscd_body_desc *body,
                                    const nscd_shape_desc *shapes, int32_t n_shapes,
                                    uint64_t *global_id) {
    if (w == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd__diag_clear(&w->diag);
    if (body == NULL || global_id == NULL) {
        return nscd__fail(&w->diag, NSCD_ERR_NULL_POINTER, "body or global_id is NULL");
    }
    nscd_body_desc b;
    nscd_body_desc_init(&b, sizeof b);
    if (nscd__struct_read(&b, sizeof b, body, NSCD__BODY_DESC_SIZE_0_2) != NSCD_OK) {
        return nscd__fail(&w->diag, NSCD_ERR_STRUCT_SIZE, "body desc struct_size");
    }
    bool fixed = b.type != NSCD_BODY_DYNAMIC;
    uint64_t count = fixed ? w->added_fixed : w->added_dynamic;
    if (count + 1 >= ((uint64_t)1 << NSCD__MPI_RANK_SHIFT)) {
        return nscd__fail(&w->diag, NSCD_ERR_OUT_OF_RANGE, "2^40 bodies added on this rank");
    }
    uint64_t gid = fixed ? NSCD__MPI_FIXED_BIT | (count + 1)
                         : ((uint64_t)w->rank << NSCD__MPI_RANK_SHIFT) | (count + 1);
    uint64_t user = b.user_id;
    b.user_id = gid;
    nscd_body_id id;
    nscd_status rc = nscd_world_add_body(w->local, &b, shapes, n_shapes, &id);
    if (rc != NSCD_OK) {
        return nscd__fail(&w->diag, rc, "%s", nscd_world_last_error(w->local));
    }
    if (nscd__mpi_reserve_slots(w) != NSCD_OK) {
        nscd_world_remove_body(w->local, id);
        return nscd__fail(&w->diag, NSCD_ERR_OUT_OF_MEMORY, "slot tables");
    }
    int32_t slot = (int32_t)(id & 0xffffffffu);
    w->slot_owner[slot] = fixed ? NSCD__MPI_EVERY_RANK : w->rank;
    w->slot_user[slot] = user;
    if (fixed) {
        w->added_fixed++;
    } else {
        w->added_dynamic++;
    }
    *global_id = gid;
    return NSCD_OK;
}

/* Dense index of the dynamic body with global id gid owned here, or -1. */
static int32_t find_owned(const nscd_world_mpi *w, uint64_t gid) {
    const nscd_world *l = w->local;
    for (int32_t i = 0; i < l->n_bodies; ++i) {
        if (l->type[i] == NSCD_BODY_DYNAMIC && l->user_id[i] == gid && nscd__mpi_owned(w, i)) {
            return i;
        }
    }
    return -1;
}

nscd_status nscd_world_mpi_remove_body(nscd_world_mpi *w, uint64_t global_id) {
    if (w == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd__diag_clear(&w->diag);
    int32_t i = find_owned(w, global_id);
    if (i < 0) {
        return nscd__fail(&w->diag, NSCD_ERR_STALE_HANDLE,
                          "body %llu is not a dynamic body owned by rank %d",
                          (unsigned long long)global_id, w->rank);
    }
    nscd__world_kill(w->local, i);
    return NSCD_OK;
}

/* ------------------------------------------------------------ copy-out */

int32_t nscd_world_mpi_body_count(const nscd_world_mpi *w) {
    if (w == NULL) {
        return 0;
    }
    int32_t n = 0;
    for (int32_t i = 0; i < w->local->n_bodies; ++i) {
        n += w->local->type[i] == NSCD_BODY_DYNAMIC && nscd__mpi_owned(w, i);
    }
    return n;
}

nscd_status nscd_world_mpi_global_count(nscd_world_mpi *w, int64_t *count, uint64_t *id_checksum,
                                        int64_t *shadows) {
    if (w == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    const nscd_world *l = w->local;
    int64_t mine[2] = {0, 0}, all[2];
    uint64_t sum = 0, total = 0;
    for (int32_t i = 0; i < l->n_bodies; ++i) {
        if (l->type[i] != NSCD_BODY_DYNAMIC) {
            continue;
        }
        if (nscd__mpi_owned(w, i)) {
            mine[0]++;
            sum += l->user_id[i];
        } else {
            mine[1]++;
        }
    }
    MPI_Allreduce(mine, all, 2, MPI_INT64_T, MPI_SUM, w->comm);
    MPI_Allreduce(&sum, &total, 1, MPI_UINT64_T, MPI_SUM, w->comm);
    if (count != NULL) {
        *count = all[0];
    }
    if (id_checksum != NULL) {
        *id_checksum = total;
    }
    if (shadows != NULL) {
        *shadows = all[1];
    }
    return NSCD_OK;
}

static void copy_body(const nscd_world_mpi *w, int32_t i, size_t k, uint64_t *global_ids,
                      uint64_t *user_ids, double *positions, double *orientations,
                      double *velocities, double *angular_velocities) {
    const nscd_world *l = w->local;
    if (global_ids != NULL) {
        global_ids[k] = l->user_id[i];
    }
    if (user_ids != NULL) {
        user_ids[k] = w->slot_user[nscd__mpi_slot(l, i)];
    }
    if (positions != NULL) {
        memcpy(positions + 3 * k, l->position + 3 * (size_t)i, 3 * sizeof(double));
    }
    if (orientations != NULL) {
        memcpy(orientations + 4 * k, l->orientation + 4 * (size_t)i, 4 * sizeof(double));
    }
    if (velocities != NULL) {
        memcpy(velocities + 3 * k, l->velocity + 3 * (size_t)i, 3 * sizeof(double));
    }
    if (angular_velocities != NULL) {
        memcpy(angular_velocities + 3 * k, l->omega + 3 * (size_t)i, 3 * sizeof(double));
    }
}

nscd_status nscd_world_mpi_get_bodies(const nscd_world_mpi *w, int32_t capacity, int32_t *count,
                                      uint64_t *global_ids, uint64_t *user_ids, double *positions,
                                      double *orientations, double *velocities,
                                      double *angular_velocities) {
    if (w == NULL || count == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    int32_t n = nscd_world_mpi_body_count(w);
    *count = n;
    if (n > capacity) {
        return NSCD_ERR_BUFFER_TOO_SMALL;
    }
    size_t k = 0;
    for (int32_t i = 0; i < w->local->n_bodies; ++i) {
        if (w->local->type[i] == NSCD_BODY_DYNAMIC && nscd__mpi_owned(w, i)) {
            copy_body(w, i, k++, global_ids, user_ids, positions, orientations, velocities,
                      angular_velocities);
        }
    }
    return NSCD_OK;
}

/* ------------------------------------------------------------ state, contacts */

/* Dense index of the body with global id gid that this rank may set: a
 * replicated body, or a dynamic one it owns; -1 otherwise. */
static int32_t find_settable(const nscd_world_mpi *w, uint64_t gid) {
    const nscd_world *l = w->local;
    for (int32_t i = 0; i < l->n_bodies; ++i) {
        if (l->type[i] >= 0 && l->user_id[i] == gid) {
            int32_t owner = w->slot_owner[nscd__mpi_slot(l, i)];
            return owner == NSCD__MPI_EVERY_RANK || owner == w->rank ? i : -1;
        }
    }
    return -1;
}

nscd_status nscd_world_mpi_set_body(nscd_world_mpi *w, uint64_t global_id, const double *position,
                                    const double *orientation, const double *velocity,
                                    const double *angular_velocity) {
    if (w == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd__diag_clear(&w->diag);
    int32_t i = find_settable(w, global_id);
    if (i < 0) {
        return nscd__fail(&w->diag, NSCD_ERR_STALE_HANDLE, "body %llu is not set by rank %d",
                          (unsigned long long)global_id, w->rank);
    }
    nscd_status rc = nscd_world_set_body(w->local, w->local->id[i], position, orientation, velocity,
                                         angular_velocity);
    return rc == NSCD_OK ? rc : nscd__fail(&w->diag, rc, "%s", nscd_world_last_error(w->local));
}

/* Both bodies of a contact record still live (the outlet removes bodies
 * after the contacts were stored), as nscd_world_get_contacts() filters. */
static bool contact_alive(const nscd_world *l, const nscd__world_record *r) {
    return nscd__world_lookup(l, r->id_a) >= 0 && nscd__world_lookup(l, r->id_b) >= 0;
}

nscd_status nscd_world_mpi_get_contacts(const nscd_world_mpi *w, int32_t capacity, int32_t *count,
                                        uint64_t *body_a, uint64_t *body_b, double *points,
                                        double *normals, double *gaps, double *impulses) {
    if (w == NULL || count == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    const nscd_world *l = w->local;
    int32_t n = 0;
    for (int32_t j = 0; j < l->n_records; ++j) {
        n += contact_alive(l, &l->records[j]);
    }
    *count = n;
    if (n > capacity) {
        return NSCD_ERR_BUFFER_TOO_SMALL;
    }
    size_t k = 0;
    for (int32_t j = 0; j < l->n_records; ++j) {
        const nscd__world_record *r = &l->records[j];
        if (!contact_alive(l, r)) {
            continue;
        }
        if (body_a != NULL) {
            body_a[k] = l->user_id[nscd__world_lookup(l, r->id_a)];
        }
        if (body_b != NULL) {
            body_b[k] = l->user_id[nscd__world_lookup(l, r->id_b)];
        }
        if (points != NULL) {
            memcpy(points + 3 * k, r->point, sizeof r->point);
        }
        if (normals != NULL) {
            memcpy(normals + 3 * k, r->normal, sizeof r->normal);
        }
        if (gaps != NULL) {
            gaps[k] = r->gap;
        }
        if (impulses != NULL) {
            memcpy(impulses + 3 * k, r->x, sizeof r->x);
        }
        ++k;
    }
    return NSCD_OK;
}
