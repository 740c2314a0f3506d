/* Dense LCP by Murty's least-index principal pivoting (Murty 1974).
 *
 * The basis B is the set of indices with z_i > 0 (w_i = 0). Each pivot solves
 * M_BB z_B = -q_B, computes w = M z + q and toggles the least index that
 * violates z_B >= 0 or w_N >= 0. For a P-matrix every basis has a regular
 * block and the least-index rule cannot cycle, so the loop ends with the
 * unique solution; the pivot budget only guards against non-P input. The
 * next basis depends on the current one only, so a run longer than the 2^n
 * bases has revisited one and cycles for ever: the budget is 2^n pivots (at
 * most MAX_PIVOTS), which also ends a hopeless small problem quickly.
 *
 * A symmetric positive semidefinite M of lower rank (the Delassus matrix of
 * dependent rows: a box on twelve coplanar points) is no P-matrix: every
 * basis of more independent rows than its rank is exactly singular, and
 * whether the pivoting enters one, and what it divides by there, is decided
 * by round-off. Such an M (rank by core/redundant.h, relative to the
 * problem's scale) is solved by proximal iterations on M + eps D, each a
 * P-matrix LCP for the pivoting, warm started from the last basis, the
 * result checked against M (docs/time_stepping.md, "Redundant rows"). */
#include <string.h>

#include "core/check.h"
#include "core/dense.h"
#include "core/redundant.h"
#include "nscd/lcp.h"

#define MAX_PIVOTS 20000

typedef struct lcp_work {
    double block[NSCD_LCP_MAX_SIZE * NSCD_LCP_MAX_SIZE];
    double rhs[NSCD_LCP_MAX_SIZE];
    int32_t pivots[NSCD_LCP_MAX_SIZE];
    int32_t basis[NSCD_LCP_MAX_SIZE]; /* indices in B, ascending */
    int32_t in_basis[NSCD_LCP_MAX_SIZE];
    double z[NSCD_LCP_MAX_SIZE];
    double w[NSCD_LCP_MAX_SIZE];
    int32_t n;
    /* the rank test and the proximal iterations */
    double redundant[NSCD__REDUNDANT_WORK(NSCD_LCP_MAX_SIZE)];
} lcp_work;

/* z for the current basis: z_B = -M_BB^-1 q_B, z_N = 0; then w = M z + q. */
static nscd_status solve_basis(int32_t n, const double *M, const double *q, lcp_work *k) {
    int32_t nb = 0;
    for (int32_t i = 0; i < n; ++i) {
        if (k->in_basis[i]) {
            k->basis[nb++] = i;
        }
    }
    for (int32_t r = 0; r < nb; ++r) {
        for (int32_t c = 0; c < nb; ++c) {
            k->block[r * nb + c] = M[k->basis[r] * n + k->basis[c]];
        }
        k->rhs[r] = -q[k->basis[r]];
    }
    if (nb > 0 && nscd__lu_solve(nb, k->block, k->pivots, 1, k->rhs) != NSCD_OK) {
        return NSCD_ERR_SINGULAR;
    }
    memset(k->z, 0, (size_t)n * sizeof(double));
    for (int32_t r = 0; r < nb; ++r) {
        k->z[k->basis[r]] = k->rhs[r];
    }
    for (int32_t i = 0; i < n; ++i) {
        k->w[i] = q[i] + nscd__dot(n, M + (size_t)i * (size_t)n, k->z);
    }
    return nscd__all_finite(k->z, (size_t)n) ? NSCD_OK : NSCD_ERR_SINGULAR;
}

/* Tolerances of the sign tests. w is in the units of q (a velocity), z in
 * those of q / M (an impulse): a basic z_i above -tol_z counts as zero, and
 * clipping it to zero moves each w_j by at most max|M| tol_z = tol_w. (One
 * tolerance in the units of q for both made the result depend on the scale
 * of M: with M ~ 1e12, basic z_i of -1e-5 |z| were accepted and clipped.) */
static void sign_tolerances(int32_t n, const double *M, const double *q, double *tol_w,
                            double *tol_z) {
    double qmax = 0.0, mmax = 0.0;
    for (int32_t i = 0; i < n; ++i) {
        qmax = fmax(qmax, fabs(q[i]));
        for (int32_t j = 0; j < n; ++j) {
            mmax = fmax(mmax, fabs(M[i * n + j]));
        }
    }
    *tol_w = 1e-13 * qmax;
    *tol_z = mmax > 0.0 ? *tol_w / mmax : *tol_w;
}

/* Murty's pivoting from the basis in k->in_basis; z (and w) on success. */
static nscd_status pivoting(int32_t n, const double *M, const double *q, lcp_work *k, double *z,
                            double *w) {
    double tol_w, tol_z;
    sign_tolerances(n, M, q, &tol_w, &tol_z);
    const int32_t budget = n < 15 ? (int32_t)1 << n : MAX_PIVOTS;
    for (int32_t pivot = 0; pivot < budget; ++pivot) {
        nscd_status rc = solve_basis(n, M, q, k);
        if (rc != NSCD_OK) {
            return rc;
        }
        int32_t leave = -1;
        for (int32_t i = 0; i < n && leave < 0; ++i) {
            if ((k->in_basis[i] && k->z[i] < -tol_z) || (!k->in_basis[i] && k->w[i] < -tol_w)) {
                leave = i;
            }
        }
        if (leave < 0) {
            for (int32_t i = 0; i < n; ++i) { /* remove rounding-level negatives */
                z[i] = fmax(k->z[i], 0.0);
                if (w != NULL) {
                    w[i] = k->in_basis[i] ? 0.0 : fmax(k->w[i], 0.0);
                }
            }
            return NSCD_OK;
        }
        k->in_basis[leave] = !k->in_basis[leave];
    }
    return NSCD_ERR_NOT_CONVERGED;
}

/* One proximal iteration: the P-matrix LCP on M + eps D from the last
 * basis, and from the empty basis if that runs out of pivots. */
static nscd_status proximal_step(void *user, const double *M, const double *q, double *z) {
    lcp_work *k = user;
    nscd_status rc = pivoting(k->n, M, q, k, z, NULL);
    if (rc != NSCD_OK) {
        memset(k->in_basis, 0, sizeof k->in_basis);
        rc = pivoting(k->n, M, q, k, z, NULL);
    }
    return rc;
}

nscd_status nscd_lcp_solve_dense(int32_t n, const double *M, const double *q, double *z,
                                 double *w) {
    if (M == NULL || q == NULL || z == NULL) {
        return n == 0 && z != NULL ? NSCD_OK : NSCD_ERR_NULL_POINTER;
    }
    if (n < 0 || n > NSCD_LCP_MAX_SIZE) {
        return NSCD_ERR_INVALID_ARGUMENT;
    }
    if (!nscd__all_finite(M, (size_t)n * (size_t)n) || !nscd__all_finite(q, (size_t)n)) {
        return NSCD_ERR_NOT_FINITE;
    }
    lcp_work k;
    memset(k.in_basis, 0, sizeof k.in_basis);
    k.n = n;
    int32_t rank = nscd__redundant_rank(n, M, k.redundant);
    if (rank < 0 || rank == n) { /* a general or a regular matrix: as before */
        return pivoting(n, M, q, &k, z, w);
    }
    double solution[NSCD_LCP_MAX_SIZE];
    nscd_status rc =
        nscd__redundant_proximal(n, M, q, NULL, proximal_step, &k, solution, k.redundant);
    if (rc != NSCD_OK) {
        return rc;
    }
    for (int32_t i = 0; i < n; ++i) {
        z[i] = solution[i];
        if (w != NULL) {
            double u = q[i] + nscd__dot(n, M + (size_t)i * (size_t)n, solution);
            w[i] = solution[i] > 0.0 ? 0.0 : fmax(u, 0.0);
        }
    }
    return NSCD_OK;
}
