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
    /* A body-centred grid: square layers of spacing 2.2 r, every other layer
     * shifted by half a spacing so that each sphere sits above the hollow of
     * four, 0.2 r apart from them (layer distance 1.556 r), with a jitter of
     * +-0.05 r on each axis: no two spheres (nor a sphere and a wall) overlap
     * at the start, the spheres drop 0.1 r into their hollows, push the
     * layers below apart against the walls and settle within some 50 steps
     * into a dense pile with four to five contacts per sphere (a simple cubic
     * grid instead buckles into an avalanche that lasts hundreds of steps). */
    const double spacing = 2.2 * s->radius, amplitude = 0.05 * s->radius;
    const double layer_distance = sqrt(spacing * spacing - 0.5 * spacing * spacing);
    const int32_t side = (int32_t)ceil(sqrt((double)bodies / BW_LAYERS));
    s->box[0] = s->box[1] = side * spacing;
    s->positions = malloc(3 * (size_t)bodies * sizeof *s->positions);
    if (s->positions == NULL) {
        return -1;
    }
    uint64_t rng = 20261122u;
    int32_t i = 0;
    for (int32_t layer = 0; i < bodies; ++layer) {
        const int32_t shifted = layer % 2, n = side - shifted;
        for (int32_t cell = 0; cell < n * n && i < bodies; ++cell, ++i) {
            const double grid[3] = {(cell % n + 0.5 + 0.5 * shifted) * spacing,
                                    (cell / n + 0.5 + 0.5 * shifted) * spacing,
                                    s->radius + 0.1 * s->radius + layer * layer_distance};
            for (int k = 0; k < 3; ++k) {
                s->positions[3 * i + k] = grid[k] + amplitude * jitter(&rng);
            }
        }
    }
    return 0;
}

void bw_scenario_free(bw_scenario *s) {
    free(s->positions);
    s->positions = NULL;
}
