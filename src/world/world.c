/* The rigid-body world handle: settings, materials, bulk copy-out
 * (docs/world.md). Bodies are in world_body.c, the step in world_step.c. */
#include <math.h>
#include <string.h>

#include "core/check.h"
#include "core/memory.h"
#include "core/struct_sizes.h"
#include "core/vec3.h"
#include "world/world_impl.h"

/* ------------------------------------------------------------ settings */

nscd_status nscd_world_desc_init(nscd_world_desc *desc, size_t struct_size) {
    nscd_world_desc d;
    memset(&d, 0, sizeof d);
    d.gravity[2] = -9.81;
    d.dt = 1e-3;
    d.friction_law = NSCD_FRICTION_COULOMB;
    d.max_sweeps = 10;
    d.tolerance = 1e-4;
    d.relaxation = 1.0;
    d.jacobi_groups = 1;
    d.warm_start = 1;
    d.error_reduction = 0.2;
    d.contact_margin = 1e-3;
    d.default_friction = 0.5;
    d.friction_combine = NSCD_COMBINE_GEOMETRIC_MEAN;
    d.max_correction_speed = 0.1;
    d.relax_sweeps = 3;
    d.deep_penetration = 1e-4;
    d.deep_sweeps = 100;
    d.sleep_speed = 0.01;
    d.sleep_time = 0.5;
    d.light_body_ratio = 10.0;
    return nscd__struct_init(desc, struct_size, &d, sizeof d, NSCD__WORLD_DESC_SIZE_0_2);
}

static nscd_status validate_desc(const nscd_world_desc *d) {
    double reals[] = {
        d->gravity[0],       d->gravity[1],    d->gravity[2],      d->dt,
        d->tolerance,        d->relaxation,    d->error_reduction, d->contact_margin,
        d->default_friction, d->domain_min[0], d->domain_min[1],   d->domain_min[2],
        d->domain_max[0],    d->domain_max[1], d->domain_max[2],   d->max_correction_speed,
        d->deep_penetration, d->sleep_speed,   d->sleep_time,      d->light_body_ratio};
    if (!nscd__all_finite(reals, sizeof reals / sizeof reals[0])) {
        return NSCD_ERR_NOT_FINITE;
    }
    if (d->friction_law != NSCD_FRICTION_COULOMB &&
        d->friction_law != NSCD_FRICTION_MAX_DISSIPATION) {
        return NSCD_ERR_INVALID_ARGUMENT;
    }
    if (d->friction_combine < NSCD_COMBINE_GEOMETRIC_MEAN ||
        d->friction_combine > NSCD_COMBINE_AVERAGE || (d->warm_start != 0 && d->warm_start != 1) ||
        (d->use_domain != 0 && d->use_domain != 1) || d->on_unconverged < NSCD_UNCONVERGED_KEEP ||
        d->on_unconverged > NSCD_UNCONVERGED_REJECT || (d->sleep != 0 && d->sleep != 1)) {
        return NSCD_ERR_INVALID_ARGUMENT;
    }
    /* a dt whose g dt² (the first step's fall) overflows cannot be stepped:
     * positions would become infinite (issue 25) */
    double g = fmax(1.0, fabs(d->gravity[0]) + fabs(d->gravity[1]) + fabs(d->gravity[2]));
    if (!(d->dt > 0.0) || !isfinite(g * d->dt * d->dt) ||
        !(d->error_reduction >= 0.0 && d->error_reduction < 1.0) ||
        !(d->relaxation > 0.0 && d->relaxation <= 1.0) || d->contact_margin < 0.0 ||
        d->default_friction < 0.0 || d->tolerance < 0.0 || d->max_sweeps < 1 ||
        d->jacobi_groups < 1 || d->jacobi_groups > (1 << 20) || !(d->max_correction_speed > 0.0) ||
        d->relax_sweeps < 0 || !(d->deep_penetration > 0.0) || d->deep_sweeps < 0 ||
        d->sleep_speed < 0.0 || d->sleep_time < 0.0 || d->threads < 0 ||
        (d->light_body_ratio != 0.0 && !(d->light_body_ratio >= 1.0)) ||
        d->threads > NSCD__WORLD_MAX_THREADS) {
        return NSCD_ERR_OUT_OF_RANGE;
    }
    if ((d->enqueue_task == NULL) != (d->finish_task == NULL) ||
        (d->enqueue_task != NULL && d->threads < 1)) {
        return NSCD_ERR_INVALID_ARGUMENT;
    }
    for (int k = 0; d->use_domain && k < 3; ++k) {
        if (!(d->domain_max[k] > d->domain_min[k])) {
            return NSCD_ERR_OUT_OF_RANGE;
        }
    }
    return nscd__allocator_valid(&d->allocator) ? NSCD_OK : NSCD_ERR_INVALID_ARGUMENT;
}

static nscd_status grow_materials(nscd_world *w, int32_t needed);

nscd_status nscd_world_create(const nscd_world_desc *desc, nscd_world **world) {
    if (desc == NULL || world == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd_world_desc given;
    nscd_world_desc_init(&given, sizeof given);
    nscd_status rc = nscd__struct_read(&given, sizeof given, desc, NSCD__WORLD_DESC_SIZE_0_2);
    if (rc == NSCD_OK) {
        rc = validate_desc(&given);
    }
    if (rc != NSCD_OK) {
        return rc;
    }
    nscd_allocator a = nscd__allocator_resolve(&given.allocator);
    nscd_world *w = nscd__alloc(&a, sizeof *w);
    if (w == NULL) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    w->desc = given;
    w->allocator = a;
    w->diag.log = given.log;
    w->diag.log_user = given.log_user;
    nscd__collision_init(&w->collision, &w->allocator);
    rc = nscd__parallel_init(&w->parallel, &w->allocator, given.threads, given.enqueue_task,
                             given.finish_task, given.task_user);
    if (rc != NSCD_OK) {
        nscd__free(&a, w, sizeof *w);
        return rc;
    }
    w->collision.parallel = given.threads >= 1 ? &w->parallel : NULL;
    if (grow_materials(w, 4) != NSCD_OK) {
        nscd_world_destroy(w);
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    w->n_materials = 1;
    w->material_mu[0] = given.default_friction;
    w->projection_iterations = NSCD__WORLD_PROJECTION_ITERATIONS;
    w->projection_tolerance = NSCD__WORLD_PROJECTION_TOLERANCE;
    *world = w;
    return NSCD_OK;
}

void nscd_world_destroy(nscd_world *w) {
    /* from a callback of a step or of a stepper advancing the world: freed
     * when that call returns */
    if (w == NULL || nscd__diag_keep_alive(&w->diag, "nscd_world_destroy")) {
        return;
    }
    nscd__world_model_free(w); /* steppers driving the world see a stale handle */
    nscd_allocator a = w->allocator;
    size_t m = (size_t)w->materials_capacity;
    nscd__free(&a, w->material_mu, m * sizeof(double));
    nscd__free(&a, w->material_resistance, 2 * m * sizeof(double));
    nscd__material_pairs_free(&w->pairs, &a);
    nscd__world_free_bodies(w);
    nscd__world_free_joints(w);
    nscd__world_free_joint_blocks(w);
    nscd__world_free_joint_cache(w);
    nscd__free(&a, w->collision_shapes,
               (size_t)w->collision_shapes_capacity * sizeof(nscd__collision_shape));
    nscd__collision_free(&w->collision);
    nscd__world_free_contacts(w);
    nscd__world_free_clusters(w);
    nscd__free(&a, w->records, (size_t)w->records_capacity * sizeof(nscd__world_record));
    nscd__free(&a, w->carried, (size_t)w->carried_capacity * sizeof(nscd__world_record));
    nscd__world_free_colours(w);
    nscd__parallel_free(&w->parallel, &a);
    nscd__free(&a, w, sizeof *w);
}

const char *nscd_world_last_error(const nscd_world *world) {
    return world == NULL ? "null world handle" : world->diag.last_error;
}

nscd_diag *nscd__world_diag(const nscd_world *w) {
    return (nscd_diag *)(uintptr_t)&w->diag; /* the handle is never const memory */
}

/* A copy-out's count against the caller's capacity: a negative capacity is
 * a bad argument (it was NSCD_ERR_BUFFER_TOO_SMALL), a short one too small. */
static nscd_status check_capacity(const nscd_world *w, int32_t capacity, int32_t needed,
                                  const char *call, const char *what) {
    nscd__diag_clear(nscd__world_diag(w));
    if (capacity < 0) {
        return nscd__world_read_fail(w, NSCD_ERR_INVALID_ARGUMENT, "%s: capacity %d < 0", call,
                                     (int)capacity);
    }
    if (needed > capacity) {
        return nscd__world_read_fail(w, NSCD_ERR_BUFFER_TOO_SMALL, "%s: capacity %d < %d %s", call,
                                     (int)capacity, (int)needed, what);
    }
    return NSCD_OK;
}

double nscd_world_time(const nscd_world *world) { return world == NULL ? 0.0 : world->time; }

/* ------------------------------------------------------------ materials */

/* Room for `needed` materials. */
static nscd_status grow_materials(nscd_world *w, int32_t needed) {
    if (needed <= w->materials_capacity) {
        return NSCD_OK;
    }
    size_t old = (size_t)w->materials_capacity, cap = old ? 2 * old : 4;
    while (cap < (size_t)needed) {
        cap *= 2;
    }
    double *mu = nscd__alloc_array(&w->allocator, cap, sizeof(double));
    /* the resistance lengths only once some were set (8 bytes a material
     * otherwise: a world may hold 65,536) */
    double *res = w->material_resistance != NULL
                      ? nscd__alloc_array(&w->allocator, 2 * cap, sizeof(double))
                      : NULL;
    if (mu == NULL || (w->material_resistance != NULL && res == NULL)) {
        nscd__free(&w->allocator, mu, cap * sizeof(double));
        nscd__free(&w->allocator, res, 2 * cap * sizeof(double));
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    if (res != NULL) {
        memset(res, 0, 2 * cap * sizeof(double));
        memcpy(res, w->material_resistance, 2 * old * sizeof(double));
    }
    if (old > 0) {
        memcpy(mu, w->material_mu, old * sizeof(double));
    }
    nscd__free(&w->allocator, w->material_mu, old * sizeof(double));
    nscd__free(&w->allocator, w->material_resistance, 2 * old * sizeof(double));
    w->material_mu = mu;
    w->material_resistance = res;
    w->materials_capacity = (int32_t)cap;
    return NSCD_OK;
}

nscd_status nscd_world_add_material(nscd_world *w, double friction, int32_t *material) {
    if (w == NULL || material == NULL) {
        return w == NULL ? NSCD_ERR_NULL_POINTER
                         : nscd__fail(&w->diag, NSCD_ERR_NULL_POINTER, "material is NULL");
    }
    nscd__diag_clear(&w->diag);
    if (!isfinite(friction)) {
        return nscd__fail(&w->diag, NSCD_ERR_NOT_FINITE, "friction is not finite");
    }
    if (friction < 0.0) {
        return nscd__fail(&w->diag, NSCD_ERR_OUT_OF_RANGE, "friction %g < 0", friction);
    }
    if (w->n_materials >= (1 << 16)) {
        return nscd__fail(&w->diag, NSCD_ERR_OUT_OF_RANGE, "more than 65536 materials");
    }
    if (grow_materials(w, w->n_materials + 1) != NSCD_OK) {
        return nscd__fail(&w->diag, NSCD_ERR_OUT_OF_MEMORY, "material %d", (int)w->n_materials);
    }
    w->material_mu[w->n_materials] = friction;
    *material = w->n_materials++;
    return NSCD_OK;
}

nscd_status nscd_world_set_pair_friction(nscd_world *w, int32_t material_a, int32_t material_b,
                                         double friction) {
    if (w == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd__diag_clear(&w->diag);
    if (material_a < 0 || material_b < 0 || material_a >= w->n_materials ||
        material_b >= w->n_materials) {
        return nscd__fail(&w->diag, NSCD_ERR_INDEX, "materials %d, %d of %d", (int)material_a,
                          (int)material_b, (int)w->n_materials);
    }
    if (!isfinite(friction)) {
        return nscd__fail(&w->diag, NSCD_ERR_NOT_FINITE, "friction is not finite");
    }
    if (friction < 0.0) {
        return nscd__fail(&w->diag, NSCD_ERR_OUT_OF_RANGE, "friction %g < 0", friction);
    }
    if (nscd__material_pairs_set(&w->pairs, &w->allocator, material_a, material_b, friction) !=
        NSCD_OK) {
        return nscd__fail(&w->diag, NSCD_ERR_OUT_OF_MEMORY, "pair of materials %d, %d",
                          (int)material_a, (int)material_b);
    }
    nscd__world_wake_all(w); /* a pile at rest may slide with less friction */
    return NSCD_OK;
}

nscd_status nscd_world_set_material_resistance(nscd_world *w, int32_t material, double rolling,
                                               double spinning) {
    if (w == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd__diag_clear(&w->diag);
    if (material < 0 || material >= w->n_materials) {
        return nscd__fail(&w->diag, NSCD_ERR_INDEX, "material %d of %d", (int)material,
                          (int)w->n_materials);
    }
    if (!isfinite(rolling) || !isfinite(spinning)) {
        return nscd__fail(&w->diag, NSCD_ERR_NOT_FINITE,
                          "rolling or spinning resistance is not finite");
    }
    if (rolling < 0.0 || spinning < 0.0) {
        return nscd__fail(&w->diag, NSCD_ERR_OUT_OF_RANGE,
                          "rolling resistance %g or spinning resistance %g < 0", rolling, spinning);
    }
    if (w->material_resistance == NULL && (rolling != 0.0 || spinning != 0.0)) {
        if (nscd__world_alloc_resistance(w) != NSCD_OK) {
            return nscd__fail(&w->diag, NSCD_ERR_OUT_OF_MEMORY, "resistance of %d materials",
                              (int)w->n_materials);
        }
    }
    if (w->material_resistance == NULL) { /* 0 and 0: as it is */
        return NSCD_OK;
    }
    nscd__world_wake_all(w); /* a pile at rest may roll with less resistance */
    double *r = w->material_resistance + 2 * (size_t)material;
    bool was = r[0] != 0.0 || r[1] != 0.0, is = rolling != 0.0 || spinning != 0.0;
    w->resistant_materials += (int32_t)is - (int32_t)was;
    r[0] = rolling + 0.0; /* -0 is 0 */
    r[1] = spinning + 0.0;
    return NSCD_OK;
}

nscd_status nscd_world_get_material_resistance(const nscd_world *w, int32_t material,
                                               double *rolling, double *spinning) {
    if (w == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd__diag_clear(nscd__world_diag(w));
    if (rolling == NULL || spinning == NULL) {
        return nscd__world_read_fail(w, NSCD_ERR_NULL_POINTER,
                                     "nscd_world_get_material_resistance: an output is NULL");
    }
    if (material < 0 || material >= w->n_materials) {
        return nscd__world_read_fail(w, NSCD_ERR_INDEX, "material %d of %d", (int)material,
                                     (int)w->n_materials);
    }
    const double *r = w->material_resistance;
    *rolling = r != NULL ? r[2 * (size_t)material] : 0.0;
    *spinning = r != NULL ? r[2 * (size_t)material + 1] : 0.0;
    return NSCD_OK;
}

nscd_status nscd__world_alloc_resistance(nscd_world *w) {
    size_t cap = (size_t)w->materials_capacity;
    double *res = nscd__alloc_array(&w->allocator, 2 * cap, sizeof(double));
    if (res == NULL) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    memset(res, 0, 2 * cap * sizeof(double));
    w->material_resistance = res;
    return NSCD_OK;
}

void nscd__world_pair_resistance(const nscd_world *w, int32_t material_a, int32_t material_b,
                                 double *rolling, double *spinning) {
    const double *a = w->material_resistance + 2 * (size_t)material_a,
                 *b = w->material_resistance + 2 * (size_t)material_b;
    *rolling = 0.5 * a[0] + 0.5 * b[0]; /* never overflows */
    *spinning = 0.5 * a[1] + 0.5 * b[1];
}

double nscd__world_pair_friction(const nscd_world *w, int32_t material_a, int32_t material_b) {
    double pair = 0.0;
    if (nscd__material_pairs_get(&w->pairs, material_a, material_b, &pair)) {
        return pair;
    }
    double a = w->material_mu[material_a], b = w->material_mu[material_b];
    switch (w->desc.friction_combine) {
    case NSCD_COMBINE_MIN: return a < b ? a : b;
    case NSCD_COMBINE_MAX: return a > b ? a : b;
    case NSCD_COMBINE_AVERAGE: return 0.5 * (a + b);
    default: return sqrt(a * b);
    }
}

/* ------------------------------------------------------------ copy-out */

int32_t nscd_world_body_count(const nscd_world *w) {
    return w == NULL ? 0 : w->n_bodies - w->n_dead;
}

static void copy3(double *dst, const double *src) { memcpy(dst, src, 3 * sizeof(double)); }

nscd_status nscd_world_get_bodies(const nscd_world *w, int32_t capacity, int32_t *count,
                                  nscd_body_id *ids, uint64_t *user_ids, double *positions,
                                  double *orientations, double *velocities,
                                  double *angular_velocities) {
    if (w == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    if (count == NULL) {
        return nscd__world_read_fail(w, NSCD_ERR_NULL_POINTER,
                                     "nscd_world_get_bodies: count is NULL");
    }
    int32_t live = nscd_world_body_count(w);
    *count = live;
    nscd_status st = check_capacity(w, capacity, live, "nscd_world_get_bodies", "bodies");
    if (st != NSCD_OK) {
        return st;
    }
    size_t k = 0;
    for (int32_t i = 0; i < w->n_bodies; ++i) {
        if (w->type[i] < 0) {
            continue;
        }
        if (ids != NULL) {
            ids[k] = w->id[i];
        }
        if (user_ids != NULL) {
            user_ids[k] = w->user_id[i];
        }
        if (positions != NULL) {
            copy3(positions + 3 * k, w->position + 3 * (size_t)i);
        }
        if (orientations != NULL) {
            memcpy(orientations + 4 * k, w->orientation + 4 * (size_t)i, 4 * sizeof(double));
        }
        if (velocities != NULL) {
            copy3(velocities + 3 * k, w->velocity + 3 * (size_t)i);
        }
        if (angular_velocities != NULL) {
            copy3(angular_velocities + 3 * k, w->omega + 3 * (size_t)i);
        }
        ++k;
    }
    return NSCD_OK;
}

/* The contacts of the last step are its records; those of bodies removed
 * since then are left out. */
static bool contact_alive(const nscd_world *w, const nscd__world_record *c) {
    return nscd__world_lookup(w, c->id_a) >= 0 && nscd__world_lookup(w, c->id_b) >= 0;
}

nscd_status nscd_world_get_contacts(const nscd_world *w, int32_t capacity, int32_t *count,
                                    nscd_body_id *body_a, nscd_body_id *body_b, double *points,
                                    double *normals, double *gaps, double *impulses) {
    if (w == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    if (count == NULL) {
        return nscd__world_read_fail(w, NSCD_ERR_NULL_POINTER,
                                     "nscd_world_get_contacts: count is NULL");
    }
    int32_t n = 0;
    for (int32_t j = 0; j < w->n_records; ++j) {
        n += contact_alive(w, &w->records[j]);
    }
    *count = n;
    nscd_status st = check_capacity(w, capacity, n, "nscd_world_get_contacts", "contacts");
    if (st != NSCD_OK) {
        return st;
    }
    size_t k = 0;
    for (int32_t j = 0; j < w->n_records; ++j) {
        const nscd__world_record *c = &w->records[j];
        if (!contact_alive(w, c)) {
            continue;
        }
        if (body_a != NULL) {
            body_a[k] = c->id_a;
        }
        if (body_b != NULL) {
            body_b[k] = c->id_b;
        }
        if (points != NULL) {
            copy3(points + 3 * k, c->point);
        }
        if (normals != NULL) {
            copy3(normals + 3 * k, c->normal);
        }
        if (gaps != NULL) {
            gaps[k] = c->gap;
        }
        if (impulses != NULL) {
            copy3(impulses + 3 * k, c->x);
        }
        ++k;
    }
    return NSCD_OK;
}

nscd_status nscd_world_get_body_contact_impulse(const nscd_world *w, nscd_body_id id,
                                                const double about[3], double impulse[3],
                                                double angular_impulse[3]) {
    if (w == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd__diag_clear(nscd__world_diag(w));
    int32_t i = nscd__world_lookup(w, id);
    if (i < 0) {
        return nscd__world_read_fail(
            w, NSCD_ERR_STALE_HANDLE,
            "nscd_world_get_body_contact_impulse: body id %llu is not alive",
            (unsigned long long)id);
    }
    const double origin[3] = {0.0, 0.0, 0.0};
    const double *x = about != NULL ? about : origin;
    if (!nscd__all_finite(x, 3)) {
        return nscd__world_read_fail(w, NSCD_ERR_NOT_FINITE,
                                     "nscd_world_get_body_contact_impulse: `about` is not finite");
    }
    double p[3] = {0.0, 0.0, 0.0}, l[3] = {0.0, 0.0, 0.0};
    for (int32_t j = 0; j < w->n_records; ++j) {
        const nscd__world_record *c = &w->records[j];
        /* the impulse acts on b along +n, on a against it; a body meets
         * itself never, so one contact counts once */
        double sign = c->id_b == id ? 1.0 : c->id_a == id ? -1.0 : 0.0;
        if (sign == 0.0 || !contact_alive(w, c)) {
            continue;
        }
        double f[3], r[3], moment[3];
        for (int k = 0; k < 3; ++k) {
            f[k] = sign * c->impulse_world[k];
        }
        nscd__world_lever(c->point, x, r);
        nscd__world_angular_row(r, f, moment);
        for (int k = 0; k < 3; ++k) {
            p[k] += f[k];
            l[k] += moment[k];
        }
    }
    if (impulse != NULL) {
        memcpy(impulse, p, sizeof p);
    }
    if (angular_impulse != NULL) {
        memcpy(angular_impulse, l, sizeof l);
    }
    return NSCD_OK;
}

/* ω' I ω with the world-frame inertia R I R' of body i: (R'ω)' I (R'ω). */
static double rotational_energy(const nscd_world *w, int32_t i) {
    const double *q = w->orientation + 4 * (size_t)i, *om = w->omega + 3 * (size_t)i;
    const double *I = w->inertia + 9 * (size_t)i;
    nscd__quat conj = {q[0], -q[1], -q[2], -q[3]};
    nscd__vec3 b = nscd__q_rotate(conj, nscd__v3(om[0], om[1], om[2]));
    double wb[3] = {b.x, b.y, b.z}, e = 0.0;
    for (int r = 0; r < 3; ++r) {
        e += wb[r] * (I[3 * r] * wb[0] + I[3 * r + 1] * wb[1] + I[3 * r + 2] * wb[2]);
    }
    return e;
}

nscd_status nscd_world_kinetic_energy(const nscd_world *w, double *energy) {
    if (w == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    if (energy == NULL) {
        return nscd__world_read_fail(w, NSCD_ERR_NULL_POINTER,
                                     "nscd_world_kinetic_energy: energy is NULL");
    }
    double e = 0.0;
    for (int32_t i = 0; i < w->n_bodies; ++i) {
        if (w->type[i] != NSCD_BODY_DYNAMIC) {
            continue;
        }
        const double *v = w->velocity + 3 * (size_t)i;
        e += 0.5 * w->mass[i] * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        e += 0.5 * rotational_energy(w, i);
    }
    *energy = e;
    return NSCD_OK;
}

/* -m g.x summed over the dynamic bodies (their positions are their centres of
 * mass): zero at the origin, falling as a body moves along g. */
static double potential_energy(const nscd_world *w) {
    const double *g = w->desc.gravity;
    double e = 0.0;
    for (int32_t i = 0; i < w->n_bodies; ++i) {
        if (w->type[i] != NSCD_BODY_DYNAMIC) {
            continue;
        }
        const double *x = w->position + 3 * (size_t)i;
        e -= w->mass[i] * (g[0] * x[0] + g[1] * x[1] + g[2] * x[2]);
    }
    return e;
}

nscd_status nscd_world_potential_energy(const nscd_world *w, double *energy) {
    if (w == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    if (energy == NULL) {
        return nscd__world_read_fail(w, NSCD_ERR_NULL_POINTER,
                                     "nscd_world_potential_energy: energy is NULL");
    }
    nscd__diag_clear(nscd__world_diag(w));
    *energy = potential_energy(w);
    return NSCD_OK;
}

nscd_status nscd_world_total_energy(const nscd_world *w, double *energy) {
    if (w == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    if (energy == NULL) {
        return nscd__world_read_fail(w, NSCD_ERR_NULL_POINTER,
                                     "nscd_world_total_energy: energy is NULL");
    }
    nscd__diag_clear(nscd__world_diag(w));
    double kinetic = 0.0;
    nscd_status rc = nscd_world_kinetic_energy(w, &kinetic);
    if (rc == NSCD_OK) {
        *energy = kinetic + potential_energy(w);
    }
    return rc;
}
