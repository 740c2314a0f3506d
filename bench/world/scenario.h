/* The scenario of bench_world: N equal spheres poured into an open box
 * (a floor and four walls) from a grid with a small deterministic jitter. */
#ifndef BENCH_WORLD_SCENARIO_H
#define BENCH_WORLD_SCENARIO_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bw_scenario {
    int32_t bodies;         /* number of spheres */
    int32_t sweeps;         /* solver iterations per step, every engine */
    double dt;              /* time step, s */
    double radius;          /* of every sphere, m */
    double density;         /* kg/m^3 */
    double friction;        /* mu of every contact */
    double error_reduction; /* ERP: a penetration d is corrected at ERP d / dt */
    double gravity;         /* m/s^2 along -z */
    double box[2];          /* inner size of the box in x and y (floor z = 0,
                               walls at x = 0, x = box[0], y = 0, y = box[1]) */
    double *positions;      /* 3 * bodies initial centres (owned) */
} bw_scenario;

/* Fills the scenario for `bodies` spheres (radius 0.5 m, density 1000, grid of
 * LAYERS layers); 0 on success, -1 when out of memory. */
int bw_scenario_init(bw_scenario *s, int32_t bodies, int32_t sweeps, double dt, double friction);
void bw_scenario_free(bw_scenario *s);

/* Layers of the initial grid: the floor area grows with N so that the pile
 * has the same depth (and contacts per body) at every size. */
#define BW_LAYERS 10

#ifdef __cplusplus
}
#endif

#endif /* BENCH_WORLD_SCENARIO_H */
