/* Options of bench_world's nscd engine (bench/world/nscd_world.c). */
#ifndef BENCH_WORLD_NSCD_WORLD_H
#define BENCH_WORLD_NSCD_WORLD_H

#include <stdint.h>

/* Picks the friction law (nscd_friction_law) of the next nscd worlds
 * (default: Coulomb). */
void bw_nscd_set_friction_law(int32_t law);
/* Sets nscd_world_desc::threads of the next nscd worlds (default 0). */
void bw_nscd_set_threads(int32_t threads);

#endif /* BENCH_WORLD_NSCD_WORLD_H */
