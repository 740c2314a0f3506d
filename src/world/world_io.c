/* Writers of the rigid-body world: legacy ASCII VTK polydata (ParaView) and
 * CSV, one point / row per body, for the examples and plots. Numbers are
 * printed with 17 significant digits, so a file holds the exact state. */
#include <stdio.h>

#include "world/world_impl.h"

static int write_vtk(const nscd_world *w, FILE *f) {
    int32_t n = nscd_world_body_count(w);
    int bad = fprintf(f,
                      "# vtk DataFile Version 3.0\nnscd world t=%.17g\nASCII\n"
                      "DATASET POLYDATA\nPOINTS %d double\n",
                      w->time, (int)n) < 0;
    for (int32_t i = 0; i < w->n_bodies && !bad; ++i) {
        const double *x = w->position + 3 * (size_t)i;
        bad = w->type[i] >= 0 && fprintf(f, "%.17g %.17g %.17g\n", x[0], x[1], x[2]) < 0;
    }
    bad = bad || fprintf(f, "VERTICES %d %d\n", (int)n, (int)(2 * n)) < 0;
    for (int32_t k = 0; k < n && !bad; ++k) {
        bad = fprintf(f, "1 %d\n", (int)k) < 0;
    }
    bad = bad ||
          fprintf(f, "POINT_DATA %d\nSCALARS radius double 1\nLOOKUP_TABLE default\n", (int)n) < 0;
    for (int32_t i = 0; i < w->n_bodies && !bad; ++i) {
        bad = w->type[i] >= 0 && fprintf(f, "%.17g\n", w->bound_radius[i]) < 0;
    }
    bad = bad || fprintf(f, "SCALARS user_id unsigned_long 1\nLOOKUP_TABLE default\n") < 0;
    for (int32_t i = 0; i < w->n_bodies && !bad; ++i) {
        bad = w->type[i] >= 0 && fprintf(f, "%llu\n", (unsigned long long)w->user_id[i]) < 0;
    }
    const char *names[2] = {"velocity", "angular_velocity"};
    const double *fields[2] = {w->velocity, w->omega};
    for (int v = 0; v < 2 && !bad; ++v) {
        bad = fprintf(f, "VECTORS %s double\n", names[v]) < 0;
        for (int32_t i = 0; i < w->n_bodies && !bad; ++i) {
            const double *x = fields[v] + 3 * (size_t)i;
            bad = w->type[i] >= 0 && fprintf(f, "%.17g %.17g %.17g\n", x[0], x[1], x[2]) < 0;
        }
    }
    return bad;
}

static int write_csv(const nscd_world *w, FILE *f) {
    int bad = fprintf(f, "id,user_id,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz,radius\n") < 0;
    for (int32_t i = 0; i < w->n_bodies && !bad; ++i) {
        if (w->type[i] < 0) {
            continue;
        }
        const double *x = w->position + 3 * (size_t)i, *q = w->orientation + 4 * (size_t)i;
        const double *v = w->velocity + 3 * (size_t)i, *om = w->omega + 3 * (size_t)i;
        bad = fprintf(f,
                      "%llu,%llu,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,"
                      "%.17g,%.17g,%.17g,%.17g\n",
                      (unsigned long long)w->id[i], (unsigned long long)w->user_id[i], x[0], x[1],
                      x[2], q[0], q[1], q[2], q[3], v[0], v[1], v[2], om[0], om[1], om[2],
                      w->bound_radius[i]) < 0;
    }
    return bad;
}

nscd_status nscd_world_write(const nscd_world *w, const char *path, int32_t format) {
    if (w == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    if (path == NULL) {
        return nscd__world_read_fail(w, NSCD_ERR_NULL_POINTER, "nscd_world_write: path is NULL");
    }
    if (format != NSCD_WORLD_VTK && format != NSCD_WORLD_CSV) {
        return nscd__world_read_fail(w, NSCD_ERR_INVALID_ARGUMENT,
                                     "nscd_world_write: format %d (VTK %d or CSV %d)", (int)format,
                                     (int)NSCD_WORLD_VTK, (int)NSCD_WORLD_CSV);
    }
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        return nscd__world_read_fail(w, NSCD_ERR_IO, "nscd_world_write: cannot open %s", path);
    }
    int bad = format == NSCD_WORLD_VTK ? write_vtk(w, f) : write_csv(w, f);
    bad = fclose(f) != 0 || bad;
    return bad ? nscd__world_read_fail(w, NSCD_ERR_IO, "nscd_world_write: writing %s failed", path)
               : NSCD_OK;
}
