/* fc3d options: defaults and the argument checks both entry points share. */
#include <math.h>
#include <string.h>

#include "contact/solvers/fc3d_internal.h"
#include "contact/solvers/fc3d_newton.h"
#include "core/check.h"
#include "core/memory.h"
#include "core/struct_sizes.h"

/* The documented defaults, in a complete struct of the current size. */
static void option_defaults(nscd_fc3d_options *opts) {
    memset(opts, 0, sizeof *opts);
    opts->friction_law = NSCD_FC3D_COULOMB;
    opts->tolerance = 1e-10;
    opts->max_iterations = 1000;
    opts->relaxation = 1.0;
    opts->method = NSCD_FC3D_GAUSS_SEIDEL;
    opts->jacobi_weight = 0.5;
    opts->jacobi_groups = 8;
    opts->warm_start = 1;
    opts->acceleration = NSCD_FC3D_ACCEL_NONE;
    opts->anderson_memory = 5;
}

nscd_status nscd_fc3d_options_init(nscd_fc3d_options *opts, size_t struct_size) {
    nscd_fc3d_options defaults;
    option_defaults(&defaults);
    return nscd__struct_init(opts, struct_size, &defaults, sizeof defaults,
                             NSCD__FC3D_OPTIONS_SIZE_0_1);
}

static nscd_status check_options(const nscd_fc3d_options *o) {
    if ((o->friction_law != NSCD_FC3D_COULOMB && o->friction_law != NSCD_FC3D_MAX_DISSIPATION) ||
        o->method < NSCD_FC3D_GAUSS_SEIDEL || o->method > NSCD_FC3D_PROX ||
        (o->acceleration != NSCD_FC3D_ACCEL_NONE && o->acceleration != NSCD_FC3D_ACCEL_ANDERSON) ||
        !nscd__allocator_valid(&o->allocator)) {
        return NSCD_ERR_INVALID_ARGUMENT;
    }
    if (!isfinite(o->tolerance) || !isfinite(o->relaxation) || !isfinite(o->jacobi_weight)) {
        return NSCD_ERR_NOT_FINITE;
    }
    if (!(o->tolerance > 0.0) || o->max_iterations < 1 || !(o->relaxation > 0.0) ||
        o->relaxation > 1.0 || !(o->jacobi_weight > 0.0) || o->jacobi_weight > 1.0 ||
        o->jacobi_groups < 1 || o->anderson_memory < 1 ||
        o->anderson_memory > NSCD_FC3D_ANDERSON_MAX_MEMORY) {
        return NSCD_ERR_OUT_OF_RANGE;
    }
    return NSCD_OK;
}

nscd_status nscd__fc3d_check_args(int32_t n, int32_t max_contacts, const double *q,
                                  const double *mu, const nscd_fc3d_options *opts, const double *r,
                                  const double *u, const nscd_fc3d_info *info,
                                  nscd_fc3d_options *resolved) {
    if (q == NULL || mu == NULL || r == NULL || u == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    if (n <= 0 || n > max_contacts || n > NSCD__FC3D_MAX_CONTACTS) {
        return NSCD_ERR_INVALID_ARGUMENT;
    }
    if (info != NULL &&
        !nscd__struct_size_ok(info->struct_size, NSCD__FC3D_INFO_SIZE_0_1, sizeof *info)) {
        return NSCD_ERR_STRUCT_SIZE;
    }
    option_defaults(resolved);
    if (opts != NULL) { /* an older, shorter struct: defaults for the rest */
        nscd_status st =
            nscd__struct_read(resolved, sizeof *resolved, opts, NSCD__FC3D_OPTIONS_SIZE_0_1);
        if (st == NSCD_OK) {
            st = check_options(resolved);
        }
        if (st == NSCD_OK) { /* Newton: Coulomb only, size limit of the dense LU */
            st = nscd__fc3d_newton_check(n, resolved);
        }
        if (st != NSCD_OK) {
            return st;
        }
    }
    size_t m = 3 * (size_t)n;
    if (!nscd__all_finite(q, m) || !nscd__all_finite(mu, (size_t)n) ||
        (resolved->warm_start && !nscd__all_finite(r, m))) {
        return NSCD_ERR_NOT_FINITE;
    }
    for (int32_t j = 0; j < n; ++j) {
        if (mu[j] < 0.0) {
            return NSCD_ERR_OUT_OF_RANGE;
        }
    }
    return NSCD_OK;
}
