/* The distributed world (libnscd_mpi, include/nscd/world_mpi.h) behind the
 * granular channel: the channel_world_ops of examples/common/granular_world.h
 * over an nscd_world_mpi on MPI_COMM_WORLD, so that granular_channel_mpi runs
 * the very scene (granular_scene.c) and statistics (granular_stats.c) of the
 * serial example.
 *
 * Every rank runs the scene alike: fixed bodies are replicated, every rank draws
 * the random stream, and a dynamic body is created by rank 0 only (its global
 * ids are then 1, 2, ... as the serial user ids); the next step sends it to its
 * owner. The table also keeps the count and id checksum the scene expects, so
 * that a body lost or duplicated is seen (channel_world_mpi_conserved).
 *
 * Checkpoints (save, load): nscd_world_mpi_save() of every rank's file
 * `path.rank<r>`, with the count and checksum in front of the scene's user
 * data. The ranks first write `path.tmp.rank<r>` and rename them to
 * `path.rank<r>` only once every rank's file is complete, so that a run
 * killed mid-save leaves the previous complete set; a load refuses a set
 * whose ranks hold different saves (a run killed between two renames). */
#ifndef NSCD_GRANULAR_WORLD_MPI_H
#define NSCD_GRANULAR_WORLD_MPI_H

#include <nscd/world_mpi.h>

#include "granular_world.h"

/* The create context: the decomposition and the Jacobi relaxation across ranks. */
typedef struct channel_world_mpi_config {
    int32_t dims[3]; /* subdomains per axis, 0: chosen by the library */
    double relaxation;
    int32_t balance_every;         /* steps between balanced cuts, 0: equal cells */
    double balance_contact_weight; /* a contact's weight in the balance, in bodies */
} channel_world_mpi_config;

/* The `world` of channel_world_mpi. */
typedef struct channel_world_mpi {
    nscd_world_mpi *world;
    int rank, size;
    int64_t count;     /* dynamic bodies the scene expects */
    uint64_t checksum; /* the sum of their global ids */
    char error[200];   /* the last failure of save or load beyond the library's */
} channel_world_mpi;

extern const channel_world_ops channel_world_mpi_ops;

/* After a step that removed `removed_now` bodies at the outlet (collective):
 * 1 when the world's global count and id checksum are the expected ones. */
int channel_world_mpi_conserved(channel_world_mpi *w, int64_t removed_now);

/* A hash of the state of every rank's bodies (collective): the sum, modulo
 * 2^64, over the dynamic bodies of FNV-1a 64 of the bytes of the global id,
 * user id, position, orientation, velocity and angular velocity of each, so
 * that it does not depend on which rank owns a body nor on the order of the
 * bodies. Equal hashes are equal states bit for bit (short of a collision).
 * 0 when a rank runs out of memory. */
uint64_t channel_world_mpi_state_hash(const channel_world_mpi *w);

#endif
