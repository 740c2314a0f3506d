/* Options of bench_world's nscd engine (bench/world/nscd_world.c). */
#ifndef BENCH_WORLD_NSCD_WORLD_H
#define BENCH_WORLD_NSCD_WORLD_H

#include <stdint.h>

/* Picks the friction law (nscd_friction_law) of the next nscd worlds
 * (default: Coulomb). */
void bw_nscd_set_friction_law(int32_t law);
/* Sets nscd_world_desc::threads of the next nscd worlds (default 0). */
void bw_nscd_set_threads(int32_t threads);
/* Sets nscd_world_desc::contact_margin of the next nscd worlds to `fraction`
 * times the scenario's radius r (default, or fraction < 0: the world's
 * default, 1 mm). */
void bw_nscd_set_margin(double fraction);
/* How many of the scenario's sweeps the next nscd worlds give to the relax
 * pass (nscd_world_desc::relax_sweeps; default 3, at most sweeps - 1); the
 * others are nscd_world_desc::max_sweeps. */
void bw_nscd_set_relax(int32_t relax_sweeps);
/* Sets nscd_world_desc::max_correction_speed of the next nscd worlds, m/s
 * (default 3). */
void bw_nscd_set_correction_speed(double speed);

#endif /* BENCH_WORLD_NSCD_WORLD_H */
