/* core/redundant.h (docs/time_stepping.md, "Redundant rows"): the rank of
 * Delassus matrices of known rank, the least-norm solve against the
 * projection onto the range, a set without solution, and the pivoting LCP
 * on a box resting on twelve coplanar points against momentum balance. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "core/redundant.h"
#include "nscd/lcp.h"

#define N_MAX 12

static double uniform(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (double)(*s >> 11) / (double)(1ULL << 53) * 2.0 - 1.0;
}

/* H (n x r) random with unit rows; W = H H' (unit diagonal, rank r). */
static void unit_rows(int n, int r, uint64_t *s, double *H, double *W) {
    for (int i = 0; i < n; ++i) {
        double norm = 0.0;
        for (int k = 0; k < r; ++k) {
            H[i * r + k] = uniform(s);
            norm += H[i * r + k] * H[i * r + k];
        }
        for (int k = 0; k < r; ++k) {
            H[i * r + k] /= sqrt(norm);
        }
    }
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            double sum = 0.0;
            for (int k = 0; k < r; ++k) {
                sum += H[i * r + k] * H[j * r + k];
            }
            W[i * n + j] = sum;
        }
    }
}

/* Rank r of H H' for every r <= n, also with rows scaled by 1e-6 to 1e6
 * (D W D: the rank test is on the unit-diagonal form); a non-symmetric and
 * an indefinite matrix are refused (-1). */
static void rank_of_known_matrices(void **state) {
    (void)state;
    uint64_t s = 0x9e3779b97f4a7c15ULL;
    double H[N_MAX * N_MAX], W[N_MAX * N_MAX], work[NSCD__REDUNDANT_WORK(N_MAX)];
    for (int n = 1; n <= N_MAX; ++n) {
        for (int r = 1; r <= n; ++r) {
            unit_rows(n, r, &s, H, W);
            assert_int_equal(nscd__redundant_rank(n, W, work), r);
            for (int i = 0; i < n; ++i) {
                for (int j = 0; j < n; ++j) {
                    W[i * n + j] *=
                        pow(10.0, (double)(i % 13 - 6)) * pow(10.0, (double)(j % 13 - 6));
                }
            }
            assert_int_equal(nscd__redundant_rank(n, W, work), r);
        }
    }
    double asymmetric[4] = {1.0, 0.5, 0.4, 1.0}, indefinite[4] = {1.0, 2.0, 2.0, 1.0};
    assert_int_equal(nscd__redundant_rank(2, asymmetric, work), -1);
    assert_int_equal(nscd__redundant_rank(2, indefinite, work), -1);
    double huge[4] = {1e300, 1.0, 1.0, 1.0}; /* rows of very different scales: regular */
    assert_int_equal(nscd__redundant_rank(2, huge, work), 2);
}

/* out = H (H'H)^-1 H' y: the projection of y onto range(H) (H n x r, full
 * column rank), by Gauss elimination of the r x r H'H. */
static void project(int n, int r, const double *H, const double *y, double *out) {
    double G[N_MAX * N_MAX], h[N_MAX];
    for (int a = 0; a < r; ++a) {
        h[a] = 0.0;
        for (int i = 0; i < n; ++i) {
            h[a] += H[i * r + a] * y[i];
        }
        for (int c = 0; c < r; ++c) {
            G[a * r + c] = 0.0;
            for (int i = 0; i < n; ++i) {
                G[a * r + c] += H[i * r + a] * H[i * r + c];
            }
        }
    }
    for (int k = 0; k < r; ++k) { /* H'H is SPD: no pivoting */
        for (int i = k + 1; i < r; ++i) {
            double l = G[i * r + k] / G[k * r + k];
            for (int j = k; j < r; ++j) {
                G[i * r + j] -= l * G[k * r + j];
            }
            h[i] -= l * h[k];
        }
    }
    for (int k = r - 1; k >= 0; --k) {
        for (int j = k + 1; j < r; ++j) {
            h[k] -= G[k * r + j] * h[j];
        }
        h[k] /= G[k * r + k];
    }
    for (int i = 0; i < n; ++i) {
        out[i] = 0.0;
        for (int k = 0; k < r; ++k) {
            out[i] += H[i * r + k] * h[k];
        }
    }
}

/* W x = b with b = W y, W = H H' of rank r < n, unit diagonal: the solve
 * returns the least-norm x, the projection x* of y onto range(H): W x = b
 * to the documented 1e-10 (max|b| + max|W x|), and x is x* with no
 * component outside range(H) to 1e-7 (the solves of W + eps D amplify
 * round-off by 1/eps = 1e8 on the null space, and the iterations stop at
 * that residual; seen 5e-9). b outside the range: NSCD_ERR_SINGULAR, b
 * unchanged. */
static void least_norm_solve(void **state) {
    (void)state;
    uint64_t s = 0x2545f4914f6cdd1dULL;
    double H[N_MAX * N_MAX], W[N_MAX * N_MAX], work[NSCD__REDUNDANT_WORK(N_MAX)];
    const int n = 9, r = 4;
    unit_rows(n, r, &s, H, W);
    double y[N_MAX], b[N_MAX], x[N_MAX], expected[N_MAX], in_range[N_MAX];
    for (int i = 0; i < n; ++i) {
        y[i] = uniform(&s);
    }
    double b_size = 0.0;
    for (int i = 0; i < n; ++i) {
        b[i] = 0.0;
        for (int j = 0; j < n; ++j) {
            b[i] += W[i * n + j] * y[j];
        }
        b_size = fmax(b_size, fabs(b[i]));
    }
    project(n, r, H, y, expected);
    memcpy(x, b, sizeof x);
    assert_int_equal(nscd__redundant_solve(n, W, x, work), NSCD_OK);
    project(n, r, H, x, in_range);
    for (int i = 0; i < n; ++i) {
        double u = -b[i];
        for (int j = 0; j < n; ++j) {
            u += W[i * n + j] * x[j];
        }
        assert_true(fabs(u) <= 2e-10 * b_size);
        assert_true(fabs(x[i] - in_range[i]) <= 1e-7);
        assert_true(fabs(x[i] - expected[i]) <= 1e-7);
    }
    double outside[N_MAX], before[N_MAX];
    for (int i = 0; i < n; ++i) {
        outside[i] = before[i] = b[i] + (i == 0 ? 1e-3 : 0.0); /* not in range(W) */
    }
    assert_int_equal(nscd__redundant_solve(n, W, outside, work), NSCD_ERR_SINGULAR);
    assert_memory_equal(outside, before, (size_t)n * sizeof(double));
}

/* A box (mass m, inertia I) approaching a floor with velocity v_y < 0 and
 * spin ω on twelve coplanar points s_i: W = H M^-1 H' with rows (1, s_i) of
 * rank 2, q = H v. The pivoting LCP solves it (it entered singular bases
 * before): z >= 0, u = W z + q = 0 on every row to the documented 1e-10
 * (max|q| + max|W z|) <= 2e-10 max|q| (the box stops), and the impulses
 * balance the momentum to the same: sum z = -m v_y, sum z s = -I ω. Again
 * scaled by 1e8 (W) and 1e-3 (q). */
static void box_lcp_balances_momentum(void **state) {
    (void)state;
    const int n = 12;
    const double m = 2.0, inertia = 0.1, vy = -0.3, omega = 0.2;
    double W[N_MAX * N_MAX], q[N_MAX], z[N_MAX], w[N_MAX], s_i[N_MAX];
    for (int scale = 0; scale < 2; ++scale) {
        double ws = scale ? 1e8 : 1.0, qs = scale ? 1e-3 : 1.0;
        for (int i = 0; i < n; ++i) {
            s_i[i] = -0.5 + (double)i / (double)(n - 1);
            q[i] = qs * (vy + omega * s_i[i]);
        }
        for (int i = 0; i < n; ++i) {
            for (int j = 0; j < n; ++j) {
                W[i * n + j] = ws * (1.0 / m + s_i[i] * s_i[j] / inertia);
            }
        }
        assert_int_equal(nscd_lcp_solve_dense(n, W, q, z, w), NSCD_OK);
        double sum = 0.0, moment = 0.0, qmax = qs * (fabs(vy) + 0.5 * omega);
        for (int i = 0; i < n; ++i) {
            double u = q[i];
            for (int j = 0; j < n; ++j) {
                u += W[i * n + j] * z[j];
            }
            assert_true(z[i] >= 0.0 && w[i] >= 0.0);
            assert_true(fabs(u) <= 2e-10 * qmax);
            sum += ws * z[i];
            moment += ws * z[i] * s_i[i];
        }
        assert_true(fabs(sum - (-m * vy * qs)) <= 1e-9 * m * fabs(vy) * qs);
        assert_true(fabs(moment - (-inertia * omega * qs)) <= 1e-9 * m * fabs(vy) * qs);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rank_of_known_matrices),
        cmocka_unit_test(least_norm_solve),
        cmocka_unit_test(box_lcp_balances_momentum),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
