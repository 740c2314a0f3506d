/* The interface between bench_world.c (scenario, timing, JSON) and one
 * rigid-body engine (nscd, ODE, Bullet): every engine builds the same
 * scenario (scenario.h) and steps it; the driver times the steps.
 *
 * The peers are C (ODE) and C++ (Bullet): this header is C with extern "C"
 * guards so that bench/peers/bullet_world.cpp can implement it. */
#ifndef BENCH_WORLD_ENGINE_H
#define BENCH_WORLD_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "scenario.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What one step reports. */
typedef struct bw_step_stats {
    int32_t contacts;       /* contact points the solver saw in this step */
    double max_penetration; /* largest penetration depth at detection, m (>= 0) */
    /* sweeps (iterations) run in this step, every pass counted (nscd: its
     * sweeps plus its relax sweeps); left 0 by an engine that always runs
     * the scenario's count (ODE, Bullet) */
    int32_t sweeps;
} bw_step_stats;

/** A look at the state, to check that every engine simulated the same pile. */
typedef struct bw_state_summary {
    double mean_height;    /* mean z of the body centres, m */
    double max_speed;      /* largest |v|, m/s */
    double kinetic_energy; /* translation and rotation (mean principal moment), J */
    int32_t escaped;       /* bodies whose centre left the box */
    uint64_t state_hash;   /* FNV-1a 64 of the positions, velocities, angular velocities */
} bw_state_summary;

/** One engine. `create` returns NULL on failure with a message in `error`. */
typedef struct bw_engine {
    const char *name;
    void *(*create)(const bw_scenario *scenario, char *error, size_t error_size);
    /* 0 on success; a failing step writes a message into `error`. */
    int (*step)(void *engine, bw_step_stats *stats, char *error, size_t error_size);
    /* Positions and velocities of the bodies, 3 values each, in creation order. */
    int (*state)(void *engine, double *positions, double *velocities, double *angular_velocities);
    void (*destroy)(void *engine);
    /* What the engine's allocator hook counted (bench/world/counting.h). */
    const char *memory_method;
} bw_engine;

/* The engines this build has (NULL where not compiled in). */
const bw_engine *bw_engine_nscd(void);
const bw_engine *bw_engine_ode(void);
const bw_engine *bw_engine_bullet(void);

#ifdef __cplusplus
}
#endif

#endif /* BENCH_WORLD_ENGINE_H */
