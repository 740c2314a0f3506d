/* Options of bench_world's ODE engine (bench/peers/ode_world.c). */
#ifndef BENCH_WORLD_ODE_WORLD_H
#define BENCH_WORLD_ODE_WORLD_H

#ifdef __cplusplus
extern "C" {
#endif

/** ODE's broad phases (collision spaces). */
enum {
    BW_ODE_SPACE_AUTO = -1,
    BW_ODE_SPACE_HASH = 0,
    BW_ODE_SPACE_SAP = 1,
    BW_ODE_SPACE_QUADTREE = 2
};

/** Picks the space of the next ODE worlds (default: auto, the fastest measured,
 *  the quadtree at every size). */
void bw_ode_set_space(int kind);

#ifdef __cplusplus
}
#endif

#endif /* BENCH_WORLD_ODE_WORLD_H */
