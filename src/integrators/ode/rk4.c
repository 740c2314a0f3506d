/* Classical fixed-step fourth-order Runge–Kutta (the integrator of seed 000). */
#include <string.h>

#include "core/memory.h"
#include "integrators/ode/ode.h"

nscd_status nscd__rk4_create(const nscd_allocator *a, int32_t n, nscd__rk4 *rk) {
    memset(rk, 0, sizeof *rk);
    rk->n = n;
    int ok = 1;
    for (int s = 0; s < 4; ++s) {
        ok &= (rk->k[s] = nscd__alloc_array(a, (size_t)n, sizeof(double))) != NULL;
    }
    ok &= (rk->stage = nscd__alloc_array(a, (size_t)n, sizeof(double))) != NULL;
    if (!ok) {
        nscd__rk4_destroy(a, rk);
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    return NSCD_OK;
}

void nscd__rk4_destroy(const nscd_allocator *a, nscd__rk4 *rk) {
    size_t bytes = (size_t)rk->n * sizeof(double);
    for (int s = 0; s < 4; ++s) {
        nscd__free(a, rk->k[s], bytes);
    }
    nscd__free(a, rk->stage, bytes);
    memset(rk, 0, sizeof *rk);
}

nscd_status nscd__rk4_step(nscd__rk4 *rk, const nscd__ode *ode, double t, const double *y, double h,
                           double *y1) {
    static const double offset[4] = {0.0, 0.5, 0.5, 1.0};
    int32_t n = rk->n;
    for (int s = 0; s < 4; ++s) {
        const double *arg = y;
        if (s > 0) {
            for (int32_t i = 0; i < n; ++i) {
                rk->stage[i] = y[i] + offset[s] * h * rk->k[s - 1][i];
            }
            arg = rk->stage;
        }
        nscd_status rc = ode->f(ode->context, t + offset[s] * h, arg, rk->k[s]);
        if (rc != NSCD_OK) {
            return rc;
        }
    }
    for (int32_t i = 0; i < n; ++i) {
        y1[i] =
            y[i] + h * (rk->k[0][i] + 2.0 * rk->k[1][i] + 2.0 * rk->k[2][i] + rk->k[3][i]) / 6.0;
    }
    return NSCD_OK;
}
