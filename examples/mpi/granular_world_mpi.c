/* The distributed world behind the granular channel (see granular_world_mpi.h). */
#include "granular_world_mpi.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static nscd_status mpi_create(const void *context, const nscd_world_desc *desc, void **world) {
    const channel_world_mpi_config *config = context;
    *world = NULL;
    channel_world_mpi *w = calloc(1, sizeof *w);
    if (w == NULL) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &w->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &w->size);
    nscd_world_desc d = *desc;
    d.relaxation = config->relaxation;
    nscd_world_mpi_desc md;
    nscd_world_mpi_desc_init(&md, sizeof md);
    memcpy(md.dims, config->dims, sizeof md.dims);
    md.balance_every = config->balance_every;
    md.balance_contact_weight = config->balance_contact_weight;
    nscd_status st =
        nscd_world_mpi_create((int32_t)MPI_Comm_c2f(MPI_COMM_WORLD), &d, &md, &w->world);
    if (st != NSCD_OK) {
        free(w);
        return st;
    }
    *world = w;
    return NSCD_OK;
}

static void mpi_destroy(void *world) {
    channel_world_mpi *w = world;
    if (w != NULL) {
        nscd_world_mpi_destroy(w->world);
        free(w);
    }
}

static nscd_status mpi_add_material(void *world, double mu, int32_t *material) {
    channel_world_mpi *w = world;
    nscd_status st = nscd_world_mpi_add_material(w->world, mu, material);
    return st == NSCD_OK ? nscd_world_mpi_set_pair_friction(w->world, *material, 0, mu) : st;
}

/* Fixed bodies on every rank; a dynamic one on rank 0 only, counted everywhere. */
static nscd_status mpi_add_body(void *world, const nscd_body_desc *body,
                                const nscd_shape_desc *shapes, int32_t n_shapes, uint64_t *id) {
    channel_world_mpi *w = world;
    *id = 0;
    if (body->type == NSCD_BODY_DYNAMIC) {
        w->count++;
        w->checksum += body->user_id; /* rank 0's global ids are 1, 2, ... */
        if (w->rank != 0) {
            return NSCD_OK;
        }
    }
    return nscd_world_mpi_add_body(w->world, body, shapes, n_shapes, id);
}

static nscd_status mpi_set_body(void *world, uint64_t id, const double *position,
                                const double *velocity) {
    channel_world_mpi *w = world;
    return nscd_world_mpi_set_body(w->world, id, position, NULL, velocity, NULL);
}

static nscd_status mpi_step(void *world, nscd_world_step_report *report) {
    channel_world_mpi *w = world;
    return nscd_world_mpi_step(w->world, report);
}

static double mpi_time(const void *world) {
    const channel_world_mpi *w = world;
    return nscd_world_mpi_time(w->world);
}

static int32_t mpi_body_count(const void *world) {
    const channel_world_mpi *w = world;
    return nscd_world_mpi_body_count(w->world);
}

static nscd_status mpi_get_bodies(const void *world, int32_t capacity, int32_t *count,
                                  uint64_t *user_ids, double *positions, double *velocities,
                                  double *angular_velocities) {
    const channel_world_mpi *w = world;
    return nscd_world_mpi_get_bodies(w->world, capacity, count, NULL, user_ids, positions, NULL,
                                     velocities, angular_velocities);
}

static nscd_status mpi_get_contacts(const void *world, int32_t capacity, int32_t *count,
                                    uint64_t *body_a, uint64_t *body_b, double *gaps,
                                    double *impulses) {
    const channel_world_mpi *w = world;
    return nscd_world_mpi_get_contacts(w->world, capacity, count, body_a, body_b, NULL, NULL, gaps,
                                       impulses);
}

/* Every rank's points, in rank order (an Allgatherv): the inflow's free-site
 * test must see the particles of every subdomain near the plane. */
static nscd_status mpi_gather_points(void *world, double **points, int32_t *n) {
    const channel_world_mpi *w = world;
    int *counts = malloc((size_t)w->size * sizeof *counts);
    int *displs = malloc((size_t)w->size * sizeof *displs);
    int mine = 3 * *n, total = 0;
    nscd_status st = counts != NULL && displs != NULL ? NSCD_OK : NSCD_ERR_OUT_OF_MEMORY;
    int ok = st == NSCD_OK, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    double *all = NULL;
    if (all_ok) {
        MPI_Allgather(&mine, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
        for (int r = 0; r < w->size; ++r) {
            displs[r] = total;
            total += counts[r];
        }
        all = malloc(((size_t)total + 3) * sizeof *all);
        ok = all != NULL;
        MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    }
    if (all_ok) {
        MPI_Allgatherv(*points, mine, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD);
        free(*points);
        *points = all;
        *n = total / 3;
    } else {
        free(all);
        st = NSCD_ERR_OUT_OF_MEMORY;
    }
    free(counts);
    free(displs);
    return st;
}

/* 1 on every rank when `ok` holds on every rank. */
static int all_ranks(int ok) {
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all;
}

enum { HEADER = 16 }; /* the count and checksum in front of the scene's user data */

/* nscd_world_mpi_save() to path.tmp.rank<r> on every rank, then, once every
 * file is complete, each renamed to path.rank<r>. */
static nscd_status mpi_save(void *world, const char *path, const void *user, size_t bytes) {
    channel_world_mpi *w = world;
    w->error[0] = '\0';
    unsigned char *blob = malloc(HEADER + bytes);
    if (!all_ranks(blob != NULL)) {
        free(blob);
        snprintf(w->error, sizeof w->error, "checkpoint %.100s: out of memory", path);
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    memcpy(blob, &w->count, 8);
    memcpy(blob + 8, &w->checksum, 8);
    if (bytes > 0) {
        memcpy(blob + HEADER, user, bytes);
    }
    char tmp[4096], from[4200], to[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    nscd_status st = nscd_world_mpi_save(w->world, tmp, blob, HEADER + bytes); /* agreed */
    free(blob);
    if (st != NSCD_OK) {
        return st;
    }
    snprintf(from, sizeof from, "%s.rank%d", tmp, w->rank);
    snprintf(to, sizeof to, "%s.rank%d", path, w->rank);
    int renamed = rename(from, to) == 0;
    if (!all_ranks(renamed)) {
        snprintf(w->error, sizeof w->error, "checkpoint %.100s: cannot rename %s", path,
                 renamed ? "the file of another rank" : "this rank's file");
        return NSCD_ERR_IO;
    }
    return NSCD_OK;
}

/* FNV-1a 64 of n bytes, from h. */
static uint64_t fnv1a(uint64_t h, const void *data, size_t n) {
    const unsigned char *p = data;
    for (size_t i = 0; i < n; ++i) {
        h = (h ^ p[i]) * UINT64_C(0x100000001b3);
    }
    return h;
}

#define FNV_OFFSET UINT64_C(0xcbf29ce484222325)

/* nscd_world_mpi_load(), then the ranks check that their files hold the
 * same save (the same count, checksum and scene state, which every rank
 * keeps alike). */
static nscd_status mpi_load(void *world, const char *path, void *user, size_t capacity,
                            size_t *bytes) {
    channel_world_mpi *w = world;
    w->error[0] = '\0';
    size_t room = HEADER + capacity, got = 0;
    unsigned char *blob = malloc(room);
    if (!all_ranks(blob != NULL)) {
        free(blob);
        snprintf(w->error, sizeof w->error, "checkpoint %.100s: out of memory", path);
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    nscd_status st = nscd_world_mpi_load(w->world, path, blob, room, &got); /* agreed */
    if (st == NSCD_OK && !all_ranks(got >= HEADER)) {
        snprintf(w->error, sizeof w->error, "checkpoint %.100s: not a checkpoint of this example",
                 path);
        st = NSCD_ERR_IO;
    }
    if (st == NSCD_OK) {
        uint64_t mine = fnv1a(fnv1a(FNV_OFFSET, &got, sizeof got), blob, got), lo = 0, hi = 0;
        MPI_Allreduce(&mine, &lo, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
        MPI_Allreduce(&mine, &hi, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
        if (lo != hi) {
            snprintf(w->error, sizeof w->error,
                     "checkpoint %.100s: the ranks' files hold different saves (a run stopped "
                     "between two ranks' renames?)",
                     path);
            st = NSCD_ERR_IO;
        }
    }
    if (st == NSCD_OK) {
        memcpy(&w->count, blob, 8);
        memcpy(&w->checksum, blob + 8, 8);
        if (got > HEADER) {
            memcpy(user, blob + HEADER, got - HEADER);
        }
        *bytes = got - HEADER;
    }
    free(blob);
    return st;
}

static const char *mpi_last_error(const void *world) {
    const channel_world_mpi *w = world;
    return w->error[0] != '\0' ? w->error : nscd_world_mpi_last_error(w->world);
}

const channel_world_ops channel_world_mpi_ops = {
    mpi_create,        mpi_destroy, mpi_add_material, mpi_add_body,   mpi_set_body,
    mpi_step,          mpi_time,    mpi_body_count,   mpi_get_bodies, mpi_get_contacts,
    mpi_gather_points, mpi_save,    mpi_load,         mpi_last_error,
};

int channel_world_mpi_conserved(channel_world_mpi *w, int64_t removed_now) {
    int64_t count = 0;
    uint64_t sum = 0;
    nscd_world_mpi_global_count(w->world, &count, &sum, NULL);
    if (removed_now > 0) { /* the outlet removes bodies the scene cannot name */
        w->count -= removed_now;
        w->checksum = sum;
        return count == w->count;
    }
    return count == w->count && sum == w->checksum;
}

uint64_t channel_world_mpi_state_hash(const channel_world_mpi *w) {
    int32_t n = nscd_world_mpi_body_count(w->world), count = 0;
    size_t m = (size_t)n + 1;
    uint64_t *ids = malloc(2 * m * sizeof *ids);
    double *x = malloc(13 * m * sizeof *x);
    int ok = ids != NULL && x != NULL &&
             nscd_world_mpi_get_bodies(w->world, n, &count, ids, ids + m, x, x + 3 * m, x + 7 * m,
                                       x + 10 * m) == NSCD_OK;
    uint64_t sum = 0, total = 0;
    for (int32_t i = 0; ok && i < count; ++i) {
        uint64_t h = fnv1a(FNV_OFFSET, &ids[i], 8);
        h = fnv1a(h, &ids[m + (size_t)i], 8);
        h = fnv1a(h, &x[3 * (size_t)i], 24);
        h = fnv1a(h, &x[3 * m + 4 * (size_t)i], 32);
        h = fnv1a(h, &x[7 * m + 3 * (size_t)i], 24);
        h = fnv1a(h, &x[10 * m + 3 * (size_t)i], 24);
        sum += h;
    }
    free(ids);
    free(x);
    ok = all_ranks(ok);
    MPI_Allreduce(&sum, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    return ok ? total : 0;
}
