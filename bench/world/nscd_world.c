/* bench_world's nscd engine: the scenario on nscd_world (public API only,
 * include/nscd/world.h). Settings: Coulomb friction (De Saxce's modified
 * velocity) with the Coulomb single-contact block solver, warm start, error
 * reduction = the scenario's ERP, the walls and the floor as five static
 * half-spaces; the bodies as the scenario gives them (NSCD_SHAPE_SPHERE,
 * _BOX, _CAPSULE, _CYLINDER, _CONVEX).
 *
 * The same iterations as the peers: of the scenario's `sweeps` (ODE's and
 * Bullet's iterations), 3 are the relax pass's (nscd_world_desc::
 * relax_sweeps, its default: the position-only overlap recovery, run on the
 * steps with a penetration) and the rest block Gauss-Seidel sweeps with the
 * correction (max_sweeps = sweeps - 3; tolerance 0: never stops early; no
 * deep-penetration guard: never more sweeps either), so that no step runs
 * more sweeps than the peers' iterations; --nscd-relax R gives R to the
 * relax pass instead (0: `sweeps` sweeps and no relax pass, the bounded
 * correction left in the velocities as ODE's ERP leaves it). Each step
 * reports the sweeps it ran (bw_step_stats::sweeps).
 *
 * Contact margin: the world's default (1 mm = 0.002 r), as a user would
 * leave it. The bench set 0.1 r (5 cm) before the world gave moving bodies
 * a speculative reach (docs/world.md, "Speculative reach"): a margin had to
 * cover a step's travel (0.1 m at the pour's 10 m/s); the reach now does,
 * and a wide margin only adds contacts that do not touch (docs/benchmarks.md,
 * "Margin and sweeps"). --nscd-margin F sets F r.
 *
 * Overlap recovery: max_correction_speed 3 m/s, Box2D v3's
 * contactPushMaxVelocity at the scale of these bodies (metres); the world's
 * default 0.1 m/s is meant for centimetre bodies (the piles of
 * docs/world.md), and at it the pour's 1 m bodies, driven 0.1-0.2 m into
 * each other by the impacts, come apart at 1 mm a step: the boxes' pile
 * still overlaps by 0.13 m at the end, ODE's by 8 mm. The correction moves
 * positions only (the relax pass), whatever its speed.
 * --nscd-correction-speed V sets V m/s.
 *
 * Memory is counted through an nscd_allocator (every byte the world
 * allocates). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "nscd/nscd.h"
#include "counting.h"
#include "engine.h"
#include "nscd_world.h"

static int32_t friction_law = NSCD_FRICTION_COULOMB;
static int32_t threads = 0;
static double margin_fraction = -1.0; /* < 0: the world's default */
static int32_t relax = 3;
static double correction_speed = 3.0;

void bw_nscd_set_correction_speed(double speed) { correction_speed = speed; }

void bw_nscd_set_margin(double fraction) { margin_fraction = fraction; }

void bw_nscd_set_relax(int32_t relax_sweeps) { relax = relax_sweeps; }

void bw_nscd_set_threads(int32_t n) { threads = n; }

void bw_nscd_set_friction_law(int32_t law) { friction_law = law; }

typedef struct nscd_engine {
    nscd_world *world;
    int32_t bodies;
    nscd_body_id *ids; /* the spheres, in creation order */
} nscd_engine;

/* nscd_allocator passes the size back on release: no header needed. */
static void *counted_allocate(void *user, size_t size) {
    (void)user;
    void *block = malloc(size);
    if (block != NULL) {
        bw_count_allocate(size);
    }
    return block;
}

static void counted_release(void *user, void *block, size_t size) {
    (void)user;
    if (block != NULL) {
        bw_count_release(size);
    }
    free(block);
}

static const double SQRT_HALF = 0.70710678118654752440;

/* The five static half-spaces: floor z >= 0 and the walls, each the solid
 * {z <= 0} of its shape frame, rotated so that +z points into the box. */
static nscd_status add_walls(nscd_world *world, const bw_scenario *s) {
    const double poses[5][7] = {
        /* position (3), quaternion (w, x, y, z) taking +z to the inward normal */
        {0, 0, 0, 1, 0, 0, 0},                          /* floor, +z */
        {0, 0, 0, SQRT_HALF, 0, SQRT_HALF, 0},          /* x = 0, +x */
        {s->box[0], 0, 0, SQRT_HALF, 0, -SQRT_HALF, 0}, /* x = Lx, -x */
        {0, 0, 0, SQRT_HALF, -SQRT_HALF, 0, 0},         /* y = 0, +y */
        {0, s->box[1], 0, SQRT_HALF, SQRT_HALF, 0, 0},  /* y = Ly, -y */
    };
    for (int w = 0; w < 5; ++w) {
        nscd_body_desc body;
        nscd_shape_desc shape;
        nscd_body_desc_init(&body, sizeof body);
        nscd_shape_desc_init(&shape, sizeof shape);
        body.type = NSCD_BODY_STATIC;
        for (int k = 0; k < 3; ++k) {
            body.position[k] = poses[w][k];
        }
        for (int k = 0; k < 4; ++k) {
            body.orientation[k] = poses[w][3 + k];
        }
        shape.type = NSCD_SHAPE_HALF_SPACE;
        nscd_body_id id;
        nscd_status st = nscd_world_add_body(world, &body, &shape, 1, &id);
        if (st != NSCD_OK) {
            return st;
        }
    }
    return NSCD_OK;
}

/* The bodies of the scenario, each with its one shape; the world computes
 * mass and inertia from the density (the scenario's bw_body has the same). */
static nscd_status add_bodies(nscd_engine *e, const bw_scenario *s) {
    nscd_body_desc body;
    nscd_shape_desc shape;
    nscd_body_desc_init(&body, sizeof body);
    body.type = NSCD_BODY_DYNAMIC;
    body.density = s->density;
    double points[3 * BW_HULL_POINTS];
    for (int32_t i = 0; i < s->bodies; ++i) {
        const bw_body *b = &s->body[i];
        nscd_shape_desc_init(&shape, sizeof shape);
        switch (b->kind) {
        case BW_SHAPE_BOX:
            shape.type = NSCD_SHAPE_BOX;
            for (int k = 0; k < 3; ++k) {
                shape.half_extents[k] = b->half_extents[k];
            }
            break;
        case BW_SHAPE_CAPSULE:
            shape.type = NSCD_SHAPE_CAPSULE;
            shape.radius = b->radius;
            shape.half_height = b->half_height;
            break;
        case BW_SHAPE_CYLINDER:
            shape.type = NSCD_SHAPE_CYLINDER;
            shape.radius = b->radius;
            shape.half_height = b->half_height;
            break;
        case BW_SHAPE_CONVEX:
            shape.type = NSCD_SHAPE_CONVEX;
            bw_hull_points(b->scale, points);
            shape.points = points;
            shape.point_count = BW_HULL_POINTS;
            break;
        default:
            shape.type = NSCD_SHAPE_SPHERE;
            shape.radius = b->radius;
            break;
        }
        for (int k = 0; k < 3; ++k) {
            body.position[k] = s->positions[3 * i + k];
        }
        for (int k = 0; k < 4; ++k) {
            body.orientation[k] = b->orientation[k];
        }
        body.user_id = (uint64_t)i;
        nscd_status st = nscd_world_add_body(e->world, &body, &shape, 1, &e->ids[i]);
        if (st != NSCD_OK) {
            return st;
        }
    }
    return NSCD_OK;
}

static void nscd_engine_destroy(void *engine) {
    nscd_engine *e = engine;
    if (e == NULL) {
        return;
    }
    nscd_world_destroy(e->world);
    free(e->ids);
    free(e);
}

static void *nscd_engine_create(const bw_scenario *s, char *error, size_t error_size) {
    nscd_engine *e = calloc(1, sizeof *e);
    if (e == NULL) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    e->bodies = s->bodies;
    e->ids = malloc((size_t)s->bodies * sizeof *e->ids);
    if (e->ids == NULL) {
        snprintf(error, error_size, "out of memory");
        nscd_engine_destroy(e);
        return NULL;
    }
    nscd_world_desc desc;
    nscd_world_desc_init(&desc, sizeof desc);
    desc.gravity[0] = desc.gravity[1] = 0.0;
    desc.gravity[2] = -s->gravity;
    desc.dt = s->dt;
    desc.friction_law = friction_law;
    /* The same sweeps as the peers' iterations, the relax pass's included:
     * `relax` of the scenario's sweeps are the relax pass's (fewer when
     * the scenario has fewer than relax + 1), the rest the sweeps with the
     * correction. */
    const int32_t relax_used = relax < s->sweeps ? relax : s->sweeps - 1;
    desc.max_sweeps = s->sweeps - relax_used;
    desc.relax_sweeps = relax_used;
    desc.tolerance = 0.0;
    /* Exactly `sweeps` sweeps, as the peers iterate: the deep-penetration
     * guard (default 100 extra sweeps while a contact deeper than 0.1 mm
     * still closes; the pour's boxes sit 0.3 r deep with 10 sweeps) would
     * run nscd up to 11 times the peers' iterations. */
    desc.deep_sweeps = 0;
    desc.warm_start = 1;
    desc.max_correction_speed = correction_speed;
    desc.error_reduction = s->error_reduction;
    if (margin_fraction >= 0.0) {
        desc.contact_margin = margin_fraction * s->radius;
    }
    desc.default_friction = s->friction;
    desc.allocator.allocate = counted_allocate;
    desc.allocator.release = counted_release;
    desc.threads = threads;
    nscd_status st = nscd_world_create(&desc, &e->world);
    if (st == NSCD_OK) {
        st = add_walls(e->world, s);
    }
    if (st == NSCD_OK) {
        st = add_bodies(e, s);
    }
    if (st != NSCD_OK) {
        snprintf(error, error_size, "%s: %s", nscd_status_string(st),
                 e->world != NULL ? nscd_world_last_error(e->world) : "");
        nscd_engine_destroy(e);
        return NULL;
    }
    return e;
}

static int nscd_engine_step(void *engine, bw_step_stats *stats, char *error, size_t error_size) {
    nscd_engine *e = engine;
    nscd_world_step_report report;
    report.struct_size = sizeof report;
    nscd_status st = nscd_world_step(e->world, &report);
    if (st != NSCD_OK) {
        snprintf(error, error_size, "nscd_world_step: %s: %s", nscd_status_string(st),
                 nscd_world_last_error(e->world));
        return -1;
    }
    stats->contacts = report.contacts;
    stats->max_penetration = report.max_penetration;
    stats->sweeps = report.sweeps + report.relax_sweeps;
    return 0;
}

static int nscd_engine_state(void *engine, double *positions, double *velocities,
                             double *angular_velocities) {
    nscd_engine *e = engine;
    for (int32_t i = 0; i < e->bodies; ++i) {
        if (nscd_world_get_body(e->world, e->ids[i], &positions[3 * i], NULL, &velocities[3 * i],
                                &angular_velocities[3 * i]) != NSCD_OK) {
            return -1;
        }
    }
    return 0;
}

static const bw_engine NSCD_ENGINE = {"nscd",
                                      nscd_engine_create,
                                      nscd_engine_step,
                                      nscd_engine_state,
                                      nscd_engine_destroy,
                                      "nscd_allocator hook (exact bytes requested)"};

const bw_engine *bw_engine_nscd(void) { return &NSCD_ENGINE; }
