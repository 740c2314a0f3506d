/* Options of bench_world's nscd engine (bench/world/nscd_world.c). */
#ifndef BENCH_WORLD_NSCD_WORLD_H
#define BENCH_WORLD_NSCD_WORLD_H

#include <stdint.h>

/* Picks the friction law (nscd_friction_law) of the next nscd worlds
 * (default: Coulomb). */
void bw_nscd_set_friction_law(int32_t law);

#endif /* BENCH_WORLD_NSCD_WORLD_H */
