/* The fc3d sweeps: nonlinear block Gauss–Seidel (Sect. 3.1 of seed 002) and
 * its blend with a weighted block Jacobi (Sect. 5), on a block-CSR matrix. */
#include <math.h>
#include <string.h>

#include "contact/solvers/fc3d_internal.h"
#include "contact/solvers/fc3d_local.h"
#include "contact/solvers/fc3d_newton.h"
#include "contact/single/friction_cone.h"
#include "core/memory.h"
#include "core/struct_sizes.h"

typedef struct sweep_ctx {
    const nscd__fc3d_matrix *W;
    const double *q;
    const double *mu;
    const double *s;     /* impulse scales s_j = trace(W_jj) / 3 */
    const double *shift; /* lower bounds of the normal impulses (Coulomb), or NULL */
    nscd__fc3d_local_fn local;
    int32_t law; /* friction law, for the classified blocks (W->kind) */
    double relaxation;
    int32_t groups; /* contiguous groups swept by Gauss–Seidel, Jacobi between them */
    int32_t local_failures;
} sweep_ctx;

/* y += B x for a row-major 3x3 block. */
static void add_block_product(const double *B, const double *x, double y[3]) {
    y[0] += B[0] * x[0] + B[1] * x[1] + B[2] * x[2];
    y[1] += B[3] * x[0] + B[4] * x[1] + B[5] * x[2];
    y[2] += B[6] * x[0] + B[7] * x[1] + B[8] * x[2];
}

/* Local free velocity of contact j: v = q_j + sum_{k != j} W_jk r_k, where r_k
 * is taken from `fresh` for lo <= k < j (contacts of j's group already swept)
 * and from `old` otherwise. Terms are added in stored block order. */
static void local_velocity(const sweep_ctx *c, int32_t j, int32_t lo, const double *old,
                           const double *fresh, double v[3]) {
    const nscd__fc3d_matrix *W = c->W;
    v[0] = c->q[3 * j], v[1] = c->q[3 * j + 1], v[2] = c->q[3 * j + 2];
    for (int32_t b = W->row_ptr[j]; b < W->row_ptr[j + 1]; ++b) {
        int32_t k = W->col_idx[b];
        if (k == j) {
            continue;
        }
        const double *x = (k >= lo && k < j) ? fresh + 3 * k : old + 3 * k;
        add_block_product(W->blocks + 9 * (size_t)b, x, v);
    }
}

/* The block solve of contact j: the law's solver when the blocks were not
 * classified, else the one of its class (fc3d_block.h). */
static nscd_status block_solve(const sweep_ctx *c, int32_t j, const double *A, const double v[3],
                               double x[3]) {
    if (c->W->kind == NULL) {
        return c->local(A, v, c->mu[j], x);
    }
    return nscd__fc3d_block_solve(c->W->kind[j], c->law, A, v, c->mu[j], x);
}

static int32_t group_start(int32_t g, int32_t groups, int32_t n) {
    return (int32_t)((int64_t)g * n / groups);
}

/* One sweep from `old` into `fresh`; returns sum_j s_j^2 ||S_j - old_j||^2,
 * the squared scaled size of the unrelaxed block updates. */
static double sweep(sweep_ctx *c, const double *old, double *fresh) {
    int32_t n = c->W->n;
    double step2 = 0.0;
    for (int32_t g = 0; g < c->groups; ++g) {
        int32_t lo = group_start(g, c->groups, n), hi = group_start(g + 1, c->groups, n);
        for (int32_t j = lo; j < hi; ++j) {
            double v[3], x[3];
            const double *rj = old + 3 * j;
            local_velocity(c, j, lo, old, fresh, v);
            x[0] = rj[0], x[1] = rj[1], x[2] = rj[2];
            const double *A = c->W->blocks + 9 * (size_t)c->W->diag[j];
            nscd_status st = c->shift != NULL
                                 ? nscd__fc3d_local_coulomb_shifted(A, v, c->mu[j], c->shift[j], x)
                                 : block_solve(c, j, A, v, x);
            if (st != NSCD_OK) {
                ++c->local_failures; /* keep the block's previous value */
                x[0] = rj[0], x[1] = rj[1], x[2] = rj[2];
            }
            double *out = fresh + 3 * j;
            for (int i = 0; i < 3; ++i) {
                double d = x[i] - rj[i];
                step2 += c->s[j] * c->s[j] * d * d;
                out[i] = c->relaxation == 1.0 ? x[i] : rj[i] + c->relaxation * d;
            }
        }
    }
    return step2;
}

/* Merit numerator ||e||_2 of r (see fc3d.h) and u = W r + q. */
static double merit_norm(sweep_ctx *c, int32_t law, const double *r, double *u) {
    int32_t n = c->W->n;
    double e2 = 0.0;
    for (int32_t j = 0; j < n; ++j) {
        double v[3];
        const double *rj = r + 3 * j;
        const double *A = c->W->blocks + 9 * (size_t)c->W->diag[j];
        local_velocity(c, j, n, r, r, v); /* lo = n: every r_k from r */
        double *uj = u + 3 * j;
        uj[0] = v[0], uj[1] = v[1], uj[2] = v[2];
        add_block_product(A, rj, uj);
        if (c->shift != NULL) {
            e2 += nscd__coulomb_residual2_bounded(rj, uj, c->mu[j], c->s[j], c->s[j] * c->shift[j]);
        } else if (law == NSCD_FC3D_COULOMB) {
            e2 += nscd__coulomb_residual2(rj, uj, c->mu[j], c->s[j]);
        } else {
            double x[3] = {rj[0], rj[1], rj[2]};
            if (block_solve(c, j, A, v, x) != NSCD_OK) {
                return INFINITY;
            }
            for (int i = 0; i < 3; ++i) {
                double d = c->s[j] * (rj[i] - x[i]);
                e2 += d * d;
            }
        }
    }
    return sqrt(e2);
}

static double norm2(const double *x, size_t m) {
    double s = 0.0;
    for (size_t i = 0; i < m; ++i) {
        s += x[i] * x[i];
    }
    return sqrt(s);
}

nscd_status nscd__fc3d_run(const nscd__fc3d_matrix *W, const double *q, const double *mu,
                           const nscd_fc3d_options *opts, double *r, double *u,
                           nscd_fc3d_info *info) {
    if (opts->method == NSCD_FC3D_NEWTON || opts->method == NSCD_FC3D_AUTO) {
        return nscd__fc3d_newton_run(W, q, mu, opts, r, u, info); /* fc3d_newton.c */
    }
    size_t size = NSCD__FC3D_RUN_WORK((size_t)W->n) * sizeof(double);
    nscd_allocator al = nscd__allocator_resolve(&opts->allocator);
    double *work = nscd__alloc(&al, size);
    if (work == NULL) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    nscd_status status = nscd__fc3d_run_work(W, q, mu, NULL, opts, r, u, info, work);
    nscd__free(&al, work, size);
    return status;
}

nscd_status nscd__fc3d_run_work(const nscd__fc3d_matrix *W, const double *q, const double *mu,
                                const double *shift, const nscd_fc3d_options *opts, double *r,
                                double *u, nscd_fc3d_info *info, double *work) {
    if (opts->method == NSCD_FC3D_NEWTON || opts->method == NSCD_FC3D_AUTO) {
        return NSCD_ERR_UNSUPPORTED; /* sweeps only; Newton through nscd__fc3d_run() */
    }
    int32_t n = W->n;
    size_t m = 3 * (size_t)n;
    double *cur = work, *fresh = work + m, *uw = work + 2 * m, *s = work + 3 * m;
    for (int32_t j = 0; j < n; ++j) {
        const double *A = W->blocks + 9 * (size_t)W->diag[j];
        s[j] = (A[0] + A[4] + A[8]) / 3.0;
    }
    if (opts->warm_start) {
        memcpy(cur, r, m * sizeof *cur);
    } else {
        memset(cur, 0, m * sizeof *cur);
    }
    sweep_ctx c = {W, q, mu, s, shift, NULL, opts->friction_law, opts->relaxation, 1, 0};
    c.local =
        opts->friction_law == NSCD_FC3D_COULOMB ? nscd__fc3d_local_coulomb : nscd__fc3d_local_mdp;
    double blend = 1.0;
    if (opts->method == NSCD_FC3D_JACOBI_BLEND) {
        c.groups = opts->jacobi_groups < n ? opts->jacobi_groups : n;
        blend = opts->jacobi_weight;
    }
    double qn = norm2(q, m);
    if (shift != NULL) { /* the bounds set a velocity scale too: s_j shift_j */
        double b2 = 0.0;
        for (int32_t j = 0; j < n; ++j) {
            b2 += (s[j] * shift[j]) * (s[j] * shift[j]);
        }
        qn = sqrt(qn * qn + b2);
    }
    double qscale = qn > 0.0 ? qn : 1.0;
    double tol = opts->tolerance, merit = INFINITY, last = INFINITY;
    int32_t it = 0, evaluations = 0, converged = 0;
    while (it < opts->max_iterations) {
        last = sqrt(sweep(&c, cur, fresh)) / qscale;
        ++it;
        if (blend == 1.0) { /* plain Gauss–Seidel: the sweep's result is the iterate */
            double *t = cur;
            cur = fresh;
            fresh = t;
        } else { /* weighted Jacobi between groups */
            for (size_t i = 0; i < m; ++i) {
                cur[i] += blend * (fresh[i] - cur[i]);
            }
        }
        if (last <= tol || it == opts->max_iterations || !isfinite(last)) {
            merit = merit_norm(&c, opts->friction_law, cur, uw) / qscale;
            ++evaluations;
            if (merit <= tol) {
                converged = 1;
                break;
            }
            if (!isfinite(last)) {
                break; /* diverged (e.g. a too large Jacobi weight): report it */
            }
        }
    }
    memcpy(r, cur, m * sizeof *r);
    memcpy(u, uw, m * sizeof *u);
    if (info != NULL) { /* only the fields the caller's release has */
        nscd_fc3d_info full = {.iterations = it,
                               .merit = merit,
                               .converged = converged,
                               .merit_evaluations = evaluations,
                               .last_update = last,
                               .local_failures = c.local_failures};
        nscd__struct_write(info, &full, sizeof full, NSCD__FC3D_INFO_SIZE_0_1);
    }
    return converged ? NSCD_OK : NSCD_ERR_NOT_CONVERGED;
}
