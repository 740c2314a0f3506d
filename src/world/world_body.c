/* Bodies of the rigid-body world: dense storage, generational ids, mass
 * properties from density and shapes (docs/world.md). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "collision/hull.h"
#include "core/check.h"
#include "core/memory.h"
#include "core/struct_sizes.h"
#include "core/vec3.h"
#include "world/world_impl.h"

#define PI 3.14159265358979323846

/* ------------------------------------------------------------ storage */

/* The per-body arrays and their element sizes, so that growth, compaction
 * and release walk one table instead of three lists. */
typedef nscd__array body_array; /* keep: set by reserve() */

enum { N_BODY_ARRAYS = 21 };

static void body_arrays(nscd_world *w, body_array out[N_BODY_ARRAYS]) {
    body_array t[N_BODY_ARRAYS] = {
        {(void **)&w->position, 3 * sizeof(double), 0},
        {(void **)&w->orientation, 4 * sizeof(double), 0},
        {(void **)&w->velocity, 3 * sizeof(double), 0},
        {(void **)&w->omega, 3 * sizeof(double), 0},
        {(void **)&w->inv_mass, sizeof(double), 0},
        {(void **)&w->mass, sizeof(double), 0},
        {(void **)&w->inertia, 9 * sizeof(double), 0},
        {(void **)&w->inv_inertia, 9 * sizeof(double), 0},
        {(void **)&w->inv_inertia_world, 9 * sizeof(double), 0},
        {(void **)&w->bound_radius, sizeof(double), 0},
        {(void **)&w->applied_force, 3 * sizeof(double), 0},
        {(void **)&w->applied_torque, 3 * sizeof(double), 0},
        {(void **)&w->type, sizeof(int32_t), 0},
        {(void **)&w->isotropic, sizeof(int32_t), 0},
        {(void **)&w->shape_first, sizeof(int32_t), 0},
        {(void **)&w->shape_count, sizeof(int32_t), 0},
        {(void **)&w->user_id, sizeof(uint64_t), 0},
        {(void **)&w->id, sizeof(nscd_body_id), 0},
        {(void **)&w->sleep_timer, sizeof(double), 0},
        {(void **)&w->sleep_island, sizeof(uint64_t), 0},
        {(void **)&w->saved_velocity, 0, 0}, /* placeholder: scratch is separate */
    };
    memcpy(out, t, sizeof t);
}

/* Grows the n arrays that share *capacity to hold `needed` elements, all or
 * nothing, each keeping its whole old content (the compaction reads past the
 * live count). */
static nscd_status reserve(const nscd_allocator *a, int32_t *capacity, int32_t needed,
                           body_array *arrays, int n) {
    for (int k = 0; k < n; ++k) {
        arrays[k].keep = *capacity;
    }
    return nscd__reserve_arrays(a, arrays, n, capacity, needed);
}

static nscd_status reserve_bodies(nscd_world *w, int32_t needed) {
    body_array t[N_BODY_ARRAYS];
    body_arrays(w, t);
    return reserve(&w->allocator, &w->bodies_capacity, needed, t, N_BODY_ARRAYS - 1);
}

static nscd_status reserve_slots(nscd_world *w, int32_t needed) {
    body_array t[3] = {{(void **)&w->slot_generation, sizeof(uint32_t), 0},
                       {(void **)&w->slot_dense, sizeof(int32_t), 0},
                       {(void **)&w->free_slots, sizeof(int32_t), 0}};
    return reserve(&w->allocator, &w->slots_capacity, needed, t, 3);
}

static nscd_status reserve_shapes(nscd_world *w, int32_t needed) {
    body_array t[1] = {{(void **)&w->shapes, sizeof(nscd__world_shape), 0}};
    return reserve(&w->allocator, &w->shapes_capacity, needed, t, 1);
}

/* Room for `needed` bodies, slots and shapes, for the checkpoint loader
 * (world_checkpoint.c): the same storage as nscd_world_add_body grows. */
nscd_status nscd__world_reserve_storage(nscd_world *w, int32_t bodies, int32_t slots,
                                        int32_t shapes) {
    nscd_status rc = reserve_bodies(w, bodies);
    if (rc == NSCD_OK) {
        rc = reserve_slots(w, slots);
    }
    return rc == NSCD_OK ? reserve_shapes(w, shapes) : rc;
}

nscd_status nscd__world_reserve_scratch(nscd_world *w) {
    body_array t[9] = {{(void **)&w->saved_velocity, 3 * sizeof(double), 0},
                       {(void **)&w->saved_omega, 3 * sizeof(double), 0},
                       {(void **)&w->snapshot_velocity, 3 * sizeof(double), 0},
                       {(void **)&w->snapshot_omega, 3 * sizeof(double), 0},
                       {(void **)&w->blend_velocity, 3 * sizeof(double), 0},
                       {(void **)&w->blend_omega, 3 * sizeof(double), 0},
                       {(void **)&w->position_velocity, 3 * sizeof(double), 0},
                       {(void **)&w->position_omega, 3 * sizeof(double), 0},
                       {(void **)&w->blend_group, 2 * sizeof(int32_t), 0}};
    return reserve(&w->allocator, &w->scratch_capacity, w->bodies_capacity, t, 9);
}

void nscd__world_free_bodies(nscd_world *w) {
    const nscd_allocator *a = &w->allocator;
    for (int32_t s = 0; s < w->n_shapes && s < w->shapes_capacity; ++s) {
        nscd__hull_free(a, w->shapes[s].hull); /* (a refused checkpoint may leave n_shapes) */
    }
    body_array t[N_BODY_ARRAYS];
    body_arrays(w, t);
    for (int k = 0; k < N_BODY_ARRAYS - 1; ++k) {
        nscd__free(a, *t[k].data, (size_t)w->bodies_capacity * t[k].element);
    }
    size_t s = (size_t)w->slots_capacity, c = (size_t)w->scratch_capacity;
    nscd__free(a, w->slot_generation, s * sizeof(uint32_t));
    nscd__free(a, w->slot_dense, s * sizeof(int32_t));
    nscd__free(a, w->free_slots, s * sizeof(int32_t));
    nscd__free(a, w->shapes, (size_t)w->shapes_capacity * sizeof(nscd__world_shape));
    double *scratch[8] = {w->saved_velocity,    w->saved_omega,    w->snapshot_velocity,
                          w->snapshot_omega,    w->blend_velocity, w->blend_omega,
                          w->position_velocity, w->position_omega};
    for (int k = 0; k < 8; ++k) {
        nscd__free(a, scratch[k], 3 * c * sizeof(double));
    }
    nscd__free(a, w->blend_group, 2 * c * sizeof(int32_t));
}

/* ------------------------------------------------------------ ids */

static nscd_body_id make_id(int32_t slot, uint32_t generation) {
    return ((nscd_body_id)generation << 32) | (nscd_body_id)(uint32_t)slot;
}

int32_t nscd__world_lookup(const nscd_world *w, nscd_body_id id) {
    if (w == NULL || id == NSCD_BODY_NULL) {
        return -1;
    }
    uint32_t slot = (uint32_t)(id & 0xffffffffu), generation = (uint32_t)(id >> 32);
    if (slot >= (uint32_t)w->n_slots || w->slot_generation[slot] != generation) {
        return -1;
    }
    return w->slot_dense[slot];
}

int32_t nscd_world_body_valid(const nscd_world *w, nscd_body_id id) {
    return nscd__world_lookup(w, id) >= 0;
}

/* A slot for a new body: the most recently freed one (LIFO: deterministic),
 * else a new one. -1 when out of memory. */
static int32_t take_slot(nscd_world *w) {
    if (w->n_free > 0) {
        return w->free_slots[--w->n_free];
    }
    if (w->n_slots == INT32_MAX || reserve_slots(w, w->n_slots + 1) != NSCD_OK) {
        return -1;
    }
    w->slot_generation[w->n_slots] = 0;
    return w->n_slots++;
}

/* Frees the slot of id: its generation moves on, so the id is stale from
 * now on; a slot that ran out of generations is retired. */
static void release_slot(nscd_world *w, nscd_body_id id) {
    int32_t slot = (int32_t)(id & 0xffffffffu);
    w->slot_dense[slot] = -1;
    if (w->slot_generation[slot] < NSCD__WORLD_MAX_GENERATION) {
        ++w->slot_generation[slot];
        w->free_slots[w->n_free++] = slot;
    } else {
        w->slot_generation[slot] = 0; /* never matches an id (generations start at 1) */
    }
}

/* ------------------------------------------------------------ mass properties */

static double norm3(double a, double b, double c) { return sqrt(a * a + b * b + c * c); }

/* Mass and inertia tensor about its own centre, shape frame, of one shape. */
static double shape_mass(const nscd_shape_desc *s, double density, double I[3]) {
    double r = s->radius, h = s->half_height, r2 = r * r;
    switch (s->type) {
    case NSCD_SHAPE_SPHERE: {
        double m = density * 4.0 / 3.0 * PI * r2 * r;
        I[0] = I[1] = I[2] = 0.4 * m * r2;
        return m;
    }
    case NSCD_SHAPE_BOX: {
        const double *e = s->half_extents;
        double m = density * 8.0 * e[0] * e[1] * e[2];
        I[0] = m / 3.0 * (e[1] * e[1] + e[2] * e[2]);
        I[1] = m / 3.0 * (e[0] * e[0] + e[2] * e[2]);
        I[2] = m / 3.0 * (e[0] * e[0] + e[1] * e[1]);
        return m;
    }
    case NSCD_SHAPE_CYLINDER: {
        double m = density * PI * r2 * 2.0 * h;
        I[0] = I[1] = m * (3.0 * r2 + 4.0 * h * h) / 12.0;
        I[2] = 0.5 * m * r2;
        return m;
    }
    case NSCD_SHAPE_CAPSULE: {
        /* cylinder + two hemispheres; a hemisphere's centre lies 3r/8 from its
         * flat face: 83/320 m r^2 + m (h + 3r/8)^2 = m (2/5 r^2 + h^2 + 3hr/4). */
        double mc = density * PI * r2 * 2.0 * h, ms = density * 4.0 / 3.0 * PI * r2 * r;
        I[0] = I[1] = mc * (r2 / 4.0 + h * h / 3.0) + ms * (0.4 * r2 + h * h + 0.75 * h * r);
        I[2] = 0.5 * mc * r2 + 0.4 * ms * r2;
        return mc + ms;
    }
    default: I[0] = I[1] = I[2] = 0.0; return 0.0; /* half-space; convex: convex_mass */
    }
}

/* Bounding radius of a shape about the body origin (for the writers): the
 * origin's distance plus the shape's extent (collision.h); 0 for a
 * half-space. */
static double shape_bound(const nscd_shape_desc *s, const nscd__hull *hull) {
    if (s->type == NSCD_SHAPE_HALF_SPACE) {
        return 0.0;
    }
    return norm3(s->position[0], s->position[1], s->position[2]) +
           nscd__shape_extent(s->type, s->radius, s->half_height, s->half_extents, hull);
}

/* Mass, centre (body frame) and inertia tensor about the body origin (body
 * frame) of a convex shape of hull h: the hull's unit-density properties
 * scaled, rotated by the shape's rotation R and moved by the parallel-axis
 * theorem to the origin. Adds them to com_sum (mass-weighted) and I. */
static double convex_mass(const nscd_shape_desc *s, const nscd__hull *h, double density,
                          double com_sum[3], double I[9]) {
    double m = density * h->volume, R[9], c[3];
    nscd__q_to_rows(s->orientation, R);
    for (int r = 0; r < 3; ++r) {
        c[r] = s->position[r];
        for (int k = 0; k < 3; ++k) {
            c[r] += R[3 * r + k] * h->centroid[k];
        }
    }
    double cc = c[0] * c[0] + c[1] * c[1] + c[2] * c[2];
    for (int r = 0; r < 3; ++r) {
        for (int q = 0; q < 3; ++q) {
            double rot = 0.0; /* R J R' */
            for (int k = 0; k < 3; ++k) {
                for (int l = 0; l < 3; ++l) {
                    rot += R[3 * r + k] * h->inertia[3 * k + l] * R[3 * q + l];
                }
            }
            I[3 * r + q] += density * rot + m * ((r == q ? cc : 0.0) - c[r] * c[q]);
        }
        com_sum[r] += m * c[r];
    }
    return m;
}

/* Mass, centre and inertia (about the body origin, body frame) of a
 * compound: shape tensors rotated into the body frame and moved by the
 * parallel-axis theorem. */
static double compound_mass(const nscd_shape_desc *shapes, nscd__hull *const *hulls, int32_t n,
                            double density, double com[3], double I[9]) {
    double total = 0.0;
    memset(I, 0, 9 * sizeof(double));
    com[0] = com[1] = com[2] = 0.0;
    for (int32_t s = 0; s < n; ++s) {
        if (shapes[s].type == NSCD_SHAPE_CONVEX) {
            total += convex_mass(&shapes[s], hulls[s], density, com, I);
            continue;
        }
        double Il[3], R[9];
        double m = shape_mass(&shapes[s], density, Il);
        nscd__q_to_rows(shapes[s].orientation, R);
        const double *d = shapes[s].position;
        double dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        for (int r = 0; r < 3; ++r) {
            for (int c = 0; c < 3; ++c) {
                double rot = 0.0;
                for (int k = 0; k < 3; ++k) {
                    rot += R[3 * r + k] * Il[k] * R[3 * c + k];
                }
                I[3 * r + c] += rot + m * ((r == c ? dd : 0.0) - d[r] * d[c]);
            }
        }
        for (int k = 0; k < 3; ++k) {
            com[k] += m * d[k];
        }
        total += m;
    }
    for (int k = 0; total > 0.0 && k < 3; ++k) {
        com[k] /= total;
    }
    /* to the centre of mass: I_c = I_o - M (|c|^2 E - c c') */
    double cc = com[0] * com[0] + com[1] * com[1] + com[2] * com[2];
    for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 3; ++c) {
            I[3 * r + c] -= total * ((r == c ? cc : 0.0) - com[r] * com[c]);
        }
    }
    return total;
}

/* Inverse of a symmetric positive definite 3x3 matrix; false when it is
 * not (a degenerate inertia). */
static bool invert_spd3(const double I[9], double inv[9]) {
    nscd__mat3 m, r;
    memcpy(m.m, I, 9 * sizeof(double));
    if (!(I[0] > 0.0 && I[4] > 0.0 && I[8] > 0.0) || !(nscd__m3_det(m) > 0.0) ||
        !nscd__m3_inverse(m, &r)) {
        return false;
    }
    memcpy(inv, r.m, 9 * sizeof(double));
    return true;
}

/* ------------------------------------------------------------ validation */

static nscd_status fail(nscd_world *w, nscd_status rc, const char *what) {
    return nscd__fail(&w->diag, rc, "%s", what);
}

static nscd_status check_shape(nscd_world *w, const nscd_shape_desc *s, int32_t body_type) {
    double reals[] = {s->radius,          s->half_height,    s->half_extents[0], s->half_extents[1],
                      s->half_extents[2], s->position[0],    s->position[1],     s->position[2],
                      s->orientation[0],  s->orientation[1], s->orientation[2],  s->orientation[3]};
    if (!nscd__all_finite(reals, sizeof reals / sizeof reals[0])) {
        return fail(w, NSCD_ERR_NOT_FINITE, "shape has non-finite values");
    }
    if (s->type < NSCD_SHAPE_SPHERE || s->type > NSCD_SHAPE_CONVEX) {
        return nscd__fail(&w->diag, NSCD_ERR_INVALID_ARGUMENT, "shape type %d", (int)s->type);
    }
    if (s->material < 0 || s->material >= w->n_materials) {
        return nscd__fail(&w->diag, NSCD_ERR_INDEX, "material %d of %d", (int)s->material,
                          (int)w->n_materials);
    }
    double qn = norm3(s->orientation[0], s->orientation[1], s->orientation[2]);
    qn = sqrt(qn * qn + s->orientation[3] * s->orientation[3]);
    if (fabs(qn - 1.0) > 1e-3) {
        return fail(w, NSCD_ERR_INVALID_ARGUMENT, "shape orientation is not a unit quaternion");
    }
    bool round = s->type == NSCD_SHAPE_SPHERE || s->type == NSCD_SHAPE_CAPSULE ||
                 s->type == NSCD_SHAPE_CYLINDER;
    bool tall = s->type == NSCD_SHAPE_CAPSULE || s->type == NSCD_SHAPE_CYLINDER;
    if ((round && !(s->radius > 0.0)) || (tall && !(s->half_height > 0.0))) {
        return fail(w, NSCD_ERR_OUT_OF_RANGE, "shape radius and half-height must be > 0");
    }
    if (s->type == NSCD_SHAPE_BOX &&
        !(s->half_extents[0] > 0.0 && s->half_extents[1] > 0.0 && s->half_extents[2] > 0.0)) {
        return fail(w, NSCD_ERR_OUT_OF_RANGE, "box half extents must be > 0");
    }
    if (s->type == NSCD_SHAPE_HALF_SPACE && body_type == NSCD_BODY_DYNAMIC) {
        return fail(w, NSCD_ERR_OUT_OF_RANGE, "a half-space belongs to a static or kinematic body");
    }
    return NSCD_OK;
}

static nscd_status check_body(nscd_world *w, const nscd_body_desc *b) {
    double reals[] = {b->position[0],
                      b->position[1],
                      b->position[2],
                      b->orientation[0],
                      b->orientation[1],
                      b->orientation[2],
                      b->orientation[3],
                      b->velocity[0],
                      b->velocity[1],
                      b->velocity[2],
                      b->angular_velocity[0],
                      b->angular_velocity[1],
                      b->angular_velocity[2],
                      b->density,
                      b->mass,
                      b->inertia[0],
                      b->inertia[1],
                      b->inertia[2]};
    if (!nscd__all_finite(reals, sizeof reals / sizeof reals[0])) {
        return fail(w, NSCD_ERR_NOT_FINITE, "body has non-finite values");
    }
    if (b->type < NSCD_BODY_STATIC || b->type > NSCD_BODY_DYNAMIC) {
        return nscd__fail(&w->diag, NSCD_ERR_INVALID_ARGUMENT, "body type %d", (int)b->type);
    }
    const double *q = b->orientation;
    double qn = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (fabs(qn - 1.0) > 1e-3) {
        return fail(w, NSCD_ERR_INVALID_ARGUMENT, "body orientation is not a unit quaternion");
    }
    if (!(b->density > 0.0) || b->mass < 0.0) {
        return fail(w, NSCD_ERR_OUT_OF_RANGE, "density must be > 0 and mass >= 0");
    }
    if (b->mass > 0.0 && !(b->inertia[0] > 0.0 && b->inertia[1] > 0.0 && b->inertia[2] > 0.0)) {
        return fail(w, NSCD_ERR_OUT_OF_RANGE, "an explicit mass needs inertia > 0");
    }
    if (b->type == NSCD_BODY_STATIC &&
        (b->velocity[0] != 0.0 || b->velocity[1] != 0.0 || b->velocity[2] != 0.0 ||
         b->angular_velocity[0] != 0.0 || b->angular_velocity[1] != 0.0 ||
         b->angular_velocity[2] != 0.0)) {
        return fail(w, NSCD_ERR_INVALID_ARGUMENT, "a static body has no velocity");
    }
    return NSCD_OK;
}

/* ------------------------------------------------------------ adding */

nscd_status nscd_body_desc_init(nscd_body_desc *desc, size_t struct_size) {
    nscd_body_desc d;
    memset(&d, 0, sizeof d);
    d.type = NSCD_BODY_DYNAMIC;
    d.orientation[0] = 1.0;
    d.density = 1000.0;
    return nscd__struct_init(desc, struct_size, &d, sizeof d, NSCD__BODY_DESC_SIZE_0_2);
}

/* Builds the hull of convex shape `index` (its points checked); the world's
 * last error names the argument on failure. */
static nscd_status build_hull(nscd_world *w, const nscd_shape_desc *s, int32_t index,
                              nscd__hull **hull) {
    if (s->points == NULL) {
        return nscd__fail(&w->diag, NSCD_ERR_INVALID_ARGUMENT,
                          "shape %d: a convex shape needs points (NULL)", (int)index);
    }
    if (s->point_count < 4 || s->point_count > NSCD__HULL_MAX_POINTS) {
        return nscd__fail(&w->diag, NSCD_ERR_INVALID_ARGUMENT,
                          "shape %d: point_count %d (a convex shape has 4 to %d points)",
                          (int)index, (int)s->point_count, NSCD__HULL_MAX_POINTS);
    }
    switch (nscd__hull_build(&w->allocator, s->points, s->point_count, hull)) {
    case NSCD__HULL_OK: return NSCD_OK;
    case NSCD__HULL_NOT_FINITE:
        return nscd__fail(&w->diag, NSCD_ERR_NOT_FINITE,
                          "shape %d: points has a NaN or infinite coordinate", (int)index);
    case NSCD__HULL_FLAT:
        return nscd__fail(&w->diag, NSCD_ERR_INVALID_ARGUMENT,
                          "shape %d: points are coplanar (their hull has no volume)", (int)index);
    case NSCD__HULL_NO_MEMORY:
        return nscd__fail(&w->diag, NSCD_ERR_OUT_OF_MEMORY, "shape %d: hull of %d points",
                          (int)index, (int)s->point_count);
    default:
        return nscd__fail(&w->diag, NSCD_ERR_INVALID_ARGUMENT,
                          "shape %d: points: round-off defeated the convex hull (nearly "
                          "coplanar or coincident points?)",
                          (int)index);
    }
}

static void free_hulls(nscd_world *w, nscd__hull **hulls, int32_t n) {
    for (int32_t s = 0; s < n; ++s) {
        nscd__hull_free(&w->allocator, hulls[s]);
        hulls[s] = NULL;
    }
}

nscd_status nscd_shape_desc_init(nscd_shape_desc *desc, size_t struct_size) {
    nscd_shape_desc d;
    memset(&d, 0, sizeof d);
    d.type = NSCD_SHAPE_SPHERE;
    d.radius = 0.5;
    d.half_height = 0.5;
    d.half_extents[0] = d.half_extents[1] = d.half_extents[2] = 0.5;
    d.orientation[0] = 1.0;
    d.category = d.mask = 0xffffffffu;
    return nscd__struct_init(desc, struct_size, &d, sizeof d, NSCD__SHAPE_DESC_SIZE_0_2);
}

/* Reads and checks the shapes into `out` (current-size copies) and builds
 * the hulls of the convex ones (NULL for the others; all freed and NULL on
 * failure). */
static nscd_status read_shapes(nscd_world *w, const nscd_shape_desc *shapes, int32_t n,
                               int32_t body_type, nscd_shape_desc *out, nscd__hull **hulls) {
    for (int32_t s = 0; s < n; ++s) {
        hulls[s] = NULL;
    }
    for (int32_t s = 0; s < n; ++s) {
        nscd_shape_desc_init(&out[s], sizeof out[s]);
        if (nscd__struct_read(&out[s], sizeof out[s], &shapes[s], NSCD__SHAPE_DESC_SIZE_0_2) !=
            NSCD_OK) {
            return nscd__fail(&w->diag, NSCD_ERR_STRUCT_SIZE, "shape %d struct_size", (int)s);
        }
        nscd_status rc = check_shape(w, &out[s], body_type);
        if (rc == NSCD_OK && out[s].type == NSCD_SHAPE_CONVEX) {
            rc = build_hull(w, &out[s], s, &hulls[s]);
        }
        if (rc != NSCD_OK) {
            free_hulls(w, hulls, s);
            return rc;
        }
    }
    return NSCD_OK;
}

/* Mass properties of a new dynamic body at dense index i: explicit, or from
 * density; a centre of mass off the origin moves the body frame there
 * (shapes shifted by -c, the position by +R c). */
static nscd_status set_mass(nscd_world *w, int32_t i, const nscd_body_desc *b,
                            nscd_shape_desc *shapes, nscd__hull *const *hulls, int32_t n) {
    double *I = w->inertia + 9 * (size_t)i, com[3] = {0.0, 0.0, 0.0};
    double m = b->mass;
    if (m > 0.0) {
        memset(I, 0, 9 * sizeof(double));
        I[0] = b->inertia[0], I[4] = b->inertia[1], I[8] = b->inertia[2];
    } else {
        m = compound_mass(shapes, hulls, n, b->density, com, I);
    }
    if (!(m > 0.0) || !isfinite(m)) {
        return nscd__fail(&w->diag, NSCD_ERR_OUT_OF_RANGE,
                          "a dynamic body needs a positive, finite mass (%g)", m);
    }
    if (!invert_spd3(I, w->inv_inertia + 9 * (size_t)i)) { /* e.g. a sphere of radius 1e-60 */
        return nscd__fail(
            &w->diag, NSCD_ERR_OUT_OF_RANGE,
            "the inertia tensor (diagonal %g, %g, %g kg m^2) cannot be inverted in double "
            "precision: its determinant underflows or it is not positive definite",
            I[0], I[4], I[8]);
    }
    w->mass[i] = m;
    w->inv_mass[i] = 1.0 / m;
    w->isotropic[i] = I[1] == 0.0 && I[2] == 0.0 && I[3] == 0.0 && I[5] == 0.0 && I[6] == 0.0 &&
                      I[7] == 0.0 && I[0] == I[4] && I[4] == I[8];
    for (int32_t s = 0; s < n; ++s) {
        for (int k = 0; k < 3; ++k) {
            shapes[s].position[k] -= com[k];
        }
    }
    nscd__vec3 c = nscd__q_rotate(
        (nscd__quat){b->orientation[0], b->orientation[1], b->orientation[2], b->orientation[3]},
        nscd__v3(com[0], com[1], com[2]));
    w->position[3 * (size_t)i] += c.x;
    w->position[3 * (size_t)i + 1] += c.y;
    w->position[3 * (size_t)i + 2] += c.z;
    return NSCD_OK;
}

static void store_shapes(nscd_world *w, int32_t i, const nscd_shape_desc *shapes,
                         nscd__hull *const *hulls, int32_t n) {
    w->shape_first[i] = w->n_shapes;
    w->shape_count[i] = n;
    double bound = 0.0;
    for (int32_t s = 0; s < n; ++s) {
        nscd__world_shape *t = &w->shapes[w->n_shapes++];
        const nscd_shape_desc *d = &shapes[s];
        t->type = d->type;
        t->body = i;
        t->index = s;
        t->material = d->material;
        t->radius = d->radius;
        t->half_height = d->half_height;
        memcpy(t->half_extents, d->half_extents, sizeof t->half_extents);
        memcpy(t->position, d->position, sizeof t->position);
        double q[4],
            qn =
                sqrt(d->orientation[0] * d->orientation[0] + d->orientation[1] * d->orientation[1] +
                     d->orientation[2] * d->orientation[2] + d->orientation[3] * d->orientation[3]);
        for (int k = 0; k < 4; ++k) {
            q[k] = d->orientation[k] / qn;
        }
        nscd__q_to_rows(q, t->rotation);
        t->category = d->category;
        t->mask = d->mask;
        t->hull = hulls[s]; /* the shape owns it from now on */
        double sb = shape_bound(d, hulls[s]);
        bound = sb > bound ? sb : bound;
    }
    /* the writers' radius: the first shape's when it is a sphere */
    w->bound_radius[i] = n > 0 && shapes[0].type == NSCD_SHAPE_SPHERE ? shapes[0].radius : bound;
}

/* Writes the state of a new body at dense index i (its slot already taken). */
static void store_body(nscd_world *w, int32_t i, const nscd_body_desc *b, nscd_body_id id) {
    const double *q = b->orientation;
    double qn = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int k = 0; k < 3; ++k) {
        w->position[3 * (size_t)i + k] = b->position[k];
        w->velocity[3 * (size_t)i + k] = b->velocity[k];
        w->omega[3 * (size_t)i + k] = b->angular_velocity[k];
    }
    for (int k = 0; k < 4; ++k) {
        w->orientation[4 * (size_t)i + k] = q[k] / qn;
    }
    w->type[i] = b->type;
    w->user_id[i] = b->user_id;
    w->id[i] = id;
    w->mass[i] = w->inv_mass[i] = 0.0;
    w->isotropic[i] = 1;
    memset(w->inertia + 9 * (size_t)i, 0, 9 * sizeof(double));
    memset(w->inv_inertia + 9 * (size_t)i, 0, 9 * sizeof(double));
    memset(w->inv_inertia_world + 9 * (size_t)i, 0, 9 * sizeof(double));
    memset(w->applied_force + 3 * (size_t)i, 0, 3 * sizeof(double));
    memset(w->applied_torque + 3 * (size_t)i, 0, 3 * sizeof(double));
    w->sleep_timer[i] = 0.0;
    w->sleep_island[i] = 0;
}

nscd_status nscd_world_add_body(nscd_world *w, const nscd_body_desc *body,
                                const nscd_shape_desc *shapes, int32_t n_shapes, nscd_body_id *id) {
    if (w == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd__diag_clear(&w->diag);
    if (body == NULL || id == NULL || (n_shapes > 0 && shapes == NULL)) {
        return fail(w, NSCD_ERR_NULL_POINTER, "body, shapes or id is NULL");
    }
    if (n_shapes < 0 || n_shapes > NSCD__WORLD_MAX_SHAPES) {
        return nscd__fail(&w->diag, NSCD_ERR_OUT_OF_RANGE, "%d shapes (0 to %d)", (int)n_shapes,
                          NSCD__WORLD_MAX_SHAPES);
    }
    nscd_body_desc b;
    nscd_body_desc_init(&b, sizeof b);
    if (nscd__struct_read(&b, sizeof b, body, NSCD__BODY_DESC_SIZE_0_2) != NSCD_OK) {
        return fail(w, NSCD_ERR_STRUCT_SIZE, "body desc struct_size");
    }
    nscd_status rc = check_body(w, &b);
    nscd_shape_desc local[NSCD__WORLD_MAX_SHAPES];
    nscd__hull *hulls[NSCD__WORLD_MAX_SHAPES];
    if (rc == NSCD_OK) {
        rc = read_shapes(w, shapes, n_shapes, b.type, local, hulls);
    }
    if (rc != NSCD_OK) {
        return rc; /* read_shapes freed its hulls */
    }
    if (b.type == NSCD_BODY_DYNAMIC && n_shapes == 0 && b.mass == 0.0) {
        return fail(w, NSCD_ERR_OUT_OF_RANGE, "a dynamic body without shapes needs a mass");
    }
    if (w->n_bodies == INT32_MAX || w->n_shapes > INT32_MAX - n_shapes ||
        reserve_bodies(w, w->n_bodies + 1) != NSCD_OK ||
        reserve_shapes(w, w->n_shapes + n_shapes) != NSCD_OK ||
        nscd__world_reserve_scratch(w) != NSCD_OK ||
        (w->n_free == 0 && reserve_slots(w, w->n_slots + 1) != NSCD_OK)) {
        free_hulls(w, hulls, n_shapes);
        return fail(w, NSCD_ERR_OUT_OF_MEMORY, "body storage");
    }
    int32_t i = w->n_bodies;
    store_body(w, i, &b, NSCD_BODY_NULL);
    if (b.type == NSCD_BODY_DYNAMIC) {
        rc = set_mass(w, i, &b, local, hulls, n_shapes);
        if (rc != NSCD_OK) {
            free_hulls(w, hulls, n_shapes);
            return rc; /* nothing counted yet: the row is simply unused */
        }
    }
    int32_t slot = take_slot(w); /* cannot fail: room reserved above */
    uint32_t generation = ++w->slot_generation[slot];
    w->slot_dense[slot] = i;
    w->id[i] = make_id(slot, generation);
    store_shapes(w, i, local, hulls, n_shapes);
    w->n_bodies++;
    *id = w->id[i];
    if (b.type != NSCD_BODY_DYNAMIC) {
        /* a sleeping body it overlaps would not see it (both fixed to the
         * detection); a new dynamic body wakes what it touches in the step */
        nscd__world_wake_all(w);
    }
    return NSCD_OK;
}

/* The unit quaternion (w, x, y, z) rotating +z onto the unit vector n: the
 * shortest arc (1 + n_z, z x n) normalised when n_z >= 0; else q_x q' with
 * q_x = (0, 1, 0, 0) the half turn about x and q' the shortest arc onto
 * (n_x, -n_y, -n_z) (R = R_x R': q' first), so that no component comes from
 * a cancellation 1 + n_z near -z. */
static void quaternion_z_to(const double n[3], double q[4]) {
    double c[4];
    if (n[2] >= 0.0) {
        c[0] = 1.0 + n[2], c[1] = -n[1], c[2] = n[0], c[3] = 0.0;
    } else {
        c[0] = -n[1], c[1] = 1.0 - n[2], c[2] = 0.0, c[3] = n[0];
    }
    double length = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2] + c[3] * c[3]);
    for (int k = 0; k < 4; ++k) {
        q[k] = c[k] / length;
    }
}

nscd_status nscd_world_add_half_space(nscd_world *w, const double point[3], const double normal[3],
                                      const nscd_body_desc *body, const nscd_shape_desc *shape,
                                      nscd_body_id *id) {
    if (w == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd__diag_clear(&w->diag);
    if (point == NULL || normal == NULL || id == NULL) {
        return fail(w, NSCD_ERR_NULL_POINTER,
                    "nscd_world_add_half_space: point, normal or id is NULL");
    }
    double reals[] = {point[0], point[1], point[2], normal[0], normal[1], normal[2]};
    if (!nscd__all_finite(reals, sizeof reals / sizeof reals[0])) {
        return fail(w, NSCD_ERR_NOT_FINITE,
                    "nscd_world_add_half_space: point or normal has non-finite values");
    }
    /* scaled by its largest component first: no overflow nor underflow of |n|² */
    double scale = fmax(fabs(normal[0]), fmax(fabs(normal[1]), fabs(normal[2])));
    if (!(scale > 0.0)) {
        return fail(w, NSCD_ERR_OUT_OF_RANGE, "nscd_world_add_half_space: the normal is zero");
    }
    double n[3] = {normal[0] / scale, normal[1] / scale, normal[2] / scale};
    double length = norm3(n[0], n[1], n[2]);
    for (int k = 0; k < 3; ++k) {
        n[k] /= length;
    }
    nscd_body_desc b;
    nscd_body_desc_init(&b, sizeof b);
    b.type = NSCD_BODY_STATIC;
    if (body != NULL &&
        nscd__struct_read(&b, sizeof b, body, NSCD__BODY_DESC_SIZE_0_2) != NSCD_OK) {
        return fail(w, NSCD_ERR_STRUCT_SIZE, "nscd_world_add_half_space: body desc struct_size");
    }
    nscd_shape_desc s;
    nscd_shape_desc_init(&s, sizeof s);
    if (shape != NULL &&
        nscd__struct_read(&s, sizeof s, shape, NSCD__SHAPE_DESC_SIZE_0_2) != NSCD_OK) {
        return fail(w, NSCD_ERR_STRUCT_SIZE, "nscd_world_add_half_space: shape desc struct_size");
    }
    /* the plane: through point, its frame's +z on n; the shape at the body origin */
    memcpy(b.position, point, sizeof b.position);
    quaternion_z_to(n, b.orientation);
    nscd_shape_desc plane;
    nscd_shape_desc_init(&plane, sizeof plane);
    plane.type = NSCD_SHAPE_HALF_SPACE;
    plane.material = s.material;
    plane.category = s.category;
    plane.mask = s.mask;
    return nscd_world_add_body(w, &b, &plane, 1, id);
}

/* ------------------------------------------------------------ rows */

void nscd__world_get_row(const nscd_world *w, int32_t i, nscd__world_row *row) {
    memset(row, 0, sizeof *row);
    memcpy(row->position, w->position + 3 * (size_t)i, sizeof row->position);
    memcpy(row->orientation, w->orientation + 4 * (size_t)i, sizeof row->orientation);
    memcpy(row->velocity, w->velocity + 3 * (size_t)i, sizeof row->velocity);
    memcpy(row->omega, w->omega + 3 * (size_t)i, sizeof row->omega);
    memcpy(row->inertia, w->inertia + 9 * (size_t)i, sizeof row->inertia);
    memcpy(row->inv_inertia, w->inv_inertia + 9 * (size_t)i, sizeof row->inv_inertia);
    row->mass = w->mass[i];
    row->inv_mass = w->inv_mass[i];
    row->bound_radius = w->bound_radius[i];
    memcpy(row->applied_force, w->applied_force + 3 * (size_t)i, sizeof row->applied_force);
    memcpy(row->applied_torque, w->applied_torque + 3 * (size_t)i, sizeof row->applied_torque);
    row->user_id = w->user_id[i];
    row->type = w->type[i];
    row->isotropic = w->isotropic[i];
    row->shape_count = w->shape_count[i];
}

nscd_status nscd__world_append_row(nscd_world *w, const nscd__world_row *row,
                                   const nscd__world_shape *shapes, nscd_body_id *id) {
    int32_t n = row->shape_count;
    if (n < 0 || n > NSCD__WORLD_MAX_SHAPES || w->n_bodies == INT32_MAX ||
        w->n_shapes > INT32_MAX - n || reserve_bodies(w, w->n_bodies + 1) != NSCD_OK ||
        reserve_shapes(w, w->n_shapes + n) != NSCD_OK ||
        nscd__world_reserve_scratch(w) != NSCD_OK ||
        (w->n_free == 0 && reserve_slots(w, w->n_slots + 1) != NSCD_OK)) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    int32_t i = w->n_bodies;
    memcpy(w->position + 3 * (size_t)i, row->position, sizeof row->position);
    memcpy(w->orientation + 4 * (size_t)i, row->orientation, sizeof row->orientation);
    memcpy(w->velocity + 3 * (size_t)i, row->velocity, sizeof row->velocity);
    memcpy(w->omega + 3 * (size_t)i, row->omega, sizeof row->omega);
    memcpy(w->inertia + 9 * (size_t)i, row->inertia, sizeof row->inertia);
    memcpy(w->inv_inertia + 9 * (size_t)i, row->inv_inertia, sizeof row->inv_inertia);
    memset(w->inv_inertia_world + 9 * (size_t)i, 0, 9 * sizeof(double));
    w->mass[i] = row->mass;
    w->inv_mass[i] = row->inv_mass;
    w->bound_radius[i] = row->bound_radius;
    memcpy(w->applied_force + 3 * (size_t)i, row->applied_force, sizeof row->applied_force);
    memcpy(w->applied_torque + 3 * (size_t)i, row->applied_torque, sizeof row->applied_torque);
    w->user_id[i] = row->user_id;
    w->type[i] = row->type;
    w->isotropic[i] = row->isotropic;
    w->sleep_timer[i] = 0.0;
    w->sleep_island[i] = 0;
    int32_t slot = take_slot(w); /* cannot fail: room reserved above */
    uint32_t generation = ++w->slot_generation[slot];
    w->slot_dense[slot] = i;
    w->id[i] = make_id(slot, generation);
    w->shape_first[i] = w->n_shapes;
    w->shape_count[i] = n;
    for (int32_t s = 0; s < n; ++s) {
        w->shapes[w->n_shapes] = shapes[s];
        w->shapes[w->n_shapes].body = i;
        w->shapes[w->n_shapes].index = s;
        w->n_shapes++;
    }
    w->n_bodies++;
    *id = w->id[i];
    return NSCD_OK;
}

/* ------------------------------------------------------------ removing */

void nscd__world_kill(nscd_world *w, int32_t i) {
    nscd__world_wake_touching(w, i);      /* nothing stays asleep on a body that went */
    nscd__world_drop_joints(w, w->id[i]); /* a joint never outlives its bodies */
    release_slot(w, w->id[i]);
    w->type[i] = -1;
    w->n_dead++;
}

/* The dense index of body id for a call that changes the world: its last
 * error cleared, or -1 with NSCD_ERR_STALE_HANDLE recorded. */
static int32_t live_body(nscd_world *w, nscd_body_id id) {
    nscd__diag_clear(&w->diag);
    int32_t i = nscd__world_lookup(w, id);
    if (i < 0) {
        nscd__fail(&w->diag, NSCD_ERR_STALE_HANDLE, "body id %llu is not alive",
                   (unsigned long long)id);
    }
    return i;
}

nscd_status nscd_world_remove_body(nscd_world *w, nscd_body_id id) {
    if (w == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    int32_t i = live_body(w, id);
    if (i < 0) {
        return NSCD_ERR_STALE_HANDLE;
    }
    nscd__world_kill(w, i);
    return NSCD_OK;
}

/* Moves the run of live bodies [from, end) to rows [to, ...) (to < from),
 * with their shapes, which are contiguous, to shape index `shape_to`: one
 * memmove per array and run, then the back references. */
static void move_run(nscd_world *w, int32_t from, int32_t end, int32_t to, int32_t shape_to) {
    body_array t[N_BODY_ARRAYS];
    body_arrays(w, t);
    size_t n = (size_t)(end - from);
    for (int k = 0; k < N_BODY_ARRAYS - 1; ++k) {
        char *base = *t[k].data;
        memmove(base + (size_t)to * t[k].element, base + (size_t)from * t[k].element,
                n * t[k].element);
    }
    int32_t first = w->shape_first[to];
    int32_t last = w->shape_first[to + (int32_t)n - 1] + w->shape_count[to + (int32_t)n - 1];
    if (last > first) { /* bodies may have no shape (and the array be NULL) */
        memmove(&w->shapes[shape_to], &w->shapes[first],
                (size_t)(last - first) * sizeof(nscd__world_shape));
    }
    for (int32_t i = to; i < to + (int32_t)n; ++i) {
        w->shape_first[i] += shape_to - first;
        for (int32_t s = 0; s < w->shape_count[i]; ++s) {
            w->shapes[w->shape_first[i] + s].body = i;
        }
        w->slot_dense[(int32_t)(w->id[i] & 0xffffffffu)] = i;
    }
}

/* Removes the dead rows, keeping the order: the bodies before the first
 * dead one stay where they are, every later run of live ones moves once. */
void nscd__world_compact(nscd_world *w) {
    if (w->n_dead == 0) {
        return;
    }
    for (int32_t d = 0; d < w->n_bodies; ++d) { /* the dead bodies' hulls */
        for (int32_t s = 0; w->type[d] < 0 && s < w->shape_count[d]; ++s) {
            nscd__world_shape *sh = &w->shapes[w->shape_first[d] + s];
            nscd__hull_free(&w->allocator, sh->hull);
            sh->hull = NULL;
        }
    }
    int32_t i = 0;
    while (i < w->n_bodies && w->type[i] >= 0) {
        ++i;
    }
    int32_t to = i, shape_to = i > 0 ? w->shape_first[i - 1] + w->shape_count[i - 1] : 0;
    while (i < w->n_bodies) {
        while (i < w->n_bodies && w->type[i] < 0) {
            ++i;
        }
        int32_t start = i;
        while (i < w->n_bodies && w->type[i] >= 0) {
            ++i;
        }
        if (i > start) {
            move_run(w, start, i, to, shape_to);
            to += i - start;
            shape_to = w->shape_first[to - 1] + w->shape_count[to - 1];
        }
    }
    w->n_bodies = to;
    w->n_shapes = shape_to;
    w->n_dead = 0;
}

/* ------------------------------------------------------------ state */

nscd_status nscd__world_read_fail(const nscd_world *w, nscd_status status, const char *format,
                                  ...) {
    nscd_diag *diag = nscd__world_diag(w);
    char message[256];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    return nscd__fail(diag, status, "%s", message);
}

/* The dense index of a live body for a read-only call, or -1 with
 * NSCD_ERR_STALE_HANDLE recorded, naming the call. */
static int32_t read_body(const nscd_world *w, nscd_body_id id, const char *call) {
    nscd__diag_clear(nscd__world_diag(w)); /* a getter that succeeds leaves no message */
    int32_t i = nscd__world_lookup(w, id);
    if (i < 0) {
        nscd__world_read_fail(w, NSCD_ERR_STALE_HANDLE, "%s: body id %llu is not alive", call,
                              (unsigned long long)id);
    }
    return i;
}

/* Row i of an array of n-vectors into out, unless out is NULL. */
static void copy_out(double *out, const double *array, size_t n, int32_t i) {
    if (out != NULL) {
        memcpy(out, array + n * (size_t)i, n * sizeof(double));
    }
}

nscd_status nscd_world_get_body(const nscd_world *w, nscd_body_id id, double *position,
                                double *orientation, double *velocity, double *angular_velocity) {
    if (w == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    int32_t i = read_body(w, id, "nscd_world_get_body");
    if (i < 0) {
        return NSCD_ERR_STALE_HANDLE;
    }
    copy_out(position, w->position, 3, i);
    copy_out(orientation, w->orientation, 4, i);
    copy_out(velocity, w->velocity, 3, i);
    copy_out(angular_velocity, w->omega, 3, i);
    return NSCD_OK;
}

nscd_status nscd_world_set_body(nscd_world *w, nscd_body_id id, const double *position,
                                const double *orientation, const double *velocity,
                                const double *angular_velocity) {
    if (w == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    int32_t i = live_body(w, id);
    if (i < 0) {
        return NSCD_ERR_STALE_HANDLE;
    }
    if ((position && !nscd__all_finite(position, 3)) ||
        (orientation && !nscd__all_finite(orientation, 4)) ||
        (velocity && !nscd__all_finite(velocity, 3)) ||
        (angular_velocity && !nscd__all_finite(angular_velocity, 3))) {
        return fail(w, NSCD_ERR_NOT_FINITE, "body state has non-finite values");
    }
    double qn = 1.0;
    if (orientation != NULL) {
        const double *q = orientation;
        qn = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        if (fabs(qn - 1.0) > 1e-3) {
            return fail(w, NSCD_ERR_INVALID_ARGUMENT, "orientation is not a unit quaternion");
        }
    }
    if (w->type[i] == NSCD_BODY_STATIC && (velocity != NULL || angular_velocity != NULL)) {
        return fail(w, NSCD_ERR_INVALID_ARGUMENT, "a static body accepts a pose only");
    }
    if (w->type[i] == NSCD_BODY_DYNAMIC) { /* its island, and what rested on it */
        nscd__world_wake_touching(w, i);
    } else if (position != NULL || orientation != NULL) {
        nscd__world_wake_all(w); /* a moved support, or one moved into a sleeping body */
    }
    if (position != NULL) {
        memcpy(w->position + 3 * (size_t)i, position, 3 * sizeof(double));
    }
    for (int k = 0; orientation != NULL && k < 4; ++k) {
        w->orientation[4 * (size_t)i + k] = orientation[k] / qn;
    }
    if (velocity != NULL) {
        memcpy(w->velocity + 3 * (size_t)i, velocity, 3 * sizeof(double));
    }
    if (angular_velocity != NULL) {
        memcpy(w->omega + 3 * (size_t)i, angular_velocity, 3 * sizeof(double));
    }
    return NSCD_OK;
}

nscd_status nscd_world_set_applied_force(nscd_world *w, nscd_body_id id, const double force[3],
                                         const double torque[3]) {
    if (w == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    int32_t i = live_body(w, id);
    if (i < 0) {
        return NSCD_ERR_STALE_HANDLE;
    }
    if ((force && !nscd__all_finite(force, 3)) || (torque && !nscd__all_finite(torque, 3))) {
        return fail(w, NSCD_ERR_NOT_FINITE, "applied force or torque has non-finite values");
    }
    if (w->type[i] != NSCD_BODY_DYNAMIC) {
        return fail(w, NSCD_ERR_INVALID_ARGUMENT, "only a dynamic body takes applied forces");
    }
    nscd__world_wake_island(w, i);
    for (int k = 0; k < 3; ++k) {
        w->applied_force[3 * (size_t)i + k] = force ? force[k] : 0.0;
        w->applied_torque[3 * (size_t)i + k] = torque ? torque[k] : 0.0;
    }
    return NSCD_OK;
}

nscd_status nscd_world_get_applied_force(const nscd_world *w, nscd_body_id id, double force[3],
                                         double torque[3]) {
    if (w == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    int32_t i = read_body(w, id, "nscd_world_get_applied_force");
    if (i < 0) {
        return NSCD_ERR_STALE_HANDLE;
    }
    copy_out(force, w->applied_force, 3, i);
    copy_out(torque, w->applied_torque, 3, i);
    return NSCD_OK;
}

nscd_status nscd_world_get_body_mass(const nscd_world *w, nscd_body_id id, double *mass,
                                     double inertia[3]) {
    if (w == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    int32_t i = read_body(w, id, "nscd_world_get_body_mass");
    if (i < 0) {
        return NSCD_ERR_STALE_HANDLE;
    }
    if (mass != NULL) {
        *mass = w->mass[i];
    }
    for (int k = 0; inertia != NULL && k < 3; ++k) {
        inertia[k] = w->inertia[9 * (size_t)i + 4 * (size_t)k];
    }
    return NSCD_OK;
}
