/* Checkpoint and bitwise restart of the rigid-body world
 * (include/nscd/world_checkpoint.h, docs/checkpoint.md): a mixed scene run
 * 2N steps and run N steps, saved, loaded into a fresh world and run N more
 * steps end with the same bits in every body state; a loaded world saves
 * to the same bytes; hostile checkpoints (truncated, bytes flipped,
 * foreign, another version, absurd counts) are refused with NSCD_ERR_IO and
 * a message, leaving the world empty. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nscd/joint.h"
#include "nscd/world.h"
#include "nscd/world_checkpoint.h"

#include "test_size.h"
#include "world_bodies.h"

#define LINK 0.2 /* joint spacing of a chain link, m */

typedef struct scene_options {
    int32_t friction_law, jacobi_groups, bodies;
    double relaxation;
    double light_body_ratio; /* 0: the default */
} scene_options;

static uint64_t rng_state;
static double uniform(double lo, double hi) {
    rng_state = rng_state * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
    return lo + (hi - lo) * (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}

/* A chain of n capsule links hanging from the ground at `top`, tilted. */
static void add_chain(nscd_world *w, const double top[3], int n, double angle) {
    const double h = sqrt(0.5);
    double dir[3] = {sin(angle), 0.0, -cos(angle)};
    nscd_body_id prev = NSCD_BODY_NULL;
    for (int k = 0; k < n; ++k) {
        nscd_body_desc b;
        nscd_body_desc_init(&b, sizeof b);
        for (int c = 0; c < 3; ++c) {
            b.position[c] = top[c] + (k + 0.5) * LINK * dir[c];
        }
        b.orientation[0] = cos(0.5 * angle);
        b.orientation[2] = -sin(0.5 * angle);
        b.user_id = 1000 + (uint64_t)k;
        nscd_shape_desc s;
        nscd_shape_desc_init(&s, sizeof s);
        s.type = NSCD_SHAPE_CAPSULE;
        s.radius = 0.01;
        s.half_height = 0.5 * LINK - 0.03;
        nscd_body_id id;
        assert_int_equal(nscd_world_add_body(w, &b, &s, 1, &id), NSCD_OK);
        nscd_joint_desc j;
        nscd_joint_desc_init(&j, sizeof j);
        j.type = NSCD_JOINT_REVOLUTE;
        j.body_a = prev;
        j.body_b = id;
        if (prev == NSCD_BODY_NULL) {
            memcpy(j.position_a, top, sizeof j.position_a);
        } else {
            j.position_a[2] = -0.5 * LINK;
        }
        j.orientation_a[0] = h, j.orientation_a[1] = -h;
        j.position_b[2] = 0.5 * LINK;
        j.orientation_b[0] = h, j.orientation_b[1] = -h;
        nscd_joint_id joint;
        assert_int_equal(nscd_world_add_joint(w, &j, &joint), NSCD_OK);
        prev = id;
    }
}

/* The mixed scene: a floor, a moving kinematic paddle, spheres, boxes,
 * capsules and cylinders of random sizes (fixed seed) on three materials
 * with pair frictions, a compound body, a loaded body, a joint chain, a
 * domain box that removes a thrown body, and removals and additions before
 * the first step (slots reused from the free list). */
static nscd_world *make_scene(const scene_options *o) {
    rng_state = 12345;
    nscd_world_desc d;
    nscd_world_desc_init(&d, sizeof d);
    d.dt = 2e-3;
    d.max_sweeps = 20;
    d.friction_law = o->friction_law;
    d.jacobi_groups = o->jacobi_groups;
    d.relaxation = o->relaxation;
    if (o->light_body_ratio > 0.0) {
        d.light_body_ratio = o->light_body_ratio;
    }
    d.use_domain = 1;
    d.domain_min[0] = d.domain_min[1] = d.domain_min[2] = -2.0;
    d.domain_max[0] = d.domain_max[1] = d.domain_max[2] = 2.0;
    nscd_world *w = NULL;
    assert_int_equal(nscd_world_create(&d, &w), NSCD_OK);
    int32_t m1 = 0, m2 = 0;
    assert_int_equal(nscd_world_add_material(w, 0.3, &m1), NSCD_OK);
    assert_int_equal(nscd_world_add_material(w, 0.8, &m2), NSCD_OK);
    assert_int_equal(nscd_world_set_pair_friction(w, m1, m2, 0.05), NSCD_OK);
    assert_int_equal(nscd_world_set_pair_friction(w, 0, m2, 1.1), NSCD_OK);
    nscd_body_desc b;
    nscd_shape_desc s;
    nscd_body_id id;
    world_floor(w);
    /* a kinematic paddle sweeping through the pile */
    nscd_body_desc_init(&b, sizeof b);
    b.type = NSCD_BODY_KINEMATIC;
    b.position[0] = -0.4, b.position[2] = 0.05;
    b.velocity[0] = 0.3;
    b.angular_velocity[2] = 0.5;
    nscd_shape_desc_init(&s, sizeof s);
    s.type = NSCD_SHAPE_BOX;
    s.half_extents[0] = 0.02, s.half_extents[1] = 0.3, s.half_extents[2] = 0.05;
    s.material = m2;
    assert_int_equal(nscd_world_add_body(w, &b, &s, 1, &id), NSCD_OK);
    nscd_body_id removed[3];
    int n_removed = 0;
    for (int32_t k = 0; k < o->bodies; ++k) {
        nscd_body_desc_init(&b, sizeof b);
        b.position[0] = -0.25 + 0.12 * (k % 5) + uniform(-0.01, 0.01);
        b.position[1] = -0.25 + 0.12 * ((k / 5) % 5) + uniform(-0.01, 0.01);
        b.position[2] = 0.06 + 0.1 * (k / 25) + uniform(0.0, 0.02);
        double angle = uniform(-3.0, 3.0);
        b.orientation[0] = cos(0.5 * angle);
        b.orientation[1] = sin(0.5 * angle) * 0.6;
        b.orientation[3] = sin(0.5 * angle) * 0.8;
        b.velocity[2] = uniform(-0.5, 0.0);
        b.angular_velocity[0] = uniform(-2.0, 2.0);
        b.density = uniform(500.0, 3000.0);
        b.user_id = 1 + (uint64_t)k;
        nscd_shape_desc_init(&s, sizeof s);
        s.type = (int32_t)(k % 4 == 0   ? NSCD_SHAPE_SPHERE
                           : k % 4 == 1 ? NSCD_SHAPE_BOX
                           : k % 4 == 2 ? NSCD_SHAPE_CAPSULE
                                        : NSCD_SHAPE_CYLINDER);
        s.radius = uniform(0.015, 0.04);
        s.half_height = uniform(0.01, 0.03);
        s.half_extents[0] = uniform(0.015, 0.04);
        s.half_extents[1] = uniform(0.015, 0.04);
        s.half_extents[2] = uniform(0.015, 0.04);
        s.material = k % 3;
        assert_int_equal(nscd_world_add_body(w, &b, &s, 1, &id), NSCD_OK);
        if (k % 7 == 3 && n_removed < 3) {
            removed[n_removed++] = id;
        }
        if (k == 4) {
            double force[3] = {0.5, 0.0, 0.0}, torque[3] = {0.0, 0.01, 0.0};
            assert_int_equal(nscd_world_set_applied_force(w, id, force, torque), NSCD_OK);
        }
    }
    /* a compound: a sphere and an offset box */
    nscd_body_desc_init(&b, sizeof b);
    b.position[0] = 0.3, b.position[2] = 0.5;
    b.angular_velocity[1] = 3.0;
    nscd_shape_desc shapes[2];
    nscd_shape_desc_init(&shapes[0], sizeof shapes[0]);
    nscd_shape_desc_init(&shapes[1], sizeof shapes[1]);
    shapes[0].radius = 0.03;
    shapes[1].type = NSCD_SHAPE_BOX;
    shapes[1].half_extents[0] = 0.05, shapes[1].half_extents[1] = 0.02;
    shapes[1].half_extents[2] = 0.01;
    shapes[1].position[0] = 0.06;
    shapes[1].material = m1;
    assert_int_equal(nscd_world_add_body(w, &b, shapes, 2, &id), NSCD_OK);
    /* thrown out of the domain box: removed during the run */
    nscd_body_desc_init(&b, sizeof b);
    b.position[0] = 1.8, b.position[2] = 1.0;
    b.velocity[0] = 20.0;
    nscd_shape_desc_init(&s, sizeof s);
    s.radius = 0.02;
    assert_int_equal(nscd_world_add_body(w, &b, &s, 1, &id), NSCD_OK);
    /* removals, then additions that reuse the freed slots (LIFO) */
    for (int k = 0; k < n_removed; ++k) {
        assert_int_equal(nscd_world_remove_body(w, removed[k]), NSCD_OK);
    }
    for (int k = 0; k < 2; ++k) {
        nscd_body_desc_init(&b, sizeof b);
        b.position[0] = -0.1 + 0.2 * k, b.position[1] = 0.4, b.position[2] = 0.3;
        nscd_shape_desc_init(&s, sizeof s);
        s.type = NSCD_SHAPE_CYLINDER;
        s.radius = 0.03;
        s.half_height = 0.02;
        assert_int_equal(nscd_world_add_body(w, &b, &s, 1, &id), NSCD_OK);
    }
    double top[3] = {0.8, 0.0, 0.9};
    add_chain(w, top, 3, 1.0);
    return w;
}

static void step_n(nscd_world *w, int n) {
    for (int k = 0; k < n; ++k) {
        nscd_world_step_report r;
        memset(&r, 0, sizeof r);
        r.struct_size = sizeof r;
        nscd_status st = nscd_world_step(w, &r);
        if (st != NSCD_OK) {
            fail_msg("step %d: %s (%s)", k, nscd_status_string(st), nscd_world_last_error(w));
        }
    }
}

/* Every body's id, user id and state, bitwise (memcmp of the doubles). */
static void assert_same_bodies(const nscd_world *a, const nscd_world *b) {
    int32_t na = 0, nb = 0;
    nscd_world_get_bodies(a, 0, &na, NULL, NULL, NULL, NULL, NULL, NULL);
    nscd_world_get_bodies(b, 0, &nb, NULL, NULL, NULL, NULL, NULL, NULL);
    assert_int_equal(na, nb);
    assert_true(na > 10);
    size_t n = (size_t)na;
    nscd_body_id *ids[2];
    uint64_t *users[2];
    double *x[2], *q[2], *v[2], *om[2];
    const nscd_world *w[2] = {a, b};
    for (int k = 0; k < 2; ++k) {
        ids[k] = malloc(n * sizeof(nscd_body_id));
        users[k] = malloc(n * sizeof(uint64_t));
        x[k] = malloc(3 * n * sizeof(double));
        q[k] = malloc(4 * n * sizeof(double));
        v[k] = malloc(3 * n * sizeof(double));
        om[k] = malloc(3 * n * sizeof(double));
        int32_t count = 0;
        assert_int_equal(
            nscd_world_get_bodies(w[k], na, &count, ids[k], users[k], x[k], q[k], v[k], om[k]),
            NSCD_OK);
    }
    assert_memory_equal(ids[0], ids[1], n * sizeof(nscd_body_id));
    assert_memory_equal(users[0], users[1], n * sizeof(uint64_t));
    assert_memory_equal(x[0], x[1], 3 * n * sizeof(double));
    assert_memory_equal(q[0], q[1], 4 * n * sizeof(double));
    assert_memory_equal(v[0], v[1], 3 * n * sizeof(double));
    assert_memory_equal(om[0], om[1], 3 * n * sizeof(double));
    for (int k = 0; k < 2; ++k) {
        free(ids[k]), free(users[k]), free(x[k]), free(q[k]), free(v[k]), free(om[k]);
    }
    assert_memory_equal(&(double){nscd_world_time(a)}, &(double){nscd_world_time(b)},
                        sizeof(double));
}

/* The checkpoint of w in a malloc'd buffer. */
static unsigned char *save_buffer(const nscd_world *w, const void *user, size_t user_bytes,
                                  size_t *size) {
    assert_int_equal(nscd_world_save_to_buffer(w, user, user_bytes, NULL, 0, size),
                     NSCD_ERR_BUFFER_TOO_SMALL);
    unsigned char *p = malloc(*size);
    assert_non_null(p);
    size_t again = 0;
    assert_int_equal(nscd_world_save_to_buffer(w, user, user_bytes, p, *size, &again), NSCD_OK);
    assert_int_equal(again, *size);
    return p;
}

static nscd_world *fresh_world(void) {
    nscd_world_desc d;
    nscd_world_desc_init(&d, sizeof d);
    nscd_world *w = NULL;
    assert_int_equal(nscd_world_create(&d, &w), NSCD_OK);
    return w;
}

/* 2N steps against N + save + load + N: the same bits, for each way of
 * saving (buffer, file); the loaded world saves to the same bytes. N = 150;
 * 25 under NSCD_TEST_SMALL (test_size.h): the scene has its contacts,
 * warm starts, the removed thrown body and the chain by then. */
static void restart_is_bitwise(const scene_options *o) {
    const int N = NSCD_TEST_SIZE(150, 25);
    nscd_world *reference = make_scene(o);
    step_n(reference, N);
    nscd_body_id victim = 0;
    int32_t count = 0;
    nscd_body_id ids[64];
    assert_int_equal(
        nscd_world_get_bodies(reference, 64, &count, ids, NULL, NULL, NULL, NULL, NULL), NSCD_OK);
    victim = ids[count / 2]; /* removed between two steps: dead rows in the checkpoint */
    assert_int_equal(nscd_world_remove_body(reference, victim), NSCD_OK);
    for (int way = 0; way < 2; ++way) {
        nscd_world *first = make_scene(o);
        step_n(first, N);
        assert_int_equal(nscd_world_remove_body(first, victim), NSCD_OK);
        size_t size = 0;
        unsigned char *bytes = save_buffer(first, "abc", 3, &size);
        nscd_world *loaded = fresh_world();
        char user[8] = {0};
        size_t user_bytes = 0;
        if (way == 0) {
            assert_int_equal(
                nscd_world_load_from_buffer(loaded, bytes, size, user, sizeof user, &user_bytes),
                NSCD_OK);
        } else {
            const char *path = "test_world_checkpoint.ckpt";
            assert_int_equal(nscd_world_save(first, path, "abc", 3), NSCD_OK);
            assert_int_equal(nscd_world_load(loaded, path, user, sizeof user, &user_bytes),
                             NSCD_OK);
            remove(path);
        }
        assert_int_equal(user_bytes, 3);
        assert_string_equal(user, "abc");
        nscd_world_destroy(first); /* nothing of it is left in the loaded world */
        size_t size2 = 0;
        unsigned char *bytes2 = save_buffer(loaded, "abc", 3, &size2);
        assert_int_equal(size2, size);
        assert_memory_equal(bytes2, bytes, size);
        free(bytes2);
        free(bytes);
        if (way == 0) {
            step_n(reference, N);
        }
        step_n(loaded, N);
        assert_same_bodies(reference, loaded);
        nscd_world_destroy(loaded);
    }
    nscd_world_destroy(reference);
}

static void restart_bitwise_gauss_seidel(void **state) {
    (void)state;
    scene_options o = {NSCD_FRICTION_COULOMB, 1, 40, 1.0, 0.0};
    restart_is_bitwise(&o);
}

/* Light bodies everywhere (a ratio of 1.2: most bodies have a heavier
 * neighbour): the ratio is saved, and the clusters, rebuilt by every step,
 * give the same bits after the restart. */
static void restart_bitwise_light_bodies(void **state) {
    (void)state;
    scene_options o = {NSCD_FRICTION_COULOMB, 1, 40, 1.0, 1.2};
    restart_is_bitwise(&o);
}

static void restart_bitwise_jacobi_max_dissipation(void **state) {
    (void)state;
    scene_options o = {NSCD_FRICTION_MAX_DISSIPATION, 3, 30, 0.8, 0.0};
    restart_is_bitwise(&o);
}

/* ------------------------------------------------------------ hostile */

static uint64_t fnv(const unsigned char *p, size_t n) {
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (size_t i = 0; i < n; ++i) {
        unsigned char b = i >= 32 && i < 40 ? 0 : p[i];
        h = (h ^ b) * UINT64_C(0x100000001b3);
    }
    return h;
}

static void reseal(unsigned char *p, size_t n) {
    uint64_t h = fnv(p, n);
    memcpy(p + 32, &h, 8);
}

/* A small checkpoint: a few bodies after some steps (contacts, a joint, a pair). */
static unsigned char *small_checkpoint(size_t *size) {
    scene_options o = {NSCD_FRICTION_COULOMB, 1, 3, 1.0, 0.0};
    nscd_world *w = make_scene(&o);
    step_n(w, 30);
    unsigned char *p = save_buffer(w, "u", 1, size);
    nscd_world_destroy(w);
    return p;
}

/* Refused with NSCD_ERR_IO, a message containing `what` (NULL: any), the world still empty. */
static void assert_refused(const unsigned char *p, size_t size, const char *what) {
    nscd_world *w = fresh_world();
    char user[4];
    nscd_status st = nscd_world_load_from_buffer(w, p, size, user, sizeof user, NULL);
    assert_int_equal(st, NSCD_ERR_IO);
    const char *msg = nscd_world_last_error(w);
    assert_true(strlen(msg) > 0);
    if (what != NULL && strstr(msg, what) == NULL) {
        fail_msg("message \"%s\" does not name \"%s\"", msg, what);
    }
    assert_int_equal(nscd_world_body_count(w), 0);
    assert_true(nscd_world_time(w) == 0.0);
    /* still a usable empty world */
    nscd_world_step_report r;
    memset(&r, 0, sizeof r);
    r.struct_size = sizeof r;
    assert_int_equal(nscd_world_step(w, &r), NSCD_OK);
    nscd_world_destroy(w);
}

static void truncated_and_flipped_files_are_refused(void **state) {
    (void)state;
    size_t size = 0;
    unsigned char *p = small_checkpoint(&size);
    unsigned char *copy = malloc(size);
    for (size_t n = 0; n < size; n += n < 64 ? 1 : 7) {
        memcpy(copy, p, n);
        assert_refused(copy, n, NULL);
    }
    assert_refused(p, size - 1, "truncated");
    /* every byte of the header and section table, then every 13th: past the
     * table a flip can only be caught by the checksum (valgrind: minutes for
     * every byte of the file, seconds for this) */
    for (size_t i = 0; i < size; i += i < 512 ? 1 : 13) {
        memcpy(copy, p, size);
        copy[i] ^= (unsigned char)(1u << (i % 8));
        assert_refused(copy, size, NULL);
    }
    memcpy(copy, p, size);
    copy[size - 100] ^= 0x10;
    assert_refused(copy, size, "checksum");
    free(copy);
    free(p);
}

static void foreign_version_and_absurd_counts_are_refused(void **state) {
    (void)state;
    static const unsigned char png[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13};
    assert_refused(png, sizeof png, "magic");
    const char *text = "# vtk DataFile Version 3.0\nnscd world t=0\nASCII\n";
    assert_refused((const unsigned char *)text, strlen(text), "magic");
    assert_refused((const unsigned char *)"", 0, "magic");
    size_t size = 0;
    unsigned char *p = small_checkpoint(&size);
    unsigned char *copy = malloc(size + 16);
    memcpy(copy, p, size);
    uint32_t version = NSCD_CHECKPOINT_FORMAT_VERSION + 1;
    memcpy(copy + 8, &version, 4);
    reseal(copy, size);
    assert_refused(copy, size, "format version");
    memcpy(copy, p, size);
    copy[12] = copy[12] == 1 ? 2 : 1;
    reseal(copy, size);
    assert_refused(copy, size, "byte order");
    memcpy(copy, p, size);
    copy[13] = 4;
    reseal(copy, size);
    assert_refused(copy, size, "sizes");
    /* longer than recorded */
    memcpy(copy, p, size);
    memset(copy + size, 0, 16);
    assert_refused(copy, size + 16, "longer");
    /* the first count of each section (materials, bodies, slots, shapes,
     * contacts, joints) absurd, negative, or one too many, resealed */
    static const char *names[] = {"materials", "bodies", "slots", "shapes", "contacts", "joints"};
    int32_t absurd[3] = {INT32_MAX, -1, 0};
    for (int k = 1; k <= 6; ++k) {
        uint64_t offset = 0;
        memcpy(&offset, p + 40 + 24 * k + 8, 8);
        int32_t count = 0;
        memcpy(&count, p + offset, 4);
        absurd[2] = count + 1;
        for (int a = 0; a < 3; ++a) {
            memcpy(copy, p, size);
            memcpy(copy + offset, &absurd[a], 4);
            reseal(copy, size);
            assert_refused(copy, size, names[k - 1]);
        }
    }
    /* a shape's body index out of range, resealed: caught by the checks
     * behind the checksum */
    uint64_t shapes = 0;
    memcpy(&shapes, p + 40 + 24 * 4 + 8, 8);
    memcpy(copy, p, size);
    int32_t bad_body = 9999;
    memcpy(copy + shapes + 4 + 4, &bad_body, 4); /* count, type, then body */
    reseal(copy, size);
    assert_refused(copy, size, "shapes");
    /* a body position NaN; a body id that no slot names */
    uint64_t bodies = 0;
    memcpy(&bodies, p + 40 + 24 * 2 + 8, 8);
    int32_t n_bodies = 0;
    memcpy(&n_bodies, p + bodies, 4);
    memcpy(copy, p, size);
    double nan = NAN;
    memcpy(copy + bodies + 8 + 8, &nan, 8); /* the counts, then x of body 0, y of body 0 */
    reseal(copy, size);
    assert_refused(copy, size, "bodies: a state or mass property is not finite");
    uint64_t body_bytes = 0;
    memcpy(&body_bytes, p + 40 + 24 * 2 + 16, 8);
    memcpy(copy, p, size);
    uint64_t id = 0;
    memcpy(&id, copy + bodies + body_bytes - 8 * (size_t)n_bodies, 8); /* id of body 0 */
    id += (uint64_t)1 << 32;                                           /* a later generation */
    memcpy(copy + bodies + body_bytes - 8 * (size_t)n_bodies, &id, 8);
    reseal(copy, size);
    assert_refused(copy, size, "slots");
    free(copy);
    free(p);
}

static void misuse_is_refused_and_changes_nothing(void **state) {
    (void)state;
    scene_options o = {NSCD_FRICTION_COULOMB, 1, 3, 1.0, 0.0};
    nscd_world *w = make_scene(&o);
    step_n(w, 5);
    size_t size = 0;
    unsigned char *before = save_buffer(w, NULL, 0, &size);
    /* unwritable path */
    assert_int_equal(nscd_world_save(w, "/nonexistent-dir/sub/w.ckpt", NULL, 0), NSCD_ERR_IO);
    assert_non_null(strstr(nscd_world_last_error(w), "/nonexistent-dir/sub/w.ckpt"));
    assert_int_equal(nscd_world_save(w, NULL, NULL, 0), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_world_save(w, "x", NULL, 4), NSCD_ERR_NULL_POINTER);
    size_t size2 = 0;
    unsigned char *after = save_buffer(w, NULL, 0, &size2);
    assert_int_equal(size2, size);
    assert_memory_equal(after, before, size);
    /* a world that is not empty */
    assert_int_equal(nscd_world_load_from_buffer(w, before, size, NULL, 0, NULL), NSCD_ERR_STATE);
    /* a missing file */
    nscd_world *fresh = fresh_world();
    assert_int_equal(nscd_world_load(fresh, "/nonexistent-dir/w.ckpt", NULL, 0, NULL), NSCD_ERR_IO);
    assert_non_null(strstr(nscd_world_last_error(fresh), "cannot open"));
    /* user data larger than the room given: nothing loaded, its size told */
    unsigned char *with_user = save_buffer(w, "0123456789", 10, &size2);
    char small[4];
    size_t user_bytes = 0;
    assert_int_equal(
        nscd_world_load_from_buffer(fresh, with_user, size2, small, sizeof small, &user_bytes),
        NSCD_ERR_BUFFER_TOO_SMALL);
    assert_int_equal(user_bytes, 10);
    assert_int_equal(nscd_world_body_count(fresh), 0);
    /* ignored user data */
    assert_int_equal(nscd_world_load_from_buffer(fresh, with_user, size2, NULL, 0, NULL), NSCD_OK);
    assert_int_equal(nscd_world_body_count(fresh), nscd_world_body_count(w));
    nscd_world_destroy(fresh);
    free(with_user);
    free(before);
    free(after);
    nscd_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(restart_bitwise_gauss_seidel),
        cmocka_unit_test(restart_bitwise_light_bodies),
        cmocka_unit_test(restart_bitwise_jacobi_max_dissipation),
        cmocka_unit_test(truncated_and_flipped_files_are_refused),
        cmocka_unit_test(foreign_version_and_absurd_counts_are_refused),
        cmocka_unit_test(misuse_is_refused_and_changes_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
