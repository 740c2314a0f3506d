/* bench_world --scene chains | stack (bench/world/chains.c). */
#ifndef BW_CHAINS_H
#define BW_CHAINS_H

#include <stdint.h>

typedef struct bw_chains_result {
    int32_t bodies, links, joints, steps; /* bodies: the spheres; links: the chains' capsules */
    int ok;
    char error[256];
    double steps_per_second, max_joint_drift, contacts_avg, max_speed;
    /* FNV-1a 64 of every body's final position, orientation, velocity and
     * angular velocity (storage order): equal bits, equal hash */
    unsigned long long state_hash;
} bw_chains_result;

/* Runs the scene and prints its JSON; 0 when every run succeeded (and, for
 * the stack, came to rest). variant (chains only): NULL runs all three
 * ("with", "without", "loose"), a name only that one (for profiling; no
 * joints_cost then). */
int bw_chains_main(const char *scene, int32_t spheres, int32_t warmup, int32_t steps, double dt,
                   int32_t sweeps, const char *variant);

#endif
