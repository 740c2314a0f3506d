/* Impulsive corrections on the first K velocities only
 * (nscd_time_stepping_options::impulse_velocities, docs/time_stepping.md
 * and docs/flexible_bodies.md): the correction's local problem is built on a
 * proxy of the model whose mass solve is
 *
 *     X = [M_KK^-1 B_K; 0],
 *
 * so W = H_K M_KK^-1 H_K' and Δv = M_KK^-1 H_K' Λ on the first K
 * velocities, Δv = 0 on the others. For a floating-frame body with its
 * reference coordinates first this is the impact of the same body made
 * rigid at its current shape: its elastic velocities keep their values
 * through the impact instead of taking part in it (the paper says nothing
 * on what its impacts act on; with the full M a stiff rod's impacts excite
 * its stiff modes, whose energy the scheme then damps). M_KK is the leading
 * block of the model's mass matrix (mass_block; one block) at q, solved by
 * LU as ed_alpha.c does. */
#include <string.h>

#include "core/dense.h"
#include "integrators/alpha/mixed_impl.h"

static nscd_status subspace_solve(void *self, const double *q, int32_t block, int32_t nrhs,
                                  const double *B, double *X) {
    nscd__impulse_subspace *s = self;
    (void)block;
    size_t n = (size_t)s->real->n_v, k = (size_t)s->k, w = (size_t)nrhs;
    double *M = nscd__arena_array(s->arena, n * n, sizeof(double));
    double *A = nscd__arena_array(s->arena, k * k, sizeof(double));
    int32_t *pivots = nscd__arena_array(s->arena, k, sizeof(int32_t));
    if (M == NULL || A == NULL || pivots == NULL) {
        return nscd__fail(s->diag, NSCD_ERR_OUT_OF_MEMORY, "impulse subspace of %d velocities",
                          (int)k);
    }
    nscd_status rc = s->real->mass_block(s->real->self, q, 0, M);
    if (rc != NSCD_OK) {
        return nscd__fail(s->diag, rc, "impulse subspace: the mass matrix (status %d)", (int)rc);
    }
    for (size_t i = 0; i < k; ++i) {
        memcpy(A + i * k, M + i * n, k * sizeof(double));
    }
    memset(X, 0, n * w * sizeof(double));
    memcpy(X, B, k * w * sizeof(double)); /* row-major: the first k rows */
    if (nscd__lu_solve(s->k, A, pivots, nrhs, X) != NSCD_OK) {
        return nscd__fail(s->diag, NSCD_ERR_SINGULAR,
                          "impulse subspace: the leading %d x %d block of M is singular", (int)k,
                          (int)k);
    }
    return NSCD_OK;
}

nscd__model *nscd__impulse_subspace_model(nscd_time_stepping *ts, nscd__impulse_subspace *s) {
    if (ts->options.impulse_velocities <= 0) {
        return ts->model;
    }
    s->model = *ts->model;
    s->model.self = s;
    s->model.mass_solve = subspace_solve;
    s->real = ts->model;
    s->arena = &ts->arena;
    s->diag = &ts->diag;
    s->k = ts->options.impulse_velocities;
    return &s->model;
}
