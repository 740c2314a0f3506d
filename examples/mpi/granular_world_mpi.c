/* The distributed world behind the granular channel (see granular_world_mpi.h). */
#include "granular_world_mpi.h"

#include <mpi.h>
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

const channel_world_ops channel_world_mpi_ops = {
    mpi_create, mpi_destroy,    mpi_add_material, mpi_add_body,     mpi_set_body,      mpi_step,
    mpi_time,   mpi_body_count, mpi_get_bodies,   mpi_get_contacts, mpi_gather_points,
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
