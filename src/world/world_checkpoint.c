/* Checkpoint and bitwise restart of the rigid-body world
 * (include/nscd/world_checkpoint.h, docs/checkpoint.md).
 *
 * One visitor per section walks the world's fields in a fixed order and
 * either writes them (save) or reads them (load) through a cursor: the
 * save and the load cannot disagree on the layout. Loading reads into a
 * second world created with the checkpoint's settings; only when every
 * section has been read and checked does it trade places with the caller's
 * empty world, so a refused file changes nothing.
 *
 * A field added to the world must be added here: the static assertions on
 * the sizes of the structs below fail the build until it is (LP64 only). */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "collision/hull.h"
#include "core/check.h"
#include "core/memory.h"
#include "world/world_impl.h"
#include "nscd/version.h"
#include "nscd/world_checkpoint.h"

#if UINTPTR_MAX == UINT64_MAX && defined(__x86_64__)
/* Every field of these structs is either saved below or documented as
 * rebuilt by the step (docs/checkpoint.md). Update the visitors, then
 * these sizes. */
_Static_assert(sizeof(struct nscd_world) == 1816, "nscd_world changed: update world_checkpoint.c");
_Static_assert(sizeof(nscd_world_desc) == 288,
               "nscd_world_desc changed: update world_checkpoint.c");
_Static_assert(sizeof(nscd__world_shape) == 168, "world shape changed: update world_checkpoint.c");
_Static_assert(sizeof(nscd__world_record) == 168, "record changed: update world_checkpoint.c");
_Static_assert(sizeof(nscd__world_joint) == 1320, "joint changed: update world_checkpoint.c");
_Static_assert(sizeof(nscd__joint_def) == 512, "joint def changed: update world_checkpoint.c");
#endif

/* ------------------------------------------------------------ format */

static const char MAGIC[8] = {'N', 'S', 'C', 'D', 'C', 'K', 'P', 'T'};
enum {
    HEADER_BYTES = 40,
    ENTRY_BYTES = 24, /* section table entry: id, flags, offset, length */
    CHECKSUM_OFFSET = 32,
    SECTION_SETTINGS = 1,
    SECTION_MATERIALS = 2,
    SECTION_BODIES = 3,
    SECTION_SLOTS = 4,
    SECTION_SHAPES = 5,
    SECTION_CONTACTS = 6,
    SECTION_JOINTS = 7,
    SECTION_USER = 8,
    N_SECTIONS = 8
};

static uint8_t host_endianness(void) {
    const uint16_t one = 1;
    uint8_t first;
    memcpy(&first, &one, 1);
    return first == 1 ? 1 : 2; /* 1 little endian, 2 big endian */
}

/* FNV-1a 64 of bytes [0, n), the 8 bytes at CHECKSUM_OFFSET taken as 0. */
static uint64_t checksum(const unsigned char *p, size_t n) {
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (size_t i = 0; i < n; ++i) {
        unsigned char b = (i >= CHECKSUM_OFFSET && i < CHECKSUM_OFFSET + 8) ? 0 : p[i];
        h = (h ^ b) * UINT64_C(0x100000001b3);
    }
    return h;
}

/* ------------------------------------------------------------ cursor */

/* A cursor over the bytes of one section: saving with data NULL only
 * counts; loading fails (bad) past the end, never reading beyond it. */
typedef struct cursor {
    unsigned char *data;
    size_t pos, size;
    int loading, bad;
    const char *failed; /* what a load found wrong (static text) */
} cursor;

static void io_bytes(cursor *c, void *x, size_t n) {
    if (c->bad || n == 0) {
        return;
    }
    if (c->loading) {
        if (n > c->size - c->pos) {
            c->bad = 1;
            c->failed = c->failed ? c->failed : "section shorter than its contents";
            return;
        }
        memcpy(x, c->data + c->pos, n);
    } else if (c->data != NULL) {
        memcpy(c->data + c->pos, x, n);
    }
    c->pos += n;
}

static void io_f64(cursor *c, double *x, size_t n) { io_bytes(c, x, n * sizeof *x); }
static void io_i32(cursor *c, int32_t *x, size_t n) { io_bytes(c, x, n * sizeof *x); }
static void io_u32(cursor *c, uint32_t *x, size_t n) { io_bytes(c, x, n * sizeof *x); }
static void io_u64(cursor *c, uint64_t *x, size_t n) { io_bytes(c, x, n * sizeof *x); }

static void refuse(cursor *c, const char *what) {
    if (!c->bad) {
        c->bad = 1;
        c->failed = what;
    }
}

/* A count read from the file: 0 <= n <= max, and n elements of `bytes`
 * each fit in what is left of the section (so that nothing is allocated
 * from a size the file does not back). */
static void io_count(cursor *c, int32_t *n, size_t bytes, int64_t max, const char *what) {
    io_i32(c, n, 1);
    if (c->loading && !c->bad &&
        (*n < 0 || *n > max || (bytes > 0 && (size_t)*n > (c->size - c->pos) / bytes))) {
        refuse(c, what);
    }
}

/* ------------------------------------------------------------ sections */

static void io_settings(cursor *c, nscd_world *w) {
    nscd_world_desc *d = &w->desc;
    io_f64(c, d->gravity, 3);
    io_f64(c, &d->dt, 1);
    io_i32(c, &d->friction_law, 1);
    io_i32(c, &d->max_sweeps, 1);
    io_f64(c, &d->tolerance, 1);
    io_f64(c, &d->relaxation, 1);
    io_i32(c, &d->jacobi_groups, 1);
    io_i32(c, &d->warm_start, 1);
    io_f64(c, &d->error_reduction, 1);
    io_f64(c, &d->contact_margin, 1);
    io_f64(c, &d->default_friction, 1);
    io_i32(c, &d->friction_combine, 1);
    io_i32(c, &d->use_domain, 1);
    io_f64(c, d->domain_min, 3);
    io_f64(c, d->domain_max, 3);
    io_f64(c, &d->max_correction_speed, 1);
    io_i32(c, &d->on_unconverged, 1);
    io_i32(c, &d->relax_sweeps, 1);
    io_f64(c, &d->deep_penetration, 1);
    io_i32(c, &d->deep_sweeps, 1);
    io_f64(c, &w->time, 1);
    io_bytes(c, &w->steps, sizeof w->steps);
    io_i32(c, &w->projection_iterations, 1);
    io_f64(c, &w->projection_tolerance, 1);
    io_u64(c, &w->joint_serial, 1);
    /* sleeping's settings, only with sleeping on (a world without saves
     * what it saved before they existed; a load finds them by the bytes
     * left in the section) */
    enum { SLEEP_BYTES = 2 * 8 + 4, LIGHT_BYTES = 8 };
    size_t left = c->size - c->pos;
    if (c->loading ? !c->bad && (left == SLEEP_BYTES || left == SLEEP_BYTES + LIGHT_BYTES)
                   : d->sleep != 0) {
        io_f64(c, &d->sleep_speed, 1);
        io_f64(c, &d->sleep_time, 1);
        io_i32(c, &d->sleep, 1);
    }
    /* the light bodies' ratio, always last (a file from before it has none:
     * its world had no light bodies, ratio 0, which keeps its restart bitwise) */
    if (c->loading && !c->bad && c->size - c->pos != LIGHT_BYTES) {
        d->light_body_ratio = 0.0;
    } else {
        io_f64(c, &d->light_body_ratio, 1);
    }
}

/* The settings' checks beyond nscd_world_create()'s. */
static void check_settings(cursor *c, const nscd_world *w) {
    if (!(w->steps >= 0) || !nscd__all_finite(&w->time, 1) || w->projection_iterations < 0 ||
        !(w->projection_tolerance >= 0.0) || !nscd__all_finite(&w->projection_tolerance, 1)) {
        refuse(c, "step count, time or joint projection out of range");
    }
}

static nscd_status grow_materials(nscd_world *w, int32_t n) {
    if (n <= w->materials_capacity) {
        return NSCD_OK;
    }
    double *mu = nscd__alloc_array(&w->allocator, (size_t)n, sizeof(double));
    if (mu == NULL) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    nscd__free(&w->allocator, w->material_mu, (size_t)w->materials_capacity * sizeof(double));
    /* the fresh world has no resistance lengths; io_resistance allocates them */
    nscd__free(&w->allocator, w->material_resistance,
               2 * (size_t)w->materials_capacity * sizeof(double));
    w->material_resistance = NULL;
    w->material_mu = mu;
    w->materials_capacity = n;
    return NSCD_OK;
}

/* The materials' rolling and spinning resistance: 2 doubles per material
 * after the pair table, present only when a material has one (a world
 * without resistance saves the bytes it saved before they existed; a load
 * finds them by the bytes left in the section). */
static nscd_status io_resistance(cursor *c, nscd_world *w) {
    bool present = c->loading ? c->pos < c->size : w->resistant_materials > 0;
    if (c->bad || !present) {
        return NSCD_OK;
    }
    if (c->loading && w->material_resistance == NULL &&
        nscd__world_alloc_resistance(w) != NSCD_OK) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    io_f64(c, w->material_resistance, 2 * (size_t)w->n_materials);
    if (!c->loading || c->bad) {
        return NSCD_OK;
    }
    w->resistant_materials = 0;
    for (int32_t m = 0; m < w->n_materials; ++m) {
        const double *r = w->material_resistance + 2 * (size_t)m;
        if (!(r[0] >= 0.0) || !(r[1] >= 0.0) || !nscd__all_finite(r, 2)) {
            refuse(c, "a rolling or spinning resistance is negative or not finite");
            return NSCD_OK;
        }
        w->resistant_materials += r[0] != 0.0 || r[1] != 0.0;
    }
    return NSCD_OK;
}

static nscd_status io_materials(cursor *c, nscd_world *w) {
    io_count(c, &w->n_materials, sizeof(double), 1 << 16, "count");
    if (c->loading && !c->bad && w->n_materials < 1) {
        refuse(c, "count");
    }
    if (c->loading && !c->bad && grow_materials(w, w->n_materials) != NSCD_OK) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    if (!c->bad) {
        io_f64(c, w->material_mu, (size_t)w->n_materials);
    }
    nscd__material_pairs *p = &w->pairs;
    int32_t capacity = p->capacity, count = p->count;
    io_count(c, &capacity, sizeof(uint64_t) + sizeof(double), INT32_MAX / 2,
             "pair frictions: table size");
    io_i32(c, &count, 1);
    if (c->bad) {
        return NSCD_OK;
    }
    if (c->loading) {
        if ((capacity != 0 && (capacity < 8 || (capacity & (capacity - 1)) != 0)) || count < 0 ||
            count > capacity / 2) {
            refuse(c, "pair frictions: table size or count");
            return NSCD_OK;
        }
        if (capacity > 0) {
            p->keys = nscd__alloc_array(&w->allocator, (size_t)capacity, sizeof(uint64_t));
            p->friction = nscd__alloc_array(&w->allocator, (size_t)capacity, sizeof(double));
            p->capacity = capacity; /* freed with the world, also when NULL */
            if (p->keys == NULL || p->friction == NULL) {
                return NSCD_ERR_OUT_OF_MEMORY;
            }
        }
        p->count = count;
    }
    for (int32_t i = 0; i < capacity && !c->bad; ++i) {
        double mu = !c->loading && p->keys[i] != 0 ? p->friction[i] : 0.0;
        io_u64(c, &p->keys[i], 1);
        io_f64(c, &mu, 1);
        p->friction[i] = c->loading ? mu : p->friction[i];
    }
    if (c->loading && !c->bad) {
        int32_t used = 0;
        for (int32_t i = 0; i < capacity; ++i) {
            used += p->keys[i] != 0;
        }
        if (used != count) { /* the probes of a lookup end at an empty slot */
            refuse(c, "pair frictions: count");
            return NSCD_OK;
        }
        for (int32_t i = 0; i < capacity; ++i) {
            uint64_t k = p->keys[i];
            if (k == 0) {
                continue;
            }
            uint64_t lo = (k - 1) & 0xffffffffu, hi = (k - 1) >> 32;
            double mu = 0.0;
            /* the key names two materials and the table finds it where it is */
            if (lo > hi || hi >= (uint64_t)w->n_materials ||
                !nscd__material_pairs_get(p, (int32_t)lo, (int32_t)hi, &mu) ||
                mu != p->friction[i] || !(mu >= 0.0) || !nscd__all_finite(&mu, 1)) {
                refuse(c, "pair frictions: a pair of unknown materials or a bad friction");
                return NSCD_OK;
            }
        }
        for (int32_t m = 0; m < w->n_materials && !c->bad; ++m) {
            if (!(w->material_mu[m] >= 0.0) || !nscd__all_finite(&w->material_mu[m], 1)) {
                refuse(c, "a friction is negative or not finite");
            }
        }
    }
    return io_resistance(c, w);
}

/* Bytes per body in the bodies section. */
enum { BODY_BYTES = (3 + 4 + 3 + 3 + 1 + 1 + 9 + 9 + 9 + 1 + 3 + 3) * 8 + 4 * 4 + 2 * 8 };

/* The bodies' sleep timers and island labels and the last label given,
 * after the bodies, only when one is not zero (a world that never slept
 * saves what it saved before they existed). */
static nscd_status io_sleep(cursor *c, nscd_world *w) {
    bool present = w->sleep_serial != 0;
    for (int32_t i = 0; !c->loading && !present && i < w->n_bodies; ++i) {
        present = w->sleep_timer[i] != 0.0;
    }
    size_t n = (size_t)w->n_bodies;
    if (c->loading && !c->bad && n > 0) { /* awake, unless the block says otherwise */
        memset(w->sleep_timer, 0, n * sizeof(double));
        memset(w->sleep_island, 0, n * sizeof(uint64_t));
    }
    if (c->loading ? c->bad || c->pos == c->size : !present) {
        return NSCD_OK;
    }
    io_u64(c, &w->sleep_serial, 1);
    io_f64(c, w->sleep_timer, n);
    io_u64(c, w->sleep_island, n);
    if (!c->loading || c->bad) {
        return NSCD_OK;
    }
    w->n_sleeping = 0;
    for (size_t i = 0; i < n && !c->bad; ++i) {
        if (!(w->sleep_timer[i] >= 0.0) || !nscd__all_finite(&w->sleep_timer[i], 1) ||
            w->sleep_island[i] > w->sleep_serial ||
            (w->sleep_island[i] != 0 && w->type[i] != NSCD_BODY_DYNAMIC)) {
            refuse(c, "a sleep timer or island out of range");
        }
        w->n_sleeping += w->sleep_island[i] != 0;
    }
    return NSCD_OK;
}

static nscd_status io_bodies(cursor *c, nscd_world *w) {
    io_count(c, &w->n_bodies, BODY_BYTES, INT32_MAX / 16, "count");
    io_i32(c, &w->n_dead, 1);
    if (c->bad) {
        return NSCD_OK;
    }
    if (c->loading) {
        if (w->n_dead < 0 || w->n_dead > w->n_bodies) {
            refuse(c, "removed-body count");
            return NSCD_OK;
        }
        if (nscd__world_reserve_storage(w, w->n_bodies, 0, 0) != NSCD_OK) {
            return NSCD_ERR_OUT_OF_MEMORY;
        }
    }
    size_t n = (size_t)w->n_bodies;
    io_f64(c, w->position, 3 * n);
    io_f64(c, w->orientation, 4 * n);
    io_f64(c, w->velocity, 3 * n);
    io_f64(c, w->omega, 3 * n);
    io_f64(c, w->inv_mass, n);
    io_f64(c, w->mass, n);
    io_f64(c, w->inertia, 9 * n);
    io_f64(c, w->inv_inertia, 9 * n);
    io_f64(c, w->inv_inertia_world, 9 * n);
    io_f64(c, w->bound_radius, n);
    io_f64(c, w->applied_force, 3 * n);
    io_f64(c, w->applied_torque, 3 * n);
    io_i32(c, w->type, n);
    io_i32(c, w->isotropic, n);
    io_i32(c, w->shape_first, n);
    io_i32(c, w->shape_count, n);
    io_u64(c, w->user_id, n);
    io_u64(c, w->id, n);
    if (!c->loading || c->bad) {
        return c->bad ? NSCD_OK : io_sleep(c, w);
    }
    int32_t dead = 0;
    for (size_t i = 0; i < n && !c->bad; ++i) {
        const double *v[8] = {w->position + 3 * i,      w->orientation + 4 * i,
                              w->velocity + 3 * i,      w->omega + 3 * i,
                              w->inertia + 9 * i,       w->inv_inertia + 9 * i,
                              w->applied_force + 3 * i, w->applied_torque + 3 * i};
        size_t len[8] = {3, 4, 3, 3, 9, 9, 3, 3};
        for (int k = 0; k < 8; ++k) {
            if (!nscd__all_finite(v[k], len[k])) {
                refuse(c, "a state or mass property is not finite");
            }
        }
        if (w->type[i] < -1 || w->type[i] > NSCD_BODY_DYNAMIC ||
            (w->isotropic[i] != 0 && w->isotropic[i] != 1) ||
            !(w->inv_mass[i] >= 0.0 && w->mass[i] >= 0.0 && w->bound_radius[i] >= 0.0) ||
            !nscd__all_finite(&w->inv_mass[i], 1) || !nscd__all_finite(&w->mass[i], 1) ||
            !nscd__all_finite(&w->bound_radius[i], 1)) {
            refuse(c, "a type, mass or radius out of range");
        }
        dead += w->type[i] < 0;
    }
    if (!c->bad && dead != w->n_dead) {
        refuse(c, "removed-body count");
    }
    return io_sleep(c, w);
}

static nscd_status io_slots(cursor *c, nscd_world *w) {
    io_count(c, &w->n_slots, sizeof(uint32_t) + sizeof(int32_t), INT32_MAX / 16, "count");
    io_count(c, &w->n_free, sizeof(int32_t), w->n_slots, "free slots: count");
    if (c->bad) {
        return NSCD_OK;
    }
    if (c->loading && nscd__world_reserve_storage(w, w->n_bodies, w->n_slots, 0) != NSCD_OK) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    io_u32(c, w->slot_generation, (size_t)w->n_slots);
    io_i32(c, w->slot_dense, (size_t)w->n_slots);
    io_i32(c, w->free_slots, (size_t)w->n_free);
    if (!c->loading || c->bad) {
        return NSCD_OK;
    }
    for (int32_t s = 0; s < w->n_slots; ++s) {
        int32_t i = w->slot_dense[s];
        if (i < -1 || i >= w->n_bodies || w->slot_generation[s] > NSCD__WORLD_MAX_GENERATION ||
            (i >= 0 && (w->type[i] < 0 ||
                        w->id[i] != (((uint64_t)w->slot_generation[s] << 32) | (uint32_t)s)))) {
            refuse(c, "a slot does not match its body");
            return NSCD_OK;
        }
    }
    for (int32_t i = 0; i < w->n_bodies; ++i) {
        if (w->type[i] >= 0 && nscd__world_lookup(w, w->id[i]) != i) {
            refuse(c, "a live body has no slot");
            return NSCD_OK;
        }
    }
    for (int32_t k = 0; k < w->n_free; ++k) {
        int32_t s = w->free_slots[k];
        if (s < 0 || s >= w->n_slots || w->slot_dense[s] != -1) {
            refuse(c, "a free slot is in use");
            return NSCD_OK;
        }
    }
    return NSCD_OK;
}

static void io_shape(cursor *c, nscd__world_shape *s) {
    io_i32(c, &s->type, 1);
    io_i32(c, &s->body, 1);
    io_i32(c, &s->index, 1);
    io_i32(c, &s->material, 1);
    io_f64(c, &s->radius, 1);
    io_f64(c, &s->half_height, 1);
    io_f64(c, s->half_extents, 3);
    io_f64(c, s->position, 3);
    io_f64(c, s->rotation, 9);
    io_u32(c, &s->category, 1);
    io_u32(c, &s->mask, 1);
    if (c->loading) {
        s->hull = NULL; /* rebuilt from its points (io_hull) */
    }
}

/* A convex shape's record is followed by its point count and the user's
 * points (3 doubles each); loading rebuilds the hull from them: the build
 * is deterministic, so the hull is the one saved, bit for bit. Files
 * without convex shapes read as before (format 1 unchanged). */
static nscd_status io_hull(cursor *c, nscd_world *w, nscd__world_shape *s) {
    int32_t n = s->hull != NULL ? s->hull->n_points : 0;
    io_count(c, &n, 3 * sizeof(double), NSCD__HULL_MAX_POINTS, "a convex shape's point count");
    if (c->bad) {
        return NSCD_OK;
    }
    if (!c->loading) {
        io_f64(c, s->hull->points, 3 * (size_t)n);
        return NSCD_OK;
    }
    double *points = nscd__alloc_array(&w->allocator, 3 * (size_t)n, sizeof(double));
    if (points == NULL) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    io_f64(c, points, 3 * (size_t)n);
    nscd__hull_status hs =
        c->bad ? NSCD__HULL_OK : nscd__hull_build(&w->allocator, points, n, &s->hull);
    nscd__free(&w->allocator, points, 3 * (size_t)n * sizeof(double));
    if (hs == NSCD__HULL_NO_MEMORY) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    if (hs != NSCD__HULL_OK) {
        refuse(c, "a convex shape's points do not make a hull");
    }
    return NSCD_OK;
}

enum { SHAPE_BYTES = 4 * 4 + 17 * 8 + 2 * 4 };

static nscd_status io_shapes(cursor *c, nscd_world *w) {
    io_count(c, &w->n_shapes, SHAPE_BYTES, INT32_MAX / 16, "count");
    if (c->bad) {
        return NSCD_OK;
    }
    if (c->loading &&
        nscd__world_reserve_storage(w, w->n_bodies, w->n_slots, w->n_shapes) != NSCD_OK) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    for (int32_t k = 0; k < w->n_shapes && !c->bad; ++k) {
        io_shape(c, &w->shapes[k]);
        if (!c->bad && w->shapes[k].type == NSCD_SHAPE_CONVEX) {
            nscd_status rc = io_hull(c, w, &w->shapes[k]);
            if (rc != NSCD_OK) {
                return rc;
            }
        }
    }
    if (!c->loading || c->bad) {
        return NSCD_OK;
    }
    /* grouped by body in body order, each body's shapes numbered from 0 */
    int32_t next = 0;
    for (int32_t i = 0; i < w->n_bodies; ++i) {
        if (w->shape_first[i] != next || w->shape_count[i] < 0 ||
            w->shape_count[i] > NSCD__WORLD_MAX_SHAPES || w->shape_count[i] > w->n_shapes - next) {
            refuse(c, "a body's shape range");
            return NSCD_OK;
        }
        for (int32_t s = 0; s < w->shape_count[i]; ++s) {
            const nscd__world_shape *sh = &w->shapes[next + s];
            double reals[17];
            memcpy(reals, &sh->radius, 2 * sizeof(double));
            memcpy(reals + 2, sh->half_extents, 3 * sizeof(double));
            memcpy(reals + 5, sh->position, 3 * sizeof(double));
            memcpy(reals + 8, sh->rotation, 9 * sizeof(double));
            if (sh->body != i || sh->index != s || sh->type < NSCD_SHAPE_SPHERE ||
                sh->type > NSCD_SHAPE_CONVEX || sh->material < 0 ||
                sh->material >= w->n_materials || !nscd__all_finite(reals, 17) ||
                sh->radius < 0.0 || sh->half_height < 0.0 || sh->half_extents[0] < 0.0 ||
                sh->half_extents[1] < 0.0 || sh->half_extents[2] < 0.0) {
                refuse(c, "a shape's body, index, type, material or size");
                return NSCD_OK;
            }
        }
        next += w->shape_count[i];
    }
    if (next != w->n_shapes) {
        refuse(c, "count");
    }
    return NSCD_OK;
}

enum { RECORD_BYTES = 2 * 8 + 4 + 2 * 8 + 13 * 8 };

static nscd_status io_contacts(cursor *c, nscd_world *w) {
    int32_t n = w->n_records;
    io_count(c, &n, RECORD_BYTES, INT32_MAX / 16, "count");
    if (c->bad) {
        return NSCD_OK;
    }
    if (c->loading) { /* the fresh world has no records to keep */
        if (nscd__world_reserve_records(w, n) != NSCD_OK) {
            return NSCD_ERR_OUT_OF_MEMORY;
        }
        w->n_records = n;
    }
    for (int32_t j = 0; j < w->n_records && !c->bad; ++j) {
        nscd__world_record *r = &w->records[j];
        io_u64(c, &r->key_a, 1);
        io_u64(c, &r->key_b, 1);
        io_u32(c, &r->feature, 1);
        io_u64(c, &r->id_a, 1);
        io_u64(c, &r->id_b, 1);
        io_f64(c, r->point, 3);
        io_f64(c, r->normal, 3);
        io_f64(c, &r->gap, 1);
        io_f64(c, r->x, 3);
        io_f64(c, r->impulse_world, 3);
        if (c->loading && !c->bad && !nscd__all_finite(r->point, 3)) {
            refuse(c, "a point is not finite");
        }
        if (c->loading) { /* unless the section has them (below) */
            r->angular_world[0] = r->angular_world[1] = r->angular_world[2] = 0.0;
        }
    }
    /* the angular impulses of rolling and spinning resistance, 3 doubles per
     * record after the records, only when one is not zero (a world without
     * resistance saves what it saved before they existed) */
    bool angular = false;
    for (int32_t j = 0; !c->loading && j < w->n_records; ++j) {
        const double *m = w->records[j].angular_world;
        angular = angular || m[0] != 0.0 || m[1] != 0.0 || m[2] != 0.0;
    }
    if (c->loading ? !c->bad && c->pos < c->size : angular) {
        for (int32_t j = 0; j < w->n_records && !c->bad; ++j) {
            io_f64(c, w->records[j].angular_world, 3);
            if (c->loading && !c->bad && !nscd__all_finite(w->records[j].angular_world, 3)) {
                refuse(c, "an angular impulse is not finite");
            }
        }
    }
    /* the warm start merges two lists sorted by (key_a, key_b, feature) */
    for (int32_t j = 1; c->loading && !c->bad && j < w->n_records; ++j) {
        const nscd__world_record *a = &w->records[j - 1], *b = &w->records[j];
        if (a->key_a > b->key_a ||
            (a->key_a == b->key_a &&
             (a->key_b > b->key_b || (a->key_b == b->key_b && a->feature > b->feature)))) {
            refuse(c, "not sorted by key");
        }
    }
    return NSCD_OK;
}

static void io_joint(cursor *c, nscd__world_joint *j) {
    nscd__joint_def *d = &j->def;
    io_i32(c, &d->clearance, 1);
    io_i32(c, &d->type, 1);
    io_f64(c, &d->frame_position[0][0], 6);
    io_f64(c, &d->frame_rotation[0][0], 18);
    io_f64(c, &d->hole_radius, 1);
    io_f64(c, &d->pin_radius, 1);
    io_f64(c, &d->inner_length, 1);
    io_f64(c, &d->outer_length, 1);
    io_i32(c, &d->n_vertices, 1);
    io_f64(c, d->guide, 2 * NSCD_CLEARANCE_MAX_VERTICES);
    io_f64(c, d->slider, 2 * NSCD_CLEARANCE_MAX_VERTICES);
    io_f64(c, &d->friction, 1);
    io_i32(c, &d->energy_form, 1);
    io_u64(c, j->body, 2);
    io_u64(c, &j->id, 1);
    io_u64(c, &j->serial, 1);
    io_f64(c, &j->impulse[0][0], 3 * NSCD__JOINT_MAX_PARTS);
    io_f64(c, &j->step, 1);
}

enum {
    JOINT_BYTES = 4 * 4 + (6 + 18 + 4 + 4 * NSCD_CLEARANCE_MAX_VERTICES + 1) * 8 + 5 * 8 +
                  (3 * NSCD__JOINT_MAX_PARTS) * 8
};

static bool joint_valid(const nscd_world *w, const nscd__world_joint *j) {
    const nscd__joint_def *d = &j->def;
    if (nscd__joint_kind_of(d->clearance, d->type) == NULL || d->n_vertices < 0 ||
        d->n_vertices > NSCD_CLEARANCE_MAX_VERTICES ||
        (d->energy_form != 0 && d->energy_form != 1) || j->body[0] == j->body[1] ||
        !nscd__all_finite(&d->frame_position[0][0], 6) ||
        !nscd__all_finite(&d->frame_rotation[0][0], 18) || !nscd__all_finite(&j->step, 1)) {
        return false;
    }
    double sizes[4] = {d->hole_radius, d->pin_radius, d->inner_length, d->outer_length};
    if (!nscd__all_finite(sizes, 4) ||
        !nscd__all_finite(d->guide, 2 * NSCD_CLEARANCE_MAX_VERTICES) ||
        !nscd__all_finite(d->slider, 2 * NSCD_CLEARANCE_MAX_VERTICES) ||
        !nscd__all_finite(&d->friction, 1) ||
        !nscd__all_finite(&j->impulse[0][0], 3 * NSCD__JOINT_MAX_PARTS)) {
        return false;
    }
    bool dynamic = false; /* live (or the ground), one of them dynamic */
    for (int s = 0; s < 2; ++s) {
        int32_t i = j->body[s] == NSCD_BODY_NULL ? -1 : nscd__world_lookup(w, j->body[s]);
        if (j->body[s] != NSCD_BODY_NULL && i < 0) {
            return false;
        }
        dynamic = dynamic || (i >= 0 && w->type[i] == NSCD_BODY_DYNAMIC);
    }
    return dynamic;
}

static nscd_status io_joints(cursor *c, nscd_world *w) {
    io_count(c, &w->n_joints, JOINT_BYTES, INT32_MAX / 16, "count");
    if (c->bad) {
        return NSCD_OK;
    }
    if (c->loading && w->n_joints > 0 &&
        nscd__reserve_array(&w->allocator, (void **)&w->joints, 0, &w->joints_capacity, w->n_joints,
                            sizeof(nscd__world_joint)) != NSCD_OK) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    for (int32_t k = 0; k < w->n_joints && !c->bad; ++k) {
        if (c->loading) {
            memset(&w->joints[k], 0, sizeof w->joints[k]);
        }
        io_joint(c, &w->joints[k]);
        if (c->loading && !c->bad && !joint_valid(w, &w->joints[k])) {
            refuse(c, "a joint's type, bodies or frames");
        }
    }
    io_count(c, &w->n_joint_slots, sizeof(uint32_t) + sizeof(int32_t), INT32_MAX / 16,
             "joint slots: count");
    if (c->bad) {
        return NSCD_OK;
    }
    if (c->loading && w->n_joint_slots > 0) {
        nscd__array arrays[2] = {{(void **)&w->joint_generation, sizeof(uint32_t), 0},
                                 {(void **)&w->joint_dense, sizeof(int32_t), 0}};
        if (nscd__reserve_arrays(&w->allocator, arrays, 2, &w->joint_slots_capacity,
                                 w->n_joint_slots) != NSCD_OK) {
            return NSCD_ERR_OUT_OF_MEMORY;
        }
    }
    io_u32(c, w->joint_generation, (size_t)w->n_joint_slots);
    io_i32(c, w->joint_dense, (size_t)w->n_joint_slots);
    for (int32_t s = 0; c->loading && !c->bad && s < w->n_joint_slots; ++s) {
        int32_t k = w->joint_dense[s];
        if (k < -1 || k >= w->n_joints ||
            (k >= 0 &&
             w->joints[k].id != (((uint64_t)w->joint_generation[s] << 32) | (uint32_t)s))) {
            refuse(c, "joint slots: a slot does not match its joint");
        }
    }
    for (int32_t k = 0; c->loading && !c->bad && k < w->n_joints; ++k) {
        uint64_t slot = w->joints[k].id & 0xffffffffu;
        if (slot >= (uint64_t)w->n_joint_slots || w->joint_dense[slot] != k) {
            refuse(c, "joint slots: a joint has no slot");
        }
    }
    return NSCD_OK;
}

typedef nscd_status (*section_fn)(cursor *c, nscd_world *w);

static nscd_status io_settings_section(cursor *c, nscd_world *w) {
    io_settings(c, w);
    return NSCD_OK;
}

static const section_fn SECTIONS[N_SECTIONS - 1] = {
    io_settings_section, io_materials, io_bodies, io_slots, io_shapes, io_contacts, io_joints};
static const char *const SECTION_NAMES[N_SECTIONS] = {
    "settings", "materials", "bodies", "slots", "shapes", "contacts", "joints", "user data"};

/* ------------------------------------------------------------ save */

static void put_u32(unsigned char *p, uint32_t x) { memcpy(p, &x, 4); }
static void put_u64(unsigned char *p, uint64_t x) { memcpy(p, &x, 8); }
static uint32_t get_u32(const unsigned char *p) {
    uint32_t x;
    memcpy(&x, p, 4);
    return x;
}
static uint64_t get_u64(const unsigned char *p) {
    uint64_t x;
    memcpy(&x, p, 8);
    return x;
}

/* The checkpoint into out (NULL: only its size into *size). */
static void encode(nscd_world *w, const void *user, size_t user_bytes, unsigned char *out,
                   size_t *size) {
    size_t offset = HEADER_BYTES + (size_t)N_SECTIONS * ENTRY_BYTES;
    for (int k = 0; k < N_SECTIONS; ++k) {
        cursor c = {out ? out + offset : NULL, 0, SIZE_MAX, 0, 0, NULL};
        if (k < N_SECTIONS - 1) {
            SECTIONS[k](&c, w);
        } else {
            io_bytes(&c, (void *)(uintptr_t)user, user_bytes);
        }
        if (out != NULL) {
            unsigned char *e = out + HEADER_BYTES + (size_t)k * ENTRY_BYTES;
            put_u32(e, (uint32_t)(k + 1));
            put_u32(e + 4, 0);
            put_u64(e + 8, offset);
            put_u64(e + 16, c.pos);
        }
        offset += c.pos;
    }
    *size = offset;
    if (out == NULL) {
        return;
    }
    memcpy(out, MAGIC, 8);
    put_u32(out + 8, NSCD_CHECKPOINT_FORMAT_VERSION);
    out[12] = host_endianness();
    out[13] = (unsigned char)sizeof(double);
    out[14] = (unsigned char)sizeof(int32_t);
    out[15] = 0;
    put_u32(out + 16, (uint32_t)nscd_version());
    put_u32(out + 20, N_SECTIONS);
    put_u64(out + 24, offset);
    put_u64(out + CHECKSUM_OFFSET, checksum(out, offset));
}

static nscd_status check_save(const nscd_world *w, const void *user, size_t user_bytes,
                              const char *call) {
    nscd__diag_clear(nscd__world_diag(w));
    if (user == NULL && user_bytes > 0) {
        return nscd__world_read_fail(w, NSCD_ERR_NULL_POINTER, "%s: user data is NULL", call);
    }
    if (user_bytes > (size_t)INT32_MAX) {
        return nscd__world_read_fail(w, NSCD_ERR_INVALID_ARGUMENT,
                                     "%s: user data of %zu bytes (at most 2^31 - 1)", call,
                                     user_bytes);
    }
    if (w->diag.busy > 0) {
        return nscd__world_read_fail(w, NSCD_ERR_STATE, "%s: the world is being stepped", call);
    }
    return NSCD_OK;
}

nscd_status nscd_world_save_to_buffer(const nscd_world *world, const void *user_data,
                                      size_t user_bytes, void *buffer, size_t capacity,
                                      size_t *size) {
    if (world == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    if (size == NULL) {
        return nscd__world_read_fail(world, NSCD_ERR_NULL_POINTER,
                                     "nscd_world_save_to_buffer: size is NULL");
    }
    nscd_status rc = check_save(world, user_data, user_bytes, "nscd_world_save_to_buffer");
    if (rc != NSCD_OK) {
        return rc;
    }
    nscd_world *w = (nscd_world *)(uintptr_t)world; /* read only: the visitors save */
    encode(w, user_data, user_bytes, NULL, size);
    if (buffer == NULL || capacity < *size) {
        return nscd__world_read_fail(world, NSCD_ERR_BUFFER_TOO_SMALL,
                                     "nscd_world_save_to_buffer: capacity %zu < %zu bytes",
                                     capacity, *size);
    }
    memset(buffer, 0, *size);
    encode(w, user_data, user_bytes, buffer, size);
    return NSCD_OK;
}

nscd_status nscd_world_save(const nscd_world *world, const char *path, const void *user_data,
                            size_t user_bytes) {
    if (world == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    if (path == NULL) {
        return nscd__world_read_fail(world, NSCD_ERR_NULL_POINTER, "nscd_world_save: path is NULL");
    }
    nscd_status rc = check_save(world, user_data, user_bytes, "nscd_world_save");
    if (rc != NSCD_OK) {
        return rc;
    }
    nscd_world *w = (nscd_world *)(uintptr_t)world;
    size_t size = 0;
    encode(w, user_data, user_bytes, NULL, &size);
    unsigned char *bytes = nscd__alloc(&w->allocator, size);
    size_t name_bytes = strlen(path) + 5;
    char *tmp = nscd__alloc(&w->allocator, name_bytes);
    if (bytes == NULL || tmp == NULL) {
        nscd__free(&w->allocator, bytes, size);
        nscd__free(&w->allocator, tmp, name_bytes);
        return nscd__world_read_fail(world, NSCD_ERR_OUT_OF_MEMORY, "nscd_world_save: %zu bytes",
                                     size);
    }
    memset(bytes, 0, size);
    encode(w, user_data, user_bytes, bytes, &size);
    snprintf(tmp, name_bytes, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    bool ok = f != NULL && fwrite(bytes, 1, size, f) == size;
    ok = (f == NULL || fclose(f) == 0) && ok;
    if (ok && rename(tmp, path) != 0) {
        remove(path); /* a platform whose rename does not replace */
        ok = rename(tmp, path) == 0;
    }
    if (!ok && f != NULL) {
        remove(tmp);
    }
    nscd__free(&w->allocator, bytes, size);
    nscd__free(&w->allocator, tmp, name_bytes);
    return ok ? NSCD_OK
              : nscd__world_read_fail(world, NSCD_ERR_IO, "nscd_world_save: cannot write %s", path);
}

/* ------------------------------------------------------------ load */

static bool world_empty(const nscd_world *w) {
    return w->n_bodies == 0 && w->n_slots == 0 && w->n_joints == 0 && w->n_joint_slots == 0 &&
           w->n_materials == 1 && w->pairs.count == 0 && w->steps == 0 && w->n_records == 0 &&
           w->model == NULL && w->diag.busy == 0;
}

/* Trades the contents of two worlds, each keeping its diagnostics (and the
 * collision layer's pointer to its own allocator). */
static void swap_worlds(nscd_world *a, nscd_world *b) {
    nscd_world t = *a;
    nscd_diag da = a->diag, db = b->diag;
    *a = *b;
    *b = t;
    a->diag = da;
    b->diag = db;
    a->collision.allocator = &a->allocator;
    b->collision.allocator = &b->allocator;
    /* the threads: each world's own pool (or callbacks) moves with it */
    a->collision.parallel = a->parallel.threads >= 1 ? &a->parallel : NULL;
    b->collision.parallel = b->parallel.threads >= 1 ? &b->parallel : NULL;
}

typedef struct section {
    size_t offset, length;
} section;

/* The header and the section table; the sections' places into s. */
static const char *check_header(const unsigned char *p, size_t size, section s[N_SECTIONS]) {
    if (size < 8 || memcmp(p, MAGIC, 8) != 0) {
        return "not an nscd world checkpoint (bad magic)";
    }
    if (size < HEADER_BYTES) {
        return "truncated header";
    }
    if (get_u32(p + 8) != NSCD_CHECKPOINT_FORMAT_VERSION) {
        return "unsupported format version";
    }
    if (p[12] != host_endianness()) {
        return "written on a machine of the other byte order";
    }
    if (p[13] != sizeof(double) || p[14] != sizeof(int32_t) || p[15] != 0) {
        return "sizes of double and int differ from this machine's";
    }
    if (get_u32(p + 16) != (uint32_t)nscd_version()) {
        return "written by another library version";
    }
    uint64_t length = get_u64(p + 24);
    if (length > size) {
        return "truncated (shorter than its recorded length)";
    }
    if (length < size) {
        return "longer than its recorded length";
    }
    if (get_u32(p + 20) != N_SECTIONS || size < HEADER_BYTES + (size_t)N_SECTIONS * ENTRY_BYTES) {
        return "section table";
    }
    if (checksum(p, size) != get_u64(p + CHECKSUM_OFFSET)) {
        return "checksum mismatch (the file is corrupt)";
    }
    size_t end = HEADER_BYTES + (size_t)N_SECTIONS * ENTRY_BYTES;
    for (int k = 0; k < N_SECTIONS; ++k) {
        const unsigned char *e = p + HEADER_BYTES + (size_t)k * ENTRY_BYTES;
        uint64_t off = get_u64(e + 8), len = get_u64(e + 16);
        if (get_u32(e) != (uint32_t)(k + 1) || get_u32(e + 4) != 0 || off != end ||
            len > size - off) {
            return "section table";
        }
        s[k].offset = (size_t)off;
        s[k].length = (size_t)len;
        end = (size_t)(off + len);
    }
    return end == size ? NULL : "section table";
}

static nscd_status load(nscd_world *w, const unsigned char *p, size_t size, const char *source,
                        void *user, size_t user_capacity, size_t *user_bytes) {
    section s[N_SECTIONS];
    const char *bad = check_header(p, size, s);
    if (bad != NULL) {
        return nscd__fail(&w->diag, NSCD_ERR_IO, "checkpoint %s: %s", source, bad);
    }
    /* the settings first: they create the world that the rest fills */
    nscd_world probe;
    memset(&probe, 0, sizeof probe);
    nscd_world_desc_init(&probe.desc, sizeof probe.desc);
    cursor c = {(unsigned char *)(uintptr_t)(p + s[0].offset), 0, s[0].length, 1, 0, NULL};
    io_settings(&c, &probe);
    check_settings(&c, &probe);
    if (!c.bad && c.pos != c.size) {
        refuse(&c, "section longer than its contents");
    }
    if (c.bad) {
        return nscd__fail(&w->diag, NSCD_ERR_IO, "checkpoint %s: section settings: %s", source,
                          c.failed);
    }
    nscd_world_desc desc = probe.desc;
    desc.allocator = w->desc.allocator;
    desc.log = w->desc.log;
    desc.log_user = w->desc.log_user;
    /* host settings, not the run's: the caller's threads and scheduler */
    desc.threads = w->desc.threads;
    desc.enqueue_task = w->desc.enqueue_task;
    desc.finish_task = w->desc.finish_task;
    desc.task_user = w->desc.task_user;
    nscd_world *fresh = NULL;
    nscd_status rc = nscd_world_create(&desc, &fresh);
    if (rc == NSCD_ERR_OUT_OF_MEMORY) {
        return nscd__fail(&w->diag, rc, "checkpoint %s: creating the world", source);
    }
    if (rc != NSCD_OK) {
        return nscd__fail(&w->diag, NSCD_ERR_IO, "checkpoint %s: settings refused (%s)", source,
                          nscd_status_string(rc));
    }
    fresh->time = probe.time;
    fresh->steps = probe.steps;
    fresh->projection_iterations = probe.projection_iterations;
    fresh->projection_tolerance = probe.projection_tolerance;
    fresh->joint_serial = probe.joint_serial;
    for (int k = 1; k < N_SECTIONS - 1; ++k) {
        cursor ck = {(unsigned char *)(uintptr_t)(p + s[k].offset), 0, s[k].length, 1, 0, NULL};
        rc = SECTIONS[k](&ck, fresh);
        if (rc == NSCD_OK && !ck.bad && ck.pos != ck.size) {
            refuse(&ck, "section longer than its contents");
        }
        if (rc != NSCD_OK || ck.bad) {
            nscd_world_destroy(fresh);
            return rc != NSCD_OK
                       ? nscd__fail(&w->diag, rc, "checkpoint %s: %s: out of memory", source,
                                    SECTION_NAMES[k])
                       : nscd__fail(&w->diag, NSCD_ERR_IO, "checkpoint %s: section %s: %s", source,
                                    SECTION_NAMES[k], ck.failed);
        }
    }
    size_t blob = s[N_SECTIONS - 1].length;
    if (user_bytes != NULL) {
        *user_bytes = blob;
    }
    if (user != NULL && blob > user_capacity) {
        nscd_world_destroy(fresh);
        return nscd__fail(&w->diag, NSCD_ERR_BUFFER_TOO_SMALL,
                          "checkpoint %s: user data of %zu bytes, room for %zu", source, blob,
                          user_capacity);
    }
    if (user != NULL && blob > 0) {
        memcpy(user, p + s[N_SECTIONS - 1].offset, blob);
    }
    swap_worlds(w, fresh);
    nscd_world_destroy(fresh); /* the caller's empty world */
    return NSCD_OK;
}

static nscd_status check_load(nscd_world *w, const char *call) {
    nscd__diag_clear(&w->diag);
    if (!world_empty(w)) {
        return nscd__fail(&w->diag, NSCD_ERR_STATE,
                          "%s: the world is not empty (load into a world fresh from "
                          "nscd_world_create)",
                          call);
    }
    return NSCD_OK;
}

nscd_status nscd_world_load_from_buffer(nscd_world *world, const void *buffer, size_t size,
                                        void *user_data, size_t user_capacity, size_t *user_bytes) {
    if (world == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    if (buffer == NULL) {
        return nscd__fail(&world->diag, NSCD_ERR_NULL_POINTER,
                          "nscd_world_load_from_buffer: buffer is NULL");
    }
    nscd_status rc = check_load(world, "nscd_world_load_from_buffer");
    return rc != NSCD_OK
               ? rc
               : load(world, buffer, size, "(buffer)", user_data, user_capacity, user_bytes);
}

nscd_status nscd_world_load(nscd_world *world, const char *path, void *user_data,
                            size_t user_capacity, size_t *user_bytes) {
    if (world == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    if (path == NULL) {
        return nscd__fail(&world->diag, NSCD_ERR_NULL_POINTER, "nscd_world_load: path is NULL");
    }
    nscd_status rc = check_load(world, "nscd_world_load");
    if (rc != NSCD_OK) {
        return rc;
    }
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return nscd__fail(&world->diag, NSCD_ERR_IO, "checkpoint %s: cannot open", path);
    }
    long end = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1L;
    if (end < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return nscd__fail(&world->diag, NSCD_ERR_IO, "checkpoint %s: cannot read its size", path);
    }
    size_t size = (size_t)end; /* the file's own size: what it backs */
    unsigned char *bytes = nscd__alloc(&world->allocator, size > 0 ? size : 1);
    if (bytes == NULL) {
        fclose(f);
        return nscd__fail(&world->diag, NSCD_ERR_OUT_OF_MEMORY, "checkpoint %s: %zu bytes", path,
                          size);
    }
    bool ok = fread(bytes, 1, size, f) == size;
    fclose(f);
    rc = ok ? load(world, bytes, size, path, user_data, user_capacity, user_bytes)
            : nscd__fail(&world->diag, NSCD_ERR_IO, "checkpoint %s: read failed", path);
    nscd__free(&world->allocator, bytes, size > 0 ? size : 1);
    return rc;
}
