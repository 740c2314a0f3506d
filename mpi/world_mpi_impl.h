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
#include <stddef.h>
#include <stdint.h>

#include "core/diag.h"
#include "core/struct_sizes.h"
#include "world/world_impl.h"
#include "nscd/world_mpi.h"

/* The first release's size of nscd_world_mpi_desc (struct versioning as in
 * src/core/struct_sizes.h): fields are only ever appended. */
#define NSCD__WORLD_MPI_DESC_SIZE_0_1 NSCD__SIZE_THROUGH(nscd_world_mpi_desc, halo)
_Static_assert(NSCD__WORLD_MPI_DESC_SIZE_0_1 == 24, "nscd_world_mpi_desc 0.1 prefix changed");
_Static_assert(offsetof(nscd_world_mpi_desc, balance_every) == 24 &&
                   offsetof(nscd_world_mpi_desc, balance_contact_weight) == 32,
               "nscd_world_mpi_desc 0.2 fields moved");

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

/* The plan of one rank, CSR by rank: `send` = for every dynamic body held
 * here, every other rank that holds it (symmetric: rank r lists the same
 * bodies for this rank, in the same order); `partners` = the ranks with a
 * link, increasing (the sweeps' point-to-point messages). */
typedef struct nscd__mpi_plan {
    nscd__mpi_link *send;
    int32_t n_send, send_capacity;
    int32_t *send_offset;          /* size + 1 */
    int32_t *partners, n_partners; /* size */
} nscd__mpi_plan;

/* The cells an owned body's widened bounding sphere overlaps and its new
 * owner, found once per migration (valid while mark == the epoch and gid is
 * the slot's body). */
typedef struct nscd__mpi_cells {
    uint64_t gid;
    uint32_t mark;
    int32_t owner;
    int32_t lo[3], hi[3];
} nscd__mpi_cells;

/* A body's bounding radius, cached per slot (valid while gid is the slot's body). */
typedef struct nscd__mpi_bound {
    uint64_t gid;
    double radius;
} nscd__mpi_bound;

/* Histogram bins of a balance (nscd_world_mpi_balance), and a body's
 * weight in it: balance_contact_weight is counted in 1/16 of a body. */
#define NSCD__MPI_BALANCE_BINS 4096
#define NSCD__MPI_BALANCE_UNIT 16
/* Tags of the point-to-point messages. */
enum { NSCD__MPI_TAG_COUNT = 101, NSCD__MPI_TAG_ROWS, NSCD__MPI_TAG_PLAN, NSCD__MPI_TAG_SWEEP };
/* The mixed reduction of a step (nscd__mpi_mixed): 4 maxima then 4 sums. */
#define NSCD__MPI_MIXED 8

struct nscd_world_mpi {
    MPI_Comm comm;
    int rank, size;
    int32_t dims[3], coords[3];
    double lower[3], upper[3], width[3]; /* the domain box and the equal cells' widths */
    double halo_option, halo;            /* the desc's, and the one in use */
    double max_bound;                    /* the largest bounding radius, all ranks */
    /* The cuts: per axis k, dims[k] + 1 boundaries from cut + cut_first[k]
     * (the first and last at the domain box; the outer cells extend to
     * infinity). While cuts_moved is 0 the cells are the equal ones (and
     * cell_of divides by width, as before balancing existed). */
    double *cut;
    int32_t cut_first[3], cuts_moved, balance_every;
    int64_t balance_contact_weight; /* in 1/NSCD__MPI_BALANCE_UNIT of a body */
    int64_t *histogram;             /* NSCD__MPI_BALANCE_BINS per cut axis */
    /* near[r]: rank r's subdomain lies within twice the reach (largest bound
     * plus halo) of this one: the migration talks to these point to point,
     * and falls back to all-to-all when a body needs a copy anywhere else. */
    uint8_t *near;
    int32_t *near_list, n_near;
    MPI_Request *requests; /* 2 per rank */
    MPI_Op mixed;          /* 4 maxima then 4 sums of doubles */
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
    /* Caches of the migration, per slot (world_mpi_migrate.c). */
    nscd__mpi_cells *slot_cells;
    nscd__mpi_bound *slot_bound;
    size_t slot_cells_capacity, slot_bound_capacity;

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
    /* The dense indices of the bodies in the plan (owned bodies with shadows
     * elsewhere, shadows), increasing: with weight 1 only these are blended. */
    int32_t *shared, n_shared;
    size_t shared_capacity;
};

/* world_mpi.c */
/* Per-slot tables for every slot of the local world. */
nscd_status nscd__mpi_reserve_slots(nscd_world_mpi *w);
/* Grows *block (of *capacity elements of `size` bytes) to `needed`, dropping
 * its content. */
nscd_status nscd__mpi_reserve(nscd_world_mpi *w, void **block, size_t *capacity, size_t needed,
                              size_t size);
/* The slot of dense body i, and whether this rank owns it. */
static inline int32_t nscd__mpi_slot(const nscd_world *local, int32_t i) {
    return (int32_t)(local->id[i] & 0xffffffffu);
}
static inline bool nscd__mpi_owned(const nscd_world_mpi *w, int32_t i) {
    return w->slot_owner[nscd__mpi_slot(w->local, i)] == w->rank;
}
/* The body whose owner resolves contact c: its dynamic body with the
 * smaller global id. */
static inline int32_t nscd__mpi_resolver(const nscd_world *local, const nscd__world_contact *c) {
    return !c->a_moves || (c->b_moves && local->user_id[c->b] < local->user_id[c->a]) ? c->b : c->a;
}

/* In place over the ranks: v[0..3] their maxima, v[4..7] their sums
 * (collective; the sums are exact for integer values below 2^53, so the
 * result does not depend on the order). */
void nscd__mpi_mixed(nscd_world_mpi *w, double v[NSCD__MPI_MIXED]);

/* world_mpi_migrate.c */
/* Rank of the subdomain holding point x (outer cells extend to infinity). */
int32_t nscd__mpi_owner_of(const nscd_world_mpi *w, const double x[3]);
/* Lower and upper boundary of cell c along axis k (the outer faces at the
 * domain box). */
void nscd__mpi_cell_bounds(const nscd_world_mpi *w, int k, int32_t c, double *lo, double *hi);
/* The largest bounding radius of this rank's dynamic bodies. */
double nscd__mpi_local_bound(nscd_world_mpi *w);
/* Bodies to their owners, shadows refreshed, the exchange plan rebuilt
 * (collective). Call after agreeing on max_bound (the largest bound over
 * the ranks); the status is this rank's: the caller agrees on it (the
 * exchanges themselves never leave a rank waiting for another). */
nscd_status nscd__mpi_migrate(nscd_world_mpi *w);
/* The cuts moved to the quantiles of the bodies' weight along each cut
 * axis (collective). */
nscd_status nscd__mpi_balance(nscd_world_mpi *w);

/* world_mpi_step.c: the Jacobi blend across ranks (point to point with the
 * plan's partners). With weight 1 the bodies no other rank holds keep their
 * velocities (v0 + 1 (v - v0) is v up to round-off), so the snapshot and the
 * blend visit only the shared bodies; any other weight blends every body
 * and, in the sweeps, the impulses. */
void nscd__mpi_snapshot(nscd_world_mpi *w, bool every_body);
nscd_status nscd__mpi_blend(nscd_world_mpi *w, double weight);

#endif
