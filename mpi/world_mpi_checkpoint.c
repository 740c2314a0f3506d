/* Checkpoint of the distributed world (include/nscd/world_mpi.h,
 * docs/checkpoint.md): each rank's local world through the serial
 * checkpoint (nscd_world_save), with the distributed world's own state as
 * its user data, in front of the caller's:
 *
 *   u64 magic "NSCDMPI2"; i32 rank, size, dims[3], coords[3];
 *   f64 lower[3], upper[3], width[3], halo_option, halo;
 *   u64 added_dynamic, added_fixed; u32 epoch; i32 n_slots;
 *   i32 slot_owner[n_slots]; u64 slot_user[n_slots]; u32 slot_mark[n_slots];
 *   i32 cuts_moved, n_cuts; f64 cuts[n_cuts] (dims[0] + dims[1] + dims[2] + 3
 *   boundaries: the cuts in use, which a balance moved);
 *   u64 user_bytes; the caller's bytes.
 *
 * Version 1 ("NSCDMPI1", before the balance) has no cuts: equal cells. The
 * exchange plan, the halo in use and the scratch are rebuilt by the
 * migration at the start of the next step; the cuts move again only at the
 * next balance, so a restarted run cuts as the uninterrupted one. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/memory.h"
#include "mpi/world_mpi_impl.h"
#include "nscd/world_checkpoint.h"

static const char MAGIC[8] = {'N', 'S', 'C', 'D', 'M', 'P', 'I', '2'};
static const char MAGIC_1[8] = {'N', 'S', 'C', 'D', 'M', 'P', 'I', '1'};

static size_t n_cuts(const nscd_world_mpi *w) {
    return (size_t)w->dims[0] + (size_t)w->dims[1] + (size_t)w->dims[2] + 3;
}

/* Bytes of the cuts block (version 2). */
static size_t cuts_bytes(const nscd_world_mpi *w) { return 8 + 8 * n_cuts(w); }
enum { FIXED_BYTES = 8 + 8 * 4 + 11 * 8 + 2 * 8 + 4 + 4 };

static nscd_status agree(MPI_Comm comm, nscd_status rc) {
    int mine = rc, all = rc;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm);
    return all;
}

static void rank_path(const nscd_world_mpi *w, const char *prefix, char *path, size_t size) {
    snprintf(path, size, "%s.rank%d", prefix, w->rank);
}

/* Appends n bytes to buf at *pos. */
static void put(unsigned char *buf, size_t *pos, const void *x, size_t n) {
    memcpy(buf + *pos, x, n);
    *pos += n;
}

nscd_status nscd_world_mpi_save(nscd_world_mpi *w, const char *prefix, const void *user_data,
                                size_t user_bytes) {
    if (w == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd__diag_clear(&w->diag);
    nscd_status rc = prefix == NULL || (user_data == NULL && user_bytes > 0) ? NSCD_ERR_NULL_POINTER
                     : w->broken                                             ? NSCD_ERR_STATE
                                                                             : NSCD_OK;
    if (rc == NSCD_OK) {
        rc = nscd__mpi_reserve_slots(w);
    }
    size_t n = (size_t)w->local->n_slots;
    size_t bytes = FIXED_BYTES + n * (4 + 8 + 4) + cuts_bytes(w) + 8 + user_bytes;
    unsigned char *blob = rc == NSCD_OK ? nscd__alloc(&w->allocator, bytes) : NULL;
    if (rc == NSCD_OK && blob == NULL) {
        rc = NSCD_ERR_OUT_OF_MEMORY;
    }
    if (rc == NSCD_OK) {
        size_t pos = 0;
        int32_t ints[8] = {w->rank,    w->size,      w->dims[0],   w->dims[1],
                           w->dims[2], w->coords[0], w->coords[1], w->coords[2]};
        double reals[11];
        memcpy(reals, w->lower, 3 * sizeof(double));
        memcpy(reals + 3, w->upper, 3 * sizeof(double));
        memcpy(reals + 6, w->width, 3 * sizeof(double));
        reals[9] = w->halo_option;
        reals[10] = w->halo;
        int32_t slots = (int32_t)n;
        uint64_t user = (uint64_t)user_bytes;
        put(blob, &pos, MAGIC, 8);
        put(blob, &pos, ints, sizeof ints);
        put(blob, &pos, reals, sizeof reals);
        put(blob, &pos, &w->added_dynamic, 8);
        put(blob, &pos, &w->added_fixed, 8);
        put(blob, &pos, &w->epoch, 4);
        put(blob, &pos, &slots, 4);
        if (n > 0) {
            put(blob, &pos, w->slot_owner, 4 * n);
            put(blob, &pos, w->slot_user, 8 * n);
            put(blob, &pos, w->slot_mark, 4 * n);
        }
        int32_t cuts[2] = {w->cuts_moved, (int32_t)n_cuts(w)};
        put(blob, &pos, cuts, sizeof cuts);
        put(blob, &pos, w->cut, 8 * n_cuts(w));
        put(blob, &pos, &user, 8);
        if (user_bytes > 0) {
            put(blob, &pos, user_data, user_bytes);
        }
        char path[4096];
        rank_path(w, prefix, path, sizeof path);
        rc = nscd_world_save(w->local, path, blob, bytes);
        if (rc != NSCD_OK) {
            nscd__fail(&w->diag, rc, "%s", nscd_world_last_error(w->local));
        }
    }
    nscd__free(&w->allocator, blob, bytes);
    rc = agree(w->comm, rc);
    if (rc != NSCD_OK && w->diag.last_error[0] == '\0') {
        nscd__fail(&w->diag, rc, "nscd_world_mpi_save failed on a rank");
    }
    return rc;
}

/* Checks the blob of this rank against the world it is loaded into (the
 * decomposition) and the local world read (its slots); NULL or what failed. */
static const char *check_blob(const nscd_world_mpi *w, const nscd_world *local,
                              const unsigned char *blob, size_t size, size_t *user_offset,
                              size_t *user_bytes, size_t *cuts_offset) {
    if (size < FIXED_BYTES + 8 || (memcmp(blob, MAGIC, 8) != 0 && memcmp(blob, MAGIC_1, 8) != 0)) {
        return "not a distributed world's checkpoint";
    }
    size_t cuts = memcmp(blob, MAGIC, 8) == 0 ? cuts_bytes(w) : 0;
    int32_t ints[8], mine[8] = {w->rank,    w->size,      w->dims[0],   w->dims[1],
                                w->dims[2], w->coords[0], w->coords[1], w->coords[2]};
    double reals[11], box[9];
    memcpy(ints, blob + 8, sizeof ints);
    memcpy(reals, blob + 8 + sizeof ints, sizeof reals);
    memcpy(box, w->lower, 3 * sizeof(double));
    memcpy(box + 3, w->upper, 3 * sizeof(double));
    memcpy(box + 6, w->width, 3 * sizeof(double));
    if (memcmp(ints, mine, sizeof ints) != 0 || memcmp(reals, box, sizeof box) != 0) {
        return "another rank count or decomposition";
    }
    int32_t slots = 0;
    memcpy(&slots, blob + FIXED_BYTES - 4, 4);
    if (slots != local->n_slots || size < FIXED_BYTES + 8 + cuts ||
        (size_t)slots > (size - FIXED_BYTES - 8 - cuts) / 16) {
        return "slot table";
    }
    size_t at = FIXED_BYTES + 16 * (size_t)slots;
    *cuts_offset = 0;
    if (cuts > 0) { /* the cuts: as many, increasing from the domain box's lower to upper face */
        int32_t head[2];
        memcpy(head, blob + at, sizeof head);
        if ((head[0] != 0 && head[0] != 1) || head[1] != (int32_t)n_cuts(w)) {
            return "cuts";
        }
        for (int k = 0, first = 0; k < 3; first += w->dims[k] + 1, ++k) {
            double prev = 0.0;
            for (int32_t c = 0; c <= w->dims[k]; ++c) {
                double x;
                memcpy(&x, blob + at + 8 + 8 * (size_t)(first + c), 8);
                bool end = c == 0 || c == w->dims[k];
                if (!isfinite(x) || (c > 0 && !(x >= prev)) ||
                    (end && x != (c == 0 ? w->lower[k] : w->upper[k]))) {
                    return "cuts";
                }
                prev = x;
            }
        }
        *cuts_offset = at;
        at += cuts;
    }
    uint64_t user = 0;
    memcpy(&user, blob + at, 8);
    if (user != size - at - 8) {
        return "user data size";
    }
    for (int32_t s = 0; s < slots; ++s) {
        int32_t owner = 0;
        memcpy(&owner, blob + FIXED_BYTES + 4 * (size_t)s, 4);
        if (owner < -1 || owner >= w->size) {
            return "slot owner";
        }
    }
    *user_offset = at + 8;
    *user_bytes = (size_t)user;
    return NULL;
}

/* This rank's part of the load: the local world read into `fresh`, its
 * blob checked; the user data copied out. */
static nscd_status load_rank(nscd_world_mpi *w, const char *path, nscd_world **fresh,
                             unsigned char **blob, size_t *blob_capacity, void *user_data,
                             size_t user_capacity, size_t *user_bytes, size_t *cuts_offset) {
    FILE *f = fopen(path, "rb");
    long end = -1;
    if (f != NULL) {
        end = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1L;
        fclose(f);
    }
    if (end < 0) {
        return nscd__fail(&w->diag, NSCD_ERR_IO, "checkpoint %s: cannot open", path);
    }
    *blob_capacity = (size_t)end + 1; /* the blob is part of the file */
    *blob = nscd__alloc(&w->allocator, *blob_capacity);
    nscd_world_desc d = w->local->desc;
    nscd_status rc = *blob == NULL ? NSCD_ERR_OUT_OF_MEMORY : nscd_world_create(&d, fresh);
    if (rc != NSCD_OK) {
        return nscd__fail(&w->diag, rc, "checkpoint %s: out of memory", path);
    }
    size_t size = 0;
    rc = nscd_world_load(*fresh, path, *blob, *blob_capacity, &size);
    if (rc != NSCD_OK) {
        return nscd__fail(&w->diag, rc, "%s", nscd_world_last_error(*fresh));
    }
    size_t offset = 0, bytes = 0;
    const char *bad = check_blob(w, *fresh, *blob, size, &offset, &bytes, cuts_offset);
    if (bad != NULL) {
        return nscd__fail(&w->diag, NSCD_ERR_IO, "checkpoint %s: %s", path, bad);
    }
    if (user_bytes != NULL) {
        *user_bytes = bytes;
    }
    if (user_data != NULL && bytes > user_capacity) {
        return nscd__fail(&w->diag, NSCD_ERR_BUFFER_TOO_SMALL,
                          "checkpoint %s: user data of %zu bytes, room for %zu", path, bytes,
                          user_capacity);
    }
    if (user_data != NULL && bytes > 0) {
        memcpy(user_data, *blob + offset, bytes);
    }
    return NSCD_OK;
}

nscd_status nscd_world_mpi_load(nscd_world_mpi *w, const char *prefix, void *user_data,
                                size_t user_capacity, size_t *user_bytes) {
    if (w == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd__diag_clear(&w->diag);
    const nscd_world *l = w->local;
    nscd_status rc = NSCD_OK;
    if (prefix == NULL) {
        rc = nscd__fail(&w->diag, NSCD_ERR_NULL_POINTER, "nscd_world_mpi_load: prefix is NULL");
    } else if (w->broken || l->n_bodies != 0 || l->n_slots != 0 || l->steps != 0 ||
               w->added_dynamic != 0 || w->added_fixed != 0) {
        rc = nscd__fail(&w->diag, NSCD_ERR_STATE,
                        "nscd_world_mpi_load: the world is not fresh from nscd_world_mpi_create");
    }
    nscd_world *fresh = NULL, *old = w->local;
    unsigned char *blob = NULL;
    size_t blob_capacity = 0, cuts_offset = 0;
    if (rc == NSCD_OK) {
        char path[4096];
        rank_path(w, prefix, path, sizeof path);
        rc = load_rank(w, path, &fresh, &blob, &blob_capacity, user_data, user_capacity, user_bytes,
                       &cuts_offset);
    }
    if (rc == NSCD_OK) { /* the slot tables of the loaded world */
        w->local = fresh;
        rc = nscd__mpi_reserve_slots(w);
        w->local = old;
        if (rc != NSCD_OK) {
            nscd__fail(&w->diag, rc, "nscd_world_mpi_load: slot tables");
        }
    }
    rc = agree(w->comm, rc);
    if (rc == NSCD_OK) {
        size_t n = (size_t)fresh->n_slots, pos = 8 + 8 * 4;
        double reals[11];
        memcpy(reals, blob + pos, sizeof reals);
        pos += sizeof reals;
        w->halo_option = reals[9];
        w->halo = reals[10];
        memcpy(&w->added_dynamic, blob + pos, 8);
        memcpy(&w->added_fixed, blob + pos + 8, 8);
        memcpy(&w->epoch, blob + pos + 16, 4);
        pos = FIXED_BYTES;
        if (n > 0) {
            memcpy(w->slot_owner, blob + pos, 4 * n);
            memcpy(w->slot_user, blob + pos + 4 * n, 8 * n);
            memcpy(w->slot_mark, blob + pos + 12 * n, 4 * n);
        }
        if (cuts_offset > 0) {
            memcpy(&w->cuts_moved, blob + cuts_offset, 4);
            memcpy(w->cut, blob + cuts_offset + 8, 8 * n_cuts(w));
        }
        w->local = fresh;
        fresh = old; /* the empty local world goes */
    } else if (w->diag.last_error[0] == '\0') {
        nscd__fail(&w->diag, rc, "nscd_world_mpi_load failed on another rank");
    }
    nscd_world_destroy(fresh);
    nscd__free(&w->allocator, blob, blob_capacity);
    return rc;
}
