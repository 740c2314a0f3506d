/* Rank test and solves of redundant sets (see redundant.h). */
#include "core/redundant.h"

#include <math.h>
#include <string.h>

#include "core/check.h"

static double largest_diagonal(int32_t n, const double *W) {
    double top = 0.0;
    for (int32_t i = 0; i < n; ++i) {
        top = fmax(top, W[(size_t)i * (size_t)n + (size_t)i]);
    }
    return top;
}

static double largest_entry(size_t count, const double *x) {
    double top = 0.0;
    for (size_t i = 0; i < count; ++i) {
        top = fmax(top, fabs(x[i]));
    }
    return top;
}

/* Symmetric exchange of rows and columns a and b of A (n x n). */
static void swap_symmetric(int32_t n, double *A, int32_t a, int32_t b) {
    size_t N = (size_t)n;
    for (size_t j = 0; j < N; ++j) {
        double t = A[(size_t)a * N + j];
        A[(size_t)a * N + j] = A[(size_t)b * N + j];
        A[(size_t)b * N + j] = t;
    }
    for (size_t i = 0; i < N; ++i) {
        double t = A[i * N + (size_t)a];
        A[i * N + (size_t)a] = A[i * N + (size_t)b];
        A[i * N + (size_t)b] = t;
    }
}

/* Pivoted LDL' of A (n x n, in place): at step k the largest remaining
 * diagonal is exchanged to k; the factorisation stops before a pivot <=
 * cutoff. Afterwards A[k][k] = d_k, A[i][k] = l_ik (i > k) for k < rank,
 * A's trailing block is the remainder, perm[k] the original row at k.
 * Returns the number of pivots taken. */
static int32_t pivoted_ldlt(int32_t n, double *A, int32_t *perm, double cutoff) {
    size_t N = (size_t)n;
    for (int32_t i = 0; i < n; ++i) {
        perm[i] = i;
    }
    for (int32_t k = 0; k < n; ++k) {
        int32_t p = k;
        for (int32_t i = k + 1; i < n; ++i) {
            if (A[(size_t)i * N + (size_t)i] > A[(size_t)p * N + (size_t)p]) {
                p = i;
            }
        }
        double d = A[(size_t)p * N + (size_t)p];
        if (!(d > cutoff)) {
            return k;
        }
        if (p != k) {
            swap_symmetric(n, A, k, p);
            int32_t t = perm[k];
            perm[k] = perm[p];
            perm[p] = t;
        }
        for (size_t i = (size_t)k + 1; i < N; ++i) {
            double l = A[i * N + (size_t)k] / d;
            for (size_t j = (size_t)k + 1; j < N; ++j) {
                A[i * N + j] -= l * A[(size_t)k * N + j];
            }
        }
        for (size_t i = (size_t)k + 1; i < N; ++i) {
            A[i * N + (size_t)k] /= d;
            A[(size_t)k * N + i] = 0.0;
        }
    }
    return n;
}

int32_t nscd__redundant_rank(int32_t n, const double *W, double *work) {
    size_t N = (size_t)n;
    double *A = work, *root = work + N * N;
    int32_t *perm = (int32_t *)(root + N);
    for (size_t i = 0; i < N; ++i) {
        double d = W[i * N + i];
        if (!(d >= 0.0)) {
            return -1; /* a negative diagonal: not semidefinite */
        }
        root[i] = sqrt(d);
    }
    for (size_t i = 0; i < N; ++i) {
        for (size_t j = 0; j < i; ++j) {
            double scale = root[i] * root[j];
            if (fabs(W[i * N + j] - W[j * N + i]) > 1e-10 * scale) {
                return -1;
            }
        }
    }
    for (size_t i = 0; i < N; ++i) { /* S = D^-1/2 sym(W) D^-1/2; a zero row stays zero */
        for (size_t j = 0; j < N; ++j) {
            double scale = root[i] * root[j];
            double w = 0.5 * (W[i * N + j] + W[j * N + i]);
            if (scale > 0.0) {
                A[i * N + j] = w / scale;
            } else if (w != 0.0) {
                return -1; /* W_ij != 0 beside W_ii = 0: not semidefinite */
            } else {
                A[i * N + j] = 0.0;
            }
        }
    }
    int32_t rank = pivoted_ldlt(n, A, perm, NSCD__REDUNDANT_PIVOT);
    for (size_t i = (size_t)rank; i < N; ++i) { /* the remainder must vanish: PSD */
        for (size_t j = (size_t)rank; j < N; ++j) {
            if (fabs(A[i * N + j]) > NSCD__REDUNDANT_PIVOT) {
                return -1;
            }
        }
    }
    return rank;
}

void nscd__redundant_shifts(int32_t n, const double *W, double *eps) {
    double top = largest_diagonal(n, W);
    for (int32_t i = 0; i < n; ++i) {
        double d = W[(size_t)i * (size_t)n + (size_t)i];
        eps[i] = NSCD__REDUNDANT_SHIFT * (d > 0.0 ? d : (top > 0.0 ? top : 1.0));
    }
}

/* The largest violation of the mixed problem at z, and the scale
 * max|c| + max|W z| it is measured against (see redundant.h). */
static double violation(int32_t n, const double *W, const double *c, const uint8_t *equality,
                        const double *z, double *scale) {
    size_t N = (size_t)n;
    double worst = 0.0, size = 0.0, data = largest_entry(N, c);
    for (size_t i = 0; i < N; ++i) {
        double wz = 0.0;
        for (size_t j = 0; j < N; ++j) {
            wz += W[i * N + j] * z[j];
        }
        double u = wz + c[i];
        size = fmax(size, fabs(wz));
        if (equality != NULL && equality[i]) {
            worst = fmax(worst, fabs(u));
        } else {
            double p = W[i * N + i] * z[i]; /* the impulse in the units of u */
            worst = fmax(worst, fmax(fabs(fmin(p, u)), fmax(-p, -u)));
        }
    }
    *scale = data + size;
    return worst;
}

int nscd__redundant_check(int32_t n, const double *W, const double *c, const uint8_t *equality,
                          const double *z) {
    if (!nscd__all_finite(z, (size_t)n)) {
        return 0;
    }
    double scale = 0.0, worst = violation(n, W, c, equality, z, &scale);
    return isfinite(scale) && worst <= NSCD__REDUNDANT_CHECK * scale;
}

/* x = (P L D L' P')^-1 b for a full pivoted LDL' (A, perm), y scratch. */
static void ldlt_solve(int32_t n, const double *A, const int32_t *perm, const double *b, double *y,
                       double *x) {
    size_t N = (size_t)n;
    for (size_t k = 0; k < N; ++k) {
        y[k] = b[perm[k]];
    }
    for (size_t i = 0; i < N; ++i) { /* L y' = y */
        for (size_t k = 0; k < i; ++k) {
            y[i] -= A[i * N + k] * y[k];
        }
    }
    for (size_t i = 0; i < N; ++i) {
        y[i] /= A[i * N + i];
    }
    for (size_t i = N; i-- > 0;) { /* L' y'' = D^-1 y' */
        for (size_t k = i + 1; k < N; ++k) {
            y[i] -= A[k * N + i] * y[k];
        }
    }
    for (size_t k = 0; k < N; ++k) {
        x[perm[k]] = y[k];
    }
}

/* |W x - b| <= NSCD__REDUNDANT_CHECK (max|b| + max|W x|), c = -b in `rhs`. */
static int equations_hold(int32_t n, const double *W, const double *b, const double *x,
                          double *rhs) {
    if (!nscd__all_finite(x, (size_t)n)) {
        return 0;
    }
    double worst = 0.0, scale = 0.0;
    for (int32_t i = 0; i < n; ++i) {
        rhs[i] = -b[i];
    }
    for (int32_t i = 0; i < n; ++i) { /* every row an equality */
        double u = rhs[i], wx = 0.0;
        for (int32_t j = 0; j < n; ++j) {
            wx += W[(size_t)i * (size_t)n + (size_t)j] * x[j];
        }
        u += wx;
        worst = fmax(worst, fabs(u));
        scale = fmax(scale, fabs(wx));
    }
    scale += largest_entry((size_t)n, b);
    return isfinite(scale) && worst <= NSCD__REDUNDANT_CHECK * scale;
}

nscd_status nscd__redundant_solve(int32_t n, const double *W, double *b, double *work) {
    if (n <= 0) {
        return NSCD_OK;
    }
    size_t N = (size_t)n;
    double *A = work, *x = A + N * N, *rhs = x + N, *y = rhs + N, *eps = y + N;
    int32_t *perm = (int32_t *)(eps + N);
    nscd__redundant_shifts(n, W, eps);
    memcpy(A, W, N * N * sizeof(double));
    for (size_t i = 0; i < N; ++i) {
        A[i * N + i] += eps[i];
    }
    if (pivoted_ldlt(n, A, perm, 0.0) < n) {
        return NSCD_ERR_SINGULAR; /* W + eps I not positive definite: W is not PSD */
    }
    memset(x, 0, N * sizeof(double));
    for (int it = 0; it < NSCD__REDUNDANT_ITERATIONS; ++it) {
        for (size_t i = 0; i < N; ++i) { /* (W + eps D) x_{k+1} = b + eps D x_k */
            rhs[i] = b[i] + eps[i] * x[i];
        }
        ldlt_solve(n, A, perm, rhs, y, x);
        if (equations_hold(n, W, b, x, rhs)) {
            memcpy(b, x, N * sizeof(double));
            return NSCD_OK;
        }
    }
    return NSCD_ERR_SINGULAR;
}

nscd_status nscd__redundant_proximal(int32_t n, const double *W, const double *c,
                                     const uint8_t *equality, nscd__redundant_subsolve solve,
                                     void *user, double *z, double *work) {
    if (n <= 0) {
        return NSCD_OK;
    }
    size_t N = (size_t)n;
    double *shifted = work, *c_shifted = shifted + N * N, *iterate = c_shifted + N;
    double *eps = iterate + N;
    nscd__redundant_shifts(n, W, eps);
    memcpy(shifted, W, N * N * sizeof(double));
    for (size_t i = 0; i < N; ++i) {
        shifted[i * N + i] += eps[i];
    }
    memset(iterate, 0, N * sizeof(double));
    for (int it = 0; it < NSCD__REDUNDANT_ITERATIONS; ++it) {
        for (size_t i = 0; i < N; ++i) {
            c_shifted[i] = c[i] - eps[i] * iterate[i];
        }
        nscd_status rc = solve(user, shifted, c_shifted, iterate);
        if (rc != NSCD_OK) {
            return rc;
        }
        if (nscd__redundant_check(n, W, c, equality, iterate)) {
            memcpy(z, iterate, N * sizeof(double));
            return NSCD_OK;
        }
    }
    return NSCD_ERR_SINGULAR;
}
