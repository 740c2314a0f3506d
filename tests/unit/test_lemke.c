/* Lemke's algorithm (contact/solvers/lemke.c): its answers checked against the LCP's
 * definition, on matrices where least-index principal pivoting fails. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "contact/solvers/lemke.h"

#define MAX_N 9

/* Deterministic pseudo-random numbers in [-1, 1] (xorshift). */
static double uniform(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (double)(*s >> 11) / (double)(1ULL << 53) * 2.0 - 1.0;
}

/* z >= 0, w = M z + q >= 0, z' w = 0, to `tol` of the data's scale. */
static void assert_solution(int n, const double *M, const double *q, const double *z,
                            const double *w, double tol) {
    double scale = 1.0;
    for (int i = 0; i < n; ++i) {
        scale = fmax(scale, fabs(q[i]));
    }
    for (int i = 0; i < n; ++i) {
        double r = q[i];
        for (int j = 0; j < n; ++j) {
            r += M[i * n + j] * z[j];
        }
        assert_true(fabs(r - w[i]) <= tol * scale);
        assert_true(z[i] >= 0.0);
        assert_true(w[i] >= -tol * scale);
        assert_true(fmin(z[i], fabs(w[i])) <= tol * scale);
    }
}

static nscd_status solve(int n, const double *M, const double *q, double *z, double *w) {
    double T[MAX_N * (2 * MAX_N + 2)];
    int32_t basis[MAX_N];
    return nscd__lemke(n, M, q, T, basis, z, w);
}

/* docs/fuzzing.md, known issue 4: a positive semi-definite Delassus matrix of
 * three dependent contact rows on which Murty's least-index method cycles.
 * A solution given there: z = (0, 0.0112052, 0.558454), w = (1.61574, 0, 0). */
static void murty_cycling_kernel(void **state) {
    (void)state;
    const double M[9] = {969.38814024884925,  -497.00153809003581, 34.266767228980619,
                         -497.00153809003569, 277.93176696867164,  -2.8240988119519397,
                         34.266767228980619,  -2.8240988119519415, 10.613803701589203};
    const double q[3] = {-11.951673338470655, -1.5371513755260355, -5.8956780815040766};
    double z[3], w[3];
    assert_int_equal(solve(3, M, q, z, w), NSCD_OK);
    assert_solution(3, M, q, z, w, 1e-9);
    /* the w of any solution is unique for a PSD M; compare with the known one */
    assert_true(fabs(w[0] - 1.61574) < 1e-4 && fabs(w[1]) < 1e-9 && fabs(w[2]) < 1e-9);
}

/* Positive definite but not symmetric (A A' + 0.1 I + B - B'): a P-matrix,
 * for which Lemke's algorithm always ends with the unique solution. */
static void nonsymmetric_p_matrices(void **state) {
    (void)state;
    uint64_t s = 88172645463325252ULL;
    for (int trial = 0; trial < 500; ++trial) {
        int n = 1 + trial % MAX_N;
        double A[MAX_N * MAX_N], B[MAX_N * MAX_N], M[MAX_N * MAX_N], q[MAX_N], z[MAX_N], w[MAX_N];
        for (int i = 0; i < n * n; ++i) {
            A[i] = uniform(&s);
            B[i] = 3.0 * uniform(&s);
        }
        for (int i = 0; i < n; ++i) {
            q[i] = uniform(&s);
            for (int j = 0; j < n; ++j) {
                double sum = (i == j ? 0.1 : 0.0) + B[i * n + j] - B[j * n + i];
                for (int k = 0; k < n; ++k) {
                    sum += A[i * n + k] * A[j * n + k];
                }
                M[i * n + j] = sum;
            }
        }
        assert_int_equal(solve(n, M, q, z, w), NSCD_OK);
        assert_solution(n, M, q, z, w, 1e-9);
    }
}

/* Symmetric positive semi-definite of low rank (dependent contact rows,
 * G = W W' with W of rank 2) with a q for which a solution exists (built
 * from a complementary pair): copositive-plus, so Lemke's algorithm finds
 * one, although most bases are singular. Degenerate q (many zeros in the
 * built pair) exercise the lexicographic rule. */
static void dependent_rows(void **state) {
    (void)state;
    uint64_t s = 1234567ULL;
    for (int trial = 0; trial < 500; ++trial) {
        int n = 2 + trial % (MAX_N - 1);
        double W[MAX_N * 2], M[MAX_N * MAX_N], q[MAX_N], z[MAX_N], w[MAX_N], zs[MAX_N], ws[MAX_N];
        for (int i = 0; i < 2 * n; ++i) {
            W[i] = uniform(&s);
        }
        for (int i = 0; i < n; ++i) {
            for (int j = 0; j < n; ++j) {
                M[i * n + j] = W[2 * i] * W[2 * j] + W[2 * i + 1] * W[2 * j + 1];
            }
            double u = uniform(&s);
            zs[i] = u > 0.3 ? u : 0.0; /* complementary: one of them 0, sometimes both */
            ws[i] = u < -0.3 ? -u : 0.0;
        }
        for (int i = 0; i < n; ++i) {
            q[i] = ws[i];
            for (int j = 0; j < n; ++j) {
                q[i] -= M[i * n + j] * zs[j];
            }
        }
        assert_int_equal(solve(n, M, q, z, w), NSCD_OK);
        assert_solution(n, M, q, z, w, 1e-9);
    }
}

/* Any matrix: the algorithm ends (no cycling) and what it returns as a
 * solution is one. */
static void any_matrix_terminates(void **state) {
    (void)state;
    uint64_t s = 99991ULL;
    int solved = 0;
    for (int trial = 0; trial < 2000; ++trial) {
        int n = 1 + trial % MAX_N;
        double M[MAX_N * MAX_N], q[MAX_N], z[MAX_N], w[MAX_N];
        for (int i = 0; i < n * n; ++i) {
            M[i] = uniform(&s);
        }
        for (int i = 0; i < n; ++i) {
            q[i] = trial % 3 == 0 ? -1.0 : uniform(&s); /* ties in q */
        }
        nscd_status rc = solve(n, M, q, z, w);
        assert_true(rc == NSCD_OK || rc == NSCD_ERR_NOT_CONVERGED);
        if (rc == NSCD_OK) {
            assert_solution(n, M, q, z, w, 1e-8);
            ++solved;
        }
    }
    assert_true(solved > 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(murty_cycling_kernel),
        cmocka_unit_test(nonsymmetric_p_matrices),
        cmocka_unit_test(dependent_rows),
        cmocka_unit_test(any_matrix_terminates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
