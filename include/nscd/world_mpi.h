/**
 * @file world_mpi.h
 * @brief The rigid-body world distributed over MPI ranks (libnscd_mpi).
 *
 * A world whose domain box is cut into a Cartesian grid of subdomains, one
 * per rank (seed 002, Sects. 3 and 4.3). Each dynamic body is owned by the
 * rank whose subdomain holds its centre of mass and has shadow copies on the
 * ranks whose subdomain its bounding sphere, widened by the halo, overlaps.
 * Each contact is resolved by exactly one rank (the owner of its dynamic
 * body with the smaller global id). Every sweep is Gauss–Seidel inside a
 * rank and a weighted Jacobi blend across ranks: every holder of a shared
 * body (its owner and its shadows) sends its velocity change to the others,
 * and each sums them alike. Bodies migrate to their new owner before each
 * step; the cuts between subdomains are equal or follow the bodies
 * (nscd_world_mpi_desc::balance_every). See docs/distributed.md.
 *
 * This header does not include `mpi.h`: the communicator is passed as its
 * Fortran handle, `MPI_Comm_c2f(comm)`, an integer whose meaning every MPI
 * implementation defines, so the header compiles (and Python's ctypes calls
 * it, with mpi4py's `comm.py2f()`) without MPI's headers.
 *
 * Functions marked *collective* must be called by every rank of the
 * communicator, in the same order.
 */
#ifndef NSCD_WORLD_MPI_H
#define NSCD_WORLD_MPI_H

#include <stddef.h>
#include <stdint.h>

#include "nscd/export.h"
#include "nscd/status.h"
#include "nscd/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque handle of a distributed world (one per rank). */
typedef struct nscd_world_mpi nscd_world_mpi;

/** The decomposition of a distributed world. Fill with nscd_world_mpi_desc_init(). */
typedef struct nscd_world_mpi_desc {
    uint32_t struct_size; /**< sizeof(nscd_world_mpi_desc). */
    /** Subdomains along x, y, z; their product must be the number of ranks.
     *  A zero entry is chosen by MPI_Dims_create. Default (0, 0, 0). */
    int32_t dims[3];
    /** Width added to a body's bounding radius when deciding which ranks hold
     *  a shadow of it, m (>= 0). 0 (default) = automatic: the largest bounding
     *  radius of any dynamic body plus the contact margin, which is enough for
     *  every contact of an owned body to be seen by its owner. */
    double halo;
    /** Cut positions by particle count (since 0.2): 0 (default) = the domain
     *  box cut into equal cells along each axis, fixed; N > 0 = at the start
     *  of every step whose step count is a multiple of N (the first step
     *  included), the cuts along each axis with more than one subdomain move
     *  to the quantiles of the dynamic bodies' centres along that axis, so
     *  that each slab holds the same number of bodies (one histogram summed
     *  over the ranks; deterministic: the same cuts on every rank and on
     *  every rerun, and kept in the checkpoint). See
     *  nscd_world_mpi_balance() and docs/distributed.md. */
    int32_t balance_every;
    /** What the balance weighs (since 0.2): each dynamic body counts 1 plus
     *  this weight for every contact it resolved in the last step (the
     *  contacts a rank resolves are those whose dynamic body with the smaller
     *  global id it owns), so the cuts share the work rather than the bodies
     *  when the contacts gather in one part of the domain (a bed filling
     *  under bodies in flight). 0 = by body count; finite, 0 to 1e6, rounded
     *  to 1/16. Default 1.5: on the granular channel a solver contact
     *  costs 0.67 of a body in a step's total work, but most of it is in
     *  the sweeps, which synchronise the ranks every sweep, so a contact
     *  weighs more than its share (docs/distributed.md, "Balance by
     *  work"). */
    double balance_contact_weight;
} nscd_world_mpi_desc;

/** Fills `desc` with the defaults.
 *  @param desc        The struct.
 *  @param struct_size sizeof of the caller's struct.
 *  @return NSCD_OK, or NSCD_ERR_STRUCT_SIZE. */
NSCD_API nscd_status nscd_world_mpi_desc_init(nscd_world_mpi_desc *desc, size_t struct_size);

/**
 * @brief Creates the distributed world (collective).
 *
 * @param comm_f  Fortran handle of the communicator, `MPI_Comm_c2f(comm)`;
 *                the world works on its own duplicate.
 * @param world   Settings of the world, the same on every rank. Its domain
 *                box `domain_min`, `domain_max` is the box that is decomposed
 *                (required, even with `use_domain` = 0, which then only keeps
 *                bodies from being removed outside it: the outer subdomains
 *                extend to infinity).
 * @param desc    The decomposition; NULL = defaults.
 * @param out     The handle.
 * @return NSCD_OK on every rank, or the same error on every rank.
 */
NSCD_API nscd_status nscd_world_mpi_create(int32_t comm_f, const nscd_world_desc *world,
                                           const nscd_world_mpi_desc *desc, nscd_world_mpi **out);

/** Destroys the world (collective: it frees a communicator); NULL is a no-op.
 *  @param world The world. */
NSCD_API void nscd_world_mpi_destroy(nscd_world_mpi *world);

/** Message of this rank's last error.
 *  @param world The world.
 *  @return The message ("" when none). */
NSCD_API const char *nscd_world_mpi_last_error(const nscd_world_mpi *world);

/** Adds a material (collective by contract: the same calls on every rank).
 *  @param world    The world.
 *  @param friction Its friction coefficient, >= 0.
 *  @param material Its index.
 *  @return NSCD_OK, or the error of nscd_world_add_material(). */
NSCD_API nscd_status nscd_world_mpi_add_material(nscd_world_mpi *world, double friction,
                                                 int32_t *material);

/** Overrides the friction of one pair of materials (collective by contract, as
 *  nscd_world_set_pair_friction()).
 *  @param world      The world.
 *  @param material_a A material index.
 *  @param material_b A material index.
 *  @param friction   μ >= 0 of every contact between materials a and b.
 *  @return NSCD_OK, or the error of nscd_world_set_pair_friction(). */
NSCD_API nscd_status nscd_world_mpi_set_pair_friction(nscd_world_mpi *world, int32_t material_a,
                                                      int32_t material_b, double friction);

/**
 * @brief Adds a body.
 *
 * A dynamic body may be added on any rank: it is kept there until the next
 * step, which moves it to its owner and makes its shadows. Its global id is
 * `rank << 40 | n` (n counts the dynamic bodies added on this rank from 1),
 * unique over the ranks and kept for the body's life, through every
 * migration. Static and kinematic bodies are replicated: they must be added
 * on every rank in the same order (their ids are `1 << 63 | n`).
 *
 * @param world     The world.
 * @param body      As for nscd_world_add_body(); `user_id` is kept with the
 *                  body and returned by nscd_world_mpi_get_bodies().
 * @param shapes    Its shapes.
 * @param n_shapes  How many.
 * @param global_id Its global id.
 * @return NSCD_OK, or the error of nscd_world_add_body() (nothing added).
 */
NSCD_API nscd_status nscd_world_mpi_add_body(nscd_world_mpi *world, const nscd_body_desc *body,
                                             const nscd_shape_desc *shapes, int32_t n_shapes,
                                             uint64_t *global_id);

/**
 * @brief Removes a dynamic body owned by this rank (or added here since the
 *        last step); its shadows leave at the next step.
 * @param world     The world.
 * @param global_id The body's global id.
 * @return NSCD_OK, or NSCD_ERR_STALE_HANDLE when this rank does not own `global_id`.
 */
NSCD_API nscd_status nscd_world_mpi_remove_body(nscd_world_mpi *world, uint64_t global_id);

/**
 * @brief One time step of the whole world (collective).
 *
 * Migration of bodies to their owners and shadows, then the step of
 * nscd_world_step() with the sweeps blended across ranks, then the removal of
 * bodies outside the domain box (with `use_domain`).
 *
 * @param world  The world.
 * @param report NULL, or filled with figures of the whole world: contacts,
 *               bodies removed and broad-phase pairs summed over the ranks,
 *               the largest merit and penetration, the sweeps done.
 * @return NSCD_OK, or the same error on every rank (NSCD_ERR_NOT_FINITE:
 *         velocities of before the step restored).
 */
NSCD_API nscd_status nscd_world_mpi_step(nscd_world_mpi *world, nscd_world_step_report *report);

/**
 * @brief Moves the cuts to the quantiles of the dynamic bodies' centres now
 *        (collective; since 0.2).
 *
 * Along each axis with more than one subdomain, the cut between slab c - 1
 * and slab c goes where c / dims of the bodies' weight lies below it (a
 * histogram of 4096 bins over the domain box summed over the ranks,
 * interpolated linearly inside a bin; bodies outside the box count in the
 * outer bins). A body weighs 1 plus
 * nscd_world_mpi_desc::balance_contact_weight for each contact it resolved
 * in the last step: the weights are integers (in 1/16), so the sums, and
 * the cuts, are the same on every rank and every rerun.
 * With a Cartesian grid the cuts of one axis are shared by every row of
 * subdomains along it (a tensor-product grid): a balance by slabs, exact for
 * a decomposition along one axis. Bodies move to their new owners at the
 * next step. With no dynamic body the cuts stay.
 * @param world The world.
 * @return NSCD_OK, or NSCD_ERR_NULL_POINTER; NSCD_ERR_STATE after a failed
 *         migration.
 */
NSCD_API nscd_status nscd_world_mpi_balance(nscd_world_mpi *world);

/** Simulated time.
 *  @param world The world.
 *  @return Seconds (0 for NULL). */
NSCD_API double nscd_world_mpi_time(const nscd_world_mpi *world);

/** This rank and the number of ranks; the subdomain's box (outer faces at
 *  the domain box, although they extend to infinity), between the cuts in
 *  use (equal cells, or the last balance's). Any pointer may be NULL.
 *  @param world The world.
 *  @param rank  This rank.
 *  @param size  The number of ranks.
 *  @param lower Lower corner of this rank's subdomain, m.
 *  @param upper Upper corner, m.
 *  @return NSCD_OK, or NSCD_ERR_NULL_POINTER for a NULL world. */
NSCD_API nscd_status nscd_world_mpi_subdomain(const nscd_world_mpi *world, int32_t *rank,
                                              int32_t *size, double lower[3], double upper[3]);

/** Dynamic bodies owned by this rank (shadows are not counted).
 *  @param world The world.
 *  @return The count (0 for NULL). */
NSCD_API int32_t nscd_world_mpi_body_count(const nscd_world_mpi *world);

/**
 * @brief Global count of dynamic bodies and the sum of their global ids
 *        modulo 2^64, and the number of shadow copies (collective).
 *
 * A body lost or owned twice changes the count or the checksum. Any pointer
 * may be NULL.
 * @param world       The world.
 * @param count       Dynamic bodies over all ranks.
 * @param id_checksum Sum of their global ids modulo 2^64.
 * @param shadows     Shadow copies over all ranks.
 * @return NSCD_OK, or NSCD_ERR_NULL_POINTER.
 */
NSCD_API nscd_status nscd_world_mpi_global_count(nscd_world_mpi *world, int64_t *count,
                                                 uint64_t *id_checksum, int64_t *shadows);

/**
 * @brief Copies out the dynamic bodies owned by this rank, in storage order.
 *
 * Same arguments as nscd_world_get_bodies(), with global ids instead of
 * local ones.
 * @param world              The world.
 * @param capacity           Rows the arrays hold.
 * @param count              Bodies owned here (set even when too many).
 * @param global_ids         NULL or `capacity` global ids.
 * @param user_ids           NULL or `capacity` user ids (the body descs').
 * @param positions          NULL or 3 `capacity` doubles.
 * @param orientations       NULL or 4 `capacity` doubles (w, x, y, z).
 * @param velocities         NULL or 3 `capacity` doubles.
 * @param angular_velocities NULL or 3 `capacity` doubles (world frame).
 * @return NSCD_OK, or NSCD_ERR_BUFFER_TOO_SMALL when `capacity` is too small.
 */
NSCD_API nscd_status nscd_world_mpi_get_bodies(const nscd_world_mpi *world, int32_t capacity,
                                               int32_t *count, uint64_t *global_ids,
                                               uint64_t *user_ids, double *positions,
                                               double *orientations, double *velocities,
                                               double *angular_velocities);

/**
 * @brief Sets the state of a body, as nscd_world_set_body() (NULL keeps a part).
 *
 * A replicated (static, kinematic) body must be set on every rank alike; a
 * dynamic body by its owner only.
 * @param world            The world.
 * @param global_id        The body.
 * @param position         NULL or its new position, m.
 * @param orientation      NULL or its unit quaternion (w, x, y, z).
 * @param velocity         NULL or its velocity, m/s.
 * @param angular_velocity NULL or its angular velocity (world frame), rad/s.
 * @return NSCD_OK; NSCD_ERR_STALE_HANDLE when this rank does not hold it (or
 *         holds only a shadow); the errors of nscd_world_set_body().
 */
NSCD_API nscd_status nscd_world_mpi_set_body(nscd_world_mpi *world, uint64_t global_id,
                                             const double *position, const double *orientation,
                                             const double *velocity,
                                             const double *angular_velocity);

/**
 * @brief Copies out the contacts this rank resolved in the last step, in the
 *        solver's order, as nscd_world_get_contacts() with global ids.
 *
 * Every contact of the world is resolved by exactly one rank, so the union
 * over the ranks is the world's contact set. Any array may be NULL.
 * @param world    The world.
 * @param capacity Room in each array, in contacts.
 * @param count    Contacts resolved here (NSCD_ERR_BUFFER_TOO_SMALL when
 *                 larger than capacity; nothing else is written).
 * @param body_a   Global id of the first body of each contact.
 * @param body_b   Of the second; the normal points from a to b.
 * @param points   3 values each: the contact point, m.
 * @param normals  3 values each: unit normal from a to b.
 * @param gaps     Gap at detection, m.
 * @param impulses 3 values each: normal, then the two tangential impulses, N s.
 * @return NSCD_OK; NSCD_ERR_NULL_POINTER; NSCD_ERR_BUFFER_TOO_SMALL.
 */
NSCD_API nscd_status nscd_world_mpi_get_contacts(const nscd_world_mpi *world, int32_t capacity,
                                                 int32_t *count, uint64_t *body_a, uint64_t *body_b,
                                                 double *points, double *normals, double *gaps,
                                                 double *impulses);

/**
 * @brief Writes the owned bodies as parallel VTK (collective).
 *
 * Each rank writes `<prefix>_<rank>.vtp` (XML polydata, one point per
 * owned body: radius, global id, user id, velocity, angular velocity) and
 * rank 0 writes `<prefix>.pvtp`, the index ParaView opens.
 * @param world  The world.
 * @param prefix Path prefix of the files.
 * @return NSCD_OK, or NSCD_ERR_IO on every rank when any rank failed.
 */
NSCD_API nscd_status nscd_world_mpi_write_vtk(nscd_world_mpi *world, const char *prefix);

/**
 * @brief Writes a checkpoint of the distributed world (collective; since 0.2).
 *
 * Each rank writes `<prefix>.rank<r>`: its local world (nscd_world_save(),
 * docs/checkpoint.md) with the distributed world's own state — the
 * decomposition, the owner and global id of every local slot (owned bodies
 * and shadows), the counters of added bodies — and `user_data`. A world
 * loaded from these files with nscd_world_mpi_load() on as many ranks
 * continues bitwise as the world that was saved.
 * @param world      The world.
 * @param prefix     Path prefix of the files.
 * @param user_data  This rank's `user_bytes` bytes (NULL when 0).
 * @param user_bytes Their size.
 * @return NSCD_OK, or on every rank the most negative status of any rank:
 *         NSCD_ERR_IO when a file cannot be written, NSCD_ERR_STATE after a
 *         failed migration, NSCD_ERR_NULL_POINTER, NSCD_ERR_OUT_OF_MEMORY.
 */
NSCD_API nscd_status nscd_world_mpi_save(nscd_world_mpi *world, const char *prefix,
                                         const void *user_data, size_t user_bytes);

/**
 * @brief Fills a fresh distributed world from the checkpoint files of
 *        nscd_world_mpi_save() (collective; since 0.2).
 *
 * `world` must be fresh from nscd_world_mpi_create() (no body added, never
 * stepped) with the same number of ranks and the same decomposition as the
 * saved world. Every rank checks its file before any changes.
 * @param world         A fresh world.
 * @param prefix        Path prefix of the files.
 * @param user_data     Receives this rank's user data (NULL: ignored).
 * @param user_capacity Room in `user_data`, bytes.
 * @param user_bytes    Receives the size of the user data (may be NULL).
 * @return NSCD_OK, or on every rank the most negative status of any rank
 *         (nothing changed on any rank): NSCD_ERR_IO for a missing or bad
 *         file or another decomposition, NSCD_ERR_STATE for a world that is
 *         not fresh, NSCD_ERR_BUFFER_TOO_SMALL, NSCD_ERR_NULL_POINTER,
 *         NSCD_ERR_OUT_OF_MEMORY.
 */
NSCD_API nscd_status nscd_world_mpi_load(nscd_world_mpi *world, const char *prefix, void *user_data,
                                         size_t user_capacity, size_t *user_bytes);

/**
 * @brief Writes the distributed world as binary parallel VTK XML
 *        (collective; since 0.2): the shapes part of
 *        nscd_world_write_vtk_xml() (include/nscd/world.h, docs/paraview.md).
 *
 * Each rank writes `<prefix>_<rank>.vtp`: a point per shape of its owned
 * dynamic bodies (rank 0 also those of the static and kinematic bodies,
 * which every rank holds), binary, appended raw, UInt64 headers; rank 0
 * writes `<prefix>.pvtp`, the index ParaView opens. `body_id` holds the
 * global id and `user_id` the user id of each body.
 * @param world  The world.
 * @param prefix Path prefix of the files (at most 4000 bytes).
 * @param flags  ::NSCD_WORLD_VTK_SHAPES or-ed with ::NSCD_WORLD_VTK_FLOAT64,
 *               ::NSCD_WORLD_VTK_COMPACT, ::NSCD_WORLD_VTK_TENSOR (no
 *               contacts part: a contact with a shadow body is on two ranks).
 * @return NSCD_OK, or on every rank: NSCD_ERR_NULL_POINTER;
 *         NSCD_ERR_INVALID_ARGUMENT for a NULL or too long prefix or bad
 *         flags; NSCD_ERR_IO when any rank failed to write.
 * @since 0.2
 */
NSCD_API nscd_status nscd_world_mpi_write_vtk_xml(nscd_world_mpi *world, const char *prefix,
                                                  int32_t flags);

/** A time series of parallel VTK XML files with its collection (.pvd). */
typedef struct nscd_world_mpi_vtk_series nscd_world_mpi_vtk_series;

/**
 * @brief Starts a time series of the distributed world (collective; since
 *        0.2): frame k is nscd_world_mpi_write_vtk_xml() with the prefix
 *        `<prefix>_%06d`, and rank 0 keeps `<prefix>.pvd` listing the
 *        frames' .pvtp indexes, rewritten (a temporary file renamed over
 *        it) after every frame so that a crashed run still opens.
 * @param world  The world (its communicator).
 * @param prefix Path prefix, e.g. "out/pile" (the folder must exist).
 * @param flags  As nscd_world_mpi_write_vtk_xml().
 * @param series Receives the series on every rank (unchanged on failure).
 * @return NSCD_OK, or on every rank: NSCD_ERR_NULL_POINTER;
 *         NSCD_ERR_INVALID_ARGUMENT; NSCD_ERR_IO when rank 0 cannot write
 *         the collection; NSCD_ERR_OUT_OF_MEMORY.
 * @since 0.2
 */
NSCD_API nscd_status nscd_world_mpi_vtk_series_create(nscd_world_mpi *world, const char *prefix,
                                                      int32_t flags,
                                                      nscd_world_mpi_vtk_series **series);
/**
 * @brief Writes the next frame at the world's time (collective; since 0.2).
 * @param series The series.
 * @param world  The world it was created with.
 * @return NSCD_OK, or on every rank: NSCD_ERR_NULL_POINTER; NSCD_ERR_IO
 *         (the collection keeps the frames before); NSCD_ERR_OUT_OF_MEMORY.
 * @since 0.2
 */
NSCD_API nscd_status nscd_world_mpi_vtk_series_write(nscd_world_mpi_vtk_series *series,
                                                     nscd_world_mpi *world);
/**
 * @brief Frees a series (not collective); its files stay.
 * @param series The series; NULL is ignored.
 * @since 0.2
 */
NSCD_API void nscd_world_mpi_vtk_series_destroy(nscd_world_mpi_vtk_series *series);

#ifdef __cplusplus
}
#endif

#endif /* NSCD_WORLD_MPI_H */
