/* Without ODE: bench_world's --ode-space option is accepted and ignored. */
#include "ode_world.h"

void bw_ode_set_space(int kind) { (void)kind; }
