/**
 * @file world_checkpoint.h
 * @brief Checkpoint and bitwise restart of the rigid-body world (since 0.2).
 *
 * nscd_world_save() writes everything the next nscd_world_step() of a world
 * depends on — its settings, materials and pair frictions, every body (state,
 * mass properties, applied loads, generational ids and user ids, the free
 * slots in their order, bodies removed but not yet compacted), the shapes,
 * the joints with their warm-start impulses, the contact records of the last
 * step (the warm start), the step count and the time — to a versioned,
 * checksummed binary file (docs/checkpoint.md). nscd_world_load() fills a
 * freshly created, empty world from it.
 *
 * The contract: a world saved after N steps and loaded, in the same process
 * or in another one running the same library build on the same platform,
 * continues bitwise as the world that was never saved (the same positions,
 * orientations and velocities, to the last bit, after any number of further
 * steps). Saving changes nothing in the world.
 *
 * What is not saved: the allocator and the log hook (the loading world keeps
 * its own), the time steppers driving a world (nscd_time_stepping_create_world()
 * and the like: save their world, create them again), and the scratch a step
 * rebuilds from the above.
 *
 * A caller's own state (a random generator, counters) travels with the world
 * as an opaque user-data blob of the checkpoint.
 */
#ifndef NSCD_WORLD_CHECKPOINT_H
#define NSCD_WORLD_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "nscd/export.h"
#include "nscd/status.h"
#include "nscd/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Format version written by this library and the only one it reads. */
#define NSCD_CHECKPOINT_FORMAT_VERSION 1

/**
 * @brief Writes a checkpoint of the world to a file.
 *
 * The file is written under a temporary name (`path` with ".tmp" appended)
 * and renamed to `path` when complete, so that a failed save leaves an
 * earlier checkpoint at `path` intact.
 * @param world      The world (unchanged).
 * @param path       File name (replaced).
 * @param user_data  `user_bytes` bytes stored with the world (NULL when
 *                   user_bytes is 0); returned by nscd_world_load().
 * @param user_bytes Size of the user data, at most 2^31 - 1.
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_INVALID_ARGUMENT
 *         for user data NULL with a size or too large; ::NSCD_ERR_STATE from
 *         a callback of a call that steps the world (mid-step);
 *         ::NSCD_ERR_OUT_OF_MEMORY; ::NSCD_ERR_IO when the file cannot be
 *         written (the world's last error names the path).
 */
NSCD_API nscd_status nscd_world_save(const nscd_world *world, const char *path,
                                     const void *user_data, size_t user_bytes);

/**
 * @brief Writes a checkpoint of the world to memory: the bytes
 *        nscd_world_save() puts in its file.
 * @param world      The world (unchanged).
 * @param user_data  As for nscd_world_save().
 * @param user_bytes As for nscd_world_save().
 * @param buffer     `capacity` bytes, or NULL to ask for the size.
 * @param capacity   Room in `buffer`, bytes.
 * @param size       Receives the size of the checkpoint, bytes (also when
 *                   the buffer is too small).
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_INVALID_ARGUMENT;
 *         ::NSCD_ERR_STATE; ::NSCD_ERR_OUT_OF_MEMORY;
 *         ::NSCD_ERR_BUFFER_TOO_SMALL when `buffer` is NULL or smaller than
 *         `*size` (nothing written to it).
 */
NSCD_API nscd_status nscd_world_save_to_buffer(const nscd_world *world, const void *user_data,
                                               size_t user_bytes, void *buffer, size_t capacity,
                                               size_t *size);

/**
 * @brief Fills a fresh world from a checkpoint file.
 *
 * `world` must be empty, as nscd_world_create() returns it (no body, joint,
 * material or pair friction added, never stepped); its allocator and log
 * hook are kept, every other setting is replaced by the checkpoint's. The
 * file is checked whole before anything changes: its magic, format
 * version, byte order and sizes, its length, its checksum (FNV-1a 64), and
 * every count against the bytes that hold it (docs/checkpoint.md).
 * @param world         An empty world.
 * @param path          The file.
 * @param user_data     Receives the checkpoint's user data (NULL: ignored).
 * @param user_capacity Room in `user_data`, bytes.
 * @param user_bytes    Receives the size of the user data (may be NULL).
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_STATE for a world
 *         that is not empty; ::NSCD_ERR_IO when the file cannot be read or
 *         is not a valid checkpoint of this format (the world's last error
 *         says what failed: truncated, checksum, version, a count, ...);
 *         ::NSCD_ERR_BUFFER_TOO_SMALL when user_data is set and smaller than
 *         the user data (`*user_bytes` is set); ::NSCD_ERR_OUT_OF_MEMORY.
 *         On failure the world is unchanged.
 */
NSCD_API nscd_status nscd_world_load(nscd_world *world, const char *path, void *user_data,
                                     size_t user_capacity, size_t *user_bytes);

/**
 * @brief Fills a fresh world from a checkpoint in memory (see nscd_world_load()).
 * @param world         An empty world.
 * @param buffer        The checkpoint's bytes.
 * @param size          Their number.
 * @param user_data     Receives the checkpoint's user data (NULL: ignored).
 * @param user_capacity Room in `user_data`, bytes.
 * @param user_bytes    Receives the size of the user data (may be NULL).
 * @return As nscd_world_load().
 */
NSCD_API nscd_status nscd_world_load_from_buffer(nscd_world *world, const void *buffer, size_t size,
                                                 void *user_data, size_t user_capacity,
                                                 size_t *user_bytes);

#ifdef __cplusplus
}
#endif

#endif /* NSCD_WORLD_CHECKPOINT_H */
