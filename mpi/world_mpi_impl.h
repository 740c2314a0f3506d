/* The distributed world's internal layout (docs/distributed.md), shared by
 * world_mpi.c (handle, bodies, copy-out), world_mpi_migrate.c (ownership,
 * shadows, migration, the exchange plan), world_mpi_step.c (the step and the
 * sweeps' exchanges) and world_mpi_vtk.c (parallel VTK).
 *
 * libnscd_mpi is linked from the core's object files (CMake's nscd_objects)
 * plus these: it calls the serial world's stages (world/world_impl.h)
 * directly, with hidden visibility, and exports only nscd_world_mpi_*.
 * libnscd's exports and ABI stay as they are, and the core has no MPI
 * dependency.
 *
 * Each rank holds one serial nscd_world, `local`, with its owned bodies and
 * the shadows of its neighbours' bodies, all dynamic; static and kinematic
 * bodies are replicated on every rank. A body's global id is stored as the
 * local world's user_id (so it moves with the row through compaction); the
 * owner rank and the caller's user id are kept per slot of the local world's
 * generational ids (slots do not move). */
#ifndef NSCD_MPI_WORLD_MPI_IMPL_H
#define NSCD_MPI_WORLD_MPI_IMPL_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/diag.h"
#include "core/struct_sizes.h"
#include "world/world_impl.h"
#include "nscd/world_mpi.h"

/* The first release's size of nscd_world_mpi_desc (struct versioning as in
 * src/core/struct_sizes.h): fields are only ever appended. */
#define NSCD__WORLD_MPI_DESC_SIZE_0_1 NSCD__SIZE_THROUGH(nscd_world_mpi_desc, halo)
_Static_assert(NSCD__WORLD_MPI_DESC_SIZE_0_1 == 24, "nscd_world_mpi_desc 0.1 prefix changed");

/* Owner of the replicated (static, kinematic) bodies. */
#define NSCD__MPI_EVERY_RANK (-1)
/* Global ids: rank << 40 | n for dynamic bodies, 1 << 63 | n for replicated ones. */
#define NSCD__MPI_RANK_SHIFT 40
#define NSCD__MPI_FIXED_BIT ((uint64_t)1 << 63)

/* One entry of the exchange plan: a body (slot in the local world) and the
 * other rank involved. Sorted by (rank, global id) on both sides, so that
 * the sender's and the receiver's lists match element by element. */
typedef struct nscd__mpi_link {
    int32_t rank;
    int32_t slot;
    uint64_t gid;
} nscd__mpi_link;

/* The plan of one rank, CSR by rank: `send` = owned bodies with a shadow on
 * rank r; `recv` = shadows owned by rank r. */
typedef struct nscd__mpi_plan {
    nscd__mpi_link *send, *recv;
    int32_t n_send, n_recv, send_capacity, recv_capacity;
    int32_t *send_offset, *recv_offset; /* size + 1 each */
} nscd__mpi_plan;

struct nscd_world_mpi {
    MPI_Comm comm;
    int rank, size;
    int32_t dims[3], coords[3];
    double lower[3], upper[3], width[3]; /* the domain box and the cell widths */
    double halo_option, halo;            /* the desc's, and the one in use */
    nscd_world *local;
    nscd_allocator allocator;
    nscd_diag diag;
    int32_t broken; /* a migration failed half-way: every call fails */
    uint64_t added_dynamic, added_fixed;

    /* Per slot of the local world. */
    int32_t *slot_owner;
    uint64_t *slot_user;
    uint32_t *slot_mark;
    int32_t slots_capacity;
    uint32_t epoch;

    nscd__mpi_plan plan;

    /* Exchange scratch: bytes (migration) and doubles (sweeps), counts and
     * displacements per rank. */
    char *send_bytes, *recv_bytes;
    size_t send_bytes_capacity, recv_bytes_capacity;
    double *send_real, *recv_real;
    size_t send_real_capacity, recv_real_capacity;
    int *send_count, *send_displ, *recv_count, *recv_displ;
    size_t *rank_bytes; /* 2 per rank: bytes and cursor of the migration */
    char *index_bytes;  /* the migration's index of bodies by global id */
    size_t index_bytes_capacity;

    /* Sweep scratch: velocities at the start of a sweep and their blended
     * change (6 per body), impulses at the start (3 per contact). */
    double *start_velocity, *change;
    size_t velocity_capacity, change_capacity;
    double *start_impulse;
    size_t impulse_capacity;
};

/* world_mpi.c */
/* Per-slot tables for every slot of the local world. */
nscd_status nscd__mpi_reserve_slots(nscd_world_mpi *w);
/* Grows *block (of *capacity elements of `size` bytes) to `needed`, dropping
 * its content. */
nscd_status nscd__mpi_reserve(nscd_world_mpi *w, void **block, size_t *capacity, size_t needed,
                              size_t size);
int32_t nscd__mpi_slot(const nscd_world *local, int32_t i);
bool nscd__mpi_owned(const nscd_world_mpi *w, int32_t i);

/* world_mpi_migrate.c */
/* Rank of the subdomain holding point x (outer cells extend to infinity). */
int32_t nscd__mpi_owner_of(const nscd_world_mpi *w, const double x[3]);
/* Bodies to their owners, shadows refreshed, the exchange plan rebuilt
 * (collective). */
nscd_status nscd__mpi_migrate(nscd_world_mpi *w);

/* world_mpi_step.c: the Jacobi blend across ranks (collective). */
void nscd__mpi_snapshot(nscd_world_mpi *w);
nscd_status nscd__mpi_blend(nscd_world_mpi *w, double weight);

#endif
