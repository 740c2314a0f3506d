/* The initial grid of bench_world (scenario.h). */
#include "scenario.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* splitmix64: a deterministic stream, the same on every machine and engine. */
static uint64_t splitmix64(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [-1, 1). */
static double jitter(uint64_t *state) {
    return 2.0 * (double)(splitmix64(state) >> 11) * (1.0 / 9007199254740992.0) - 1.0;
}

int bw_scenario_init(bw_scenario *s, int32_t bodies, int32_t sweeps, double dt, double friction) {
    memset(s, 0, sizeof *s);
    s->bodies = bodies;
    s->sweeps = sweeps;
    s->dt = dt;
    /* Bullet's broad phase fattens every AABB by 5 cm (DBVT_BP_MARGIN, fixed
     * at compile time: Bullet expects bodies of 0.05 to 10 m); with 5 mm
     * spheres every body would pair with every other. At r = 0.5 m that
     * margin is 0.1 r, the contact margin given to every engine. */
    s->radius = 0.5;
    s->density = 1000.0;
    s->friction = friction;
    s->error_reduction = 0.2;
    s->gravity = 9.81;
    /* Grid spacing 2.2 r and jitter +-0.1 r on each axis: no two spheres
     * (nor a sphere and a wall) overlap at the start; the columns buckle
     * as they land, so the pile is random and dense, not a lattice. */
    const double spacing = 2.2 * s->radius, amplitude = 0.1 * s->radius;
    const int32_t side = (int32_t)ceil(sqrt((double)bodies / BW_LAYERS));
    s->box[0] = s->box[1] = side * spacing;
    s->positions = malloc(3 * (size_t)bodies * sizeof *s->positions);
    if (s->positions == NULL) {
        return -1;
    }
    uint64_t rng = 20261122u;
    for (int32_t i = 0; i < bodies; ++i) {
        const int32_t layer = i / (side * side), cell = i % (side * side);
        const double grid[3] = {(cell % side + 0.5) * spacing, (cell / side + 0.5) * spacing,
                                (layer + 0.5) * spacing};
        for (int k = 0; k < 3; ++k) {
            s->positions[3 * i + k] = grid[k] + amplitude * jitter(&rng);
        }
    }
    return 0;
}

void bw_scenario_free(bw_scenario *s) {
    free(s->positions);
    s->positions = NULL;
}
