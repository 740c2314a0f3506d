/* The world under the granular channel (granular_scene.h, granular_stats.h): a
 * small table of the operations the scene and its statistics need, so that one
 * scene drives either the serial nscd_world (channel_world_serial, here) or the
 * distributed nscd_world_mpi (examples/mpi/granular_world_mpi.h, kept out of the
 * serial examples so that they never see MPI).
 *
 * Body ids are uint64_t: nscd_body_id for the serial world, global ids for the
 * distributed one. The body and contact copy-outs are of what this process holds
 * (its owned bodies, the contacts it resolved); the statistics reduce sums over
 * the processes themselves where there are several. */
#ifndef NSCD_GRANULAR_WORLD_H
#define NSCD_GRANULAR_WORLD_H

#include <stddef.h>
#include <stdint.h>

#include <nscd/nscd.h>

typedef struct channel_world_ops {
    /* Creates the world from `desc`; `context` is the implementation's (NULL for
     * the serial world). On failure *world is left NULL. */
    nscd_status (*create)(const void *context, const nscd_world_desc *desc, void **world);
    void (*destroy)(void *world);
    /* A material of friction mu whose contacts with material 0 (the particles')
     * have friction mu too, alike on every process. */
    nscd_status (*add_material)(void *world, double mu, int32_t *material);
    /* A fixed body (static, kinematic) must be added alike by every process; a
     * dynamic one is created once over all processes, with the same call on each. */
    nscd_status (*add_body)(void *world, const nscd_body_desc *body, const nscd_shape_desc *shapes,
                            int32_t n_shapes, uint64_t *id);
    /* Position and velocity (NULL keeps either) of a fixed body, alike everywhere. */
    nscd_status (*set_body)(void *world, uint64_t id, const double *position,
                            const double *velocity);
    nscd_status (*step)(void *world, nscd_world_step_report *report);
    double (*time)(const void *world);
    /* Bodies this process holds (an upper bound of what get_bodies copies). */
    int32_t (*body_count)(const void *world);
    /* As nscd_world_get_bodies(): user ids, positions, velocities, angular velocities. */
    nscd_status (*get_bodies)(const void *world, int32_t capacity, int32_t *count,
                              uint64_t *user_ids, double *positions, double *velocities,
                              double *angular_velocities);
    /* As nscd_world_get_contacts(): bodies, gaps, impulses of this process's contacts. */
    nscd_status (*get_contacts)(const void *world, int32_t capacity, int32_t *count,
                                uint64_t *body_a, uint64_t *body_b, double *gaps, double *impulses);
    /* Replaces the `*n` points (3 doubles each, malloc'd) of this process by
     * those of every process, in rank order; NULL when there is one process. */
    nscd_status (*gather_points)(void *world, double **points, int32_t *n);
    /* Writes a checkpoint of the world with `bytes` of user data (collective):
     * nscd_world_save() to `path`, or one file per process `path.rank<r>`; a
     * failed or interrupted save leaves the previous complete one in place. */
    nscd_status (*save)(void *world, const char *path, const void *user, size_t bytes);
    /* Fills `world`, fresh from create(), from the checkpoint of save() at
     * `path` (collective); its user data goes to `user` (`capacity` bytes; the
     * size in *bytes). NSCD_ERR_IO for a missing, damaged or inconsistent
     * checkpoint; on failure the caller destroys it. */
    nscd_status (*load)(void *world, const char *path, void *user, size_t capacity, size_t *bytes);
    /* The message of the world's last failure ("" when none). */
    const char *(*last_error)(const void *world);
} channel_world_ops;

/* The serial world: `world` is an nscd_world *. */
extern const channel_world_ops channel_world_serial;

#endif
