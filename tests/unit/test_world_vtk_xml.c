/* The binary VTK XML writer of the world (nscd_world_write_vtk_xml,
 * nscd_world_vtk_series_*; docs/paraview.md), re-read by an independent
 * parser here: the XML header's arrays, their appended offsets and UInt64
 * byte counts must tile the appended block exactly, and the decoded
 * points, quaternions, shape types and dimensions must be the world's
 * (bitwise with FLOAT64, to float rounding with the default Float32). The
 * contacts file must match nscd_world_get_contacts(); a series keeps a
 * valid collection after each frame; bad input changes nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nscd/world.h"

#define MAX_ARRAYS 24

typedef struct parsed_array {
    char name[64], type[16];
    int components;
    uint64_t offset;
} parsed_array;

typedef struct parsed {
    char *text; /* the whole file */
    size_t size;
    long points, verts;
    int n;
    parsed_array a[MAX_ARRAYS];
    const unsigned char *appended; /* the byte after '_' */
} parsed;

static char *read_all(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    assert_true(n > 0);
    rewind(f);
    char *b = malloc((size_t)n + 1);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    b[n] = '\0';
    fclose(f);
    *size = (size_t)n;
    return b;
}

static void attribute(const char *tag, const char *end, const char *key, char *value, size_t room) {
    char pattern[64];
    snprintf(pattern, sizeof pattern, " %s=\"", key);
    const char *p = strstr(tag, pattern);
    assert_non_null(p);
    assert_true(p < end);
    p += strlen(pattern);
    const char *q = strchr(p, '"');
    assert_true(q != NULL && (size_t)(q - p) < room);
    memcpy(value, p, (size_t)(q - p));
    value[q - p] = '\0';
}

static uint64_t le(const unsigned char *p, int bytes) {
    uint64_t v = 0;
    for (int k = bytes - 1; k >= 0; --k) {
        v = v << 8 | p[k];
    }
    return v;
}

static int type_bytes(const char *type) {
    if (!strcmp(type, "Float64") || !strcmp(type, "UInt64")) {
        return 8;
    }
    if (!strcmp(type, "Float32") || !strcmp(type, "Int32")) {
        return 4;
    }
    assert_string_equal(type, "UInt8");
    return 1;
}

/* Parses a file of the writer and checks that its arrays tile the
 * appended block: each header (UInt64) holds points * components * size,
 * the next array starts right after, the last is followed by the end tags. */
static parsed parse(const char *path) {
    parsed p;
    memset(&p, 0, sizeof p);
    p.text = read_all(path, &p.size);
    assert_non_null(strstr(p.text, "byte_order=\"LittleEndian\" header_type=\"UInt64\""));
    const char *piece = strstr(p.text, "<Piece ");
    assert_non_null(piece);
    char v[64];
    attribute(piece, piece + 200, "NumberOfPoints", v, sizeof v);
    p.points = atol(v);
    attribute(piece, piece + 200, "NumberOfVerts", v, sizeof v);
    p.verts = atol(v);
    assert_int_equal(p.points, p.verts);
    const char *app = strstr(p.text, "<AppendedData encoding=\"raw\">\n_");
    assert_non_null(app);
    p.appended = (const unsigned char *)app + strlen("<AppendedData encoding=\"raw\">\n_");
    for (const char *t = strstr(p.text, "<DataArray "); t != NULL && t < app;
         t = strstr(t + 1, "<DataArray ")) {
        const char *end = strchr(t, '>');
        char format[16];
        attribute(t, end, "format", format, sizeof format);
        if (strcmp(format, "appended") != 0) {
            continue; /* TimeValue */
        }
        assert_true(p.n < MAX_ARRAYS);
        parsed_array *a = &p.a[p.n++];
        attribute(t, end, "Name", a->name, sizeof a->name);
        attribute(t, end, "type", a->type, sizeof a->type);
        attribute(t, end, "NumberOfComponents", v, sizeof v);
        a->components = atoi(v);
        attribute(t, end, "offset", v, sizeof v);
        a->offset = strtoull(v, NULL, 10);
    }
    uint64_t expect = 0;
    for (int k = 0; k < p.n; ++k) {
        const parsed_array *a = &p.a[k];
        assert_int_equal(a->offset, expect);
        uint64_t bytes =
            (uint64_t)p.points * (uint64_t)a->components * (uint64_t)type_bytes(a->type);
        assert_true((size_t)(p.appended - (const unsigned char *)p.text) + a->offset + 8 + bytes <=
                    p.size);
        assert_int_equal(le(p.appended + a->offset, 8), bytes);
        expect = a->offset + 8 + bytes;
    }
    assert_string_equal((const char *)p.appended + expect, "\n</AppendedData>\n</VTKFile>\n");
    return p;
}

static const parsed_array *find(const parsed *p, const char *name) {
    for (int k = 0; k < p->n; ++k) {
        if (!strcmp(p->a[k].name, name)) {
            return &p->a[k];
        }
    }
    return NULL;
}

/* Component c of point i of an array, as a double or an integer. */
static double real_at(const parsed *p, const char *name, long i, int c) {
    const parsed_array *a = find(p, name);
    assert_non_null(a);
    int b = type_bytes(a->type);
    const unsigned char *x = p->appended + a->offset + 8 + ((size_t)i * a->components + c) * b;
    uint64_t u = le(x, b);
    if (b == 8) {
        double d;
        memcpy(&d, &u, sizeof d);
        return d;
    }
    uint32_t u32 = (uint32_t)u;
    float f;
    memcpy(&f, &u32, sizeof f);
    return f;
}

static uint64_t int_at(const parsed *p, const char *name, long i) {
    const parsed_array *a = find(p, name);
    assert_non_null(a);
    int b = type_bytes(a->type);
    return le(p->appended + a->offset + 8 + (size_t)i * a->components * b, b);
}

/* A mixed scene: a floor, one body of each shape at random poses and a
 * compound (a sphere with a cylinder off its centre, turned). */
static nscd_world *mixed_world(nscd_body_id ids[6]) {
    nscd_world_desc d;
    nscd_world_desc_init(&d, sizeof d);
    nscd_world *w = NULL;
    assert_int_equal(nscd_world_create(&d, &w), NSCD_OK);
    for (int k = 0; k < 6; ++k) {
        nscd_body_desc b;
        nscd_body_desc_init(&b, sizeof b);
        nscd_shape_desc s[2];
        nscd_shape_desc_init(&s[0], sizeof s[0]);
        nscd_shape_desc_init(&s[1], sizeof s[1]);
        int32_t n = 1;
        double angle = 0.3 + 0.7 * k, axis[3] = {0.48, -0.6, 0.64}; /* unit */
        b.position[0] = 0.3 * k;
        b.position[2] = 0.05 + 0.01 * k;
        b.orientation[0] = cos(0.5 * angle);
        for (int c = 0; c < 3; ++c) {
            b.orientation[1 + c] = sin(0.5 * angle) * axis[c];
        }
        b.user_id = 100 + (uint64_t)k;
        switch (k) {
        case 0:
            b.type = NSCD_BODY_STATIC;
            b.orientation[0] = 1.0;
            b.orientation[1] = b.orientation[2] = b.orientation[3] = 0.0;
            b.position[2] = 0.0;
            s[0].type = NSCD_SHAPE_HALF_SPACE;
            break;
        case 1: s[0].radius = 0.04; break;
        case 2:
            s[0].type = NSCD_SHAPE_BOX;
            s[0].half_extents[0] = 0.01;
            s[0].half_extents[1] = 0.02;
            s[0].half_extents[2] = 0.03;
            break;
        case 3:
            s[0].type = NSCD_SHAPE_CAPSULE;
            s[0].radius = 0.015;
            s[0].half_height = 0.025;
            break;
        case 4:
            s[0].type = NSCD_SHAPE_CYLINDER;
            s[0].radius = 0.02;
            s[0].half_height = 0.01;
            break;
        default:
            n = 2;
            s[0].radius = 0.02;
            s[1].type = NSCD_SHAPE_CYLINDER;
            s[1].radius = 0.01;
            s[1].half_height = 0.03;
            s[1].position[2] = 0.04;
            s[1].orientation[0] = cos(0.2);
            s[1].orientation[1] = sin(0.2);
            break;
        }
        assert_int_equal(nscd_world_add_body(w, &b, s, n, &ids[k]), NSCD_OK);
    }
    for (int k = 0; k < 200; ++k) { /* 0.2 s: every body lands */
        assert_int_equal(nscd_world_step(w, NULL), NSCD_OK);
    }
    return w;
}

static void check_shapes(const char *path, const nscd_world *w, const nscd_body_id ids[6],
                         double tol, int compact) {
    parsed p = parse(path);
    assert_int_equal(p.points, 7); /* six bodies, one a compound of two */
    assert_int_equal(find(&p, "velocity") == NULL, compact);
    assert_int_equal(find(&p, "user_id") == NULL, compact);
    assert_non_null(find(&p, "Points"));
    const int types[7] = {NSCD_SHAPE_HALF_SPACE, NSCD_SHAPE_SPHERE,   NSCD_SHAPE_BOX,
                          NSCD_SHAPE_CAPSULE,    NSCD_SHAPE_CYLINDER, NSCD_SHAPE_SPHERE,
                          NSCD_SHAPE_CYLINDER};
    const double dims[7][3] = {
        {0, 0, 0},          {0.04, 0.04, 0.04}, {0.01, 0.02, 0.03}, {0.015, 0.015, 0.025},
        {0.02, 0.02, 0.01}, {0.02, 0.02, 0.02}, {0.01, 0.01, 0.03}};
    for (long i = 0; i < 7; ++i) {
        int body = i < 6 ? (int)i : 5;
        double x[3], q[4], v[3], om[3];
        assert_int_equal(nscd_world_get_body(w, ids[body], x, q, v, om), NSCD_OK);
        assert_int_equal(int_at(&p, "shape_type", i), types[i]);
        for (int c = 0; c < 3; ++c) {
            double scale = fabs(dims[i][c]) + 1e-300;
            assert_true(fabs(real_at(&p, "dimensions", i, c) - dims[i][c]) <= tol * scale);
        }
        if (i < 5) { /* one shape at the body origin: the body's pose */
            for (int c = 0; c < 3; ++c) {
                assert_true(fabs(real_at(&p, "Points", i, c) - x[c]) <= tol * (fabs(x[c]) + 1.0));
            }
            for (int c = 0; c < 4; ++c) {
                assert_true(fabs(real_at(&p, "orientation", i, c) - q[c]) <= tol);
            }
        }
        if (!compact) {
            assert_int_equal(int_at(&p, "user_id", i), 100 + body);
            assert_int_equal(int_at(&p, "body_id", i), ids[body]);
            for (int c = 0; c < 3; ++c) {
                assert_true(fabs(real_at(&p, "velocity", i, c) - v[c]) <= tol * (fabs(v[c]) + 1.0));
                assert_true(fabs(real_at(&p, "angular_velocity", i, c) - om[c]) <=
                            tol * (fabs(om[c]) + 1.0));
            }
            double m = 0.0;
            assert_int_equal(nscd_world_get_body_mass(w, ids[body], &m, NULL), NSCD_OK);
            assert_true(fabs(real_at(&p, "mass", i, 0) - m) <= tol * m);
        }
        assert_int_equal(int_at(&p, "connectivity", i), i);
        assert_int_equal(int_at(&p, "offsets", i), i + 1);
    }
    /* the compound: the sphere and the cylinder 4 cm apart along the body's
     * z; the cylinder's quaternion is the body's times its own, unit */
    double d = 0.0, n = 0.0;
    for (int c = 0; c < 3; ++c) {
        double e = real_at(&p, "Points", 6, c) - real_at(&p, "Points", 5, c);
        d += e * e;
    }
    for (int c = 0; c < 4; ++c) {
        n += real_at(&p, "orientation", 6, c) * real_at(&p, "orientation", 6, c);
    }
    assert_true(fabs(sqrt(d) - 0.04) <= 1e-6 + tol);
    assert_true(fabs(n - 1.0) <= 1e-6 + tol);
    free(p.text);
}

static void shapes_file_has_the_world(void **state) {
    (void)state;
    nscd_body_id ids[6];
    nscd_world *w = mixed_world(ids);
    const char *path = "test_world_vtk_xml_shapes.vtp";
    assert_int_equal(
        nscd_world_write_vtk_xml(w, path, NSCD_WORLD_VTK_SHAPES | NSCD_WORLD_VTK_FLOAT64), NSCD_OK);
    check_shapes(path, w, ids, 0.0, 0);
    assert_int_equal(nscd_world_write_vtk_xml(w, path, NSCD_WORLD_VTK_SHAPES), NSCD_OK);
    check_shapes(path, w, ids, 1e-6, 0);
    assert_int_equal(
        nscd_world_write_vtk_xml(w, path, NSCD_WORLD_VTK_SHAPES | NSCD_WORLD_VTK_COMPACT), NSCD_OK);
    check_shapes(path, w, ids, 1e-6, 1);
    /* the tensor: columns R e_k times the full extents (box: 2 h_k) */
    assert_int_equal(nscd_world_write_vtk_xml(w, path,
                                              NSCD_WORLD_VTK_SHAPES | NSCD_WORLD_VTK_TENSOR |
                                                  NSCD_WORLD_VTK_FLOAT64),
                     NSCD_OK);
    parsed p = parse(path);
    for (int c = 0; c < 3; ++c) {
        double norm = 0.0;
        for (int k = 0; k < 3; ++k) {
            double t = real_at(&p, "glyph_tensor", 2, 3 * c + k);
            norm += t * t;
        }
        assert_true(fabs(sqrt(norm) - 0.02 * (c + 1)) < 1e-12);
    }
    free(p.text);
    remove(path);
    nscd_world_destroy(w);
}

static void contacts_file_has_the_contacts(void **state) {
    (void)state;
    nscd_body_id ids[6];
    nscd_world *w = mixed_world(ids);
    int32_t n = 0;
    nscd_status st = nscd_world_get_contacts(w, 0, &n, NULL, NULL, NULL, NULL, NULL, NULL);
    assert_int_equal(st, NSCD_ERR_BUFFER_TOO_SMALL);
    assert_true(n >= 5); /* every body rests on the floor */
    nscd_body_id *a = calloc((size_t)n, sizeof *a), *b = calloc((size_t)n, sizeof *b);
    double *pts = calloc(3 * (size_t)n, sizeof *pts), *nrm = calloc(3 * (size_t)n, sizeof *nrm);
    double *gap = calloc((size_t)n, sizeof *gap), *imp = calloc(3 * (size_t)n, sizeof *imp);
    assert_int_equal(nscd_world_get_contacts(w, n, &n, a, b, pts, nrm, gap, imp), NSCD_OK);
    const char *path = "test_world_vtk_xml_contacts.vtp";
    assert_int_equal(
        nscd_world_write_vtk_xml(w, path, NSCD_WORLD_VTK_CONTACTS | NSCD_WORLD_VTK_FLOAT64),
        NSCD_OK);
    parsed p = parse(path);
    assert_int_equal(p.points, n);
    for (long j = 0; j < n; ++j) {
        assert_int_equal(int_at(&p, "body_a", j), a[j]);
        assert_int_equal(int_at(&p, "body_b", j), b[j]);
        assert_true(real_at(&p, "gap", j, 0) == gap[j]);
        assert_true(real_at(&p, "normal_impulse", j, 0) == imp[3 * j]);
        double tn = 0.0, t2 = 0.0;
        for (int c = 0; c < 3; ++c) {
            assert_true(real_at(&p, "Points", j, c) == pts[3 * j + c]);
            assert_true(real_at(&p, "normal", j, c) == nrm[3 * j + c]);
            double t = real_at(&p, "tangential_impulse", j, c);
            tn += t * nrm[3 * j + c];
            t2 += t * t;
            /* the total is the normal part plus the tangential one */
            assert_true(fabs(real_at(&p, "impulse", j, c) - (imp[3 * j] * nrm[3 * j + c] + t)) <=
                        1e-12 * (fabs(imp[3 * j]) + 1e-30));
        }
        /* tangential: orthogonal to n, as long as the two local ones */
        assert_true(fabs(tn) <= 1e-9 * (fabs(imp[3 * j]) + 1e-30));
        double local = imp[3 * j + 1] * imp[3 * j + 1] + imp[3 * j + 2] * imp[3 * j + 2];
        assert_true(fabs(sqrt(t2) - sqrt(local)) <= 1e-9 * (fabs(imp[3 * j]) + 1e-30));
    }
    free(p.text);
    remove(path);
    free(a);
    free(b);
    free(pts);
    free(nrm);
    free(gap);
    free(imp);
    nscd_world_destroy(w);
}

static int count(const char *text, const char *what) {
    int n = 0;
    for (const char *p = strstr(text, what); p != NULL; p = strstr(p + 1, what)) {
        ++n;
    }
    return n;
}

static void series_keeps_a_valid_collection(void **state) {
    (void)state;
    nscd_body_id ids[6];
    nscd_world *w = mixed_world(ids);
    nscd_world_vtk_series *s = NULL;
    assert_int_equal(nscd_world_vtk_series_create("test_world_vtk_xml_series",
                                                  NSCD_WORLD_VTK_SHAPES | NSCD_WORLD_VTK_CONTACTS,
                                                  &s),
                     NSCD_OK);
    size_t size;
    for (int frame = 0; frame <= 3; ++frame) {
        assert_int_equal(nscd_world_vtk_series_frames(s), frame);
        const char *pvd[2] = {"test_world_vtk_xml_series.pvd",
                              "test_world_vtk_xml_series_contacts.pvd"};
        for (int k = 0; k < 2; ++k) {
            char *text = read_all(pvd[k], &size);
            assert_non_null(strstr(text, "<VTKFile type=\"Collection\""));
            assert_non_null(strstr(text, "</Collection>\n</VTKFile>\n"));
            assert_int_equal(count(text, "<DataSet "), frame);
            if (frame > 0) { /* names relative to the collection's folder */
                char name[96];
                snprintf(name, sizeof name, "file=\"test_world_vtk_xml_series%s_%06d.vtp\"",
                         k ? "_contacts" : "", frame - 1);
                assert_non_null(strstr(text, name));
            }
            free(text);
        }
        if (frame < 3) {
            assert_int_equal(nscd_world_vtk_series_write(s, w), NSCD_OK);
            assert_int_equal(nscd_world_step(w, NULL), NSCD_OK);
        }
    }
    for (int frame = 0; frame < 3; ++frame) {
        char name[96];
        snprintf(name, sizeof name, "test_world_vtk_xml_series_%06d.vtp", frame);
        parsed p = parse(name);
        assert_int_equal(p.points, 7);
        free(p.text);
        remove(name);
        snprintf(name, sizeof name, "test_world_vtk_xml_series_contacts_%06d.vtp", frame);
        p = parse(name);
        free(p.text);
        remove(name);
    }
    nscd_world_vtk_series_destroy(s);
    remove("test_world_vtk_xml_series.pvd");
    remove("test_world_vtk_xml_series_contacts.pvd");
    nscd_world_destroy(w);
}

static void bad_input_is_refused(void **state) {
    (void)state;
    nscd_body_id ids[6];
    nscd_world *w = mixed_world(ids);
    const char *path = "test_world_vtk_xml_bad.vtp";
    assert_int_equal(nscd_world_write_vtk_xml(NULL, path, NSCD_WORLD_VTK_SHAPES),
                     NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_world_write_vtk_xml(w, NULL, NSCD_WORLD_VTK_SHAPES),
                     NSCD_ERR_NULL_POINTER);
    const int32_t bad_flags[4] = {0, NSCD_WORLD_VTK_SHAPES | NSCD_WORLD_VTK_CONTACTS,
                                  NSCD_WORLD_VTK_FLOAT64, NSCD_WORLD_VTK_SHAPES | 4};
    for (int k = 0; k < 4; ++k) {
        assert_int_equal(nscd_world_write_vtk_xml(w, path, bad_flags[k]),
                         NSCD_ERR_INVALID_ARGUMENT);
        assert_true(strlen(nscd_world_last_error(w)) > 0);
        FILE *f = fopen(path, "rb");
        assert_null(f); /* nothing written */
    }
    assert_int_equal(nscd_world_write_vtk_xml(w, "no_such_dir_vtk/x.vtp", NSCD_WORLD_VTK_SHAPES),
                     NSCD_ERR_IO);
    assert_non_null(strstr(nscd_world_last_error(w), "no_such_dir_vtk/x.vtp"));
    nscd_world_vtk_series *s = NULL;
    assert_int_equal(nscd_world_vtk_series_create(NULL, NSCD_WORLD_VTK_SHAPES, &s),
                     NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_world_vtk_series_create("x", NSCD_WORLD_VTK_SHAPES, NULL),
                     NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_world_vtk_series_create("", NSCD_WORLD_VTK_SHAPES, &s),
                     NSCD_ERR_INVALID_ARGUMENT);
    assert_int_equal(nscd_world_vtk_series_create("x", NSCD_WORLD_VTK_FLOAT64, &s),
                     NSCD_ERR_INVALID_ARGUMENT);
    assert_int_equal(nscd_world_vtk_series_create("x", 1 << 20, &s), NSCD_ERR_INVALID_ARGUMENT);
    assert_int_equal(nscd_world_vtk_series_create("no_such_dir_vtk/x", NSCD_WORLD_VTK_SHAPES, &s),
                     NSCD_ERR_IO);
    assert_null(s);
    assert_int_equal(nscd_world_vtk_series_write(NULL, w), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_world_vtk_series_frames(NULL), 0);
    nscd_world_vtk_series_destroy(NULL);
    nscd_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shapes_file_has_the_world),
        cmocka_unit_test(contacts_file_has_the_contacts),
        cmocka_unit_test(series_keeps_a_valid_collection),
        cmocka_unit_test(bad_input_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
