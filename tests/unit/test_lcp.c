/* nscd_lcp_solve_dense against brute-force enumeration of complementary bases. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "nscd/lcp.h"

/* Deterministic pseudo-random numbers in [-1, 1] (xorshift). */
static double uniform(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (double)(*s >> 11) / (double)(1ULL << 53) * 2.0 - 1.0;
}

/* M = A A' + 0.1 I: symmetric positive definite, hence a P-matrix. */
static void random_spd(int n, uint64_t *s, double *M) {
    double A[8 * 8];
    for (int i = 0; i < n * n; ++i) {
        A[i] = uniform(s);
    }
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            double sum = i == j ? 0.1 : 0.0;
            for (int k = 0; k < n; ++k) {
                sum += A[i * n + k] * A[j * n + k];
            }
            M[i * n + j] = sum;
        }
    }
}

/* Solves the basis `mask` by Gaussian elimination; 1 when complementary-feasible. */
static int try_basis(int n, const double *M, const double *q, unsigned mask, double *z) {
    double a[8][9];
    int idx[8], nb = 0;
    for (int i = 0; i < n; ++i) {
        if (mask & (1u << i)) {
            idx[nb++] = i;
        }
    }
    for (int r = 0; r < nb; ++r) {
        for (int c = 0; c < nb; ++c) {
            a[r][c] = M[idx[r] * n + idx[c]];
        }
        a[r][nb] = -q[idx[r]];
    }
    for (int p = 0; p < nb; ++p) {
        int best = p;
        for (int r = p + 1; r < nb; ++r) {
            if (fabs(a[r][p]) > fabs(a[best][p])) {
                best = r;
            }
        }
        for (int c = 0; c <= nb; ++c) {
            double t = a[p][c];
            a[p][c] = a[best][c];
            a[best][c] = t;
        }
        for (int r = 0; r < nb; ++r) {
            if (r != p) {
                double f = a[r][p] / a[p][p];
                for (int c = p; c <= nb; ++c) {
                    a[r][c] -= f * a[p][c];
                }
            }
        }
    }
    memset(z, 0, (size_t)n * sizeof(double));
    for (int r = 0; r < nb; ++r) {
        z[idx[r]] = a[r][nb] / a[r][r];
        if (z[idx[r]] < -1e-12) {
            return 0;
        }
    }
    for (int i = 0; i < n; ++i) {
        double w = q[i];
        for (int j = 0; j < n; ++j) {
            w += M[i * n + j] * z[j];
        }
        if (!(mask & (1u << i)) && w < -1e-12) {
            return 0;
        }
    }
    return 1;
}

static void matches_enumeration(void **state) {
    (void)state;
    uint64_t seed = 0x9E3779B97F4A7C15ULL;
    for (int trial = 0; trial < 300; ++trial) {
        int n = 1 + trial % 8;
        double M[64], q[8], z[8], w[8], expected[8];
        random_spd(n, &seed, M);
        for (int i = 0; i < n; ++i) {
            q[i] = uniform(&seed);
        }
        int found = 0;
        for (unsigned mask = 0; mask < (1u << n) && !found; ++mask) {
            found = try_basis(n, M, q, mask, expected);
        }
        assert_true(found);
        assert_int_equal(nscd_lcp_solve_dense(n, M, q, z, w), NSCD_OK);
        for (int i = 0; i < n; ++i) {
            assert_true(fabs(z[i] - expected[i]) <= 1e-10 * (1.0 + fabs(expected[i])));
            assert_true(z[i] >= 0.0 && w[i] >= 0.0);
            assert_true(z[i] * w[i] <= 1e-12);
        }
    }
}

static void trivial_cases(void **state) {
    (void)state;
    double M[4] = {2, 1, 1, 2}, q[2] = {1, 1}, z[2] = {7, 7}, w[2];
    assert_int_equal(nscd_lcp_solve_dense(2, M, q, z, w), NSCD_OK); /* q >= 0: z = 0 */
    assert_true(z[0] == 0.0 && z[1] == 0.0 && w[0] == 1.0 && w[1] == 1.0);
    double q2[2] = {-3, -3};
    assert_int_equal(nscd_lcp_solve_dense(2, M, q2, z, NULL), NSCD_OK); /* z = M^-1 (3, 3) */
    assert_true(fabs(z[0] - 1.0) < 1e-15 && fabs(z[1] - 1.0) < 1e-15);
    assert_int_equal(nscd_lcp_solve_dense(0, NULL, NULL, z, NULL), NSCD_OK);
}

static void bad_inputs_change_nothing(void **state) {
    (void)state;
    double M[4] = {1, 0, 0, 1}, q[2] = {-1, NAN}, z[2] = {5, 6};
    assert_int_equal(nscd_lcp_solve_dense(2, M, q, z, NULL), NSCD_ERR_NOT_FINITE);
    assert_true(z[0] == 5 && z[1] == 6);
    assert_int_equal(nscd_lcp_solve_dense(2, NULL, q, z, NULL), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_lcp_solve_dense(-1, M, q, z, NULL), NSCD_ERR_INVALID_ARGUMENT);
    assert_int_equal(nscd_lcp_solve_dense(NSCD_LCP_MAX_SIZE + 1, M, q, z, NULL),
                     NSCD_ERR_INVALID_ARGUMENT);
    double singular[4] = {0, 0, 0, 0}, q2[2] = {-1, -1};
    assert_int_equal(nscd_lcp_solve_dense(2, singular, q2, z, NULL), NSCD_ERR_SINGULAR);
    assert_true(z[0] == 5 && z[1] == 6);
}

/* The answer does not depend on the scale of M. Regression (found by
 * tests/fuzz/fuzz_lcp.c): the sign test of z used a tolerance in the units of
 * q, so for M ~ 1e12 the basis {0, 1} with z_0 = -1.3e-18 (|z| = 1e-12) was
 * accepted, z_0 clipped to 0, and z_1 and w were wrong by 1e-3 relative. */
static void independent_of_the_scale_of_m(void **state) {
    (void)state;
    for (int e = -12; e <= 12; e += 4) {
        double s = pow(10.0, e), d = 1e-3;
        double M[4] = {s, 0.5 * s, 0.5 * s, s}, q[2] = {-0.5 + d, -1.0}, z[2], w[2];
        assert_int_equal(nscd_lcp_solve_dense(2, M, q, z, w), NSCD_OK);
        /* exact solution: z = (0, 1/s), w = (d, 0) */
        assert_true(z[0] == 0.0);
        assert_true(fabs(z[1] * s - 1.0) < 1e-14);
        assert_true(fabs(w[0] - d) < 1e-14 && w[1] == 0.0);
        double w0 = q[0] + M[1] * z[1], w1 = q[1] + M[3] * z[1];
        assert_true(fabs(w0 - d) < 1e-14 && fabs(w1) < 1e-14);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(matches_enumeration),
        cmocka_unit_test(trivial_cases),
        cmocka_unit_test(bad_inputs_change_nothing),
        cmocka_unit_test(independent_of_the_scale_of_m),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
