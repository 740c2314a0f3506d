/* Small dense kernels with a fixed summation order (see dense_small.h).
 *
 * Why a fixed order is enough: element-wise updates (the LU's rank-one
 * updates, axpy) give the same bits however the compiler vectorises them;
 * reductions (dot products) are written as four interleaved partial sums added
 * in one order, which C forbids the compiler to reassociate; and the build's
 * -ffp-contract=off forbids fusing a*b+c into one rounding. */
#include "core/dense_small.h"

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#define AT(M, ld, i, j) ((M)[(size_t)(i) * (size_t)(ld) + (size_t)(j)])
#define MAX_SWEEPS 64

double nscd__small_dot(int32_t n, const double *restrict x, const double *restrict y) {
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    int32_t i = 0;
    for (; i + 4 <= n; i += 4) {
        s0 += x[i] * y[i];
        s1 += x[i + 1] * y[i + 1];
        s2 += x[i + 2] * y[i + 2];
        s3 += x[i + 3] * y[i + 3];
    }
    double s = (s0 + s1) + (s2 + s3);
    for (; i < n; ++i) {
        s += x[i] * y[i];
    }
    return s;
}

void nscd__small_gemv(int32_t m, int32_t n, const double *restrict A, const double *restrict x,
                      double *restrict y) {
    for (int32_t i = 0; i < m; ++i) {
        y[i] = nscd__small_dot(n, A + (size_t)i * (size_t)n, x);
    }
}

/* row := a * src + row, element-wise (any vectorisation gives the same bits) */
static void axpy(int32_t n, double a, const double *restrict src, double *restrict row) {
    for (int32_t j = 0; j < n; ++j) {
        row[j] += a * src[j];
    }
}

void nscd__small_gemm_nn(int32_t m, int32_t n, int32_t k, const double *restrict A,
                         const double *restrict B, double *restrict C) {
    for (int32_t i = 0; i < m; ++i) {
        double *c = C + (size_t)i * (size_t)n;
        memset(c, 0, (size_t)n * sizeof(double));
        for (int32_t p = 0; p < k; ++p) {
            axpy(n, AT(A, k, i, p), B + (size_t)p * (size_t)n, c);
        }
    }
}

void nscd__small_gemm_nt(int32_t m, int32_t n, int32_t k, const double *restrict A,
                         const double *restrict B, double *restrict C) {
    for (int32_t i = 0; i < m; ++i) {
        for (int32_t j = 0; j < n; ++j) {
            AT(C, n, i, j) =
                nscd__small_dot(k, A + (size_t)i * (size_t)k, B + (size_t)j * (size_t)k);
        }
    }
}

void nscd__small_gemm_tn(int32_t m, int32_t n, int32_t k, const double *restrict A,
                         const double *restrict B, double *restrict C) {
    for (int32_t i = 0; i < m; ++i) {
        double *c = C + (size_t)i * (size_t)n;
        memset(c, 0, (size_t)n * sizeof(double));
        for (int32_t p = 0; p < k; ++p) {
            axpy(n, AT(A, m, p, i), B + (size_t)p * (size_t)n, c);
        }
    }
}

static void swap_rows(double *restrict a, double *restrict b, int32_t n) {
    for (int32_t j = 0; j < n; ++j) {
        double t = a[j];
        a[j] = b[j];
        b[j] = t;
    }
}

/* Right-looking Gaussian elimination (LAPACK's dgetf2 order): at step k the
 * pivot row is swapped up, the column below the pivot divided by it, and the
 * trailing block updated row by row, each row an element-wise axpy. */
nscd_status nscd__small_lu_factor(int32_t n, double *restrict A, int32_t *restrict pivots) {
    for (int32_t k = 0; k < n; ++k) {
        int32_t p = k;
        double largest = fabs(AT(A, n, k, k));
        for (int32_t i = k + 1; i < n; ++i) {
            double v = fabs(AT(A, n, i, k));
            if (v > largest) {
                largest = v;
                p = i;
            }
        }
        pivots[k] = p;
        if (!(largest > 0.0) || !isfinite(largest)) {
            return NSCD_ERR_SINGULAR; /* exactly singular, or NaN/Inf in the column */
        }
        double *row_k = A + (size_t)k * (size_t)n;
        if (p != k) {
            swap_rows(row_k, A + (size_t)p * (size_t)n, n);
        }
        double pivot = row_k[k];
        int32_t rest = n - k - 1;
        for (int32_t i = k + 1; i < n; ++i) {
            double *row_i = A + (size_t)i * (size_t)n;
            double l = row_i[k] / pivot;
            row_i[k] = l;
            if (l != 0.0) {
                axpy(rest, -l, row_k + k + 1, row_i + k + 1);
            }
        }
    }
    return NSCD_OK;
}

void nscd__small_lu_solve(int32_t n, const double *restrict LU, const int32_t *restrict pivots,
                          int32_t nrhs, double *restrict B) {
    for (int32_t i = 0; i < n; ++i) {
        if (pivots[i] != i) {
            swap_rows(B + (size_t)i * (size_t)nrhs, B + (size_t)pivots[i] * (size_t)nrhs, nrhs);
        }
    }
    if (nrhs == 1) { /* one right-hand side: row-wise dot products */
        for (int32_t i = 1; i < n; ++i) {
            B[i] -= nscd__small_dot(i, LU + (size_t)i * (size_t)n, B);
        }
        for (int32_t i = n - 1; i >= 0; --i) {
            const double *row = LU + (size_t)i * (size_t)n;
            B[i] = (B[i] - nscd__small_dot(n - i - 1, row + i + 1, B + i + 1)) / row[i];
        }
        return;
    }
    for (int32_t i = 1; i < n; ++i) { /* L y = P b, row i minus earlier rows in order */
        double *b_i = B + (size_t)i * (size_t)nrhs;
        for (int32_t j = 0; j < i; ++j) {
            double l = AT(LU, n, i, j);
            if (l != 0.0) {
                axpy(nrhs, -l, B + (size_t)j * (size_t)nrhs, b_i);
            }
        }
    }
    for (int32_t i = n - 1; i >= 0; --i) { /* U x = y */
        double *b_i = B + (size_t)i * (size_t)nrhs;
        for (int32_t j = i + 1; j < n; ++j) {
            double u = AT(LU, n, i, j);
            if (u != 0.0) {
                axpy(nrhs, -u, B + (size_t)j * (size_t)nrhs, b_i);
            }
        }
        double d = AT(LU, n, i, i);
        for (int32_t c = 0; c < nrhs; ++c) {
            b_i[c] /= d;
        }
    }
}

/* Left-looking by columns of the column-major factor: column j of L is A's
 * column j minus the earlier columns in ascending order (element-wise). */
nscd_status nscd__small_cholesky_cm(int32_t n, const double *restrict A, double *restrict L) {
    for (int32_t j = 0; j < n; ++j) {
        double *col = L + (size_t)j * (size_t)n;
        for (int32_t i = 0; i < j; ++i) {
            col[i] = 0.0; /* the upper triangle, zero for the callers' sake */
        }
        for (int32_t i = j; i < n; ++i) {
            col[i] = AT(A, n, i, j);
        }
        for (int32_t k = 0; k < j; ++k) {
            const double *col_k = L + (size_t)k * (size_t)n;
            double l_jk = col_k[j];
            if (l_jk != 0.0) {
                axpy(n - j, -l_jk, col_k + j, col + j);
            }
        }
        double d = col[j];
        if (!(d > 0.0) || !isfinite(d)) {
            return NSCD_ERR_NOT_SPD;
        }
        double l_jj = sqrt(d);
        col[j] = l_jj;
        for (int32_t i = j + 1; i < n; ++i) {
            col[i] /= l_jj;
        }
    }
    return NSCD_OK;
}

void nscd__small_trsv_lower_cm(int32_t n, const double *restrict L, double *restrict x) {
    for (int32_t j = 0; j < n; ++j) {
        const double *col = L + (size_t)j * (size_t)n;
        double xj = x[j] / col[j];
        x[j] = xj;
        if (xj != 0.0) {
            axpy(n - j - 1, -xj, col + j + 1, x + j + 1);
        }
    }
}

void nscd__small_trsv_lower_transposed_cm(int32_t n, const double *restrict L, double *restrict x) {
    for (int32_t i = n - 1; i >= 0; --i) {
        const double *col = L + (size_t)i * (size_t)n;
        x[i] = (x[i] - nscd__small_dot(n - i - 1, col + i + 1, x + i + 1)) / col[i];
    }
}

void nscd__small_cholesky_solve_cm(int32_t n, const double *restrict L, int32_t nrhs,
                                   double *restrict B) {
    for (int32_t c = 0; c < nrhs; ++c) {
        double *b = B + (size_t)c * (size_t)n;
        nscd__small_trsv_lower_cm(n, L, b);
        nscd__small_trsv_lower_transposed_cm(n, L, b);
    }
}

/* (c, s) of the plane rotation that zeroes the off-diagonal of the 2 x 2
 * symmetric [[alpha, gamma], [gamma, beta]] (Rutishauser's formulas). */
static void jacobi_rotation(double alpha, double beta, double gamma, double *c, double *s,
                            double *tangent) {
    double zeta = (beta - alpha) / (2.0 * gamma);
    double t = fabs(zeta) > 1e150 ? 0.5 / zeta
                                  : copysign(1.0, zeta) / (fabs(zeta) + sqrt(1.0 + zeta * zeta));
    *c = 1.0 / sqrt(1.0 + t * t);
    *s = *c * t;
    *tangent = t;
}

static void rotate(int32_t n, double *restrict x, double *restrict y, double c, double s) {
    for (int32_t i = 0; i < n; ++i) {
        double a = x[i], b = y[i];
        x[i] = c * a - s * b;
        y[i] = s * a + c * b;
    }
}

/* The fast path of the minimum-norm solve: when A is regular by a wide
 * margin its minimum-norm solution is A^-1 b, found by LU at a fraction of
 * the SVD's cost. Taken when the LU's pivots satisfy
 * min |u_ii| >= FAST_MARGIN rcond max |u_ii|: LU with partial pivoting
 * reveals a rank deficiency by a small pivot in practice, and the margin of
 * 1e4 over the SVD's own cut (smallest singular value <= rcond * largest)
 * keeps the nearly singular sets - redundant contacts - on the SVD. Returns 1
 * with x in `x`; 0 (A and b unchanged) otherwise. LU (n x n) is scratch. */
#define FAST_MARGIN 1e4
static int clearly_regular_solve(int32_t n, const double *restrict A, const double *restrict b,
                                 double rcond, double *restrict LU, double *restrict x) {
    int32_t pivots[NSCD__DENSE_SMALL];
    if (n > NSCD__DENSE_SMALL) {
        return 0;
    }
    for (int32_t i = 0; i < n; ++i) { /* A is column-major: LU wants rows */
        for (int32_t j = 0; j < n; ++j) {
            LU[(size_t)i * (size_t)n + (size_t)j] = A[(size_t)j * (size_t)n + (size_t)i];
        }
    }
    if (nscd__small_lu_factor(n, LU, pivots) != NSCD_OK) {
        return 0;
    }
    double smallest = INFINITY, largest = 0.0;
    for (int32_t i = 0; i < n; ++i) {
        double u = fabs(LU[(size_t)i * (size_t)n + (size_t)i]);
        smallest = fmin(smallest, u);
        largest = fmax(largest, u);
    }
    if (!(smallest >= FAST_MARGIN * rcond * largest)) {
        return 0;
    }
    memcpy(x, b, (size_t)n * sizeof(double));
    nscd__small_lu_solve(n, LU, pivots, 1, x);
    return 1;
}

nscd_status nscd__small_lstsq_cm(int32_t n, double *restrict A, double *restrict b, double rcond,
                                 int32_t *rank, double *restrict scratch) {
    size_t nn = (size_t)n * (size_t)n;
    *rank = 0;
    for (size_t i = 0; i < nn; ++i) {
        if (!isfinite(A[i])) {
            return NSCD_ERR_NOT_FINITE;
        }
    }
    for (int32_t i = 0; i < n; ++i) {
        if (!isfinite(b[i])) {
            return NSCD_ERR_NOT_FINITE;
        }
    }
    /* Scaled by a power of two (exact) to largest entry ~1, entries below
     * 1e-150 of it set to zero: far below any rank cut (rcond >= 1e-140), and
     * no square of an entry underflows, so a column that is not zero has a
     * norm that is not zero. */
    double amax = 0.0;
    for (size_t i = 0; i < nn; ++i) {
        amax = fmax(amax, fabs(A[i]));
    }
    if (amax == 0.0) {
        memset(b, 0, (size_t)n * sizeof(double));
        return NSCD_OK;
    }
    int exponent = 0;
    (void)frexp(amax, &exponent);
    for (size_t i = 0; i < nn; ++i) {
        double a = ldexp(A[i], -exponent);
        A[i] = fabs(a) < 1e-150 ? 0.0 : a;
    }
    double *V = scratch, *sigma = scratch + nn, *coef = sigma + n;
    if (clearly_regular_solve(n, A, b, rcond, V, coef)) {
        *rank = n;
        for (int32_t i = 0; i < n; ++i) {
            b[i] = ldexp(coef[i], -exponent);
        }
        return NSCD_OK;
    }
    memset(V, 0, nn * sizeof(double));
    for (int32_t i = 0; i < n; ++i) {
        V[(size_t)i * (size_t)n + (size_t)i] = 1.0;
    }
    /* Columns p, q count as orthogonal when |a_p . a_q| <= tol |a_p| |a_q|:
     * a tolerance relative to the columns, so the sweeps end on every CPU
     * after the same rotations. */
    const double tol = (double)n * DBL_EPSILON;
    int converged = 0;
    for (int32_t sweep = 0; sweep < MAX_SWEEPS && !converged; ++sweep) {
        converged = 1;
        /* squared column norms: exact at the start of each sweep, then
         * carried through the rotations (|a_p'|^2 = |a_p|^2 - t gamma,
         * |a_q'|^2 = |a_q|^2 + t gamma): one dot product per pair, not three */
        double widest = 0.0;
        for (int32_t j = 0; j < n; ++j) {
            const double *aj = A + (size_t)j * (size_t)n;
            sigma[j] = nscd__small_dot(n, aj, aj);
            widest = fmax(widest, sigma[j]);
        }
        /* a column at round-off level of the widest (|a_j| <= n eps max |a|)
         * is noise left by the dependent rows: its singular value is below
         * any rank cut (rcond >= n eps) and its rotations only chase that
         * noise, so it takes part in none */
        double noise = tol * tol * widest;
        for (int32_t p = 0; p + 1 < n; ++p) {
            double *ap = A + (size_t)p * (size_t)n;
            for (int32_t q = p + 1; q < n; ++q) {
                double *aq = A + (size_t)q * (size_t)n;
                double alpha = sigma[p], beta = sigma[q];
                if (alpha <= noise || beta <= noise) {
                    continue;
                }
                double gamma = nscd__small_dot(n, ap, aq);
                if (!(fabs(gamma) > tol * sqrt(alpha) * sqrt(beta))) {
                    continue;
                }
                converged = 0;
                double c, s, t;
                jacobi_rotation(alpha, beta, gamma, &c, &s, &t);
                rotate(n, ap, aq, c, s);
                rotate(n, V + (size_t)p * (size_t)n, V + (size_t)q * (size_t)n, c, s);
                sigma[p] = alpha - t * gamma;
                sigma[q] = beta + t * gamma;
                if (!(sigma[p] > 1e-3 * alpha)) { /* cancellation: measure again */
                    sigma[p] = nscd__small_dot(n, ap, ap);
                }
                if (!(sigma[q] > 1e-3 * beta)) {
                    sigma[q] = nscd__small_dot(n, aq, aq);
                }
            }
        }
    }
    if (!converged) {
        return NSCD_ERR_NOT_CONVERGED;
    }
    double largest = 0.0;
    for (int32_t j = 0; j < n; ++j) {
        const double *aj = A + (size_t)j * (size_t)n;
        sigma[j] = sqrt(nscd__small_dot(n, aj, aj));
        largest = fmax(largest, sigma[j]);
    }
    /* x = sum_j v_j (u_j' b) / sigma_j with u_j = a_j / sigma_j; the
     * scaling of A undone at the end (x = A^+ b = 2^-e (2^-e A)^+ b) */
    for (int32_t j = 0; j < n; ++j) {
        const double *aj = A + (size_t)j * (size_t)n;
        int keep = largest > 0.0 && sigma[j] > rcond * largest;
        coef[j] = keep ? nscd__small_dot(n, aj, b) / sigma[j] / sigma[j] : 0.0;
        *rank += keep;
    }
    memset(b, 0, (size_t)n * sizeof(double));
    for (int32_t j = 0; j < n; ++j) {
        if (coef[j] != 0.0) {
            axpy(n, coef[j], V + (size_t)j * (size_t)n, b);
        }
    }
    for (int32_t i = 0; i < n; ++i) {
        b[i] = ldexp(b[i], -exponent);
    }
    return NSCD_OK;
}

/* Cyclic two-sided Jacobi on the symmetric C (n x n, full storage), V
 * accumulating the rotations (columns); rotation skipped when
 * |c_pq| <= tol sqrt(|c_pp c_qq|) (Demmel-Veselic's relative criterion). */
static nscd_status symmetric_jacobi(int32_t n, double *restrict C, double *restrict V) {
    const double tol = (double)n * DBL_EPSILON;
    for (int32_t sweep = 0; sweep < MAX_SWEEPS; ++sweep) {
        int rotated = 0;
        for (int32_t p = 0; p + 1 < n; ++p) {
            for (int32_t q = p + 1; q < n; ++q) {
                double gamma = AT(C, n, p, q);
                double alpha = AT(C, n, p, p), beta = AT(C, n, q, q);
                if (!(fabs(gamma) > tol * sqrt(fabs(alpha)) * sqrt(fabs(beta)))) {
                    continue;
                }
                rotated = 1;
                double c, s, t;
                jacobi_rotation(alpha, beta, gamma, &c, &s, &t);
                /* columns p, q then rows p, q: C := R' C R */
                for (int32_t i = 0; i < n; ++i) {
                    double x = AT(C, n, i, p), y = AT(C, n, i, q);
                    AT(C, n, i, p) = c * x - s * y;
                    AT(C, n, i, q) = s * x + c * y;
                }
                rotate(n, C + (size_t)p * (size_t)n, C + (size_t)q * (size_t)n, c, s);
                AT(C, n, p, q) = 0.0;
                AT(C, n, q, p) = 0.0;
                rotate(n, V + (size_t)p * (size_t)n, V + (size_t)q * (size_t)n, c, s);
            }
        }
        if (!rotated) {
            return NSCD_OK;
        }
    }
    return NSCD_ERR_NOT_CONVERGED;
}

nscd_status nscd__small_sygv(int32_t n, const double *A, const double *B, double *w,
                             double *vectors, double *scratch) {
    size_t nn = (size_t)n * (size_t)n;
    double *L = scratch, *C = scratch + nn, *V = scratch + 2 * nn;
    nscd_status rc = nscd__small_cholesky_cm(n, B, L);
    if (rc != NSCD_OK) {
        return rc;
    }
    for (int32_t j = 0; j < n; ++j) { /* column j of L^-1 A (A symmetric, lower read) */
        double *col = C + (size_t)j * (size_t)n;
        for (int32_t i = 0; i < n; ++i) {
            col[i] = i >= j ? AT(A, n, i, j) : AT(A, n, j, i);
        }
        nscd__small_trsv_lower_cm(n, L, col);
    }
    for (int32_t i = 0; i < n; ++i) { /* transpose: rows of L^-1 A as columns */
        for (int32_t j = i + 1; j < n; ++j) {
            double t = AT(C, n, i, j);
            AT(C, n, i, j) = AT(C, n, j, i);
            AT(C, n, j, i) = t;
        }
    }
    for (int32_t j = 0; j < n; ++j) { /* L^-1 (L^-1 A)' = L^-1 A L^-T */
        nscd__small_trsv_lower_cm(n, L, C + (size_t)j * (size_t)n);
    }
    for (int32_t i = 0; i < n; ++i) { /* symmetrise the round-off */
        for (int32_t j = i + 1; j < n; ++j) {
            double m = 0.5 * (AT(C, n, i, j) + AT(C, n, j, i));
            AT(C, n, i, j) = m;
            AT(C, n, j, i) = m;
        }
    }
    memset(V, 0, nn * sizeof(double));
    for (int32_t i = 0; i < n; ++i) {
        V[(size_t)i * (size_t)n + (size_t)i] = 1.0;
    }
    rc = symmetric_jacobi(n, C, V);
    if (rc != NSCD_OK) {
        return rc;
    }
    for (int32_t i = 0; i < n; ++i) {
        w[i] = AT(C, n, i, i);
    }
    for (int32_t i = 1; i < n; ++i) { /* ascending, insertion sort carrying V's columns */
        for (int32_t j = i; j > 0 && w[j] < w[j - 1]; --j) {
            double t = w[j];
            w[j] = w[j - 1];
            w[j - 1] = t;
            swap_rows(V + (size_t)j * (size_t)n, V + (size_t)(j - 1) * (size_t)n, n);
        }
    }
    if (vectors == NULL) {
        return NSCD_OK;
    }
    for (int32_t k = 0; k < n; ++k) {
        double *v = vectors + (size_t)k * (size_t)n;
        memcpy(v, V + (size_t)k * (size_t)n, (size_t)n * sizeof(double));
        nscd__small_trsv_lower_transposed_cm(n, L, v);
        int32_t big = 0;
        for (int32_t i = 1; i < n; ++i) {
            big = fabs(v[i]) > fabs(v[big]) ? i : big;
        }
        if (v[big] < 0.0) {
            for (int32_t i = 0; i < n; ++i) {
                v[i] = -v[i];
            }
        }
    }
    return NSCD_OK;
}
