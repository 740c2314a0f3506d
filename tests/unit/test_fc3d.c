/* Multi-contact fc3d solvers: dense and block-CSR, Coulomb and maximum dissipation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nscd/nscd.h"
#include "test_random.h"

#define NMAX 8

/* |a - b| <= tol, with the numbers in the failure message. */
#define assert_close(a, b, tol) assert_close_at((a), (b), (tol), __FILE__, __LINE__)
static void assert_close_at(double a, double b, double tol, const char *file, int line) {
    if (!(fabs(a - b) <= tol)) {
        print_error("%.17g != %.17g (tol %g)\n", a, b, tol);
        _fail(file, line);
    }
}

static const int32_t laws[2] = {NSCD_FC3D_COULOMB, NSCD_FC3D_MAX_DISSIPATION};

/* Deterministic uniform numbers in [-1, 1). */
static nscd_fc3d_options opts_for(int32_t law) {
    nscd_fc3d_options o;
    assert_int_equal(nscd_fc3d_options_init(&o, sizeof o), NSCD_OK);
    o.friction_law = law;
    return o;
}

static nscd_fc3d_info new_info(void) {
    nscd_fc3d_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    return info;
}

/* W = H M^-1 H' of a random chain of unit-mass point bodies: contact j couples
 * bodies j and j+1 (body 0 fixed) with a random orthonormal frame, so W is
 * block tridiagonal, SPD, and each contact shares a body with its neighbours. */
static void chain_problem(int32_t n, uint64_t seed, double *W, double *q) {
    uint64_t s = seed;
    double F[NMAX][9]; /* rows: n, t, o of each contact frame */
    for (int32_t j = 0; j < n; ++j) {
        double a[3] = {rnd(&s), rnd(&s), 1.5 + rnd(&s)}, b[3] = {1.0, rnd(&s), rnd(&s)};
        double na = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
        for (int i = 0; i < 3; ++i) {
            a[i] /= na;
        }
        double d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
        for (int i = 0; i < 3; ++i) {
            b[i] -= d * a[i];
        }
        double nb = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
        for (int i = 0; i < 3; ++i) {
            b[i] /= nb;
        }
        double c[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                       a[0] * b[1] - a[1] * b[0]};
        for (int i = 0; i < 3; ++i) {
            F[j][i] = a[i], F[j][3 + i] = b[i], F[j][6 + i] = c[i];
        }
    }
    /* u_j = F_j (v_{j+1} - v_j); masses: body k has mass 1 + k/4. */
    int32_t m = 3 * n;
    memset(W, 0, sizeof(double) * (size_t)m * (size_t)m);
    for (int32_t j = 0; j < n; ++j) {
        for (int32_t k = 0; k < n; ++k) {
            /* bodies of j: j (sign -1, if j > 0) and j+1 (sign +1); same for k */
            double coef = 0.0;
            if (j == k) {
                coef = 1.0 / (1.0 + (j + 1) / 4.0) + (j > 0 ? 1.0 / (1.0 + j / 4.0) : 0.0);
            } else if (k == j + 1) {
                coef = -1.0 / (1.0 + (j + 1) / 4.0);
            } else if (j == k + 1) {
                coef = -1.0 / (1.0 + j / 4.0);
            } else {
                continue;
            }
            for (int a = 0; a < 3; ++a) {
                for (int b = 0; b < 3; ++b) {
                    double dot = 0.0;
                    for (int i = 0; i < 3; ++i) {
                        dot += F[j][3 * a + i] * F[k][3 * b + i];
                    }
                    W[(3 * j + a) * m + 3 * k + b] = coef * dot;
                }
            }
        }
    }
    for (int32_t i = 0; i < m; ++i) {
        q[i] = rnd(&s);
    }
    for (int32_t j = 0; j < n; ++j) {
        q[3 * j] = -0.2 - 0.8 * fabs(q[3 * j]); /* approaching contacts */
    }
}

/* u = W r + q */
static void residual_velocity(int32_t n, const double *W, const double *q, const double *r,
                              double *u) {
    int32_t m = 3 * n;
    for (int32_t i = 0; i < m; ++i) {
        u[i] = q[i];
        for (int32_t k = 0; k < m; ++k) {
            u[i] += W[i * m + k] * r[k];
        }
    }
}

/* Brute-force LCP  w = M z + p >= 0, z >= 0, z'w = 0  by enumerating active sets. */
static void lcp_brute_force(int32_t n, const double *M, const double *p, double *z) {
    for (uint32_t set = 0; set < (1u << n); ++set) {
        double A[NMAX * NMAX], b[NMAX];
        int32_t idx[NMAX], k = 0;
        for (int32_t i = 0; i < n; ++i) {
            if (set & (1u << i)) {
                idx[k++] = i;
            }
        }
        for (int32_t a = 0; a < k; ++a) {
            b[a] = -p[idx[a]];
            for (int32_t c = 0; c < k; ++c) {
                A[a * k + c] = M[idx[a] * n + idx[c]];
            }
        }
        for (int32_t c = 0; c < k; ++c) { /* Gaussian elimination (M is SPD here) */
            for (int32_t a = c + 1; a < k; ++a) {
                double f = A[a * k + c] / A[c * k + c];
                for (int32_t e = c; e < k; ++e) {
                    A[a * k + e] -= f * A[c * k + e];
                }
                b[a] -= f * b[c];
            }
        }
        for (int32_t a = k - 1; a >= 0; --a) {
            for (int32_t e = a + 1; e < k; ++e) {
                b[a] -= A[a * k + e] * b[e];
            }
            b[a] /= A[a * k + a];
        }
        double zz[NMAX] = {0};
        int ok = 1;
        for (int32_t a = 0; a < k; ++a) {
            zz[idx[a]] = b[a];
            ok &= b[a] >= -1e-12;
        }
        for (int32_t i = 0; i < n && ok; ++i) {
            double w = p[i];
            for (int32_t c = 0; c < n; ++c) {
                w += M[i * n + c] * zz[c];
            }
            ok &= w >= -1e-12;
        }
        if (ok) {
            memcpy(z, zz, sizeof(double) * (size_t)n);
            return;
        }
    }
    fail_msg("no LCP solution found");
}

static void frictionless_is_the_lcp_solution(void **state) {
    (void)state;
    const int32_t n = 6;
    double W[(3 * NMAX) * (3 * NMAX)], q[3 * NMAX], mu[NMAX] = {0};
    for (uint64_t seed = 1; seed <= 5; ++seed) {
        chain_problem(n, seed, W, q);
        double M[NMAX * NMAX], p[NMAX], z[NMAX];
        for (int32_t j = 0; j < n; ++j) {
            p[j] = q[3 * j];
            for (int32_t k = 0; k < n; ++k) {
                M[j * n + k] = W[(3 * j) * (3 * n) + 3 * k];
            }
        }
        lcp_brute_force(n, M, p, z);
        double z_lcp[NMAX];
        assert_int_equal(nscd_lcp_solve_dense(n, M, p, z_lcp, NULL), NSCD_OK);
        for (int32_t j = 0; j < n; ++j) { /* the two references agree */
            assert_close(z_lcp[j], z[j], 1e-12 * (1.0 + fabs(z[j])));
        }
        for (int l = 0; l < 2; ++l) {
            nscd_fc3d_options o = opts_for(laws[l]);
            double r[3 * NMAX] = {0}, u[3 * NMAX];
            nscd_fc3d_info info = new_info();
            assert_int_equal(nscd_fc3d_solve_dense(n, W, q, mu, &o, r, u, &info), NSCD_OK);
            assert_true(info.converged == 1 && info.merit <= 1e-10);
            for (int32_t j = 0; j < n; ++j) {
                assert_true(fabs(r[3 * j] - z[j]) <= 1e-9 * (1.0 + fabs(z[j])));
                assert_true(r[3 * j + 1] == 0.0 && r[3 * j + 2] == 0.0);
            }
        }
    }
}

/* One contact of a sphere on the floor: W = diag(a, b, b) in the contact frame. */
static void sphere_on_floor(double a, double b, double *W) {
    memset(W, 0, 9 * sizeof *W);
    W[0] = a, W[4] = b, W[8] = b;
}

static void sticking_under_normal_load(void **state) {
    (void)state;
    double W[9], q[3] = {-1.0, 0.1, -0.05}, mu = 0.5;
    sphere_on_floor(2.0, 7.0, W); /* stick: |q_t|/b = 0.016 <= mu/a = 0.25 */
    for (int l = 0; l < 2; ++l) {
        nscd_fc3d_options o = opts_for(laws[l]);
        double r[3] = {0}, u[3];
        assert_int_equal(nscd_fc3d_solve_dense(1, W, q, &mu, &o, r, u, NULL), NSCD_OK);
        assert_close(r[0], 0.5, 1e-15);
        assert_close(r[1], -0.1 / 7.0, 1e-15);
        assert_close(r[2], 0.05 / 7.0, 1e-15);
        for (int i = 0; i < 3; ++i) {
            assert_close(u[i], 0.0, 1e-14);
        }
    }
}

static void sliding_when_tangential_velocity_is_large(void **state) {
    (void)state;
    double W[9], q[3] = {-1.0, 3.0, -4.0}, mu = 0.3;
    sphere_on_floor(2.0, 7.0, W);
    /* r_n = 1/a, r_t = -mu r_n q_t/|q_t|, u_t = q_t (1 - b mu r_n / |q_t|) */
    double rn = 0.5, st = 1.0 - 7.0 * mu * rn / 5.0;
    for (int l = 0; l < 2; ++l) {
        nscd_fc3d_options o = opts_for(laws[l]);
        double r[3] = {0}, u[3];
        assert_int_equal(nscd_fc3d_solve_dense(1, W, q, &mu, &o, r, u, NULL), NSCD_OK);
        assert_close(r[0], rn, 1e-14);
        assert_close(r[1], -mu * rn * 0.6, 1e-14);
        assert_close(r[2], mu * rn * 0.8, 1e-14);
        assert_close(u[0], 0.0, 1e-14);
        assert_close(u[1], 3.0 * st, 1e-13);
        assert_close(u[2], -4.0 * st, 1e-13);
    }
}

static void separating_contact_takes_off(void **state) {
    (void)state;
    double W[9], q[3] = {0.5, 3.0, -4.0}, mu = 0.3;
    sphere_on_floor(2.0, 7.0, W);
    for (int l = 0; l < 2; ++l) {
        nscd_fc3d_options o = opts_for(laws[l]);
        double r[3] = {1.0, 2.0, 3.0}, u[3];
        assert_int_equal(nscd_fc3d_solve_dense(1, W, q, &mu, &o, r, u, NULL), NSCD_OK);
        for (int i = 0; i < 3; ++i) {
            assert_true(r[i] == 0.0);
            assert_true(u[i] == q[i]);
        }
    }
}

/* A single contact with a full (anisotropic, coupled) block is exactly one call
 * of the single-contact solver. */
static void single_contact_equals_block_solvers(void **state) {
    (void)state;
    double W[(3 * NMAX) * (3 * NMAX)], q[3 * NMAX];
    for (uint64_t seed = 1; seed <= 20; ++seed) {
        chain_problem(2, seed, W, q);
        double A[9], b[3];
        for (int a = 0; a < 3; ++a) {
            for (int c = 0; c < 3; ++c) {
                A[3 * a + c] = W[(3 + a) * 6 + 3 + c]; /* contact 1: two bodies, coupled */
            }
            b[a] = -q[3 + a];
        }
        double mu = 0.2 + 0.1 * (double)(seed % 7);
        double x[3] = {0}, r[3] = {0}, u[3];
        assert_int_equal(nscd_mdp_single_contact(A, b, mu, x), NSCD_OK);
        nscd_fc3d_options o = opts_for(NSCD_FC3D_MAX_DISSIPATION);
        nscd_fc3d_info info = new_info();
        assert_int_equal(nscd_fc3d_solve_dense(1, A, q + 3, &mu, &o, r, u, &info), NSCD_OK);
        /* sweep 1 solves the block, sweep 2 sees a zero update and checks the merit */
        assert_int_equal(info.iterations, 2);
        assert_memory_equal(r, x, sizeof r);

        /* Coulomb: the result satisfies the law (checked independently). */
        o = opts_for(NSCD_FC3D_COULOMB);
        assert_int_equal(nscd_fc3d_solve_dense(1, A, q + 3, &mu, &o, r, u, &info), NSCD_OK);
        double ut = hypot(u[1], u[2]), rt = hypot(r[1], r[2]);
        double scale = fabs(q[3]) + hypot(q[4], q[5]);
        assert_true(rt <= mu * r[0] * (1.0 + 1e-12));
        assert_true(fabs(u[0] * r[0]) <= 1e-10 * scale * r[0] + 1e-300);
        if (ut > 1e-10 * scale) { /* sliding: on the boundary, opposite to the slip */
            assert_true(fabs(rt - mu * r[0]) <= 1e-10 * r[0]);
            assert_true(fabs(r[1] * u[1] + r[2] * u[2] + rt * ut) <= 1e-9 * rt * ut);
        }
    }
}

/* Coulomb on coupled problems: an independent check of De Saxce's conditions. */
static void coulomb_solution_satisfies_the_law(void **state) {
    (void)state;
    const int32_t n = 7;
    double W[(3 * NMAX) * (3 * NMAX)], q[3 * NMAX], mu[NMAX];
    for (uint64_t seed = 11; seed <= 16; ++seed) {
        chain_problem(n, seed, W, q);
        for (int32_t j = 0; j < n; ++j) {
            mu[j] = 0.1 + 0.1 * j;
        }
        nscd_fc3d_options o = opts_for(NSCD_FC3D_COULOMB);
        double r[3 * NMAX] = {0}, u[3 * NMAX], uu[3 * NMAX];
        nscd_fc3d_info info = new_info();
        assert_int_equal(nscd_fc3d_solve_dense(n, W, q, mu, &o, r, u, &info), NSCD_OK);
        residual_velocity(n, W, q, r, uu);
        for (int32_t j = 0; j < n; ++j) {
            const double *rj = r + 3 * j, *uj = uu + 3 * j;
            double rt = hypot(rj[1], rj[2]), ut = hypot(uj[1], uj[2]);
            assert_close(u[3 * j], uj[0], 1e-13);
            assert_true(rt <= mu[j] * rj[0] * (1.0 + 1e-12) + 1e-300);
            assert_true(uj[0] >= -1e-9);
            assert_true(fabs(uj[0] * rj[0]) <= 1e-9);
            if (rj[0] > 1e-9 && ut > 1e-8) {
                assert_true(fabs(rt - mu[j] * rj[0]) <= 1e-8);
                assert_true(fabs(rj[1] * uj[1] + rj[2] * uj[2] + rt * ut) <= 1e-8 * (1 + rt * ut));
            }
        }
    }
}

/* Maximum dissipation on coupled problems: every block is the single-contact
 * solution of its local problem. */
static void mdp_solution_is_a_block_fixed_point(void **state) {
    (void)state;
    const int32_t n = 7;
    double W[(3 * NMAX) * (3 * NMAX)], q[3 * NMAX], mu[NMAX];
    for (uint64_t seed = 21; seed <= 26; ++seed) {
        chain_problem(n, seed, W, q);
        for (int32_t j = 0; j < n; ++j) {
            mu[j] = 0.6 - 0.05 * j;
        }
        nscd_fc3d_options o = opts_for(NSCD_FC3D_MAX_DISSIPATION);
        double r[3 * NMAX] = {0}, u[3 * NMAX];
        assert_int_equal(nscd_fc3d_solve_dense(n, W, q, mu, &o, r, u, NULL), NSCD_OK);
        for (int32_t j = 0; j < n; ++j) {
            double A[9], b[3], x[3];
            for (int a = 0; a < 3; ++a) {
                b[a] = -q[3 * j + a];
                for (int32_t k = 0; k < 3 * n; ++k) {
                    if (k / 3 != j) {
                        b[a] -= W[(3 * j + a) * 3 * n + k] * r[k];
                    }
                }
                for (int c = 0; c < 3; ++c) {
                    A[3 * a + c] = W[(3 * j + a) * 3 * n + 3 * j + c];
                }
            }
            assert_int_equal(nscd_mdp_single_contact(A, b, mu[j], x), NSCD_OK);
            for (int a = 0; a < 3; ++a) {
                assert_true(fabs(x[a] - r[3 * j + a]) <= 1e-8 * (1.0 + fabs(x[a])));
            }
        }
    }
}

/* Block-CSR copy of the non-zero blocks of a dense W, ascending columns. */
static int32_t to_bsr(int32_t n, const double *W, int32_t *row_ptr, int32_t *col, double *blk) {
    int32_t b = 0, m = 3 * n;
    for (int32_t j = 0; j < n; ++j) {
        row_ptr[j] = b;
        for (int32_t k = 0; k < n; ++k) {
            int nz = 0;
            for (int e = 0; e < 9; ++e) {
                nz |= W[(3 * j + e / 3) * m + 3 * k + e % 3] != 0.0;
            }
            if (nz) {
                col[b] = k;
                for (int e = 0; e < 9; ++e) {
                    blk[9 * b + e] = W[(3 * j + e / 3) * m + 3 * k + e % 3];
                }
                ++b;
            }
        }
    }
    row_ptr[n] = b;
    return b;
}

static void dense_and_bsr_are_bitwise_identical(void **state) {
    (void)state;
    const int32_t n = 8;
    double W[(3 * NMAX) * (3 * NMAX)], q[3 * NMAX], mu[NMAX], blk[9 * NMAX * NMAX];
    int32_t row_ptr[NMAX + 1], col[NMAX * NMAX];
    chain_problem(n, 77, W, q);
    to_bsr(n, W, row_ptr, col, blk);
    for (int32_t j = 0; j < n; ++j) {
        mu[j] = 0.3 + 0.05 * j;
    }
    for (int l = 0; l < 2; ++l) {
        for (int32_t method = 0; method < 2; ++method) {
            nscd_fc3d_options o = opts_for(laws[l]);
            o.method = method;
            o.jacobi_groups = 3;
            o.max_iterations = 20000;
            double r1[3 * NMAX] = {0}, u1[3 * NMAX], r2[3 * NMAX] = {0}, u2[3 * NMAX];
            nscd_fc3d_info i1 = new_info(), i2 = new_info();
            assert_int_equal(nscd_fc3d_solve_dense(n, W, q, mu, &o, r1, u1, &i1), NSCD_OK);
            assert_int_equal(nscd_fc3d_solve_bsr(n, row_ptr, col, blk, q, mu, &o, r2, u2, &i2),
                             NSCD_OK);
            assert_memory_equal(r1, r2, sizeof(double) * 3 * (size_t)n);
            assert_memory_equal(u1, u2, sizeof(double) * 3 * (size_t)n);
            assert_int_equal(i1.iterations, i2.iterations);
            assert_memory_equal(&i1.merit, &i2.merit, sizeof i1.merit);
        }
    }
}

static void jacobi_blend_and_warm_start(void **state) {
    (void)state;
    const int32_t n = 6;
    double W[(3 * NMAX) * (3 * NMAX)], q[3 * NMAX], mu[NMAX];
    chain_problem(n, 5, W, q);
    for (int32_t j = 0; j < n; ++j) {
        mu[j] = 0.5;
    }
    for (int l = 0; l < 2; ++l) {
        nscd_fc3d_options o = opts_for(laws[l]);
        double r[3 * NMAX] = {0}, u[3 * NMAX], rj[3 * NMAX] = {0}, uj[3 * NMAX];
        nscd_fc3d_info info = new_info();
        assert_int_equal(nscd_fc3d_solve_dense(n, W, q, mu, &o, r, u, &info), NSCD_OK);
        int32_t gs_iterations = info.iterations;
        assert_true(gs_iterations > 1);
        /* the blend reaches the same (here unique) solution */
        o.method = NSCD_FC3D_JACOBI_BLEND;
        o.jacobi_groups = n; /* pure weighted block Jacobi */
        o.max_iterations = 20000;
        assert_int_equal(nscd_fc3d_solve_dense(n, W, q, mu, &o, rj, uj, &info), NSCD_OK);
        for (int32_t i = 0; i < 3 * n; ++i) {
            assert_close(rj[i], r[i], 1e-8);
        }
        /* warm start from the solution: one sweep */
        o.method = NSCD_FC3D_GAUSS_SEIDEL;
        assert_int_equal(nscd_fc3d_solve_dense(n, W, q, mu, &o, r, u, &info), NSCD_OK);
        assert_int_equal(info.iterations, 1);
        /* warm_start = 0 ignores the guess */
        o.warm_start = 0;
        for (int32_t i = 0; i < 3 * n; ++i) {
            rj[i] = NAN;
        }
        assert_int_equal(nscd_fc3d_solve_dense(n, W, q, mu, &o, rj, uj, &info), NSCD_OK);
        assert_int_equal(info.iterations, gs_iterations);
    }
}

/* The merit is invariant under W -> a W (masses / a) and q -> c q (velocities): the
 * sweeps see the same scaled problem, so r -> (c / a) r with the same sweep count. */
static void merit_is_scale_invariant_and_relaxation_converges(void **state) {
    (void)state;
    const int32_t n = 5;
    double W[(3 * NMAX) * (3 * NMAX)], q[3 * NMAX], mu[NMAX];
    double W2[(3 * NMAX) * (3 * NMAX)], q2[3 * NMAX];
    chain_problem(n, 31, W, q);
    const double a = 1024.0, c = 0.125; /* powers of two: exact scaling */
    for (int32_t i = 0; i < 9 * n * n; ++i) {
        W2[i] = a * W[i];
    }
    for (int32_t i = 0; i < 3 * n; ++i) {
        q2[i] = c * q[i];
    }
    for (int32_t j = 0; j < n; ++j) {
        mu[j] = 0.35;
    }
    for (int l = 0; l < 2; ++l) {
        nscd_fc3d_options o = opts_for(laws[l]);
        double r[3 * NMAX] = {0}, u[3 * NMAX], r2[3 * NMAX] = {0}, u2[3 * NMAX];
        nscd_fc3d_info i1 = new_info(), i2 = new_info();
        assert_int_equal(nscd_fc3d_solve_dense(n, W, q, mu, &o, r, u, &i1), NSCD_OK);
        assert_int_equal(nscd_fc3d_solve_dense(n, W2, q2, mu, &o, r2, u2, &i2), NSCD_OK);
        assert_int_equal(i1.iterations, i2.iterations);
        assert_close(i1.merit, i2.merit, 1e-6 * i1.merit + 1e-300);
        for (int32_t i = 0; i < 3 * n; ++i) {
            assert_close(r2[i], c / a * r[i], 1e-12 * (c / a) * (1.0 + fabs(r[i])));
            assert_close(u2[i], c * u[i], 1e-12 * c);
        }
        /* under-relaxation reaches the same solution, in more sweeps */
        o.relaxation = 0.6;
        double r3[3 * NMAX] = {0}, u3[3 * NMAX];
        nscd_fc3d_info i3 = new_info();
        assert_int_equal(nscd_fc3d_solve_dense(n, W, q, mu, &o, r3, u3, &i3), NSCD_OK);
        assert_true(i3.iterations > i1.iterations);
        for (int32_t i = 0; i < 3 * n; ++i) {
            assert_close(r3[i], r[i], 1e-8 * (1.0 + fabs(r[i])));
        }
    }
}

static void non_convergence_is_reported(void **state) {
    (void)state;
    const int32_t n = 6;
    double W[(3 * NMAX) * (3 * NMAX)], q[3 * NMAX], mu[NMAX];
    chain_problem(n, 9, W, q);
    for (int32_t j = 0; j < n; ++j) {
        mu[j] = 0.4;
    }
    for (int l = 0; l < 2; ++l) {
        nscd_fc3d_options o = opts_for(laws[l]);
        o.max_iterations = 1;
        double r[3 * NMAX] = {0}, u[3 * NMAX], uu[3 * NMAX];
        nscd_fc3d_info info = new_info();
        assert_int_equal(nscd_fc3d_solve_dense(n, W, q, mu, &o, r, u, &info),
                         NSCD_ERR_NOT_CONVERGED);
        assert_int_equal(info.converged, 0);
        assert_int_equal(info.iterations, 1);
        assert_int_equal(info.merit_evaluations, 1);
        assert_true(info.merit > o.tolerance && isfinite(info.merit));
        /* r, u hold the last iterate, consistent with each other */
        residual_velocity(n, W, q, r, uu);
        double rn = 0.0;
        for (int32_t i = 0; i < 3 * n; ++i) {
            assert_close(u[i], uu[i], 1e-13);
            rn += fabs(r[i]);
        }
        assert_true(rn > 0.0);
    }
}

static void bad_inputs_are_rejected(void **state) {
    (void)state;
    double W[9], q[3] = {-1.0, 0.0, 0.0}, mu = 0.5, r[3] = {7, 7, 7}, u[3] = {8, 8, 8};
    sphere_on_floor(1.0, 1.0, W);
    nscd_fc3d_options o = opts_for(NSCD_FC3D_COULOMB);
    nscd_fc3d_info info = new_info();
    int32_t row_ptr[2] = {0, 1}, col[1] = {0};
    assert_int_equal(nscd_fc3d_options_init(NULL, sizeof o), NSCD_ERR_NULL_POINTER);
    /* shorter than the 0.1 struct (which ends with the allocator) */
    assert_int_equal(
        nscd_fc3d_options_init(&o, offsetof(nscd_fc3d_options, allocator) + sizeof o.allocator - 1),
        NSCD_ERR_STRUCT_SIZE);
    assert_int_equal(nscd_fc3d_options_init(&o, sizeof o + 1), NSCD_ERR_STRUCT_SIZE);
    o = opts_for(NSCD_FC3D_COULOMB);
    assert_int_equal(nscd_fc3d_solve_dense(1, NULL, q, &mu, &o, r, u, &info),
                     NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_fc3d_solve_dense(1, W, NULL, &mu, &o, r, u, &info),
                     NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_fc3d_solve_dense(1, W, q, NULL, &o, r, u, &info), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_fc3d_solve_dense(1, W, q, &mu, &o, NULL, u, &info),
                     NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_fc3d_solve_dense(1, W, q, &mu, &o, r, NULL, &info),
                     NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_fc3d_solve_bsr(1, NULL, col, W, q, &mu, &o, r, u, &info),
                     NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_fc3d_solve_dense(0, W, q, &mu, &o, r, u, &info),
                     NSCD_ERR_INVALID_ARGUMENT);
    assert_int_equal(nscd_fc3d_solve_bsr(-1, row_ptr, col, W, q, &mu, &o, r, u, &info),
                     NSCD_ERR_INVALID_ARGUMENT);
    double bad_mu = -0.1;
    assert_int_equal(nscd_fc3d_solve_dense(1, W, q, &bad_mu, &o, r, u, &info),
                     NSCD_ERR_OUT_OF_RANGE);
    bad_mu = NAN;
    assert_int_equal(nscd_fc3d_solve_dense(1, W, q, &bad_mu, &o, r, u, &info), NSCD_ERR_NOT_FINITE);
    double nan_q[3] = {-1.0, NAN, 0.0};
    assert_int_equal(nscd_fc3d_solve_dense(1, W, nan_q, &mu, &o, r, u, &info), NSCD_ERR_NOT_FINITE);
    double nan_W[9];
    memcpy(nan_W, W, sizeof W);
    nan_W[5] = INFINITY;
    assert_int_equal(nscd_fc3d_solve_dense(1, nan_W, q, &mu, &o, r, u, &info), NSCD_ERR_NOT_FINITE);
    assert_int_equal(nscd_fc3d_solve_bsr(1, row_ptr, col, nan_W, q, &mu, &o, r, u, &info),
                     NSCD_ERR_NOT_FINITE);
    double nan_r[3] = {NAN, 0, 0}, r0[3];
    memcpy(r0, nan_r, sizeof r0);
    assert_int_equal(nscd_fc3d_solve_dense(1, W, q, &mu, &o, nan_r, u, &info), NSCD_ERR_NOT_FINITE);
    /* refused diagonal blocks: indefinite, zero, a non-symmetric one whose symmetric
     * part is indefinite (non-symmetric blocks with a positive definite or
     * semi-definite symmetric part are solved: test_fc3d_nonsymmetric.c) */
    double npd[9] = {1, 0, 0, 0, -1, 0, 0, 0, 1}, zero[9] = {0},
           asym[9] = {1, 3, 0, 0, 1, 0, 0, 0, 1};
    assert_int_equal(nscd_fc3d_solve_dense(1, npd, q, &mu, &o, r, u, &info), NSCD_ERR_NOT_SPD);
    assert_int_equal(nscd_fc3d_solve_dense(1, zero, q, &mu, &o, r, u, &info), NSCD_ERR_NOT_SPD);
    assert_int_equal(nscd_fc3d_solve_dense(1, asym, q, &mu, &o, r, u, &info), NSCD_ERR_NOT_SPD);
    assert_int_equal(nscd_fc3d_solve_bsr(1, row_ptr, col, npd, q, &mu, &o, r, u, &info),
                     NSCD_ERR_NOT_SPD);
    /* block-CSR structure */
    int32_t bad_col[1] = {1}, bad_ptr[2] = {1, 1}, empty_ptr[2] = {0, 0};
    assert_int_equal(nscd_fc3d_solve_bsr(1, row_ptr, bad_col, W, q, &mu, &o, r, u, &info),
                     NSCD_ERR_INDEX);
    assert_int_equal(nscd_fc3d_solve_bsr(1, bad_ptr, col, W, q, &mu, &o, r, u, &info),
                     NSCD_ERR_INVALID_ARGUMENT);
    assert_int_equal(nscd_fc3d_solve_bsr(1, empty_ptr, col, W, q, &mu, &o, r, u, &info),
                     NSCD_ERR_INVALID_ARGUMENT);
    /* options and info */
    nscd_fc3d_options bad = o;
    bad.tolerance = 0.0;
    assert_int_equal(nscd_fc3d_solve_dense(1, W, q, &mu, &bad, r, u, &info), NSCD_ERR_OUT_OF_RANGE);
    bad = o;
    bad.max_iterations = 0;
    assert_int_equal(nscd_fc3d_solve_dense(1, W, q, &mu, &bad, r, u, &info), NSCD_ERR_OUT_OF_RANGE);
    bad = o;
    bad.relaxation = 1.5;
    assert_int_equal(nscd_fc3d_solve_dense(1, W, q, &mu, &bad, r, u, &info), NSCD_ERR_OUT_OF_RANGE);
    bad = o;
    bad.jacobi_groups = 0;
    assert_int_equal(nscd_fc3d_solve_dense(1, W, q, &mu, &bad, r, u, &info), NSCD_ERR_OUT_OF_RANGE);
    bad = o;
    bad.friction_law = 7;
    assert_int_equal(nscd_fc3d_solve_dense(1, W, q, &mu, &bad, r, u, &info),
                     NSCD_ERR_INVALID_ARGUMENT);
    bad = o;
    bad.struct_size = 4;
    assert_int_equal(nscd_fc3d_solve_dense(1, W, q, &mu, &bad, r, u, &info), NSCD_ERR_STRUCT_SIZE);
    nscd_fc3d_info bad_info = info;
    bad_info.struct_size = 0;
    assert_int_equal(nscd_fc3d_solve_dense(1, W, q, &mu, &o, r, u, &bad_info),
                     NSCD_ERR_STRUCT_SIZE);
    /* every failure left the outputs unchanged */
    for (int i = 0; i < 3; ++i) {
        assert_true(r[i] == 7.0 && u[i] == 8.0);
    }
    assert_int_equal(info.iterations, 0);
    /* NULL options and NULL info are fine */
    assert_int_equal(nscd_fc3d_solve_dense(1, W, q, &mu, NULL, r, u, NULL), NSCD_OK);
    assert_close(r[0], 1.0, 1e-15);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(frictionless_is_the_lcp_solution),
        cmocka_unit_test(sticking_under_normal_load),
        cmocka_unit_test(sliding_when_tangential_velocity_is_large),
        cmocka_unit_test(separating_contact_takes_off),
        cmocka_unit_test(single_contact_equals_block_solvers),
        cmocka_unit_test(coulomb_solution_satisfies_the_law),
        cmocka_unit_test(mdp_solution_is_a_block_fixed_point),
        cmocka_unit_test(dense_and_bsr_are_bitwise_identical),
        cmocka_unit_test(jacobi_blend_and_warm_start),
        cmocka_unit_test(merit_is_scale_invariant_and_relaxation_converges),
        cmocka_unit_test(non_convergence_is_reported),
        cmocka_unit_test(bad_inputs_are_rejected),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
