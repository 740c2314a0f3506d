/* Parallel VTK of the distributed world: one XML polydata piece per rank
 * (its owned dynamic bodies, one point each) and the .pvtp index that
 * ParaView opens, written by rank 0. Numbers with 17 significant digits. */
#include <stdio.h>
#include <string.h>

#include "mpi/world_mpi_impl.h"

static bool owned_body(const nscd_world_mpi *w, int32_t i) {
    return w->local->type[i] == NSCD_BODY_DYNAMIC && nscd__mpi_owned(w, i);
}

/* One DataArray of `components` doubles per owned body from `field`
 * (3 per body), or the radius / ids when field is NULL. */
static int write_array(const nscd_world_mpi *w, FILE *f, const char *name, const double *field) {
    const nscd_world *l = w->local;
    int bad = fprintf(f,
                      "<DataArray type=\"Float64\" Name=\"%s\" NumberOfComponents=\"3\" "
                      "format=\"ascii\">\n",
                      name) < 0;
    for (int32_t i = 0; i < l->n_bodies && !bad; ++i) {
        const double *x = field + 3 * (size_t)i;
        bad = owned_body(w, i) && fprintf(f, "%.17g %.17g %.17g\n", x[0], x[1], x[2]) < 0;
    }
    return bad || fprintf(f, "</DataArray>\n") < 0;
}

static int write_piece(const nscd_world_mpi *w, FILE *f) {
    const nscd_world *l = w->local;
    int32_t n = nscd_world_mpi_body_count(w);
    int bad = fprintf(f,
                      "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"0.1\" "
                      "byte_order=\"LittleEndian\">\n<PolyData>\n<Piece NumberOfPoints=\"%d\" "
                      "NumberOfVerts=\"%d\">\n<Points>\n",
                      (int)n, (int)n) < 0;
    bad = bad || write_array(w, f, "position", l->position);
    bad = bad || fprintf(f, "</Points>\n<PointData>\n<DataArray type=\"Float64\" Name=\"radius\" "
                            "format=\"ascii\">\n") < 0;
    for (int32_t i = 0; i < l->n_bodies && !bad; ++i) {
        bad = owned_body(w, i) && fprintf(f, "%.17g\n", l->bound_radius[i]) < 0;
    }
    const char *ids[2] = {"global_id", "user_id"};
    for (int k = 0; k < 2 && !bad; ++k) {
        bad = fprintf(f, "</DataArray>\n<DataArray type=\"UInt64\" Name=\"%s\" format=\"ascii\">\n",
                      ids[k]) < 0;
        for (int32_t i = 0; i < l->n_bodies && !bad; ++i) {
            uint64_t id = k == 0 ? l->user_id[i] : w->slot_user[nscd__mpi_slot(l, i)];
            bad = owned_body(w, i) && fprintf(f, "%llu\n", (unsigned long long)id) < 0;
        }
    }
    bad = bad || fprintf(f, "</DataArray>\n") < 0;
    bad = bad || write_array(w, f, "velocity", l->velocity);
    bad = bad || write_array(w, f, "angular_velocity", l->omega);
    bad = bad || fprintf(f, "</PointData>\n<Verts>\n<DataArray type=\"Int64\" "
                            "Name=\"connectivity\" format=\"ascii\">\n") < 0;
    for (int32_t k = 0; k < n && !bad; ++k) {
        bad = fprintf(f, "%d\n", (int)k) < 0;
    }
    bad = bad || fprintf(f, "</DataArray>\n<DataArray type=\"Int64\" Name=\"offsets\" "
                            "format=\"ascii\">\n") < 0;
    for (int32_t k = 0; k < n && !bad; ++k) {
        bad = fprintf(f, "%d\n", (int)k + 1) < 0;
    }
    return bad || fprintf(f, "</DataArray>\n</Verts>\n</Piece>\n</PolyData>\n</VTKFile>\n") < 0;
}

/* The index: the arrays' names and types, and one Piece per rank. */
static int write_index(const nscd_world_mpi *w, FILE *f, const char *base) {
    int bad =
        fprintf(f, "<?xml version=\"1.0\"?>\n<VTKFile type=\"PPolyData\" version=\"0.1\" "
                   "byte_order=\"LittleEndian\">\n<PPolyData GhostLevel=\"0\">\n"
                   "<PPoints><PDataArray type=\"Float64\" Name=\"position\" "
                   "NumberOfComponents=\"3\"/></PPoints>\n<PPointData>\n"
                   "<PDataArray type=\"Float64\" Name=\"radius\"/>\n"
                   "<PDataArray type=\"UInt64\" Name=\"global_id\"/>\n"
                   "<PDataArray type=\"UInt64\" Name=\"user_id\"/>\n"
                   "<PDataArray type=\"Float64\" Name=\"velocity\" NumberOfComponents=\"3\"/>\n"
                   "<PDataArray type=\"Float64\" Name=\"angular_velocity\" "
                   "NumberOfComponents=\"3\"/>\n</PPointData>\n") < 0;
    for (int r = 0; r < w->size && !bad; ++r) {
        bad = fprintf(f, "<Piece Source=\"%s_%d.vtp\"/>\n", base, r) < 0;
    }
    return bad || fprintf(f, "</PPolyData>\n</VTKFile>\n") < 0;
}

static nscd_status write_file(const nscd_world_mpi *w, const char *path, const char *base,
                              bool index) {
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        return NSCD_ERR_IO;
    }
    int bad = index ? write_index(w, f, base) : write_piece(w, f);
    bad = fclose(f) != 0 || bad;
    return bad ? NSCD_ERR_IO : NSCD_OK;
}

nscd_status nscd_world_mpi_write_vtk(nscd_world_mpi *w, const char *prefix) {
    if (w == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd__diag_clear(&w->diag);
    char path[4096];
    nscd_status rc = NSCD_OK;
    if (prefix == NULL || strlen(prefix) > sizeof path - 32) {
        rc = NSCD_ERR_INVALID_ARGUMENT;
    }
    /* pieces are named relative to the index: the prefix's last component */
    const char *slash = prefix == NULL ? NULL : strrchr(prefix, '/');
    const char *base = slash != NULL ? slash + 1 : prefix;
    if (rc == NSCD_OK) {
        snprintf(path, sizeof path, "%s_%d.vtp", prefix, w->rank);
        rc = write_file(w, path, base, false);
    }
    if (rc == NSCD_OK && w->rank == 0) {
        snprintf(path, sizeof path, "%s.pvtp", prefix);
        rc = write_file(w, path, base, true);
    }
    int mine = rc, all = rc;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, w->comm);
    return all == NSCD_OK ? NSCD_OK : nscd__fail(&w->diag, all, "writing %s", prefix ? prefix : "");
}
