/* Binary VTK XML PolyData of the rigid-body world (include/nscd/world.h,
 * nscd_world_write_vtk_xml; docs/paraview.md): one point per shape with
 * what draws it (type, dimensions, orientation) or one point per contact,
 * every array in one raw appended block, little-endian with UInt64 byte
 * counts, whatever the host's byte order; and the time series that keeps a
 * ParaView collection (.pvd) valid after each frame. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collision/hull.h"
#include "core/vec3.h"
#include "world/world_impl.h"
#include "world/world_vtk_xml.h"

#define PART_BITS (NSCD_WORLD_VTK_SHAPES | NSCD_WORLD_VTK_CONTACTS | NSCD_WORLD_VTK_HULLS)
#define KNOWN_BITS                                                                                 \
    (PART_BITS | NSCD_WORLD_VTK_FLOAT64 | NSCD_WORLD_VTK_COMPACT | NSCD_WORLD_VTK_TENSOR)
#define MAX_PREFIX 4000

/* ---- the little-endian byte stream ------------------------------------ */

typedef struct out {
    FILE *f;
    int bad;
    int real8; /* reals as Float64 */
    size_t n;
    unsigned char buf[8192];
} out;

static void flush(out *o) {
    if (o->n > 0 && !o->bad) {
        o->bad = fwrite(o->buf, 1, o->n, o->f) != o->n;
    }
    o->n = 0;
}

static void put_le(out *o, uint64_t v, int bytes) {
    if (o->n + 8 > sizeof o->buf) {
        flush(o);
    }
    for (int k = 0; k < bytes; ++k) {
        o->buf[o->n++] = (unsigned char)(v >> (8 * k));
    }
}

static void put_real(out *o, double x) {
    if (o->real8) {
        uint64_t u;
        memcpy(&u, &x, sizeof u);
        put_le(o, u, 8);
    } else {
        float s = (float)x;
        uint32_t u;
        memcpy(&u, &s, sizeof u);
        put_le(o, u, 4);
    }
}

/* ---- arrays: a table of what each file holds ---------------------------- */

enum { T_REAL, T_U64, T_U8, T_I32 };

enum field {
    F_POINTS,
    F_SHAPE_TYPE,
    F_DIMENSIONS,
    F_ORIENTATION,
    F_USER_ID,
    F_BODY_ID,
    F_BODY_TYPE,
    F_VELOCITY,
    F_OMEGA,
    F_MASS,
    F_TENSOR,
    F_NORMAL,
    F_GAP,
    F_NORMAL_IMPULSE,
    F_TANGENTIAL_IMPULSE,
    F_IMPULSE,
    F_BODY_A,
    F_BODY_B,
    F_CONNECTIVITY,
    F_OFFSETS
};

typedef struct array_def {
    const char *name;
    int type, components, field;
} array_def;

static const char *type_name(int type, int real8) {
    switch (type) {
    case T_REAL: return real8 ? "Float64" : "Float32";
    case T_U64: return "UInt64";
    case T_U8: return "UInt8";
    default: return "Int32";
    }
}

static uint64_t type_size(int type, int real8) {
    return type == T_U64 ? 8 : type == T_U8 ? 1 : type == T_I32 ? 4 : real8 ? 8 : 4;
}

/* The point arrays of the shapes part for these flags; returns the count. */
static int shape_arrays(int32_t flags, array_def *a) {
    int n = 0;
    a[n++] = (array_def){"shape_type", T_U8, 1, F_SHAPE_TYPE};
    a[n++] = (array_def){"dimensions", T_REAL, 3, F_DIMENSIONS};
    a[n++] = (array_def){"orientation", T_REAL, 4, F_ORIENTATION};
    if (!(flags & NSCD_WORLD_VTK_COMPACT)) {
        a[n++] = (array_def){"user_id", T_U64, 1, F_USER_ID};
        a[n++] = (array_def){"body_id", T_U64, 1, F_BODY_ID};
        a[n++] = (array_def){"body_type", T_U8, 1, F_BODY_TYPE};
        a[n++] = (array_def){"velocity", T_REAL, 3, F_VELOCITY};
        a[n++] = (array_def){"angular_velocity", T_REAL, 3, F_OMEGA};
        a[n++] = (array_def){"mass", T_REAL, 1, F_MASS};
    }
    if (flags & NSCD_WORLD_VTK_TENSOR) {
        a[n++] = (array_def){"glyph_tensor", T_REAL, 9, F_TENSOR};
    }
    return n;
}

static int contact_arrays(array_def *a) {
    int n = 0;
    a[n++] = (array_def){"normal", T_REAL, 3, F_NORMAL};
    a[n++] = (array_def){"gap", T_REAL, 1, F_GAP};
    a[n++] = (array_def){"normal_impulse", T_REAL, 1, F_NORMAL_IMPULSE};
    a[n++] = (array_def){"tangential_impulse", T_REAL, 3, F_TANGENTIAL_IMPULSE};
    a[n++] = (array_def){"impulse", T_REAL, 3, F_IMPULSE};
    a[n++] = (array_def){"body_a", T_U64, 1, F_BODY_A};
    a[n++] = (array_def){"body_b", T_U64, 1, F_BODY_B};
    return n;
}

/* ---- what one point holds ------------------------------------------------ */

/* Unit quaternion (w >= 0) of a row-major rotation matrix (Shepperd). */
static void quat_of_rows(const double R[9], double q[4]) {
    double tr = R[0] + R[4] + R[8];
    if (tr > 0.0) {
        double s = 2.0 * sqrt(tr + 1.0);
        q[0] = 0.25 * s;
        q[1] = (R[7] - R[5]) / s;
        q[2] = (R[2] - R[6]) / s;
        q[3] = (R[3] - R[1]) / s;
    } else if (R[0] > R[4] && R[0] > R[8]) {
        double s = 2.0 * sqrt(1.0 + R[0] - R[4] - R[8]);
        q[0] = (R[7] - R[5]) / s;
        q[1] = 0.25 * s;
        q[2] = (R[1] + R[3]) / s;
        q[3] = (R[2] + R[6]) / s;
    } else if (R[4] > R[8]) {
        double s = 2.0 * sqrt(1.0 + R[4] - R[0] - R[8]);
        q[0] = (R[2] - R[6]) / s;
        q[1] = (R[1] + R[3]) / s;
        q[2] = 0.25 * s;
        q[3] = (R[5] + R[7]) / s;
    } else {
        double s = 2.0 * sqrt(1.0 + R[8] - R[0] - R[4]);
        q[0] = (R[3] - R[1]) / s;
        q[1] = (R[2] + R[6]) / s;
        q[2] = (R[5] + R[7]) / s;
        q[3] = 0.25 * s;
    }
    if (q[0] < 0.0) {
        for (int k = 0; k < 4; ++k) {
            q[k] = -q[k];
        }
    }
}

static bool is_identity(const double R[9]) {
    static const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    for (int k = 0; k < 9; ++k) {
        if (R[k] != I[k]) {
            return false;
        }
    }
    return true;
}

/* World pose of a shape: origin x, rotation R (row-major), quaternion q. */
static void shape_pose(const nscd_world *w, const nscd__world_shape *s, double x[3], double R[9],
                       double q[4]) {
    const double *qb = w->orientation + 4 * (size_t)s->body;
    const double *p = w->position + 3 * (size_t)s->body;
    double Rb[9];
    nscd__q_to_rows(qb, Rb);
    for (int r = 0; r < 3; ++r) {
        x[r] = p[r] + Rb[3 * r] * s->position[0] + Rb[3 * r + 1] * s->position[1] +
               Rb[3 * r + 2] * s->position[2];
        for (int c = 0; c < 3; ++c) {
            R[3 * r + c] = Rb[3 * r] * s->rotation[c] + Rb[3 * r + 1] * s->rotation[3 + c] +
                           Rb[3 * r + 2] * s->rotation[6 + c];
        }
    }
    if (is_identity(s->rotation)) {
        memcpy(q, qb, 4 * sizeof *q);
    } else {
        double qs[4];
        quat_of_rows(s->rotation, qs);
        nscd__quat m = nscd__q_mul((nscd__quat){qb[0], qb[1], qb[2], qb[3]},
                                   (nscd__quat){qs[0], qs[1], qs[2], qs[3]});
        q[0] = m.w;
        q[1] = m.x;
        q[2] = m.y;
        q[3] = m.z;
    }
}

static void shape_dimensions(const nscd__world_shape *s, double d[3]) {
    switch (s->type) {
    case NSCD_SHAPE_SPHERE: d[0] = d[1] = d[2] = s->radius; break;
    case NSCD_SHAPE_BOX: memcpy(d, s->half_extents, 3 * sizeof *d); break;
    case NSCD_SHAPE_CAPSULE:
    case NSCD_SHAPE_CYLINDER:
        d[0] = d[1] = s->radius;
        d[2] = s->half_height;
        break;
    case NSCD_SHAPE_CONVEX: /* the box about the shape origin that holds the hull */
        for (int k = 0; k < 3; ++k) {
            d[k] = fmax(fabs(s->hull->lo[k]), fabs(s->hull->hi[k]));
        }
        break;
    default: d[0] = d[1] = d[2] = 0.0; break;
    }
}

/* Reals (r) or integers (u) of shape s for array field f. */
static void shape_values(const nscd_world *w, const nscd__world_shape *s, int f,
                         const nscd__world_vtk_filter *filter, double *r, uint64_t *u) {
    int32_t i = s->body;
    double x[3], R[9], q[4], d[3];
    switch (f) {
    case F_POINTS: shape_pose(w, s, r, R, q); break;
    case F_SHAPE_TYPE: u[0] = (uint64_t)s->type; break;
    case F_DIMENSIONS: shape_dimensions(s, r); break;
    case F_ORIENTATION: shape_pose(w, s, x, R, r); break;
    case F_USER_ID:
        u[0] = filter != NULL && filter->user_id != NULL ? filter->user_id(filter->ctx, i)
                                                         : w->user_id[i];
        break;
    case F_BODY_ID:
        u[0] =
            filter != NULL && filter->body_id != NULL ? filter->body_id(filter->ctx, i) : w->id[i];
        break;
    case F_BODY_TYPE: u[0] = (uint64_t)w->type[i]; break;
    case F_VELOCITY: memcpy(r, w->velocity + 3 * (size_t)i, 3 * sizeof *r); break;
    case F_OMEGA: memcpy(r, w->omega + 3 * (size_t)i, 3 * sizeof *r); break;
    case F_MASS: r[0] = w->type[i] == NSCD_BODY_DYNAMIC ? w->mass[i] : 0.0; break;
    default: /* F_TENSOR: R diag(e), column by column */
        shape_pose(w, s, x, R, q);
        shape_dimensions(s, d);
        double e[3] = {2.0 * d[0], 2.0 * d[1], 2.0 * d[2]};
        if (s->type == NSCD_SHAPE_CAPSULE) {
            e[2] += 2.0 * s->radius;
        }
        for (int c = 0; c < 3; ++c) {
            for (int k = 0; k < 3; ++k) {
                r[3 * c + k] = R[3 * k + c] * e[c];
            }
        }
        break;
    }
}

static bool contact_alive(const nscd_world *w, const nscd__world_record *c) {
    return nscd__world_lookup(w, c->id_a) >= 0 && nscd__world_lookup(w, c->id_b) >= 0;
}

static void contact_values(const nscd__world_record *c, int f, double *r, uint64_t *u) {
    switch (f) {
    case F_POINTS: memcpy(r, c->point, 3 * sizeof *r); break;
    case F_NORMAL: memcpy(r, c->normal, 3 * sizeof *r); break;
    case F_GAP: r[0] = c->gap; break;
    case F_NORMAL_IMPULSE: r[0] = c->x[0]; break;
    case F_TANGENTIAL_IMPULSE:
        for (int k = 0; k < 3; ++k) {
            r[k] = c->impulse_world[k] - c->x[0] * c->normal[k];
        }
        break;
    case F_IMPULSE: memcpy(r, c->impulse_world, 3 * sizeof *r); break;
    case F_BODY_A: u[0] = c->id_a; break;
    default: /* F_BODY_B */ u[0] = c->id_b; break;
    }
}

/* ---- one file ------------------------------------------------------------- */

typedef struct piece {
    const nscd_world *w;
    const nscd__world_vtk_filter *filter;
    int contacts; /* 0: shapes, 1: contacts */
    int32_t points;
} piece;

static bool shape_kept(const piece *p, int32_t s) {
    int32_t i = p->w->shapes[s].body;
    return p->w->type[i] >= 0 &&
           (p->filter == NULL || p->filter->keep == NULL || p->filter->keep(p->filter->ctx, i));
}

static bool item_kept(const piece *p, int32_t k) {
    return p->contacts ? contact_alive(p->w, &p->w->records[k]) : shape_kept(p, k);
}

static int32_t items(const piece *p) { return p->contacts ? p->w->n_records : p->w->n_shapes; }

static int write_tag(FILE *f, const array_def *a, int real8, uint64_t offset) {
    return fprintf(f,
                   "<DataArray type=\"%s\" Name=\"%s\" NumberOfComponents=\"%d\" "
                   "format=\"appended\" offset=\"%llu\"/>\n",
                   type_name(a->type, real8), a->name, a->components,
                   (unsigned long long)offset) < 0;
}

static void write_block(out *o, const piece *p, const array_def *a) {
    uint64_t bytes = (uint64_t)p->points * (uint64_t)a->components * type_size(a->type, o->real8);
    put_le(o, bytes, 8);
    int32_t k = 0; /* the point's number (connectivity, offsets) */
    for (int32_t j = 0; j < items(p) && !o->bad; ++j) {
        if (!item_kept(p, j)) {
            continue;
        }
        double r[9] = {0};
        uint64_t u[1] = {0};
        if (a->field == F_CONNECTIVITY || a->field == F_OFFSETS) {
            u[0] = (uint64_t)(a->field == F_CONNECTIVITY ? k : k + 1);
        } else if (p->contacts) {
            contact_values(&p->w->records[j], a->field, r, u);
        } else {
            shape_values(p->w, &p->w->shapes[j], a->field, p->filter, r, u);
        }
        ++k;
        for (int c = 0; c < a->components; ++c) {
            if (a->type == T_REAL) {
                put_real(o, r[c]);
            } else {
                put_le(o, u[0], (int)type_size(a->type, o->real8));
            }
        }
    }
}

static int write_piece(FILE *f, const piece *p, int32_t flags) {
    int real8 = (flags & NSCD_WORLD_VTK_FLOAT64) != 0;
    array_def data[16];
    int n_data = p->contacts ? contact_arrays(data) : shape_arrays(flags, data);
    const array_def points = {"Points", T_REAL, 3, F_POINTS};
    const array_def verts[2] = {{"connectivity", T_I32, 1, F_CONNECTIVITY},
                                {"offsets", T_I32, 1, F_OFFSETS}};
    uint64_t offset = 0;
#define NEXT(a) (offset += 8 + (uint64_t)p->points * (a).components * type_size((a).type, real8))
    int bad = fprintf(f,
                      "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"1.0\" "
                      "byte_order=\"LittleEndian\" header_type=\"UInt64\">\n<PolyData>\n"
                      "<FieldData>\n<DataArray type=\"Float64\" Name=\"TimeValue\" "
                      "NumberOfTuples=\"1\" format=\"ascii\">%.17g</DataArray>\n</FieldData>\n"
                      "<Piece NumberOfPoints=\"%ld\" NumberOfVerts=\"%ld\" NumberOfLines=\"0\" "
                      "NumberOfStrips=\"0\" NumberOfPolys=\"0\">\n<Points>\n",
                      p->w->time, (long)p->points, (long)p->points) < 0;
    bad = bad || write_tag(f, &points, real8, offset);
    NEXT(points);
    bad = bad || fprintf(f, "</Points>\n<PointData>\n") < 0;
    for (int k = 0; k < n_data; ++k) {
        bad = bad || write_tag(f, &data[k], real8, offset);
        NEXT(data[k]);
    }
    bad = bad || fprintf(f, "</PointData>\n<Verts>\n") < 0;
    for (int k = 0; k < 2; ++k) {
        bad = bad || write_tag(f, &verts[k], real8, offset);
        NEXT(verts[k]);
    }
#undef NEXT
    bad = bad ||
          fprintf(f, "</Verts>\n</Piece>\n</PolyData>\n<AppendedData encoding=\"raw\">\n_") < 0;
    if (bad) {
        return bad;
    }
    out o = {f, 0, real8, 0, {0}};
    write_block(&o, p, &points);
    for (int k = 0; k < n_data; ++k) {
        write_block(&o, p, &data[k]);
    }
    for (int k = 0; k < 2; ++k) {
        write_block(&o, p, &verts[k]);
    }
    flush(&o);
    bad = o.bad;
    return bad || fprintf(f, "\n</AppendedData>\n</VTKFile>\n") < 0;
}

static nscd_status write_file(const char *path, const piece *p, int32_t flags) {
    FILE *f = fopen(path, "wb");
    if (f == NULL) {
        return NSCD_ERR_IO;
    }
    int bad = write_piece(f, p, flags);
    bad = fclose(f) != 0 || bad;
    return bad ? NSCD_ERR_IO : NSCD_OK;
}

static int32_t count_points(const piece *p) {
    int32_t n = 0;
    for (int32_t j = 0; j < items(p); ++j) {
        n += item_kept(p, j);
    }
    return n;
}

nscd_status nscd__world_vtk_write_shapes(const nscd_world *w, const char *path, int32_t flags,
                                         const nscd__world_vtk_filter *filter) {
    piece p = {w, filter, 0, 0};
    p.points = count_points(&p);
    return write_file(path, &p, flags);
}

int nscd__world_vtk_write_pshapes(FILE *f, int32_t flags) {
    int real8 = (flags & NSCD_WORLD_VTK_FLOAT64) != 0;
    array_def data[16];
    int n = shape_arrays(flags, data);
    int bad = fprintf(f,
                      "<PPoints>\n<PDataArray type=\"%s\" Name=\"Points\" "
                      "NumberOfComponents=\"3\"/>\n</PPoints>\n<PPointData>\n",
                      type_name(T_REAL, real8)) < 0;
    for (int k = 0; k < n && !bad; ++k) {
        bad = fprintf(f, "<PDataArray type=\"%s\" Name=\"%s\" NumberOfComponents=\"%d\"/>\n",
                      type_name(data[k].type, real8), data[k].name, data[k].components) < 0;
    }
    return bad || fprintf(f, "</PPointData>\n") < 0;
}

/* ---- the hulls part: the faces of the convex shapes -------------------- */

static bool hull_kept(const nscd_world *w, const nscd__world_shape *s) {
    return s->type == NSCD_SHAPE_CONVEX && s->hull != NULL && w->type[s->body] >= 0;
}

static int write_hulls(FILE *f, const nscd_world *w, int32_t flags) {
    int real8 = (flags & NSCD_WORLD_VTK_FLOAT64) != 0;
    uint64_t n_points = 0, n_faces = 0, n_conn = 0;
    for (int32_t j = 0; j < w->n_shapes; ++j) {
        const nscd__world_shape *s = &w->shapes[j];
        if (hull_kept(w, s)) {
            n_points += (uint64_t)s->hull->n_vertices;
            n_faces += (uint64_t)s->hull->n_faces;
            n_conn += (uint64_t)s->hull->face_first[s->hull->n_faces];
        }
    }
    if (n_points > INT32_MAX || n_conn > INT32_MAX) {
        return 1;
    }
    uint64_t rs = type_size(T_REAL, real8);
    uint64_t sizes[5] = {3 * n_points * rs, 8 * n_faces, 8 * n_faces, 4 * n_conn, 4 * n_faces};
    uint64_t at[5], offset = 0;
    for (int k = 0; k < 5; ++k) {
        at[k] = offset;
        offset += 8 + sizes[k];
    }
    int bad = fprintf(f,
                      "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"1.0\" "
                      "byte_order=\"LittleEndian\" header_type=\"UInt64\">\n<PolyData>\n"
                      "<FieldData>\n<DataArray type=\"Float64\" Name=\"TimeValue\" "
                      "NumberOfTuples=\"1\" format=\"ascii\">%.17g</DataArray>\n</FieldData>\n"
                      "<Piece NumberOfPoints=\"%llu\" NumberOfVerts=\"0\" NumberOfLines=\"0\" "
                      "NumberOfStrips=\"0\" NumberOfPolys=\"%llu\">\n<Points>\n",
                      w->time, (unsigned long long)n_points, (unsigned long long)n_faces) < 0;
    const array_def defs[5] = {{"Points", T_REAL, 3, F_POINTS},
                               {"body_id", T_U64, 1, F_BODY_ID},
                               {"user_id", T_U64, 1, F_USER_ID},
                               {"connectivity", T_I32, 1, F_CONNECTIVITY},
                               {"offsets", T_I32, 1, F_OFFSETS}};
    bad = bad || write_tag(f, &defs[0], real8, at[0]);
    bad = bad || fprintf(f, "</Points>\n<CellData>\n") < 0;
    bad = bad || write_tag(f, &defs[1], real8, at[1]) || write_tag(f, &defs[2], real8, at[2]);
    bad = bad || fprintf(f, "</CellData>\n<Polys>\n") < 0;
    bad = bad || write_tag(f, &defs[3], real8, at[3]) || write_tag(f, &defs[4], real8, at[4]);
    bad = bad ||
          fprintf(f, "</Polys>\n</Piece>\n</PolyData>\n<AppendedData encoding=\"raw\">\n_") < 0;
    if (bad) {
        return bad;
    }
    out o = {f, 0, real8, 0, {0}};
    for (int k = 0; k < 5 && !o.bad; ++k) {
        put_le(&o, sizes[k], 8);
        uint64_t base = 0, end = 0; /* point numbers, connectivity entries */
        for (int32_t j = 0; j < w->n_shapes && !o.bad; ++j) {
            const nscd__world_shape *s = &w->shapes[j];
            if (!hull_kept(w, s)) {
                continue;
            }
            const nscd__hull *h = s->hull;
            int32_t i = s->body;
            if (k == 0) { /* the vertices in the world frame */
                double x[3], R[9], q[4];
                shape_pose(w, s, x, R, q);
                for (int32_t v = 0; v < h->n_vertices; ++v) {
                    const double *p = h->vertices + 3 * (size_t)v;
                    for (int r = 0; r < 3; ++r) {
                        put_real(&o, x[r] + R[3 * r] * p[0] + R[3 * r + 1] * p[1] +
                                         R[3 * r + 2] * p[2]);
                    }
                }
            } else if (k == 1 || k == 2) {
                for (int32_t fc = 0; fc < h->n_faces; ++fc) {
                    put_le(&o, k == 1 ? w->id[i] : w->user_id[i], 8);
                }
            } else if (k == 3) {
                for (int32_t c = 0; c < h->face_first[h->n_faces]; ++c) {
                    put_le(&o, base + (uint64_t)h->face_vertices[c], 4);
                }
            } else {
                for (int32_t fc = 0; fc < h->n_faces; ++fc) {
                    put_le(&o, end + (uint64_t)h->face_first[fc + 1], 4);
                }
            }
            base += (uint64_t)h->n_vertices;
            end += (uint64_t)h->face_first[h->n_faces];
        }
    }
    flush(&o);
    return o.bad || fprintf(f, "\n</AppendedData>\n</VTKFile>\n") < 0;
}

static nscd_status write_hulls_file(const nscd_world *w, const char *path, int32_t flags) {
    FILE *f = fopen(path, "wb");
    if (f == NULL) {
        return NSCD_ERR_IO;
    }
    int bad = write_hulls(f, w, flags);
    bad = fclose(f) != 0 || bad;
    return bad ? NSCD_ERR_IO : NSCD_OK;
}

static nscd_status write_part(const nscd_world *w, const char *path, int32_t flags,
                              const char *who) {
    piece p = {w, NULL, (flags & NSCD_WORLD_VTK_CONTACTS) != 0, 0};
    p.points = count_points(&p);
    nscd_status st = (flags & NSCD_WORLD_VTK_HULLS) ? write_hulls_file(w, path, flags)
                                                    : write_file(path, &p, flags);
    return st == NSCD_OK ? NSCD_OK
                         : nscd__world_read_fail(w, st, "%s: writing %s failed", who, path);
}

nscd_status nscd_world_write_vtk_xml(const nscd_world *w, const char *path, int32_t flags) {
    if (w == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    if (path == NULL) {
        return nscd__world_read_fail(w, NSCD_ERR_NULL_POINTER,
                                     "nscd_world_write_vtk_xml: path is NULL");
    }
    int32_t part = flags & PART_BITS;
    if ((flags & ~KNOWN_BITS) != 0 ||
        (part != NSCD_WORLD_VTK_SHAPES && part != NSCD_WORLD_VTK_CONTACTS &&
         part != NSCD_WORLD_VTK_HULLS)) {
        return nscd__world_read_fail(w, NSCD_ERR_INVALID_ARGUMENT,
                                     "nscd_world_write_vtk_xml: flags 0x%x (one part: SHAPES %d, "
                                     "CONTACTS %d or HULLS %d, with FLOAT64, COMPACT, TENSOR)",
                                     (unsigned)flags, (int)NSCD_WORLD_VTK_SHAPES,
                                     (int)NSCD_WORLD_VTK_CONTACTS, (int)NSCD_WORLD_VTK_HULLS);
    }
    return write_part(w, path, flags, "nscd_world_write_vtk_xml");
}

/* ---- the time series ------------------------------------------------------ */

struct nscd_world_vtk_series {
    char *prefix;     /* as given */
    const char *base; /* its last component: the collections name frames by it */
    int32_t flags;
    int32_t frames, capacity;
    double *times;
};

nscd_status nscd__vtk_write_collection(const char *prefix, const char *base, const char *tag,
                                       const char *ext, const double *times, int32_t frames) {
    size_t len = strlen(prefix) + strlen(tag) + 16;
    char *path = malloc(2 * len);
    if (path == NULL) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    char *tmp = path + len;
    snprintf(path, len, "%s%s.pvd", prefix, tag);
    snprintf(tmp, len, "%s%s.pvd.tmp", prefix, tag);
    FILE *f = fopen(tmp, "w");
    int bad = f == NULL;
    bad = bad || fprintf(f, "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\" "
                            "byte_order=\"LittleEndian\">\n<Collection>\n") < 0;
    for (int32_t k = 0; k < frames && !bad; ++k) {
        bad = fprintf(f,
                      "<DataSet timestep=\"%.17g\" group=\"\" part=\"0\" file=\"%s%s_%06ld%s\"/>\n",
                      times[k], base, tag, (long)k, ext) < 0;
    }
    bad = bad || fprintf(f, "</Collection>\n</VTKFile>\n") < 0;
    bad = (f != NULL && fclose(f) != 0) || bad;
    if (!bad && rename(tmp, path) != 0) {
        /* hosts whose rename does not replace (Windows): remove, then rename */
        remove(path);
        bad = rename(tmp, path) != 0;
    }
    if (bad && f != NULL) {
        remove(tmp);
    }
    free(path);
    return bad ? NSCD_ERR_IO : NSCD_OK;
}

const char *nscd__vtk_base_name(const char *prefix) {
    const char *slash = strrchr(prefix, '/');
#if defined(_WIN32)
    const char *back = strrchr(prefix, '\\');
    slash = back != NULL && (slash == NULL || back > slash) ? back : slash;
#endif
    return slash != NULL ? slash + 1 : prefix;
}

/* The file tag of each part of a series: shapes, contacts, hulls. */
static const char *const PART_TAGS[3] = {"", "_contacts", "_hulls"};
static const int32_t PART_FLAGS[3] = {NSCD_WORLD_VTK_SHAPES, NSCD_WORLD_VTK_CONTACTS,
                                      NSCD_WORLD_VTK_HULLS};

/* The collection of one part: every frame so far. */
static nscd_status write_collection(const nscd_world_vtk_series *s, int part) {
    return nscd__vtk_write_collection(s->prefix, s->base, PART_TAGS[part], ".vtp", s->times,
                                      s->frames);
}

static nscd_status write_collections(const nscd_world_vtk_series *s) {
    nscd_status st = NSCD_OK;
    for (int part = 0; part < 3 && st == NSCD_OK; ++part) {
        if (s->flags & PART_FLAGS[part]) {
            st = write_collection(s, part);
        }
    }
    return st;
}

nscd_status nscd_world_vtk_series_create(const char *prefix, int32_t flags,
                                         nscd_world_vtk_series **series) {
    if (prefix == NULL || series == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    size_t len = strlen(prefix);
    if (len == 0 || len > MAX_PREFIX || (flags & ~KNOWN_BITS) != 0 || (flags & PART_BITS) == 0) {
        return NSCD_ERR_INVALID_ARGUMENT;
    }
    nscd_world_vtk_series *s = calloc(1, sizeof *s);
    char *copy = malloc(len + 1);
    if (s == NULL || copy == NULL) {
        free(s);
        free(copy);
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    memcpy(copy, prefix, len + 1);
    s->prefix = copy;
    s->base = nscd__vtk_base_name(copy);
    s->flags = flags;
    nscd_status st = write_collections(s);
    if (st != NSCD_OK) {
        nscd_world_vtk_series_destroy(s);
        return st;
    }
    *series = s;
    return NSCD_OK;
}

nscd_status nscd_world_vtk_series_write(nscd_world_vtk_series *s, const nscd_world *w) {
    if (s == NULL || w == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    if (s->frames == INT32_MAX) {
        return nscd__world_read_fail(w, NSCD_ERR_IO,
                                     "nscd_world_vtk_series_write: too many frames");
    }
    if (s->frames == s->capacity) {
        int32_t cap = s->capacity < 64              ? 64
                      : s->capacity > INT32_MAX / 2 ? INT32_MAX
                                                    : 2 * s->capacity;
        double *t = realloc(s->times, (size_t)cap * sizeof *t);
        if (t == NULL) {
            return nscd__world_read_fail(w, NSCD_ERR_OUT_OF_MEMORY,
                                         "nscd_world_vtk_series_write: no memory for the times");
        }
        s->times = t;
        s->capacity = cap;
    }
    size_t len = strlen(s->prefix) + 48;
    char *path = malloc(len);
    if (path == NULL) {
        return nscd__world_read_fail(w, NSCD_ERR_OUT_OF_MEMORY,
                                     "nscd_world_vtk_series_write: no memory for a path");
    }
    nscd_status st = NSCD_OK;
    for (int part = 0; part < 3 && st == NSCD_OK; ++part) {
        int32_t bit = PART_FLAGS[part];
        if (s->flags & bit) {
            snprintf(path, len, "%s%s_%06ld.vtp", s->prefix, PART_TAGS[part], (long)s->frames);
            st = write_part(w, path, (s->flags & ~PART_BITS) | bit, "nscd_world_vtk_series_write");
        }
    }
    free(path);
    if (st != NSCD_OK) {
        return st;
    }
    s->times[s->frames++] = w->time;
    st = write_collections(s);
    if (st != NSCD_OK) {
        --s->frames;
        return nscd__world_read_fail(w, st,
                                     "nscd_world_vtk_series_write: writing the collection "
                                     "%s.pvd failed",
                                     s->prefix);
    }
    return NSCD_OK;
}

int32_t nscd_world_vtk_series_frames(const nscd_world_vtk_series *s) {
    return s == NULL ? 0 : s->frames;
}

void nscd_world_vtk_series_destroy(nscd_world_vtk_series *s) {
    if (s != NULL) {
        free(s->prefix);
        free(s->times);
        free(s);
    }
}
