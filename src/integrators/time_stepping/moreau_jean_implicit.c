/* Implicit forces in a Moreau–Jean step (Siconos' MoreauJeanOSI form,
 * docs/time_stepping.md):
 *
 *   M (v_{k+1} - v_k) = dt (θ f_{k+1} + (1 - θ) f_k) + H' P,
 *   f_{k+1} ≈ f_k - K Δq - C Δv,   Δq = dt (v_k + θ Δv),  Δv = v_{k+1} - v_k,
 *
 * with K = -dh/dq, C = -dh/dv at (t_k, q_k, v_k) and θ f_{k+1} + (1 - θ) f_k
 * in time taken as h(t_θ, q_k, v_k), give
 *
 *   W_it Δv = dt (h(t_θ, q_k, v_k) - θ dt K v_k) + H' P,
 *   W_it = M + θ dt C + θ² dt² K.
 *
 * The step then runs as with explicit forces, with W_it in place of M: the
 * problem assembly applies W_it^-1 through the mass_solve of a copy of the
 * model (ts->implicit.proxy), so v_free and the Delassus matrix
 * H W_it^-1 H' come out of the same code. W_it is dense (K couples the
 * velocities): models with one mass block only. It is solved by LU with
 * partial pivoting (LAPACK dgesv), not Cholesky: K and C of a generic system
 * need not be symmetric (follower forces, gyroscopic damping), and the
 * refactorisation per solve costs n^3 / 3 flops on a system small enough
 * for a dense mass matrix anyway. */
#include <string.h>

#include "core/check.h"
#include "core/dense.h"
#include "integrators/time_stepping/time_stepping_impl.h"

/* X = W_it^-1 B (n x nrhs, row-major): the proxy's mass_solve. */
static nscd_status implicit_solve(void *self, const double *q, int32_t block, int32_t nrhs,
                                  const double *B, double *X) {
    nscd__ts_implicit *im = self;
    (void)q, (void)block; /* one block, W_it of the step's q_k */
    size_t n = (size_t)im->n, nn = n * n, nb = n * (size_t)nrhs;
    if (!nscd__all_finite(B, nb)) { /* LAPACKE takes a NaN for an illegal argument */
        return nscd__fail(im->diag, NSCD_ERR_NOT_FINITE, "W_it^-1 b with a non-finite b");
    }
    double *A = nscd__arena_array(im->arena, nn, sizeof(double));
    int32_t *pivots = nscd__arena_array(im->arena, n, sizeof(int32_t));
    if (A == NULL || pivots == NULL) {
        return nscd__fail(im->diag, NSCD_ERR_OUT_OF_MEMORY, "LU of W_it (%d x %d)", (int)n, (int)n);
    }
    memcpy(A, im->W, nn * sizeof(double));
    memcpy(X, B, nb * sizeof(double));
    nscd_status rc = nscd__lu_solve(im->n, A, pivots, nrhs, X);
    if (rc != NSCD_OK) {
        return nscd__fail(im->diag, rc, "W_it = M + θ dt C + θ² dt² K is singular");
    }
    return nscd__all_finite(X, nb)
               ? NSCD_OK
               : nscd__fail(im->diag, NSCD_ERR_NOT_FINITE, "W_it is too ill-conditioned");
}

/* One Jacobian probe: bit when the model gives it, 0 when UNSUPPORTED. */
static nscd_status probe_one(nscd_time_stepping *ts, double *scratch, int32_t bit, int32_t *found) {
    nscd__model *m = ts->model;
    double *K = bit == NSCD__TS_HAS_K ? scratch : NULL, *C = K == NULL ? scratch : NULL;
    nscd_status rc = m->tangent(m->self, *m->t, m->q, m->v, K, C);
    if (rc == NSCD_OK) {
        *found |= bit;
    } else if (rc == NSCD_ERR_UNSUPPORTED) {
        /* an expected answer, not a failure: the model's last error must
         * not report it after a successful advance */
        nscd__diag_clear(m->diag);
    } else {
        return nscd__fail(&ts->diag, rc, "force Jacobian %s failed (%d)", K ? "K" : "C", (int)rc);
    }
    return NSCD_OK;
}

/* Which Jacobians the model gives (once, at the first step): none when it
 * has no tangent op, no dense mass matrix or more than one mass block (the
 * n_v x n_v scratch is only taken for a model with one dense block). */
static nscd_status probe(nscd_time_stepping *ts) {
    nscd__model *m = ts->model;
    int32_t found = 0;
    int usable = ts->options.forces != NSCD_TS_FORCES_EXPLICIT && m->tangent != NULL &&
                 m->mass_block != NULL && m->n_mass_blocks == 1 && m->n_v > 0;
    double *scratch = NULL;
    if (usable) {
        scratch = nscd__arena_array(&ts->arena, (size_t)m->n_v * (size_t)m->n_v, sizeof(double));
        if (scratch == NULL) {
            return nscd__fail(&ts->diag, NSCD_ERR_OUT_OF_MEMORY, "Jacobian probe");
        }
    }
    nscd_status rc = usable ? m->mass_block(m->self, m->q, 0, scratch) : NSCD_OK;
    if (rc == NSCD_ERR_UNSUPPORTED) { /* e.g. a system given mass_solve only */
        usable = 0;
        rc = NSCD_OK;
    } else if (rc != NSCD_OK) {
        return nscd__fail(&ts->diag, rc, "mass matrix failed (%d)", (int)rc);
    }
    for (int32_t bit = NSCD__TS_HAS_K; usable && rc == NSCD_OK && bit <= NSCD__TS_HAS_C; bit *= 2) {
        rc = probe_one(ts, scratch, bit, &found);
    }
    if (rc != NSCD_OK) {
        return rc;
    }
    if (found == 0 && ts->options.forces == NSCD_TS_FORCES_IMPLICIT) {
        return nscd__fail(&ts->diag, NSCD_ERR_UNSUPPORTED,
                          "implicit forces need a stiffness or damping callback and the mass "
                          "matrix of a model with one mass block");
    }
    ts->jacobians = found;
    return NSCD_OK;
}

/* W = M + c_C C + c_K K at (t, q, v) into the arena; M itself is kept in
 * im->M (the α schemes' residual M a - h needs it). */
static nscd_status build_w(nscd_time_stepping *ts, double t, const double *q, const double *v,
                           double c_damping, double c_stiffness) {
    nscd__model *m = ts->model;
    nscd__ts_implicit *im = &ts->implicit;
    size_t n = (size_t)m->n_v, nn = n * n;
    double *C = nscd__arena_array(&ts->arena, nn, sizeof(double));
    im->W = nscd__arena_array(&ts->arena, nn, sizeof(double));
    im->K = nscd__arena_array(&ts->arena, nn, sizeof(double));
    im->M = nscd__arena_array(&ts->arena, nn, sizeof(double));
    if (C == NULL || im->W == NULL || im->K == NULL || im->M == NULL) {
        return nscd__fail(&ts->diag, NSCD_ERR_OUT_OF_MEMORY, "W_it (%d x %d)", (int)n, (int)n);
    }
    int has_k = ts->jacobians & NSCD__TS_HAS_K, has_c = ts->jacobians & NSCD__TS_HAS_C;
    nscd_status rc = m->mass_block(m->self, q, 0, im->W);
    if (rc == NSCD_OK) {
        rc = m->tangent(m->self, t, q, v, has_k ? im->K : NULL, has_c ? C : NULL);
    }
    if (rc != NSCD_OK) {
        return nscd__fail(&ts->diag, rc, "mass matrix or force Jacobians failed (%d)", (int)rc);
    }
    memcpy(im->M, im->W, nn * sizeof(double));
    for (size_t i = 0; i < nn; ++i) {
        im->W[i] += (has_c ? c_damping * C[i] : 0.0) + (has_k ? c_stiffness * im->K[i] : 0.0);
    }
    im->K = has_k ? im->K : NULL;
    if (!nscd__all_finite(im->W, nn)) {
        return nscd__fail(&ts->diag, NSCD_ERR_NOT_FINITE, "W_it is not finite");
    }
    return NSCD_OK;
}

nscd_status nscd__ts_effective_setup(nscd_time_stepping *ts, double t, const double *q,
                                     const double *v, double c_damping, double c_stiffness,
                                     nscd__model **solver) {
    *solver = ts->model;
    nscd_status rc = ts->jacobians < 0 ? probe(ts) : NSCD_OK;
    if (rc != NSCD_OK || ts->jacobians == 0) {
        return rc;
    }
    rc = build_w(ts, t, q, v, c_damping, c_stiffness);
    if (rc != NSCD_OK) {
        return rc;
    }
    nscd__ts_implicit *im = &ts->implicit;
    im->proxy = *ts->model; /* the same entries and diagnostics; M^-1 -> W_it^-1 */
    im->proxy.self = im;
    im->proxy.mass_solve = implicit_solve;
    im->arena = &ts->arena;
    im->diag = &ts->diag;
    im->n = ts->model->n_v;
    *solver = &im->proxy;
    return NSCD_OK;
}

nscd_status nscd__mj_forces_setup(nscd_time_stepping *ts, double dt, nscd__model **solver) {
    nscd__model *m = ts->model;
    double theta = ts->options.theta;
    return nscd__ts_effective_setup(ts, *m->t, m->q, m->v, theta * dt, theta * theta * dt * dt,
                                    solver);
}

void nscd__mj_implicit_rhs(const nscd_time_stepping *ts, double dt, double *h) {
    const nscd__ts_implicit *im = &ts->implicit;
    if (im->K == NULL) {
        return;
    }
    double s = ts->options.theta * dt;
    for (int32_t i = 0; i < im->n; ++i) {
        h[i] -= s * nscd__dot(im->n, im->K + (size_t)i * (size_t)im->n, ts->model->v);
    }
}
