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
    double *f; /* Anderson: receives s_j (out_j - old_j), or NULL */
    double f2; /* Anderson: ||f||^2 of the sweep */
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

/* The Gauss–Seidel update of contact j: the shifted Coulomb solve of the
 * proximal/global path when there is a shift, else block_solve(). */
static nscd_status update_solve(const sweep_ctx *c, int32_t j, const double *A, const double v[3],
                                double x[3]) {
    return c->shift != NULL ? nscd__fc3d_local_coulomb_shifted(A, v, c->mu[j], c->shift[j], x)
                            : block_solve(c, j, A, v, x);
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
            if (update_solve(c, j, A, v, x) != NSCD_OK) {
                ++c->local_failures; /* keep the block's previous value */
                x[0] = rj[0], x[1] = rj[1], x[2] = rj[2];
            }
            double *out = fresh + 3 * j;
            for (int i = 0; i < 3; ++i) {
                double d = x[i] - rj[i];
                step2 += c->s[j] * c->s[j] * d * d;
                out[i] = c->relaxation == 1.0 ? x[i] : rj[i] + c->relaxation * d;
            }
            if (c->f != NULL) {
                double *fj = c->f + 3 * j;
                for (int i = 0; i < 3; ++i) {
                    fj[i] = c->s[j] * (out[i] - rj[i]);
                    c->f2 += fj[i] * fj[i];
                }
            }
        }
    }
    return step2;
}

/* The Gauss–Seidel block update of contact j at x: y = the local solution
 * for v = q_j + sum_{k != j} W_jk x_k (add_block_product(), written out:
 * kept inline), from y = x_j. */
static nscd_status block_update(sweep_ctx *c, const double *x, int32_t j, double y[3]) {
    const nscd__fc3d_matrix *W = c->W;
    double v[3];
    const double *xj = x + 3 * j;
    double v0 = c->q[3 * j], v1 = c->q[3 * j + 1], v2 = c->q[3 * j + 2];
    for (int32_t b = W->row_ptr[j]; b < W->row_ptr[j + 1]; ++b) {
        int32_t k = W->col_idx[b];
        if (k != j) {
            const double *B = W->blocks + 9 * (size_t)b, *xk = x + 3 * k;
            v0 += B[0] * xk[0] + B[1] * xk[1] + B[2] * xk[2];
            v1 += B[3] * xk[0] + B[4] * xk[1] + B[5] * xk[2];
            v2 += B[6] * xk[0] + B[7] * xk[1] + B[8] * xk[2];
        }
    }
    v[0] = v0, v[1] = v1, v[2] = v2;
    y[0] = xj[0], y[1] = xj[1], y[2] = xj[2];
    const double *A = W->blocks + 9 * (size_t)W->diag[j];
    return update_solve(c, j, A, v, y);
}

/* One Gauss–Seidel sweep in place (one group): x becomes T(x); writes
 * c->f = S (T(x) - x) and adds ||f||^2 to c->f2. Bitwise the values of
 * sweep(c, x, fresh) with groups = 1, one vector read instead of two. */
static double sweep_inplace(sweep_ctx *c, double *x) {
    int32_t n = c->W->n;
    double step2 = 0.0, f2 = 0.0;
    for (int32_t j = 0; j < n; ++j) {
        double y[3];
        double *xj = x + 3 * j;
        if (block_update(c, x, j, y) != NSCD_OK) {
            ++c->local_failures; /* keep the block's previous value */
            y[0] = xj[0], y[1] = xj[1], y[2] = xj[2];
        }
        double *fj = c->f + 3 * j, sj = c->s[j];
        for (int i = 0; i < 3; ++i) {
            double d = y[i] - xj[i];
            step2 += sj * sj * d * d;
            double out = c->relaxation == 1.0 ? y[i] : xj[i] + c->relaxation * d;
            fj[i] = sj * (out - xj[i]);
            f2 += fj[i] * fj[i];
            xj[i] = out;
        }
    }
    c->f2 += f2;
    return step2;
}

/* Gauss–Seidel block updates, in place, of the contacts list[0..count-1] only
 * (the others fixed): the same block update as sweep_inplace(). */
static void sweep_subset(sweep_ctx *c, double *x, const int32_t *list, int32_t count) {
    for (int32_t t = 0; t < count; ++t) {
        int32_t j = list[t];
        double y[3];
        double *xj = x + 3 * j;
        if (block_update(c, x, j, y) != NSCD_OK) {
            ++c->local_failures;
            continue;
        }
        for (int i = 0; i < 3; ++i) {
            xj[i] = c->relaxation == 1.0 ? y[i] : xj[i] + c->relaxation * (y[i] - xj[i]);
        }
    }
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
    if (opts->method == NSCD_FC3D_NEWTON || opts->method == NSCD_FC3D_AUTO ||
        opts->method == NSCD_FC3D_PROX) {
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

/* The stagnation rule of run_anderson(): when ||f|| of the accepted iterates
 * falls by less than the factor AA_STALL over AA_WINDOW * m accepted steps, up
 * to AA_PLAIN_SWEEPS * m plain sweeps (fewer when ||f|| halves), then a fresh
 * history. AA_STEP_WEIGHT: the least-squares problem also penalises the step,
 * ||f - dF gamma||^2 + w ||S dG gamma||^2 with w = AA_STEP_WEIGHT
 * trace(dF'dF) / trace((S dG)'(S dG)), so that gamma cannot move the iterate
 * far along directions the residual does not see (the null space of W on a
 * hyperstatic cluster). Values measured in docs/fc3d.md "Acceleration". */
#define AA_WINDOW 2
#define AA_STALL 0.9
#define AA_PLAIN_SWEEPS 10
#define AA_STEP_WEIGHT 0.07

/* Anderson acceleration of the sweep map T (docs/fc3d.md "Acceleration").
 * Residuals are scaled per contact, f = S (T(x) - x) with S = diag(s_j) (the
 * merit's velocity scale), so that the least-squares problem is unweighted.
 * Columns: dF_i = f_{i+1} - f_i and dG_i = T(x_{i+1}) - T(x_i) of the last
 * `mem` accepted iterates. */
typedef struct anderson {
    int32_t mem, count, next; /* capacity, columns held, slot written next */
    int32_t n;
    size_t m;
    const double *s; /* n contact scales */
    double *dF, *dG; /* mem columns of m doubles, by rows: entry i of column l at [i mem + l] */
    double *f, *fprev, *gprev; /* f of x; f and T of the last accepted iterate */
    double *gram, *chol;       /* mem x mem: dF_i' dF_k and its Cholesky factor */
    double *gramg;             /* mem x mem: (S dG_i)' (S dG_k) */
    double *rhs, *gamma;       /* mem: dF_i' f, the coefficients */
    int32_t *mark, *list;      /* n each: the cluster of the local sweeps */
} anderson;

/* Adds the column pair (f - fprev, g - gprev) in slot `next` (the oldest when
 * full), and in the same pass the new row of the Gram matrix and dF_i' f for
 * every column i. */
static void anderson_push(anderson *a, const double *g) {
    size_t m = a->m;
    int32_t k = a->next, mem = a->mem;
    a->next = (k + 1) % mem;
    if (a->count < mem) {
        ++a->count;
    }
    int32_t c = a->count;
    double gr[NSCD_FC3D_ANDERSON_MAX_MEMORY] = {0}, rh[NSCD_FC3D_ANDERSON_MAX_MEMORY] = {0};
    double gg[NSCD_FC3D_ANDERSON_MAX_MEMORY] = {0};
    for (size_t i = 0; i < m; ++i) {
        double fi = a->f[i];
        double d = fi - a->fprev[i];
        double *row = a->dF + i * (size_t)mem; /* entry i of every column, contiguous */
        row[k] = d;
        double *rowg = a->dG + i * (size_t)mem;
        double dg = g[i] - a->gprev[i];
        rowg[k] = dg;
        double si = a->s[i / 3], sdg = si * dg;
        for (int32_t l = 0; l < c; ++l) {
            double x = row[l];
            gr[l] += d * x;
            rh[l] += x * fi;
            gg[l] += sdg * (si * rowg[l]);
        }
    }
    for (int32_t l = 0; l < c; ++l) {
        a->gram[k * mem + l] = gr[l];
        a->gram[l * mem + k] = gr[l];
        a->gramg[k * mem + l] = gg[l];
        a->gramg[l * mem + k] = gg[l];
        a->rhs[l] = rh[l];
    }
}

/* gamma = argmin ||f - dF gamma||^2 + w ||S dG gamma||^2 by the regularised
 * normal equations (G + w H + 1e-8 trace(G)/count I) gamma = dF' f (Cholesky),
 * G = dF'dF, H = (S dG)'(S dG), w = AA_STEP_WEIGHT trace(G) / trace(H). Returns 0 when the
 * system is not positive definite or gamma not finite (no extrapolation). */
static int anderson_coefficients(anderson *a) {
    int32_t c = a->count, mem = a->mem;
    double tr = 0.0;
    for (int32_t i = 0; i < c; ++i) {
        tr += a->gram[i * mem + i];
    }
    if (!(tr > 0.0) || !isfinite(tr)) {
        return 0;
    }
    double reg = 1e-8 * tr / c;
    double trg = 0.0;
    for (int32_t i = 0; i < c; ++i) {
        trg += a->gramg[i * mem + i];
    }
    double wg = trg > 0.0 ? AA_STEP_WEIGHT * tr / trg : 0.0;
    double *L = a->chol, *g = a->gamma;
    for (int32_t i = 0; i < c; ++i) {
        for (int32_t k = 0; k <= i; ++k) {
            double t = a->gram[i * mem + k] + wg * a->gramg[i * mem + k] + (i == k ? reg : 0.0);
            for (int32_t l = 0; l < k; ++l) {
                t -= L[i * mem + l] * L[k * mem + l];
            }
            if (i == k) {
                if (!(t > 0.0)) {
                    return 0;
                }
                L[i * mem + i] = sqrt(t);
            } else {
                L[i * mem + k] = t / L[k * mem + k];
            }
        }
    }
    for (int32_t i = 0; i < c; ++i) { /* forward: L y = dF' f */
        double t = a->rhs[i];
        for (int32_t l = 0; l < i; ++l) {
            t -= L[i * mem + l] * g[l];
        }
        g[i] = t / L[i * mem + i];
    }
    for (int32_t i = c - 1; i >= 0; --i) { /* backward: L' gamma = y */
        double t = g[i];
        for (int32_t l = i + 1; l < c; ++l) {
            t -= L[l * mem + i] * g[l];
        }
        g[i] = t / L[i * mem + i];
    }
    for (int32_t i = 0; i < c; ++i) {
        if (!isfinite(g[i])) {
            return 0;
        }
    }
    return 1;
}

/* Bytes of memory the Anderson state needs beyond NSCD__FC3D_RUN_WORK. */
static size_t anderson_bytes(size_t m, int32_t mem) {
    return ((3 + 2 * (size_t)mem) * m + 3 * (size_t)mem * (size_t)mem + 2 * (size_t)mem) *
               sizeof(double) +
           2 * (m / 3) * sizeof(int32_t);
}

static void anderson_init(anderson *a, int32_t n, int32_t mem, const double *s, void *mem_block) {
    size_t m = 3 * (size_t)n;
    a->mem = mem, a->count = 0, a->next = 0, a->n = n, a->m = m, a->s = s;
    a->f = mem_block;
    a->fprev = a->f + m;
    a->gprev = a->fprev + m;
    a->gram = a->gprev + m;
    a->chol = a->gram + (size_t)mem * mem;
    a->gramg = a->chol + (size_t)mem * mem;
    a->rhs = a->gramg + (size_t)mem * mem;
    a->gamma = a->rhs + mem;
    a->dF = a->gamma + mem;
    a->dG = a->dF + (size_t)mem * m;
    a->mark = (int32_t *)(a->dG + (size_t)mem * m);
    a->list = a->mark + n;
    memset(a->mark, 0, (size_t)n * sizeof *a->mark);
}

/* The local sweeps of run_anderson() (docs/fc3d.md "Local sweeps"): after
 * each full sweep, the contacts j whose share of the residual is
 * ||f_j||^2 >= AA_LOCAL_SHARE ||f||^2, with their neighbours in W (one ring),
 * get AA_LOCAL_SWEEPS Gauss–Seidel sweeps of their own, the other contacts
 * fixed, when they are at most n / AA_LOCAL_MAX_PART contacts (a concentrated
 * residual). Values measured in docs/fc3d.md, Run F. */
#define AA_LOCAL_SHARE 1e-3
#define AA_LOCAL_SWEEPS 20
#define AA_LOCAL_MAX_PART 20

/* The local sweeps on x, from f = S (T(x_k) - x_k) of the last full sweep with
 * ||f||^2 = res2. a->mark is all zero on entry and on return. */
static void local_sweeps(sweep_ctx *c, anderson *a, const double *f, double res2, double *x) {
    const nscd__fc3d_matrix *W = c->W;
    int32_t n = a->n, count = 0, limit = n / AA_LOCAL_MAX_PART;
    if (!(res2 > 0.0) || limit < 1) {
        return;
    }
    double floor2 = AA_LOCAL_SHARE * res2;
    for (int32_t j = 0; j < n && count <= limit; ++j) {
        const double *fj = f + 3 * j;
        if (fj[0] * fj[0] + fj[1] * fj[1] + fj[2] * fj[2] >= floor2) {
            a->mark[j] = 1;
            a->list[count++] = j;
        }
    }
    int32_t seeds = count;
    for (int32_t t = 0; t < seeds && count <= limit; ++t) { /* their neighbours */
        int32_t j = a->list[t];
        for (int32_t b = W->row_ptr[j]; b < W->row_ptr[j + 1]; ++b) {
            int32_t k = W->col_idx[b];
            if (!a->mark[k]) {
                a->mark[k] = 1;
                a->list[count++] = k;
            }
        }
    }
    if (count > 0 && count <= limit) {
        int32_t sorted = 0; /* ascending, Gauss–Seidel's order; marks cleared */
        for (int32_t j = 0; j < n && sorted < count; ++j) {
            if (a->mark[j]) {
                a->mark[j] = 0;
                a->list[sorted++] = j;
            }
        }
        for (int32_t k = 0; k < AA_LOCAL_SWEEPS; ++k) {
            sweep_subset(c, x, a->list, count);
        }
        return;
    }
    for (int32_t t = 0; t < count; ++t) {
        a->mark[a->list[t]] = 0;
    }
}

/* The sweeps with Anderson acceleration and the residual safeguard. Same
 * stopping test as the plain loop; the merit is always evaluated at, and the
 * result is, a sweep's output T(x) (each block in its feasible set).
 * `cur`, `fresh` and a->gprev are exchanged as the iteration goes; the result
 * is copied to `out`. */
static void run_anderson(sweep_ctx *c, const nscd_fc3d_options *opts, double blend, double qscale,
                         anderson *a, double *cur, double *fresh, double *uw, double *out,
                         nscd_fc3d_info *full) {
    size_t m = a->m;
    double tol = opts->tolerance, merit = INFINITY, last = INFINITY, res_prev = INFINITY;
    int32_t it = 0, evaluations = 0, converged = 0, extrapolated = 0, have_prev = 0;
    /* stagnation: accepted steps in the window, its reference ||f||^2, plain sweeps left */
    int32_t window = 0, plain = 0, plain_max = AA_PLAIN_SWEEPS * a->mem;
    double window_ref = INFINITY, plain_ref = INFINITY;
    while (it < opts->max_iterations) {
        c->f = a->f; /* the sweep writes f = S (T(x) - x) and ||f||^2 */
        c->f2 = 0.0;
        if (c->groups == 1 && blend == 1.0) { /* Gauss–Seidel in place: cur becomes T(cur) */
            last = sqrt(sweep_inplace(c, cur)) / qscale;
            double *t = cur;
            cur = fresh;
            fresh = t;
        } else {
            last = sqrt(sweep(c, cur, fresh)) / qscale;
        }
        ++it;
        double res2 = c->f2;
        if (blend != 1.0) {
            for (size_t i = 0; i < m; ++i) {
                fresh[i] = cur[i] + blend * (fresh[i] - cur[i]);
                a->f[i] *= blend;
            }
            res2 *= blend * blend;
        }
        if (last <= tol || it == opts->max_iterations || !isfinite(last)) {
            merit = merit_norm(c, opts->friction_law, fresh, uw) / qscale;
            ++evaluations;
            if (merit <= tol) {
                converged = 1;
                break;
            }
            if (!isfinite(last) || it == opts->max_iterations) {
                break;
            }
        }
        if (extrapolated && !(res2 <= res_prev)) {
            /* safeguard: back to the plain sweep of the last accepted iterate */
            memcpy(cur, a->gprev, m * sizeof *cur);
            a->count = 0, a->next = 0;
            extrapolated = 0;
            continue;
        }
        if (plain > 0) { /* after a stagnation: plain sweeps until ||f|| halves */
            --plain;
            if (res2 <= 0.25 * plain_ref) {
                plain = 0;
            }
            if (plain == 0) {
                a->count = 0, a->next = 0;
                window = 0, window_ref = res2;
            }
        } else if (++window >= AA_WINDOW * a->mem) {
            if (res2 > AA_STALL * AA_STALL * window_ref) {
                /* ||f|| reduced by less than 10 % over the window: the history
                 * cancels a drift of the sweeps (docs/fc3d.md); plain sweeps */
                plain = plain_max, plain_ref = res2;
                a->count = 0, a->next = 0;
            }
            window = 0, window_ref = res2;
        }
        if (have_prev && plain == 0) {
            anderson_push(a, fresh);
        }
        double *t = a->fprev; /* the accepted iterate's f and T(x) become the previous ones */
        a->fprev = a->f;
        a->f = t;
        t = a->gprev;
        a->gprev = fresh;
        fresh = t;
        have_prev = 1;
        res_prev = res2;
        extrapolated = plain == 0 && a->count > 0 && anderson_coefficients(a);
        if (extrapolated) { /* x = T(x) - dG gamma */
            int32_t cnt = a->count;
            for (size_t i = 0; i < m; ++i) {
                double x = a->gprev[i];
                const double *row = a->dG + i * (size_t)a->mem;
                for (int32_t l = 0; l < cnt; ++l) {
                    x -= a->gamma[l] * row[l];
                }
                cur[i] = x;
            }
        } else {
            memcpy(cur, a->gprev, m * sizeof *cur);
        }
        local_sweeps(c, a, a->fprev, res_prev, cur);
    }
    memcpy(out, fresh, m * sizeof *out);
    full->iterations = it;
    full->merit = merit;
    full->converged = converged;
    full->merit_evaluations = evaluations;
    full->last_update = last;
}

nscd_status nscd__fc3d_run_work(const nscd__fc3d_matrix *W, const double *q, const double *mu,
                                const double *shift, const nscd_fc3d_options *opts, double *r,
                                double *u, nscd_fc3d_info *info, double *work) {
    if (opts->method == NSCD_FC3D_NEWTON || opts->method == NSCD_FC3D_AUTO ||
        opts->method == NSCD_FC3D_PROX) {
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
    sweep_ctx c = {W, q, mu, s, shift, NULL, opts->friction_law, opts->relaxation, 1, 0, NULL, 0.0};
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
    if (opts->acceleration == NSCD_FC3D_ACCEL_ANDERSON) {
        size_t size = anderson_bytes(m, opts->anderson_memory);
        nscd_allocator al = nscd__allocator_resolve(&opts->allocator);
        void *block = nscd__alloc(&al, size);
        if (block == NULL) {
            return NSCD_ERR_OUT_OF_MEMORY;
        }
        anderson a;
        anderson_init(&a, n, opts->anderson_memory, s, block);
        nscd_fc3d_info full = {0};
        run_anderson(&c, opts, blend, qscale, &a, cur, fresh, uw, r, &full);
        nscd__free(&al, block, size);
        memcpy(u, uw, m * sizeof *u);
        full.local_failures = c.local_failures;
        if (info != NULL) {
            nscd__struct_write(info, &full, sizeof full, NSCD__FC3D_INFO_SIZE_0_1);
        }
        return full.converged ? NSCD_OK : NSCD_ERR_NOT_CONVERGED;
    }
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
