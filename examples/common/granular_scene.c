/* The granular channel of seed 002, Sect. 4.3 (see granular_scene.h). */
#include "granular_scene.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "example_cli.h"

static const double pi = 3.14159265358979323846;
static const double sqrt_half = 0.70710678118654752440;

void channel_params_init(channel_params *p, double k, int32_t sweeps, int32_t law, uint64_t seed) {
    memset(p, 0, sizeof *p);
    p->k = k;
    p->diameter = k * CHANNEL_DIAMETER;
    p->grid = k * CHANNEL_GRID;
    p->dt = k * CHANNEL_DT;
    p->reset_distance = CHANNEL_RESET_DISTANCE;
    p->fill_spacing = CHANNEL_GRID;
    /* A contact must be seen one step before it closes: the fastest approach is
     * about 2 m/s (two particles at the inflow speed plus perturbations). */
    p->margin = 2.0 * p->dt;
    p->error_reduction = 0.2;
    p->wall_friction = CHANNEL_WALL_FRICTION;
    p->sweeps = sweeps;
    p->law = law;
    p->fill = 1;
    p->seed = seed;
}

void channel_params_keep_volume_fraction(channel_params *p) {
    p->reset_distance = p->k * CHANNEL_RESET_DISTANCE;
    p->fill_spacing = p->grid;
}

double channel_rng_uniform(channel_rng *rng, double lo, double hi) {
    uint64_t z = (rng->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return lo + (hi - lo) * ((double)(z >> 11) * 0x1.0p-53);
}

double channel_particle_volume(const channel_params *p) {
    return pi / 6.0 * p->diameter * p->diameter * p->diameter;
}

double channel_free_floor_area(void) {
    /* the left half-disc plus the 1 x 2 cm box */
    double obstacle =
        0.5 * pi * OBSTACLE_RADIUS * OBSTACLE_RADIUS + OBSTACLE_RADIUS * 2.0 * OBSTACLE_RADIUS;
    return CHANNEL_LENGTH * CHANNEL_WIDTH - obstacle;
}

double channel_free_volume(void) { return channel_free_floor_area() * CHANNEL_HEIGHT; }

double channel_obstacle_distance(double x, double y) {
    double disc = hypot(x - OBSTACLE_X, y - OBSTACLE_Y) - OBSTACLE_RADIUS;
    /* the box [4, 5] x [3, 5] cm: centre (4.5, 4), half extents (0.5, 1) cm */
    double dx = fmax(0.0, fabs(x - (OBSTACLE_X + 0.5 * OBSTACLE_RADIUS)) - 0.5 * OBSTACLE_RADIUS);
    double dy = fmax(0.0, fabs(y - OBSTACLE_Y) - OBSTACLE_RADIUS);
    return fmax(0.0, fmin(disc, hypot(dx, dy)));
}

static nscd_status add_fixed(channel_scene *s, int32_t type, nscd_shape_desc *shapes, int32_t n,
                             uint64_t *id) {
    for (int32_t i = 0; i < n; ++i) { /* the particles' friction with the fixed bodies */
        shapes[i].material = s->wall_material;
    }
    nscd_body_desc b;
    nscd_body_desc_init(&b, sizeof b);
    b.type = type;
    uint64_t fixed = NSCD_BODY_NULL;
    nscd_status st = s->ops->add_body(s->world, &b, shapes, n, &fixed);
    if (st == NSCD_OK) {
        s->fixed_ids[s->fixed_bodies++] = fixed;
        if (id != NULL) {
            *id = fixed;
        }
    }
    return st;
}

/* A half-space shape whose boundary passes through `point` with outward normal
 * along +-axis `axis` (0 = x, 1 = y, 2 = z), `sign` = +1 or -1. */
static void half_space(nscd_shape_desc *s, int axis, double sign, const double point[3]) {
    nscd_shape_desc_init(s, sizeof *s);
    s->type = NSCD_SHAPE_HALF_SPACE;
    memcpy(s->position, point, sizeof s->position);
    /* quaternions that turn the shape's +z into the wanted normal */
    static const double to_x[2][4] = {{sqrt_half, 0, -sqrt_half, 0}, {sqrt_half, 0, sqrt_half, 0}};
    static const double to_y[2][4] = {{sqrt_half, sqrt_half, 0, 0}, {sqrt_half, -sqrt_half, 0, 0}};
    static const double to_z[2][4] = {{0, 1, 0, 0}, {1, 0, 0, 0}};
    const double(*table)[4] = axis == 0 ? to_x : axis == 1 ? to_y : to_z;
    memcpy(s->orientation, table[sign > 0.0], sizeof s->orientation);
}

/* Floor, ceiling and the two side walls: static half-spaces. */
static nscd_status add_walls(channel_scene *s) {
    static const double origin[3] = {0.0, 0.0, 0.0};
    static const double side[3] = {0.0, CHANNEL_WIDTH, 0.0};
    static const double top[3] = {0.0, 0.0, CHANNEL_HEIGHT};
    nscd_shape_desc walls[4];
    half_space(&walls[0], 2, +1.0, origin);
    half_space(&walls[1], 2, -1.0, top);
    half_space(&walls[2], 1, +1.0, origin);
    half_space(&walls[3], 1, -1.0, side);
    nscd_status st = NSCD_OK;
    for (int i = 0; i < 4 && st == NSCD_OK; ++i) {
        st = add_fixed(s, NSCD_BODY_STATIC, &walls[i], 1, NULL);
    }
    return st;
}

/* The obstacle: a cylinder (axis z) and the box over its right half, one compound body. */
static nscd_status add_obstacle(channel_scene *s) {
    nscd_shape_desc parts[2];
    nscd_shape_desc_init(&parts[0], sizeof parts[0]);
    parts[0].type = NSCD_SHAPE_CYLINDER;
    parts[0].radius = OBSTACLE_RADIUS;
    parts[0].half_height = 0.5 * CHANNEL_HEIGHT;
    parts[0].position[0] = OBSTACLE_X;
    parts[0].position[1] = OBSTACLE_Y;
    parts[0].position[2] = 0.5 * CHANNEL_HEIGHT;
    nscd_shape_desc_init(&parts[1], sizeof parts[1]);
    parts[1].type = NSCD_SHAPE_BOX;
    parts[1].half_extents[0] = 0.5 * OBSTACLE_RADIUS;
    parts[1].half_extents[1] = OBSTACLE_RADIUS;
    parts[1].half_extents[2] = 0.5 * CHANNEL_HEIGHT;
    parts[1].position[0] = OBSTACLE_X + 0.5 * OBSTACLE_RADIUS;
    parts[1].position[1] = OBSTACLE_Y;
    parts[1].position[2] = 0.5 * CHANNEL_HEIGHT;
    return add_fixed(s, NSCD_BODY_STATIC, parts, 2, NULL);
}

/* The inflow plane: a kinematic half-space {x <= x_plane} moving at +1 m/s. */
static nscd_status add_plane(channel_scene *s) {
    static const double origin[3] = {0.0, 0.0, 0.0};
    nscd_shape_desc plane;
    half_space(&plane, 0, +1.0, origin);
    nscd_status st = add_fixed(s, NSCD_BODY_KINEMATIC, &plane, 1, &s->plane);
    if (st == NSCD_OK) {
        static const double speed[3] = {CHANNEL_INFLOW_SPEED, 0.0, 0.0};
        st = s->ops->set_body(s->world, s->plane, NULL, speed);
    }
    return st;
}

/* A particle at `x` with the paper's initial velocity: 1 m/s along x plus a
 * uniform perturbation in [-0.5, 0.5] m/s in y and z. The perturbation is drawn
 * even for a site left empty, so that the random stream does not depend on it. */
static nscd_status add_particle(channel_scene *s, const double x[3], int create) {
    nscd_body_desc b;
    nscd_body_desc_init(&b, sizeof b);
    b.type = NSCD_BODY_DYNAMIC;
    memcpy(b.position, x, sizeof b.position);
    b.velocity[0] = CHANNEL_INFLOW_SPEED;
    b.velocity[1] = channel_rng_uniform(&s->rng, -CHANNEL_PERTURBATION, CHANNEL_PERTURBATION);
    b.velocity[2] = channel_rng_uniform(&s->rng, -CHANNEL_PERTURBATION, CHANNEL_PERTURBATION);
    b.density = CHANNEL_DENSITY;
    if (!create) {
        return NSCD_OK;
    }
    b.user_id = s->next_user_id;
    nscd_shape_desc sphere;
    nscd_shape_desc_init(&sphere, sizeof sphere);
    sphere.type = NSCD_SHAPE_SPHERE;
    sphere.radius = 0.5 * s->p.diameter;
    uint64_t id;
    nscd_status st = s->ops->add_body(s->world, &b, &sphere, 1, &id);
    if (st == NSCD_OK) {
        ++s->next_user_id;
        ++s->spawned;
    }
    return st;
}

/* Coordinate of site i of n spaced by `grid`, centred in [0, extent]. */
static double site(int32_t i, int32_t n, double grid, double extent) {
    return 0.5 * extent + ((double)i - 0.5 * (double)(n - 1)) * grid;
}

/* Offset in y and z of layer `layer` when successive layers are closer than 2 d
 * along x (k > 1): a quarter grid spacing, cycling through four signs, so that
 * a layer never sits on the two before it (d < the distance sqrt(dx^2 + (k/2 mm)^2)
 * for any k). */
static void layer_shift(const channel_scene *s, int64_t layer, double dx, double shift[2]) {
    static const double signs[4][2] = {{-1, -1}, {1, 1}, {-1, 1}, {1, -1}};
    int stagger = dx < 2.0 * s->p.diameter * (1.0 - 1e-9);
    shift[0] = stagger ? 0.25 * s->p.grid * signs[layer % 4][0] : 0.0;
    shift[1] = stagger ? 0.25 * s->p.grid * signs[layer % 4][1] : 0.0;
}

/* The initial state: the whole channel filled with layers like the inflow's, one
 * every fill_spacing along x (1 mm, the paper's grid spacing, not scaled: at k = 1
 * this is the paper's 1 mm grid), so that the fill keeps the paper's ratio to the
 * steady count (1.95e5 / 2.47e5) at every k. Sites in the obstacle stay empty. */
static nscd_status fill_channel(channel_scene *s) {
    const channel_params *p = &s->p;
    int32_t nx = (int32_t)floor(CHANNEL_LENGTH / p->fill_spacing + 1e-9);
    double r = 0.5 * p->diameter;
    for (int32_t i = 0; i < nx; ++i) {
        double shift[2];
        layer_shift(s, i, p->fill_spacing, shift);
        for (int32_t j = 0; j < s->layer_ny; ++j) {
            for (int32_t l = 0; l < s->layer_nz; ++l) {
                double x[3] = {(i + 0.5) * p->fill_spacing,
                               site(j, s->layer_ny, p->grid, CHANNEL_WIDTH) + shift[0],
                               site(l, s->layer_nz, p->grid, CHANNEL_HEIGHT) + shift[1]};
                int free_site = x[0] > r && channel_obstacle_distance(x[0], x[1]) > r;
                nscd_status st = add_particle(s, x, free_site);
                if (st != NSCD_OK) {
                    return st;
                }
            }
        }
    }
    return NSCD_OK;
}

/* The world's settings for the scene's parameters. */
static void scene_world_desc(const channel_params *p, nscd_world_desc *d) {
    nscd_world_desc_init(d, sizeof *d);
    d->dt = p->dt;
    d->friction_law = p->law;
    d->max_sweeps = p->sweeps;
    d->threads = p->threads;
    d->error_reduction = p->error_reduction;
    d->contact_margin = p->margin;
    d->default_friction = CHANNEL_FRICTION;
    d->use_domain = 1; /* the open outlet at x = 15 cm deletes particles */
    const double slack = 0.01;
    d->domain_min[0] = -slack;
    d->domain_min[1] = -slack;
    d->domain_min[2] = -slack;
    d->domain_max[0] = CHANNEL_LENGTH;
    d->domain_max[1] = CHANNEL_WIDTH + slack;
    d->domain_max[2] = CHANNEL_HEIGHT + slack;
}

nscd_status channel_scene_create(channel_scene *s, const channel_params *p) {
    return channel_scene_create_on(s, p, &channel_world_serial, NULL);
}

nscd_status channel_scene_create_on(channel_scene *s, const channel_params *p,
                                    const channel_world_ops *ops, const void *context) {
    memset(s, 0, sizeof *s);
    s->p = *p;
    s->ops = ops;
    s->rng.state = p->seed;
    s->next_user_id = 1;
    s->layer_ny = (int32_t)floor(CHANNEL_WIDTH / p->grid + 1e-9);
    s->layer_nz = (int32_t)floor(CHANNEL_HEIGHT / p->grid + 1e-9);
    s->steps_per_layer = (int64_t)ceil(p->reset_distance / (CHANNEL_INFLOW_SPEED * p->dt) - 1e-9);
    nscd_world_desc d;
    scene_world_desc(p, &d);
    nscd_status st = ops->create(context, &d, &s->world);
    if (st == NSCD_OK) {
        st = ops->add_material(s->world, p->wall_friction, &s->wall_material);
    }
    if (st == NSCD_OK) {
        st = add_walls(s);
    }
    if (st == NSCD_OK) {
        st = add_obstacle(s);
    }
    if (st == NSCD_OK) {
        st = add_plane(s);
    }
    if (st == NSCD_OK && p->fill) {
        st = fill_channel(s);
    }
    if (st != NSCD_OK) {
        channel_scene_destroy(s);
    }
    return st;
}

void channel_scene_destroy(channel_scene *s) {
    if (s->ops != NULL) {
        s->ops->destroy(s->world);
    }
    memset(s, 0, sizeof *s);
}

/* Positions of the particles (user id != 0) within `reach` of the plane's
 * origin along x, of every process; a malloc'd array of 3 *n doubles, or NULL. */
static double *particles_near_inflow(channel_scene *s, double reach, int32_t *n) {
    int32_t capacity = s->ops->body_count(s->world), count = 0, near = 0;
    double *x = malloc((3 * (size_t)capacity + 3) * sizeof *x);
    uint64_t *ids = malloc(((size_t)capacity + 1) * sizeof *ids);
    nscd_status st = x != NULL && ids != NULL ? NSCD_OK : NSCD_ERR_OUT_OF_MEMORY;
    if (st == NSCD_OK) {
        st = s->ops->get_bodies(s->world, capacity, &count, ids, x, NULL, NULL);
    }
    for (int32_t i = 0; st == NSCD_OK && i < count; ++i) {
        if (ids[i] != 0 && x[3 * i] < reach) {
            memmove(&x[3 * near], &x[3 * i], 3 * sizeof(double));
            ++near;
        }
    }
    free(ids);
    if (st == NSCD_OK && s->ops->gather_points != NULL) {
        st = s->ops->gather_points(s->world, &x, &near);
    }
    if (st != NSCD_OK) {
        free(x);
        return NULL;
    }
    *n = near;
    return x;
}

static int site_is_free(const double *near, int32_t n_near, const double x[3], double d) {
    for (int32_t i = 0; i < n_near; ++i) {
        double dx = near[3 * i] - x[0], dy = near[3 * i + 1] - x[1], dz = near[3 * i + 2] - x[2];
        if (dx * dx + dy * dy + dz * dz < d * d) {
            return 0;
        }
    }
    return 1;
}

/* A new layer in front of the plane (at x = r), shifted as by layer_shift(); a
 * site still closer than d to a particle (one that drifted or was pushed back)
 * is left empty. */
static nscd_status spawn_layer(channel_scene *s) {
    const channel_params *p = &s->p;
    double r = 0.5 * p->diameter;
    int32_t n_near = 0;
    double *near = particles_near_inflow(s, r + 2.0 * p->diameter, &n_near);
    if (near == NULL) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    double shift[2];
    layer_shift(s, s->layers, p->reset_distance, shift);
    for (int32_t j = 0; j < s->layer_ny; ++j) {
        for (int32_t l = 0; l < s->layer_nz; ++l) {
            double x[3] = {r, site(j, s->layer_ny, p->grid, CHANNEL_WIDTH) + shift[0],
                           site(l, s->layer_nz, p->grid, CHANNEL_HEIGHT) + shift[1]};
            int free_site = site_is_free(near, n_near, x, p->diameter);
            s->skipped += !free_site;
            nscd_status st = add_particle(s, x, free_site);
            if (st != NSCD_OK) {
                free(near);
                return st;
            }
        }
    }
    free(near);
    ++s->layers;
    return NSCD_OK;
}

nscd_status channel_scene_step(channel_scene *s, nscd_world_step_report *report) {
    nscd_status st = s->ops->step(s->world, report);
    if (st != NSCD_OK) {
        return st;
    }
    s->removed += report->bodies_removed;
    if (++s->steps_since_reset < s->steps_per_layer) {
        return NSCD_OK;
    }
    s->steps_since_reset = 0;
    static const double origin[3] = {0.0, 0.0, 0.0};
    st = s->ops->set_body(s->world, s->plane, origin, NULL);
    return st == NSCD_OK ? spawn_layer(s) : st;
}

/* --- checkpoint and restart --------------------------------------------------- */

/* What the scene adds to the world's checkpoint (its user data): the inflow
 * generator and counters, the step, and the run it belongs to. */
typedef struct scene_state {
    uint64_t version, seed, rng, plane, next_user_id;
    int64_t step, steps_since_reset, layers, spawned, skipped, removed;
    double k;
    int32_t law, sweeps, fixed_bodies, wall_material;
    uint64_t fixed_ids[8];
} scene_state;

enum { SCENE_STATE_VERSION = 1 };

nscd_status channel_scene_save(const channel_scene *s, const char *path, int64_t step) {
    scene_state b;
    memset(&b, 0, sizeof b);
    b.version = SCENE_STATE_VERSION;
    b.seed = s->p.seed;
    b.rng = s->rng.state;
    b.plane = s->plane;
    b.next_user_id = s->next_user_id;
    b.step = step;
    b.steps_since_reset = s->steps_since_reset;
    b.layers = s->layers;
    b.spawned = s->spawned;
    b.skipped = s->skipped;
    b.removed = s->removed;
    b.k = s->p.k;
    b.law = s->p.law;
    b.sweeps = s->p.sweeps;
    b.fixed_bodies = s->fixed_bodies;
    b.wall_material = s->wall_material;
    memcpy(b.fixed_ids, s->fixed_ids, sizeof b.fixed_ids);
    return s->ops->save(s->world, path, &b, sizeof b);
}

nscd_status channel_scene_load(channel_scene *s, const void *context, const char *path,
                               int64_t *step, char *error, size_t size) {
    nscd_world_desc d;
    scene_world_desc(&s->p, &d); /* the distributed world cuts its box alike */
    void *w = NULL;
    nscd_status st = s->ops->create(context, &d, &w);
    if (st != NSCD_OK) {
        snprintf(error, size, "%s (creating the world)", nscd_status_string(st));
        return st;
    }
    scene_state b;
    size_t bytes = 0;
    st = s->ops->load(w, path, &b, sizeof b, &bytes);
    if (st == NSCD_OK && (bytes != sizeof b || b.version != SCENE_STATE_VERSION ||
                          b.seed != s->p.seed || b.k != s->p.k || b.law != s->p.law ||
                          b.sweeps != s->p.sweeps || b.fixed_bodies < 0 || b.fixed_bodies > 8)) {
        snprintf(error, size,
                 "%.100s is not a checkpoint of this run (coarse graining, law, sweeps and seed "
                 "must match)",
                 path);
        st = NSCD_ERR_INVALID_ARGUMENT;
    } else if (st != NSCD_OK) {
        snprintf(error, size, "%s (%.180s)", nscd_status_string(st), s->ops->last_error(w));
    }
    if (st != NSCD_OK) {
        s->ops->destroy(w);
        return st;
    }
    s->ops->destroy(s->world);
    s->world = w;
    s->rng.state = b.rng;
    s->plane = b.plane;
    s->next_user_id = b.next_user_id;
    s->steps_since_reset = b.steps_since_reset;
    s->layers = b.layers;
    s->spawned = b.spawned;
    s->skipped = b.skipped;
    s->removed = b.removed;
    s->fixed_bodies = b.fixed_bodies;
    s->wall_material = b.wall_material;
    memcpy(s->fixed_ids, b.fixed_ids, sizeof s->fixed_ids);
    *step = b.step;
    return NSCD_OK;
}

const char *channel_checkpoint_parse(int argc, char **argv, double dt, int64_t steps,
                                     channel_checkpoint_options *o) {
    memset(o, 0, sizeof *o);
    o->checkpoint = cli_string(argc, argv, "--checkpoint", NULL);
    o->restart = cli_string(argc, argv, "--restart", NULL);
    double at = cli_double(argc, argv, "--checkpoint-at", -1.0);
    double every = cli_double(argc, argv, "--checkpoint-every", -1.0);
    o->at_step = at >= 0.0 && at / dt < 1e15 ? (int64_t)llround(at / dt) : 0;
    o->every_steps = every >= 0.0 && every / dt < 1e15 ? (int64_t)llround(every / dt) : 0;
    int when = at >= 0.0 || every >= 0.0;
    if ((o->checkpoint != NULL) != when || (at >= 0.0 && (o->at_step < 1 || o->at_step > steps)) ||
        (every >= 0.0 && o->every_steps < 1) || at != at || every != every) {
        return "--checkpoint FILE needs --checkpoint-at T (dt <= T <= the duration) and/or "
               "--checkpoint-every T (T >= dt), and they need --checkpoint FILE";
    }
    return NULL;
}

int channel_checkpoint_due(const channel_checkpoint_options *o, int64_t step) {
    return o->checkpoint != NULL &&
           (step == o->at_step || (o->every_steps > 0 && step % o->every_steps == 0));
}
