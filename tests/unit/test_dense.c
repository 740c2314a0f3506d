/* The own small dense kernels (core/dense_small.h) and the dispatcher
 * (core/dense.h) around the threshold NSCD__DENSE_SMALL: products against
 * long-double references with the textbook error bound, solves by their
 * residuals (backward-stable bounds), the minimum-norm solve by its defining
 * properties, the pencil eigen solve by K v = w M v and v' M v = 1, and
 * singular, indefinite and NaN input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/dense.h"
#include "core/dense_small.h"
#include "core/envelope.h"

#define EPS DBL_EPSILON
static const int32_t SIZES[] = {1, 2, 3, 5, 8, 13, 31, 47, 63, 64, 65, 80};
#define N_SIZES ((int)(sizeof SIZES / sizeof SIZES[0]))

static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static double uniform(void) { /* in [-1, 1) */
    rng_state = rng_state * 6364136223846793005u + 1442695040888963407u;
    return (double)(rng_state >> 11) / 4503599627370496.0 - 1.0;
}

static double *random_matrix(int32_t m, int32_t n) {
    double *a = malloc((size_t)m * (size_t)n * sizeof(double) + 1);
    for (size_t i = 0; i < (size_t)m * (size_t)n; ++i) {
        a[i] = uniform();
    }
    return a;
}

/* |computed - sum a_i b_i| <= k eps sum |a_i b_i| (Higham, eq. 3.5), k = 2n
 * generously for any summation order */
static void check_sum(double computed, const double *a, size_t sa, const double *b, size_t sb,
                      int32_t n) {
    long double exact = 0.0L, magnitude = 0.0L;
    for (int32_t i = 0; i < n; ++i) {
        exact += (long double)a[i * sa] * (long double)b[i * sb];
        magnitude += fabsl((long double)a[i * sa] * (long double)b[i * sb]);
    }
    if (!(fabsl((long double)computed - exact) <= 2.0L * n * EPS * magnitude + 1e-300L)) {
        fail_msg("sum of %d products: %.17g, exact %.17Lg", n, computed, exact);
    }
}

static void products(void **state) {
    (void)state;
    for (int s = 0; s < N_SIZES; ++s) {
        int32_t n = SIZES[s], m = SIZES[(s + 3) % N_SIZES], k = SIZES[(s + 5) % N_SIZES];
        double *A = random_matrix(m, k), *B = random_matrix(n, k), *Bt = random_matrix(k, n);
        double *At = random_matrix(k, m), *x = random_matrix(k, 1);
        double *C = malloc((size_t)m * (size_t)n * sizeof(double) + 1);
        double *y = malloc((size_t)m * sizeof(double));
        check_sum(nscd__dot(k, A, x), A, 1, x, 1, k);
        check_sum(nscd__small_dot(k, A, x), A, 1, x, 1, k);
        nscd__gemv(m, k, A, x, y);
        for (int32_t i = 0; i < m; ++i) {
            check_sum(y[i], A + (size_t)i * k, 1, x, 1, k);
        }
        nscd__gemm_nt(m, n, k, A, B, C); /* C = A B' */
        for (int32_t i = 0; i < m; ++i) {
            for (int32_t j = 0; j < n; ++j) {
                check_sum(C[(size_t)i * n + j], A + (size_t)i * k, 1, B + (size_t)j * k, 1, k);
            }
        }
        nscd__gemm_nn(m, n, k, A, Bt, C); /* C = A Bt */
        for (int32_t i = 0; i < m; ++i) {
            for (int32_t j = 0; j < n; ++j) {
                check_sum(C[(size_t)i * n + j], A + (size_t)i * k, 1, Bt + j, (size_t)n, k);
            }
        }
        nscd__gemm_tn(m, n, k, At, Bt, C); /* C = At' Bt */
        for (int32_t i = 0; i < m; ++i) {
            for (int32_t j = 0; j < n; ++j) {
                check_sum(C[(size_t)i * n + j], At + i, (size_t)m, Bt + j, (size_t)n, k);
            }
        }
        free(A), free(B), free(Bt), free(At), free(x), free(C), free(y);
    }
}

/* max_i |A x - b|_i / (|A| |x| + |b|)_i: the componentwise backward error */
static double backward_error(int32_t n, const double *A, const double *x, const double *b,
                             size_t stride) {
    double worst = 0.0;
    for (int32_t i = 0; i < n; ++i) {
        long double r = -(long double)b[(size_t)i * stride], size = fabs(b[(size_t)i * stride]);
        for (int32_t j = 0; j < n; ++j) {
            r += (long double)A[(size_t)i * n + j] * x[(size_t)j * stride];
            size += fabsl((long double)A[(size_t)i * n + j] * x[(size_t)j * stride]);
        }
        worst = fmax(worst, (double)(fabsl(r) / size));
    }
    return worst;
}

static void lu_solves(void **state) {
    (void)state;
    for (int s = 0; s < N_SIZES; ++s) {
        int32_t n = SIZES[s], nrhs = 3;
        double *A = random_matrix(n, n), *B = random_matrix(n, nrhs);
        double *LU = malloc((size_t)n * n * sizeof(double)), *X = malloc((size_t)n * nrhs * 8);
        int32_t *piv = malloc((size_t)n * sizeof(int32_t));
        for (int32_t r = 1; r <= nrhs; r += nrhs - 1) { /* one and three right-hand sides */
            memcpy(LU, A, (size_t)n * n * sizeof(double));
            memcpy(X, B, (size_t)n * (size_t)r * sizeof(double));
            assert_int_equal(nscd__lu_solve(n, LU, piv, r, X), NSCD_OK);
            for (int32_t c = 0; c < r; ++c) {
                double *b = malloc((size_t)n * sizeof(double)), *x = malloc((size_t)n * 8);
                for (int32_t i = 0; i < n; ++i) {
                    b[i] = B[(size_t)i * r + c];
                    x[i] = X[(size_t)i * r + c];
                }
                /* partial pivoting: growth is tiny for random matrices */
                assert_true(backward_error(n, A, x, b, 1) <= 8.0 * n * EPS);
                free(b), free(x);
            }
        }
        free(A), free(B), free(LU), free(X), free(piv);
    }
}

static void cholesky_solves(void **state) {
    (void)state;
    for (int s = 0; s < N_SIZES; ++s) {
        int32_t n = SIZES[s];
        double *G = random_matrix(n, n), *A = malloc((size_t)n * n * sizeof(double));
        double *L = malloc((size_t)n * n * sizeof(double)), *b = random_matrix(n, 1);
        double *x = malloc((size_t)n * sizeof(double));
        nscd__gemm_nt(n, n, n, G, G, A); /* G G' + n I: SPD */
        for (int32_t i = 0; i < n; ++i) {
            A[(size_t)i * n + i] += n;
        }
        assert_int_equal(nscd__cholesky_cm(n, A, L), NSCD_OK);
        memcpy(x, b, (size_t)n * sizeof(double));
        assert_int_equal(nscd__cholesky_solve_cm(n, L, 1, x), NSCD_OK);
        assert_true(backward_error(n, A, x, b, 1) <= 8.0 * n * EPS);
        A[(size_t)(n - 1) * n + (n - 1)] = -1.0; /* indefinite */
        assert_int_equal(nscd__cholesky_cm(n, A, L), NSCD_ERR_NOT_SPD);
        free(G), free(A), free(L), free(b), free(x);
    }
}

static void singular_and_nan_input(void **state) {
    (void)state;
    for (int32_t n = 3; n <= 66; n += 63) {
        double *A = random_matrix(n, n), *b = random_matrix(n, 1);
        int32_t *piv = malloc((size_t)n * sizeof(int32_t));
        for (int32_t i = 0; i < n; ++i) { /* a zero column: exactly singular */
            A[(size_t)i * n + 1] = 0.0;
        }
        assert_int_equal(nscd__small_lu_factor(n, A, piv), NSCD_ERR_SINGULAR);
        free(A);
        A = random_matrix(n, n);
        A[n + 2] = NAN;
        double *copy = malloc((size_t)n * n * sizeof(double));
        memcpy(copy, A, (size_t)n * n * sizeof(double));
        assert_int_equal(nscd__small_lu_factor(n, copy, piv), NSCD_ERR_SINGULAR);
        memcpy(copy, A, (size_t)n * n * sizeof(double));
        double *S = malloc(NSCD__SMALL_LSTSQ_SCRATCH(n) * sizeof(double));
        int32_t rank = -1;
        assert_int_equal(nscd__small_lstsq_cm(n, copy, b, 1e-10, &rank, S), NSCD_ERR_NOT_FINITE);
        for (size_t i = 0; i < (size_t)n * n; ++i) {
            A[i] = (double)(i % (size_t)(n + 1) == 0); /* identity with a NaN diagonal */
        }
        A[(size_t)(n / 2) * (n + 1)] = NAN;
        double *L = malloc((size_t)n * n * sizeof(double));
        assert_int_equal(nscd__small_cholesky_cm(n, A, L), NSCD_ERR_NOT_SPD);
        free(A), free(b), free(piv), free(copy), free(S), free(L);
    }
}

/* A = P Q' (n x n, rank r): the minimum-norm solution of A x = b with b in
 * A's range solves it and lies in A's row space (orthogonal to the null
 * space), so x = A' y for some y; checked as |x - A'(A A')^+ A x| small
 * through the projector onto range(Q): Q (Q'Q)^-1 Q' x = x. */
static void minimum_norm_solve(void **state) {
    (void)state;
    const int32_t sizes[] = {1, 2, 4, 12, 30, 64};
    for (int s = 0; s < 6; ++s) {
        int32_t n = sizes[s], r = n > 2 ? n / 2 : 1;
        double *P = random_matrix(n, r), *Q = random_matrix(n, r), *z = random_matrix(r, 1);
        double *A = malloc((size_t)n * n * sizeof(double)), *Acm = malloc((size_t)n * n * 8);
        double *b = malloc((size_t)n * sizeof(double)), *w = malloc((size_t)n * 8);
        double *S = malloc(NSCD__SMALL_LSTSQ_SCRATCH(n) * sizeof(double));
        nscd__small_gemm_nt(n, n, r, P, Q, A);
        nscd__small_gemv(n, r, P, z, b); /* b = P z: in the range */
        for (int32_t i = 0; i < n; ++i) {
            for (int32_t j = 0; j < n; ++j) {
                Acm[(size_t)j * n + i] = A[(size_t)i * n + j];
            }
        }
        int32_t rank = -1;
        memcpy(w, b, (size_t)n * sizeof(double));
        assert_int_equal(nscd__small_lstsq_cm(n, Acm, w, 1e-10, &rank, S), NSCD_OK);
        assert_int_equal(rank, r);
        assert_true(backward_error(n, A, w, b, 1) <= 1e3 * n * EPS);
        /* row space: Q'x determines x = Q c with (Q'Q) c = Q'x */
        double *QtQ = malloc((size_t)r * r * 8), *c = malloc((size_t)r * 8);
        int32_t *piv = malloc((size_t)r * sizeof(int32_t));
        nscd__small_gemm_tn(r, r, n, Q, Q, QtQ);
        nscd__small_gemm_tn(r, 1, n, Q, w, c);
        assert_int_equal(nscd__lu_solve(r, QtQ, piv, 1, c), NSCD_OK);
        double xnorm = 0.0, off = 0.0;
        for (int32_t i = 0; i < n; ++i) {
            double qc = nscd__small_dot(r, Q + (size_t)i * r, c);
            off = fmax(off, fabs(w[i] - qc));
            xnorm = fmax(xnorm, fabs(w[i]));
        }
        assert_true(off <= 1e-10 * xnorm);
        memset(Acm, 0, (size_t)n * n * sizeof(double)); /* zero matrix: x = 0, rank 0 */
        assert_int_equal(nscd__small_lstsq_cm(n, Acm, w, 1e-10, &rank, S), NSCD_OK);
        assert_int_equal(rank, 0);
        for (int32_t i = 0; i < n; ++i) {
            assert_true(w[i] == 0.0);
        }
        free(P), free(Q), free(z), free(A), free(Acm), free(b), free(w), free(S), free(QtQ);
        free(c), free(piv);
    }
}

/* A regular A: the minimum-norm solution is A^-1 b (the LU fast path), rank n;
 * and a nearly singular one (smallest singular value 1e-12 of the largest,
 * below the cut 1e-10): rank n - 1, through the SVD. */
static void minimum_norm_regular_and_nearly_singular(void **state) {
    (void)state;
    const int32_t sizes[] = {1, 3, 9, 33, 64};
    for (int s = 0; s < 5; ++s) {
        int32_t n = sizes[s], rank = -1;
        size_t nn = (size_t)n * n;
        double *A = random_matrix(n, n), *Acm = malloc(nn * 8), *b = random_matrix(n, 1);
        double *x = malloc((size_t)n * 8), *S = malloc(NSCD__SMALL_LSTSQ_SCRATCH(n) * 8);
        for (int32_t i = 0; i < n; ++i) {
            A[(size_t)i * n + i] += 4.0; /* well conditioned */
            for (int32_t j = 0; j < n; ++j) {
                Acm[(size_t)j * n + i] = A[(size_t)i * n + j];
            }
        }
        memcpy(x, b, (size_t)n * 8);
        assert_int_equal(nscd__small_lstsq_cm(n, Acm, x, 1e-10, &rank, S), NSCD_OK);
        assert_int_equal(rank, n);
        assert_true(backward_error(n, A, x, b, 1) <= 8.0 * n * EPS);
        /* diag(1, ..., 1, 1e-12) in a rotated basis: Givens rotations of rows */
        memset(Acm, 0, nn * 8);
        for (int32_t i = 0; i < n; ++i) {
            Acm[(size_t)i * n + i] = i == n - 1 && n > 1 ? 1e-12 : 1.0;
        }
        for (int32_t i = 0; i + 1 < n; ++i) {
            double c = 0.6, sn = 0.8;
            for (int32_t j = 0; j < n; ++j) { /* rows i, i + 1 of column j */
                double *col = Acm + (size_t)j * n, u = col[i], v = col[i + 1];
                col[i] = c * u - sn * v;
                col[i + 1] = sn * u + c * v;
            }
        }
        memcpy(x, b, (size_t)n * 8);
        assert_int_equal(nscd__small_lstsq_cm(n, Acm, x, 1e-10, &rank, S), NSCD_OK);
        assert_int_equal(rank, n > 1 ? n - 1 : 1);
        double xnorm = sqrt(nscd__small_dot(n, x, x)), bnorm = sqrt(nscd__small_dot(n, b, b));
        assert_true(xnorm <= bnorm * (1.0 + 1e-12)); /* the 1e-12 direction is cut */
        free(A), free(Acm), free(b), free(x), free(S);
    }
}

static void pencil_eigen(void **state) {
    (void)state;
    const int32_t sizes[] = {1, 3, 10, 40, 64};
    for (int s = 0; s < 5; ++s) {
        int32_t n = sizes[s];
        size_t nn = (size_t)n * n;
        double *G = random_matrix(n, n), *H = random_matrix(n, n);
        double *K = malloc(nn * 8), *M = malloc(nn * 8), *w = malloc((size_t)n * 8);
        double *V = malloc(nn * 8), *S = malloc(3 * nn * 8), *Kv = malloc((size_t)n * 8);
        double *Mv = malloc((size_t)n * 8);
        nscd__small_gemm_nt(n, n, n, G, G, K);
        nscd__small_gemm_nt(n, n, n, H, H, M);
        for (int32_t i = 0; i < n; ++i) {
            M[(size_t)i * n + i] += n;
        }
        assert_int_equal(nscd__small_sygv(n, K, M, w, V, S), NSCD_OK);
        double knorm = 0.0;
        for (size_t i = 0; i < nn; ++i) {
            knorm = fmax(knorm, fabs(K[i]));
        }
        for (int32_t k = 0; k < n; ++k) {
            const double *v = V + (size_t)k * n;
            nscd__small_gemv(n, n, K, v, Kv);
            nscd__small_gemv(n, n, M, v, Mv);
            assert_true(k == 0 || w[k] >= w[k - 1]);
            assert_true(fabs(nscd__small_dot(n, v, Mv) - 1.0) <= 1e3 * n * EPS);
            for (int32_t i = 0; i < n; ++i) {
                assert_true(fabs(Kv[i] - w[k] * Mv[i]) <= 1e3 * n * EPS * knorm);
            }
        }
        M[0] = -1.0;
        assert_int_equal(nscd__small_sygv(n, K, M, w, V, S), NSCD_ERR_NOT_SPD);
        free(G), free(H), free(K), free(M), free(w), free(V), free(S), free(Kv), free(Mv);
    }
}

/* The envelope solves of several systems at once (nscd__envelope_solve_many:
 * systems of one structure two at a time, the others in lockstep) are each
 * system's own solve, bitwise, and solve A x = b (residual to 1e-12 of the
 * scale): block-tridiagonal SPD matrices of 5 x 5 blocks (a chain's W), two
 * structures mixed. */
static void envelope_solve_many_is_each_solve(void **state) {
    (void)state;
    enum { N = 20, SYSTEMS = 7 };
    static double L[SYSTEMS][N * N], T[SYSTEMS][N * N], A[SYSTEMS][N * N], x[SYSTEMS][N],
        one[SYSTEMS][N], b[SYSTEMS][N];
    static int32_t ints[SYSTEMS][4 * N + 2];
    nscd__envelope e[SYSTEMS];
    uint32_t seed = 7u;
    for (int g = 0; g < SYSTEMS; ++g) {
        int block = g == 3 ? 4 : 5; /* system 3: another structure */
        for (int i = 0; i < N * N; ++i) {
            seed = seed * 1664525u + 1013904223u;
            A[g][i] = (double)(seed >> 8) / 16777216.0 - 0.5;
        }
        for (int i = 0; i < N; ++i) { /* symmetric, zero outside the band, dominant */
            for (int j = 0; j <= i; ++j) {
                double v = i / block - j / block <= 1 ? A[g][i * N + j] : 0.0;
                A[g][i * N + j] = A[g][j * N + i] = i == j ? 2.0 * block + fabs(v) : v;
            }
        }
        e[g].n = N;
        e[g].start = ints[g];
        e[g].last = ints[g] + N;
        e[g].offset = ints[g] + 2 * N;
        e[g].toff = ints[g] + 3 * N + 1;
        e[g].L = L[g];
        e[g].T = T[g];
        for (int i = 0; i < N; ++i) {
            e[g].start[i] = i / block > 0 ? (i / block - 1) * block : 0;
        }
        nscd__envelope_layout(&e[g]);
        for (int i = 0; i < N; ++i) {
            for (int j = e[g].start[i]; j <= i; ++j) {
                e[g].L[e[g].offset[i] + j - e[g].start[i]] = A[g][i * N + j];
            }
            seed = seed * 1664525u + 1013904223u;
            b[g][i] = (double)(seed >> 8) / 16777216.0 - 0.5;
            x[g][i] = one[g][i] = b[g][i];
        }
        assert_int_equal(nscd__envelope_factor(&e[g]), NSCD_OK);
        e[g].x = x[g];
        nscd__envelope_solve(&e[g], one[g]);
    }
    nscd__envelope_solve_many(SYSTEMS, e);
    for (int g = 0; g < SYSTEMS; ++g) {
        assert_memory_equal(x[g], one[g], sizeof x[g]);
        for (int i = 0; i < N; ++i) {
            double r = -b[g][i];
            for (int j = 0; j < N; ++j) {
                r += A[g][i * N + j] * x[g][j];
            }
            assert_true(fabs(r) < 1e-12 * 2.0 * 5.0);
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(products),
        cmocka_unit_test(lu_solves),
        cmocka_unit_test(cholesky_solves),
        cmocka_unit_test(singular_and_nan_input),
        cmocka_unit_test(minimum_norm_solve),
        cmocka_unit_test(minimum_norm_regular_and_nearly_singular),
        cmocka_unit_test(pencil_eigen),
        cmocka_unit_test(envelope_solve_many_is_each_solve),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
