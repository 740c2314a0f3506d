/* The fc3d diagonal blocks: classification (regular, semi-definite, refused),
 * the block solves that depend on it, and the public checking functions
 * (see fc3d_block.h and docs/fc3d.md). */
#include "contact/solvers/fc3d_block.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "contact/solvers/fc3d_internal.h"
#include "contact/solvers/fc3d_local.h"
#include "core/check.h"
#include "core/memory.h"
#include "core/struct_sizes.h"
#include "nscd/single_contact.h"

/* Eigenvalues of a symmetric 3x3 matrix by cyclic Jacobi rotations (accurate
 * to a few ulps of its norm); returns the smallest. */
static double min_eigenvalue_sym3(const double S[9]) {
    double a[3][3];
    for (int i = 0; i < 3; ++i) {
        for (int k = 0; k < 3; ++k) {
            a[i][k] = S[3 * i + k];
        }
    }
    for (int sweep = 0; sweep < 50; ++sweep) {
        double off = fabs(a[0][1]) + fabs(a[0][2]) + fabs(a[1][2]);
        double diag = fabs(a[0][0]) + fabs(a[1][1]) + fabs(a[2][2]);
        if (!(off > DBL_EPSILON * 1e-3 * diag)) {
            break;
        }
        for (int p = 0; p < 2; ++p) {
            for (int q = p + 1; q < 3; ++q) {
                if (a[p][q] == 0.0) {
                    continue;
                }
                double theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
                double t = (theta >= 0.0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
                double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
                for (int k = 0; k < 3; ++k) { /* columns p, q */
                    double akp = a[k][p], akq = a[k][q];
                    a[k][p] = c * akp - s * akq;
                    a[k][q] = s * akp + c * akq;
                }
                for (int k = 0; k < 3; ++k) { /* rows p, q */
                    double apk = a[p][k], aqk = a[q][k];
                    a[p][k] = c * apk - s * aqk;
                    a[q][k] = s * apk + c * aqk;
                }
            }
        }
    }
    return fmin(a[0][0], fmin(a[1][1], a[2][2]));
}

nscd__fc3d_block_class nscd__fc3d_block_classify(const double A[9]) {
    nscd__fc3d_block_class c = {NSCD_FC3D_BLOCK_REGULAR, 0.0, NAN, NAN};
    if (!nscd__all_finite(A, 9)) {
        c.kind = NSCD_FC3D_BLOCK_NOT_FINITE;
        c.scale = NAN;
        return c;
    }
    c.scale = (A[0] + A[4] + A[8]) / 3.0;
    if (!(c.scale > 0.0)) {
        c.kind = NSCD_FC3D_BLOCK_NOT_POSITIVE;
        return c;
    }
    double S[9];
    double asym = 0.0;
    for (int i = 0; i < 3; ++i) {
        for (int k = 0; k < 3; ++k) {
            S[3 * i + k] = 0.5 * (A[3 * i + k] + A[3 * k + i]);
            asym = fmax(asym, fabs(A[3 * i + k] - A[3 * k + i]));
        }
    }
    c.asymmetry = asym / c.scale;
    c.min_eigenvalue = min_eigenvalue_sym3(S) / c.scale;
    if (c.min_eigenvalue > NSCD__FC3D_PD_TOL) {
        c.kind = NSCD_FC3D_BLOCK_REGULAR;
    } else if (c.min_eigenvalue >= -NSCD__FC3D_PSD_TOL) {
        c.kind = NSCD_FC3D_BLOCK_SEMIDEFINITE;
    } else {
        c.kind = NSCD_FC3D_BLOCK_INDEFINITE;
    }
    return c;
}

nscd_status nscd__fc3d_block_status(int32_t kind) {
    switch (kind) {
    case NSCD_FC3D_BLOCK_REGULAR:
    case NSCD_FC3D_BLOCK_SEMIDEFINITE: return NSCD_OK;
    case NSCD_FC3D_BLOCK_NOT_FINITE: return NSCD_ERR_NOT_FINITE;
    default: return NSCD_ERR_NOT_SPD;
    }
}

nscd_status nscd__fc3d_check_diag_block(const double A[9]) {
    double amax = fmax(fabs(A[0]), fmax(fabs(A[4]), fabs(A[8])));
    if (!(amax > 0.0)) {
        return NSCD_ERR_NOT_SPD;
    }
    double tol = 1e-10 * amax;
    if (fabs(A[1] - A[3]) > tol || fabs(A[2] - A[6]) > tol || fabs(A[5] - A[7]) > tol) {
        return NSCD_ERR_NOT_SPD;
    }
    /* LDL' of the symmetric part; pivots must be positive (relative to the
     * largest diagonal entry, so that the block solvers see a well-posed A). */
    double a10 = 0.5 * (A[1] + A[3]), a20 = 0.5 * (A[2] + A[6]), a21 = 0.5 * (A[5] + A[7]);
    double d0 = A[0];
    if (!(d0 > 1e-14 * amax)) {
        return NSCD_ERR_NOT_SPD;
    }
    double l10 = a10 / d0, l20 = a20 / d0;
    double d1 = A[4] - l10 * a10;
    if (!(d1 > 1e-14 * amax)) {
        return NSCD_ERR_NOT_SPD;
    }
    double l21 = (a21 - l20 * a10) / d1;
    double d2 = A[8] - l20 * a20 - l21 * l21 * d1;
    return d2 > 1e-14 * amax ? NSCD_OK : NSCD_ERR_NOT_SPD;
}

static int exactly_symmetric(const double A[9]) {
    return A[1] == A[3] && A[2] == A[6] && A[5] == A[7];
}

/* The SPD block B and right-hand side b with which the analytic solver
 * minimises  1/2 y'G y + y'h  over F (the feasible set of A's first row and
 * v): B keeps A's first row (so F is the same), and on the plane
 * (A y + v)_n = 0, which holds F, the two objectives differ by a constant.
 * With a = (A_01, A_02)/A_00 and P = [-a'; I] (a basis of the plane's
 * directions): B's tangential block T = P'GP + A_00 a a', b_n = -v_n,
 * b_t = w_t + A_00 a (b_n - w_n) / A_00 with w = (B - G) y0 - h, y0 = (-v_n/A_00) e_n. */
static void equivalent_problem(const double A[9], const double G[9], const double v[3],
                               const double h[3], double B[9], double b[3]) {
    double ann = A[0], a[2] = {A[1] / A[0], A[2] / A[0]};
    double PGP[2][2];
    for (int i = 0; i < 2; ++i) {
        for (int k = 0; k < 2; ++k) {
            PGP[i][k] = G[3 * (1 + i) + 1 + k] - a[i] * G[1 + k] - G[3 * (1 + i)] * a[k] +
                        a[i] * a[k] * G[0];
        }
    }
    B[0] = ann, B[1] = A[1], B[2] = A[2];
    B[3] = A[1], B[6] = A[2];
    B[4] = PGP[0][0] + ann * a[0] * a[0];
    B[8] = PGP[1][1] + ann * a[1] * a[1];
    B[5] = B[7] = 0.5 * (PGP[0][1] + PGP[1][0]) + ann * a[0] * a[1];
    double y0n = -v[0] / ann, w[3];
    for (int i = 0; i < 3; ++i) {
        w[i] = (B[3 * i] - G[3 * i]) * y0n - h[i];
    }
    b[0] = -v[0];
    b[1] = w[1] + a[0] * (b[0] - w[0]);
    b[2] = w[2] + a[1] * (b[0] - w[0]);
}

nscd_status nscd__fc3d_local_mdp_general(const double A[9], const double v[3], double mu,
                                         double rho, double x[3]) {
    if (v[0] > 0.0) { /* F = {0}: (A z)_n >= 0 forbids u_n = 0 with z_n > 0 */
        x[0] = x[1] = x[2] = 0.0;
        return NSCD_OK;
    }
    double s = (A[0] + A[4] + A[8]) / 3.0;
    if (!(A[0] > NSCD__FC3D_PD_TOL * s)) {
        return NSCD_ERR_NOT_SPD; /* the normal row does not move the contact */
    }
    double G[9], N[9];
    for (int i = 0; i < 3; ++i) {
        for (int k = 0; k < 3; ++k) {
            G[3 * i + k] = 0.5 * (A[3 * i + k] + A[3 * k + i]) + (i == k ? rho : 0.0);
            N[3 * i + k] = 0.5 * (A[3 * i + k] - A[3 * k + i]);
        }
    }
    /* The skew part's size k in the metric of G on the plane: with P's
     * columns p0 = (-a0, 1, 0), p1 = (-a1, 0, 1), P'NP = [0 c; -c 0] and
     * k = |c| / sqrt(det P'GP). Step 1/(1 + k^2), contraction k/sqrt(1 + k^2). */
    double p[2][3] = {{-A[1] / A[0], 1.0, 0.0}, {-A[2] / A[0], 0.0, 1.0}};
    double PGP[2][2], c = 0.0;
    for (int i = 0; i < 2; ++i) {
        for (int k = 0; k < 2; ++k) {
            double gik = 0.0, nik = 0.0;
            for (int r = 0; r < 3; ++r) {
                for (int t = 0; t < 3; ++t) {
                    gik += p[i][r] * G[3 * r + t] * p[k][t];
                    nik += p[i][r] * N[3 * r + t] * p[k][t];
                }
            }
            PGP[i][k] = gik;
            c = (i == 0 && k == 1) ? nik : c;
        }
    }
    double det = PGP[0][0] * PGP[1][1] - PGP[0][1] * PGP[1][0];
    if (!(det > 0.0)) {
        return NSCD_ERR_NOT_SPD;
    }
    double k2 = c * c / det, gamma = 1.0 / (1.0 + k2);
    double contraction = sqrt(k2 / (1.0 + k2));
    /* Stop when the error bound contraction / (1 - contraction) * step (Banach)
     * is below 1e-13 of the iterate, or the step is at rounding level. */
    double stop = contraction > 0.0
                      ? fmax(64.0 * DBL_EPSILON, 1e-13 * (1.0 - contraction) / contraction)
                      : INFINITY; /* k = 0: one step is exact */
    /* Steps that stall below NSCD__FC3D_MDP_FLOOR of the iterate are the
     * analytic solver's own error, not the iteration's: on a degenerate conic
     * (a hyperbola) its objective is flat along the boundary and its
     * minimiser is good to about sqrt(eps) relative, and the steps wander
     * there (in a cycle, or at random) instead of shrinking. After
     * NSCD__FC3D_MDP_STALLS such steps that do not shrink the smallest step
     * so far (measured in G, where they contract; by (1 + contraction)/2)
     * the iterate is as good as it gets and is accepted. Before, the 2000
     * steps were spent in vain: 10 s for a 3-contact problem the fuzzer
     * found. Larger steps never count: away from the floor the steps may
     * grow for a while (the contraction holds on the plane u_n = 0). */
    double shrink = 0.5 * (1.0 + contraction), smallest = INFINITY;
    int stalls = 0;
    double y[3] = {x[0], x[1], x[2]};
    for (int it = 0; it < NSCD__FC3D_MDP_STEPS; ++it) {
        double F[3], h[3], B[9], b[3], next[3];
        for (int i = 0; i < 3; ++i) {
            F[i] = v[i] + rho * (y[i] - x[i]);
            for (int k = 0; k < 3; ++k) {
                F[i] += A[3 * i + k] * y[k];
            }
        }
        for (int i = 0; i < 3; ++i) { /* objective 1/2 z'Gz + z'h, h = gamma F - G y */
            h[i] = gamma * F[i] - (G[3 * i] * y[0] + G[3 * i + 1] * y[1] + G[3 * i + 2] * y[2]);
        }
        equivalent_problem(A, G, v, h, B, b);
        nscd_status st = nscd_mdp_single_contact(B, b, mu, next);
        if (st != NSCD_OK) {
            return st;
        }
        double d[3] = {next[0] - y[0], next[1] - y[1], next[2] - y[2]};
        double step = hypot(hypot(d[0], d[1]), d[2]);
        double size = hypot(hypot(next[0], next[1]), next[2]);
        y[0] = next[0], y[1] = next[1], y[2] = next[2];
        if (!isfinite(size)) {
            return NSCD_ERR_NOT_CONVERGED;
        }
        if (step <= stop * size) {
            x[0] = y[0], x[1] = y[1], x[2] = y[2];
            return NSCD_OK;
        }
        double g_step = 0.0; /* the step in the metric G, where the steps contract */
        for (int i = 0; i < 3; ++i) {
            g_step += d[i] * (G[3 * i] * d[0] + G[3 * i + 1] * d[1] + G[3 * i + 2] * d[2]);
        }
        g_step = sqrt(fmax(g_step, 0.0));
        if (g_step <= shrink * smallest) {
            smallest = g_step;
            stalls = 0;
        } else if (step <= NSCD__FC3D_MDP_FLOOR * size && ++stalls == NSCD__FC3D_MDP_STALLS) {
            x[0] = y[0], x[1] = y[1], x[2] = y[2];
            return NSCD_OK;
        }
    }
    return NSCD_ERR_NOT_CONVERGED;
}

nscd_status nscd__fc3d_block_solve(int32_t kind, int32_t law, const double A[9], const double v[3],
                                   double mu, double x[3]) {
    if (kind == NSCD_FC3D_BLOCK_REGULAR) {
        if (law == NSCD_FC3D_COULOMB) {
            return nscd__fc3d_local_coulomb(A, v, mu, x);
        }
        return exactly_symmetric(A) ? nscd__fc3d_local_mdp(A, v, mu, x)
                                    : nscd__fc3d_local_mdp_general(A, v, mu, 0.0, x);
    }
    double rho = NSCD__FC3D_PROX * (A[0] + A[4] + A[8]) / 3.0;
    if (law == NSCD_FC3D_COULOMB) { /* u = (A + rho I) y + (v - rho x): fixed point y = x */
        double Ar[9], vr[3];
        memcpy(Ar, A, sizeof Ar);
        Ar[0] += rho, Ar[4] += rho, Ar[8] += rho;
        for (int i = 0; i < 3; ++i) {
            vr[i] = v[i] - rho * x[i];
        }
        return nscd__fc3d_local_coulomb(Ar, vr, mu, x);
    }
    return nscd__fc3d_local_mdp_general(A, v, mu, rho, x);
}

static const char *kind_reason(int32_t kind) {
    switch (kind) {
    case NSCD_FC3D_BLOCK_NOT_FINITE: return "a NaN or infinite entry";
    case NSCD_FC3D_BLOCK_NOT_POSITIVE: return "trace <= 0 (a zero or negative block has no scale)";
    default: return "its symmetric part is indefinite";
    }
}

nscd_status nscd__fc3d_classify_rows(int32_t n, nscd__fc3d_diag_getter get, const void *matrix,
                                     int8_t *kind, nscd_fc3d_block_report *report) {
    nscd_fc3d_block_report rep;
    memset(&rep, 0, sizeof rep);
    rep.struct_size = sizeof rep;
    rep.refused_block = -1;
    rep.refused_kind = NSCD_FC3D_BLOCK_REGULAR;
    rep.min_eigenvalue = INFINITY;
    nscd_status status = NSCD_OK;
    nscd__fc3d_block_class refused = {0, 0.0, 0.0, 0.0};
    for (int32_t j = 0; j < n; ++j) {
        double A[9];
        get(matrix, j, A);
        nscd__fc3d_block_class c = nscd__fc3d_block_classify(A);
        if (c.kind == NSCD_FC3D_BLOCK_REGULAR || c.kind == NSCD_FC3D_BLOCK_SEMIDEFINITE) {
            rep.n_regular += c.kind == NSCD_FC3D_BLOCK_REGULAR;
            rep.n_semidefinite += c.kind == NSCD_FC3D_BLOCK_SEMIDEFINITE;
            if (kind != NULL) {
                kind[j] = (int8_t)c.kind;
            }
        } else if (rep.refused_block < 0) {
            rep.refused_block = j;
            rep.refused_kind = c.kind;
            refused = c;
            status = nscd__fc3d_block_status(c.kind);
        }
        if (isfinite(c.asymmetry)) {
            rep.max_asymmetry = fmax(rep.max_asymmetry, c.asymmetry);
            rep.min_eigenvalue = fmin(rep.min_eigenvalue, c.min_eigenvalue);
        }
        if (report == NULL && status != NSCD_OK) {
            return status; /* nobody reads the rest */
        }
    }
    if (report == NULL) {
        return status;
    }
    if (rep.refused_block >= 0 && refused.kind == NSCD_FC3D_BLOCK_INDEFINITE) {
        snprintf(rep.message, sizeof rep.message,
                 "diagonal block %d refused: %s (smallest eigenvalue %.3g trace/3)",
                 (int)rep.refused_block, kind_reason(refused.kind), refused.min_eigenvalue);
    } else if (rep.refused_block >= 0) {
        snprintf(rep.message, sizeof rep.message, "diagonal block %d refused: %s",
                 (int)rep.refused_block, kind_reason(refused.kind));
    } else {
        snprintf(rep.message, sizeof rep.message,
                 "%d diagonal blocks accepted: %d regular, %d semi-definite", (int)n,
                 (int)rep.n_regular, (int)rep.n_semidefinite);
    }
    *report = rep;
    return status;
}
