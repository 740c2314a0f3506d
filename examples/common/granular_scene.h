/* The granular channel of seed 002, Sect. 4.3, built on the public world API:
 * the channel 15 x 6.5 x 2 cm with walls in y and z, the obstacle (a cylinder of
 * radius 1 cm at (4, 4, 1) cm whose right half is a box), the moving inflow plane
 * that is reset while a new layer of spheres is spawned, the open outlet.
 *
 * Coarse graining by a factor k (docs/granular_channel.md): the geometry stays,
 * the particle diameter, the grid spacing and the time step are multiplied by k,
 * and the inflow keeps the paper's volume flux per unit of bed depth in diameters,
 * i.e. a particle rate of about 1.4e6 / k^2 per second, so that the flowing bed is
 * about five diameters deep as in the paper. k = 1 is the paper's run. */
#ifndef NSCD_GRANULAR_SCENE_H
#define NSCD_GRANULAR_SCENE_H

#include <stdint.h>

#include <nscd/nscd.h>

#include "granular_world.h"

/* Paper values (Sect. 4.3) at k = 1, SI units. */
#define CHANNEL_LENGTH 0.15
#define CHANNEL_WIDTH 0.065
#define CHANNEL_HEIGHT 0.02
#define CHANNEL_DIAMETER 0.47e-3
#define CHANNEL_DENSITY 2650.0
#define CHANNEL_GRID 1e-3
#define CHANNEL_DT 1e-5
#define CHANNEL_INFLOW_SPEED 1.0
#define CHANNEL_PERTURBATION 0.5
#define CHANNEL_FRICTION 0.4
/* Friction between the particles and the walls, floor, ceiling, obstacle and
 * inflow plane. The paper gives only the particles' 0.4; with 0.4 at the walls
 * no steady flow exists (the floor stops a sliding bed: docs/granular_channel.md,
 * section 2), so the default is frictionless walls, the setting that reproduces
 * the paper's flow. */
#define CHANNEL_WALL_FRICTION 0.0
/* The inflow plane's travel between two layers: 0.94 mm = 2 d of the paper's
 * particles, the value that reproduces the paper's stated inflow of 1.4e6
 * particles/s with 65 x 20 particles a layer (the text's "2 r" would give twice
 * that; docs/granular_channel.md). Not scaled with k: the rate then goes as 1/k^2. */
#define CHANNEL_RESET_DISTANCE 0.94e-3
/* Obstacle: cylinder of radius 1 cm, axis z, centre (4, 4, 1) cm; box [4,5]x[3,5]x[0,2] cm. */
#define OBSTACLE_X 0.04
#define OBSTACLE_Y 0.04
#define OBSTACLE_RADIUS 0.01

typedef struct channel_params {
    double k;               /* coarse-graining factor, >= 1 */
    double diameter, grid;  /* k d, k grid, m */
    double dt;              /* k 10 us */
    double reset_distance;  /* plane travel between layers, m */
    double fill_spacing;    /* x spacing of the initial layers, m */
    double margin;          /* contact margin of the world, m */
    double error_reduction; /* epsilon of the world */
    double wall_friction;   /* mu between particles and the fixed bodies */
    int32_t sweeps;         /* Gauss-Seidel sweeps per step */
    int32_t law;            /* nscd_friction_law */
    int32_t fill;           /* 1: the channel starts filled on the grid (the paper) */
    uint64_t seed;
    int32_t threads; /* nscd_world_desc::threads (0: the serial step) */
} channel_params;

/* The paper's parameters scaled by k; sweeps, law, seed as given. The inflow
 * keeps the bed's depth in diameters (a rate of about 1.4e6 / k^2 per second). */
void channel_params_init(channel_params *p, double k, int32_t sweeps, int32_t law, uint64_t seed);
/* The other inflow scaling (docs/granular_channel.md, section 3): the reset
 * distance and the initial layers' spacing also multiplied by k, so that the
 * inflow jet and the channel keep the paper's volume fraction (a rate of about
 * 1.4e6 / k^3 per second, a bed k times shallower in diameters). */
void channel_params_keep_volume_fraction(channel_params *p);

/* Small deterministic generator (splitmix64), so that runs repeat bitwise. */
typedef struct channel_rng {
    uint64_t state;
} channel_rng;
double channel_rng_uniform(channel_rng *rng, double lo, double hi);

typedef struct channel_scene {
    channel_params p;
    const channel_world_ops *ops; /* the world's operations (granular_world.h) */
    void *world;                  /* nscd_world * for channel_world_serial */
    uint64_t plane;
    channel_rng rng;
    int32_t layer_ny, layer_nz; /* sites of one inflow layer */
    int64_t steps_per_layer;    /* steps of plane travel between two layers */
    int64_t steps_since_reset;
    int64_t layers;        /* layers spawned so far */
    int64_t spawned;       /* particles created (initial fill included) */
    int64_t skipped;       /* inflow sites left empty because a particle was there */
    int64_t removed;       /* particles removed at the outlet */
    uint64_t next_user_id; /* particles carry user ids 1, 2, ...; the rest 0 */
    int32_t fixed_bodies;  /* walls, floor, ceiling, obstacle, plane */
    int32_t wall_material; /* their material (pair friction p.wall_friction) */
    uint64_t fixed_ids[8];
} channel_scene;

/* Creates the world with its walls, obstacle, plane and (p->fill) the initial grid.
 * Returns NSCD_OK or the failing status (scene left empty, nothing to free). */
nscd_status channel_scene_create(channel_scene *scene, const channel_params *p);
/* The same on the world of `ops`, created with `context` (granular_world.h). */
nscd_status channel_scene_create_on(channel_scene *scene, const channel_params *p,
                                    const channel_world_ops *ops, const void *context);
void channel_scene_destroy(channel_scene *scene);

/* One world step plus the inflow: after the step the plane has travelled dt v;
 * once it has travelled the reset distance it goes back to x = 0 and a new layer is
 * spawned in front of it. The report counts the bodies removed at the outlet. */
nscd_status channel_scene_step(channel_scene *scene, nscd_world_step_report *report);

/* --- checkpoint and restart (docs/checkpoint.md, "The granular channel") ---- */

/* Writes a checkpoint of the scene after step `step`: its world (ops->save)
 * with the scene's own state (inflow plane, random generator, counters, the
 * step and the run's coarse graining, law, sweeps and seed) as user data. */
nscd_status channel_scene_save(const channel_scene *scene, const char *path, int64_t step);
/* Replaces the scene's world and state by those of the checkpoint at `path`,
 * its world created with `context` as by channel_scene_create_on() (collective
 * on the distributed world); *step receives the step it was saved after.
 * NSCD_ERR_INVALID_ARGUMENT for a checkpoint of another run (coarse graining,
 * law, sweeps or seed), the load's status (NSCD_ERR_IO for a missing or
 * damaged file) otherwise; `error` (`size` bytes) then says what failed and
 * the scene is unchanged. */
nscd_status channel_scene_load(channel_scene *scene, const void *context, const char *path,
                               int64_t *step, char *error, size_t size);

/* The checkpoint options of the channel examples: --checkpoint FILE with
 * --checkpoint-at T (one save after the step that reaches T) and/or
 * --checkpoint-every T (a save every T of simulated time, FILE overwritten),
 * and --restart FILE. */
typedef struct channel_checkpoint_options {
    const char *checkpoint, *restart; /* or NULL */
    int64_t at_step;                  /* --checkpoint-at in steps, 0: none */
    int64_t every_steps;              /* --checkpoint-every in steps, 0: none */
} channel_checkpoint_options;

/* Reads the options for a run of `steps` steps of `dt`: NULL, or what is wrong. */
const char *channel_checkpoint_parse(int argc, char **argv, double dt, int64_t steps,
                                     channel_checkpoint_options *options);
/* 1 when the run saves after step `step`. */
int channel_checkpoint_due(const channel_checkpoint_options *options, int64_t step);

/* Volume of one particle. */
double channel_particle_volume(const channel_params *p);
/* Floor area of the channel not covered by the obstacle, m^2. */
double channel_free_floor_area(void);
/* Volume of the channel not taken by the obstacle, m^3. */
double channel_free_volume(void);
/* Distance in the x-y plane from (x, y) to the obstacle (0 inside). */
double channel_obstacle_distance(double x, double y);

#endif
