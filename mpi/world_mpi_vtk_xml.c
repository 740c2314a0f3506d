/* Binary parallel VTK XML of the distributed world (include/nscd/world_mpi.h,
 * docs/paraview.md): each rank writes the shapes of its owned dynamic
 * bodies with the serial world's writer (src/world/world_vtk_xml.c),
 * rank 0 also the fixed bodies every rank holds, and the .pvtp index; a
 * series keeps a .pvd of the indexes on rank 0. */
#include <stdlib.h>
#include <string.h>

#include "world/world_vtk_xml.h"
#include "mpi/world_mpi_impl.h"

#define PART_BITS (NSCD_WORLD_VTK_SHAPES | NSCD_WORLD_VTK_CONTACTS)
#define OPTION_BITS (NSCD_WORLD_VTK_FLOAT64 | NSCD_WORLD_VTK_COMPACT | NSCD_WORLD_VTK_TENSOR)
#define MAX_PREFIX 4000

static bool keep(const void *ctx, int32_t i) {
    const nscd_world_mpi *w = ctx;
    return w->local->type[i] == NSCD_BODY_DYNAMIC ? nscd__mpi_owned(w, i) : w->rank == 0;
}

static uint64_t user_id(const void *ctx, int32_t i) {
    const nscd_world_mpi *w = ctx;
    return w->slot_user[nscd__mpi_slot(w->local, i)];
}

static uint64_t global_id(const void *ctx, int32_t i) {
    const nscd_world_mpi *w = ctx;
    return w->local->user_id[i]; /* the local world keeps the global id there */
}

static bool valid(const char *prefix, int32_t flags) {
    return prefix != NULL && prefix[0] != '\0' && strlen(prefix) <= MAX_PREFIX &&
           (flags & ~(PART_BITS | OPTION_BITS)) == 0 &&
           (flags & PART_BITS) == NSCD_WORLD_VTK_SHAPES;
}

static nscd_status write_index(const nscd_world_mpi *w, const char *prefix, int32_t flags) {
    size_t len = strlen(prefix) + 16;
    char *path = malloc(len);
    if (path == NULL) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    snprintf(path, len, "%s.pvtp", prefix);
    FILE *f = fopen(path, "w");
    free(path);
    if (f == NULL) {
        return NSCD_ERR_IO;
    }
    const char *base = nscd__vtk_base_name(prefix);
    int bad = fprintf(f, "<?xml version=\"1.0\"?>\n<VTKFile type=\"PPolyData\" version=\"1.0\" "
                         "byte_order=\"LittleEndian\" header_type=\"UInt64\">\n"
                         "<PPolyData GhostLevel=\"0\">\n") < 0;
    bad = bad || nscd__world_vtk_write_pshapes(f, flags);
    for (int r = 0; r < w->size && !bad; ++r) {
        bad = fprintf(f, "<Piece Source=\"%s_%d.vtp\"/>\n", base, r) < 0;
    }
    bad = bad || fprintf(f, "</PPolyData>\n</VTKFile>\n") < 0;
    bad = fclose(f) != 0 || bad;
    return bad ? NSCD_ERR_IO : NSCD_OK;
}

/* Every rank's piece and rank 0's index; the worst status of every rank. */
static nscd_status write_step(nscd_world_mpi *w, const char *prefix, int32_t flags) {
    nscd_status rc = NSCD_OK;
    size_t len = strlen(prefix) + 32;
    char *path = malloc(len);
    if (path == NULL) {
        rc = NSCD_ERR_OUT_OF_MEMORY;
    } else {
        snprintf(path, len, "%s_%d.vtp", prefix, w->rank);
        const nscd__world_vtk_filter filter = {keep, user_id, global_id, w};
        rc = nscd__world_vtk_write_shapes(w->local, path, flags, &filter);
        free(path);
    }
    if (rc == NSCD_OK && w->rank == 0) {
        rc = write_index(w, prefix, flags);
    }
    int mine = rc, all = rc;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, w->comm);
    return all;
}

nscd_status nscd_world_mpi_write_vtk_xml(nscd_world_mpi *w, const char *prefix, int32_t flags) {
    if (w == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd__diag_clear(&w->diag);
    if (!valid(prefix, flags)) { /* the same arguments on every rank: no exchange */
        return nscd__fail(&w->diag, NSCD_ERR_INVALID_ARGUMENT,
                          "nscd_world_mpi_write_vtk_xml: a NULL, empty or too long prefix, or "
                          "flags 0x%x (SHAPES and options only)",
                          (unsigned)flags);
    }
    nscd_status st = write_step(w, prefix, flags);
    return st == NSCD_OK ? NSCD_OK : nscd__fail(&w->diag, st, "writing %s", prefix);
}

struct nscd_world_mpi_vtk_series {
    char *prefix;
    const char *base;
    int32_t flags, frames, capacity;
    double *times;
};

static nscd_status write_collection(const nscd_world_mpi_vtk_series *s, const nscd_world_mpi *w) {
    nscd_status rc = w->rank == 0 ? nscd__vtk_write_collection(s->prefix, s->base, "", ".pvtp",
                                                               s->times, s->frames)
                                  : NSCD_OK;
    int mine = rc, all = rc;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, w->comm);
    return all;
}

nscd_status nscd_world_mpi_vtk_series_create(nscd_world_mpi *w, const char *prefix, int32_t flags,
                                             nscd_world_mpi_vtk_series **series) {
    if (w == NULL || series == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd__diag_clear(&w->diag);
    if (!valid(prefix, flags)) {
        return nscd__fail(&w->diag, NSCD_ERR_INVALID_ARGUMENT,
                          "nscd_world_mpi_vtk_series_create: a NULL, empty or too long prefix, "
                          "or flags 0x%x (SHAPES and options only)",
                          (unsigned)flags);
    }
    nscd_world_mpi_vtk_series *s = calloc(1, sizeof *s);
    size_t len = strlen(prefix);
    char *copy = malloc(len + 1);
    int ok = s != NULL && copy != NULL, all = ok;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, w->comm);
    if (!all) {
        free(s);
        free(copy);
        return nscd__fail(&w->diag, NSCD_ERR_OUT_OF_MEMORY, "nscd_world_mpi_vtk_series_create");
    }
    memcpy(copy, prefix, len + 1);
    s->prefix = copy;
    s->base = nscd__vtk_base_name(copy);
    s->flags = flags;
    nscd_status st = write_collection(s, w);
    if (st != NSCD_OK) {
        nscd_world_mpi_vtk_series_destroy(s);
        return nscd__fail(&w->diag, st, "nscd_world_mpi_vtk_series_create: writing %s.pvd", prefix);
    }
    *series = s;
    return NSCD_OK;
}

nscd_status nscd_world_mpi_vtk_series_write(nscd_world_mpi_vtk_series *s, nscd_world_mpi *w) {
    if (s == NULL || w == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd__diag_clear(&w->diag);
    int ok = s->frames < INT32_MAX;
    if (ok && s->frames == s->capacity) {
        int32_t cap = s->capacity < 64              ? 64
                      : s->capacity > INT32_MAX / 2 ? INT32_MAX
                                                    : 2 * s->capacity;
        double *t = realloc(s->times, (size_t)cap * sizeof *t);
        ok = t != NULL;
        if (ok) {
            s->times = t;
            s->capacity = cap;
        }
    }
    size_t len = strlen(s->prefix) + 16;
    char *frame = ok ? malloc(len) : NULL;
    ok = frame != NULL;
    int all = ok;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, w->comm);
    if (!all) {
        free(frame);
        return nscd__fail(&w->diag, NSCD_ERR_OUT_OF_MEMORY, "nscd_world_mpi_vtk_series_write");
    }
    snprintf(frame, len, "%s_%06ld", s->prefix, (long)s->frames);
    nscd_status st = write_step(w, frame, s->flags);
    if (st == NSCD_OK) {
        s->times[s->frames++] = nscd_world_mpi_time(w);
        st = write_collection(s, w);
        if (st != NSCD_OK) {
            --s->frames;
        }
    }
    st = st == NSCD_OK ? NSCD_OK : nscd__fail(&w->diag, st, "writing %s", frame);
    free(frame);
    return st;
}

void nscd_world_mpi_vtk_series_destroy(nscd_world_mpi_vtk_series *s) {
    if (s != NULL) {
        free(s->prefix);
        free(s->times);
        free(s);
    }
}
