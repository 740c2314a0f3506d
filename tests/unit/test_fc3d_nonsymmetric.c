/* fc3d on the W of real simulations: diagonal blocks that are not exactly
 * symmetric, semi-definite blocks, and the refusal of blocks whose symmetric
 * part is indefinite or not finite (src/contact/solvers/fc3d_block.c, docs/fc3d.md
 * "Non-symmetric and semi-definite diagonal blocks").
 *
 * The solutions are checked here, independently of the library: Coulomb by
 * E1 = ||r - P_K(r - u~)|| / (1 + ||q||) (u~ = De Saxce's modified velocity,
 * P_K the projection onto the friction cone, both written below), maximum
 * dissipation by the variational inequality of each block, sampled. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "contact/solvers/fc3d_block.h"
#include "nscd/nscd.h"
#include "test_random.h"

#define N 6         /* contacts of the test problems */
#define DOF (4 * N) /* velocity unknowns of the bodies behind W = H M^-1 H' */
#define M3 (3 * N)

/* Deterministic uniform numbers in [-1, 1). */
/* Euclidean projection onto K_mu = { ||(y1, y2)|| <= mu y0 }. */
static void project_cone(const double y[3], double mu, double p[3]) {
    double t = hypot(y[1], y[2]);
    if (t <= mu * y[0]) {
        p[0] = y[0], p[1] = y[1], p[2] = y[2];
    } else if (mu * t <= -y[0]) {
        p[0] = p[1] = p[2] = 0.0;
    } else {
        double a = (mu * t + y[0]) / (mu * mu + 1.0);
        p[0] = a;
        p[1] = mu * a * y[1] / t;
        p[2] = mu * a * y[2] / t;
    }
}

/* u = W r + q (dense, 3n rows). */
static void velocity(int n, const double *W, const double *q, const double *r, double *u) {
    for (int i = 0; i < 3 * n; ++i) {
        u[i] = q[i];
        for (int k = 0; k < 3 * n; ++k) {
            u[i] += W[(size_t)i * 3 * n + k] * r[k];
        }
    }
}

/* E1 = ||r - P_K(r - u~)|| / (1 + ||q||). */
static double coulomb_e1(int n, const double *W, const double *q, const double *mu,
                         const double *r) {
    double u[M3], e2 = 0.0;
    velocity(n, W, q, r, u);
    for (int j = 0; j < n; ++j) {
        const double *rj = r + 3 * j, *uj = u + 3 * j;
        double ut = hypot(uj[1], uj[2]);
        double y[3] = {rj[0] - (uj[0] + mu[j] * ut), rj[1] - uj[1], rj[2] - uj[2]}, p[3];
        project_cone(y, mu[j], p);
        for (int i = 0; i < 3; ++i) {
            e2 += (rj[i] - p[i]) * (rj[i] - p[i]);
        }
    }
    return sqrt(e2) / (1.0 + norm(q, 3 * n));
}

/* W = H M^-1 H' of random bodies (DOF unknowns, masses in [0.5, 1.5]), every
 * contact row random; then W += eps s E with E random (not symmetric), s the
 * mean diagonal: the diagonal blocks stay positive definite, non-symmetric to
 * about eps. q: normal parts in [-1, 0.2], tangential in [-1, 1]. */
static void random_problem(uint64_t seed, double eps, double *W, double *q, double *mu) {
    uint64_t s = seed;
    static double H[M3][DOF];
    double minv[DOF];
    for (int d = 0; d < DOF; ++d) {
        minv[d] = 1.0 / (1.0 + 0.5 * rnd(&s));
    }
    for (int i = 0; i < M3; ++i) {
        for (int d = 0; d < DOF; ++d) {
            H[i][d] = rnd(&s);
        }
    }
    double trace = 0.0;
    for (int i = 0; i < M3; ++i) {
        for (int k = 0; k < M3; ++k) {
            double w = 0.0;
            for (int d = 0; d < DOF; ++d) {
                w += H[i][d] * minv[d] * H[k][d];
            }
            W[i * M3 + k] = w;
        }
        trace += W[i * M3 + i];
    }
    for (int i = 0; i < M3 * M3; ++i) {
        W[i] += eps * (trace / M3) * rnd(&s);
    }
    for (int j = 0; j < N; ++j) {
        q[3 * j] = -0.4 + 0.6 * rnd(&s);
        q[3 * j + 1] = rnd(&s);
        q[3 * j + 2] = rnd(&s);
        mu[j] = 0.3 + 0.2 * rnd(&s);
    }
}

static nscd_fc3d_options options(int32_t law) {
    nscd_fc3d_options o;
    assert_int_equal(nscd_fc3d_options_init(&o, sizeof o), NSCD_OK);
    o.friction_law = law;
    o.max_iterations = 20000;
    return o;
}

static double asymmetry_of_diagonal_blocks(int n, const double *W) {
    double worst = 0.0;
    for (int j = 0; j < n; ++j) {
        double s = 0.0, a = 0.0;
        for (int i = 0; i < 3; ++i) {
            s += W[(size_t)(3 * j + i) * 3 * n + 3 * j + i] / 3.0;
            for (int k = 0; k < 3; ++k) {
                a = fmax(a, fabs(W[(size_t)(3 * j + i) * 3 * n + 3 * j + k] -
                                 W[(size_t)(3 * j + k) * 3 * n + 3 * j + i]));
            }
        }
        worst = fmax(worst, a / s);
    }
    return worst;
}

/* Slightly non-symmetric blocks (relative asymmetry 1e-8 .. 1e-2, as real
 * simulations give): accepted as regular, and Coulomb's solution passes E1. */
static void coulomb_nonsymmetric_blocks_solved(void **state) {
    (void)state;
    const double eps[4] = {1e-8, 1e-5, 1e-3, 1e-2};
    for (int e = 0; e < 4; ++e) {
        for (uint64_t seed = 1; seed <= 4; ++seed) {
            static double W[M3 * M3];
            double q[M3], mu[N], r[M3] = {0}, u[M3];
            random_problem(seed, eps[e], W, q, mu);
            double a = asymmetry_of_diagonal_blocks(N, W);
            assert_true(a > 0.1 * eps[e] && a < 30.0 * eps[e]);
            nscd_fc3d_block_report rep = {.struct_size = sizeof rep};
            assert_int_equal(nscd_fc3d_check_dense(N, W, &rep), NSCD_OK);
            assert_int_equal(rep.n_regular, N);
            assert_int_equal(rep.refused_block, -1);
            nscd_fc3d_options o = options(NSCD_FC3D_COULOMB);
            nscd_fc3d_info info = {.struct_size = sizeof info};
            assert_int_equal(nscd_fc3d_solve_dense(N, W, q, mu, &o, r, u, &info), NSCD_OK);
            double e1 = coulomb_e1(N, W, q, mu, r);
            if (!(e1 <= 1e-8)) {
                fail_msg("eps %g seed %d: E1 = %g", eps[e], (int)seed, e1);
            }
            /* the problem has contacts in contact: not a trivial all-take-off case */
            assert_true(norm(r, M3) > 0.1);
        }
    }
}

/* The maximum-dissipation block problem with A as given: y in F (cone,
 * u_n >= 0 ⊥ y_n >= 0) and (z - y)'u >= 0 for every z of F, with u = A y + v
 * (F lies in the plane u_n = 0 when v_n < 0). Checked on 720 points of the
 * conic section's boundary and their midpoints with y: the smallest
 * (z - y)'u, relative to |u| |y| + |v|^2 / s. Returns the worst violation. */
static double mdp_vi_violation(const double A[9], const double v[3], double mu, const double y[3]) {
    double u[3];
    for (int i = 0; i < 3; ++i) {
        u[i] = v[i] + A[3 * i] * y[0] + A[3 * i + 1] * y[1] + A[3 * i + 2] * y[2];
    }
    double s = (A[0] + A[4] + A[8]) / 3.0;
    double scale = norm(u, 3) * norm(y, 3) + (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) / s;
    double worst = 0.0;
    /* y in the cone, u_n >= 0, complementarity */
    worst = fmax(worst, (hypot(y[1], y[2]) - mu * y[0]) * s * norm(y, 3) / scale);
    worst = fmax(worst, -u[0] * norm(y, 3) / scale);
    worst = fmax(worst, fabs(u[0] * y[0]) / scale);
    if (v[0] >= 0.0) {
        return worst; /* take-off: F = {0} (or holds it) */
    }
    /* z on the boundary of F: z = t (1, mu cos th, mu sin th) with (A z + v)_n = 0 */
    for (int k = 0; k < 720; ++k) {
        double th = 6.283185307179586 * k / 720.0;
        double d[3] = {1.0, mu * cos(th), mu * sin(th)};
        double an = A[0] * d[0] + A[1] * d[1] + A[2] * d[2];
        if (!(an > 0.0)) {
            continue; /* the ray does not meet the plane */
        }
        double t = -v[0] / an;
        for (int m = 0; m < 2; ++m) {
            double z[3], g = 0.0;
            for (int i = 0; i < 3; ++i) {
                z[i] = m == 0 ? t * d[i] : 0.5 * (t * d[i] + y[i]);
                g += (z[i] - y[i]) * u[i];
            }
            worst = fmax(worst, -g / scale);
        }
    }
    return worst;
}

/* Maximum dissipation on non-symmetric blocks: every block of the solution
 * solves its variational inequality with W_jj as given. */
static void mdp_nonsymmetric_blocks_solved(void **state) {
    (void)state;
    for (uint64_t seed = 1; seed <= 4; ++seed) {
        static double W[M3 * M3];
        double q[M3], mu[N], r[M3] = {0}, u[M3];
        random_problem(seed, 1e-2, W, q, mu);
        nscd_fc3d_options o = options(NSCD_FC3D_MAX_DISSIPATION);
        nscd_fc3d_info info = {.struct_size = sizeof info};
        assert_int_equal(nscd_fc3d_solve_dense(N, W, q, mu, &o, r, u, &info), NSCD_OK);
        for (int j = 0; j < N; ++j) {
            double A[9], v[3];
            for (int i = 0; i < 3; ++i) {
                v[i] = u[3 * j + i];
                for (int k = 0; k < 3; ++k) {
                    A[3 * i + k] = W[(size_t)(3 * j + i) * M3 + 3 * j + k];
                    v[i] -= A[3 * i + k] * r[3 * j + k];
                }
            }
            double bad = mdp_vi_violation(A, v, mu[j], r + 3 * j);
            if (!(bad <= 1e-8)) {
                fail_msg("seed %d contact %d: VI violated by %g", (int)seed, j, bad);
            }
        }
    }
}

/* The block solver of the non-symmetric VI: on a symmetric block it is the
 * analytic solver; on non-symmetric ones (skew part up to the size of the
 * symmetric one) its result passes the sampled VI. */
static void mdp_general_block_solver(void **state) {
    (void)state;
    uint64_t s = 7;
    for (int trial = 0; trial < 200; ++trial) {
        double L[9], A[9], v[3] = {-1.0 + 0.5 * rnd(&s), rnd(&s), rnd(&s)};
        for (int i = 0; i < 9; ++i) {
            L[i] = rnd(&s);
        }
        for (int i = 0; i < 3; ++i) { /* A = L L' + 0.3 I: SPD */
            for (int k = 0; k < 3; ++k) {
                A[3 * i + k] = (i == k ? 0.3 : 0.0) + L[3 * i] * L[3 * k] +
                               L[3 * i + 1] * L[3 * k + 1] + L[3 * i + 2] * L[3 * k + 2];
            }
        }
        double mu = 0.1 + 0.5 * (1.0 + rnd(&s));
        double y[3] = {0, 0, 0}, ref[3] = {0, 0, 0}, b[3] = {-v[0], -v[1], -v[2]};
        assert_int_equal(nscd__fc3d_local_mdp_general(A, v, mu, 0.0, y), NSCD_OK);
        assert_int_equal(nscd_mdp_single_contact(A, b, mu, ref), NSCD_OK);
        for (int i = 0; i < 3; ++i) {
            assert_true(fabs(y[i] - ref[i]) <= 1e-10 * (1.0 + norm(ref, 3)));
        }
        const double skews[4] = {0.0, 0.01, 0.3, 1.0};
        double skew = skews[trial % 4];
        double K[3] = {rnd(&s), rnd(&s), rnd(&s)};
        double sc = (A[0] + A[4] + A[8]) / 3.0 * skew;
        A[1] += sc * K[0], A[3] -= sc * K[0];
        A[2] += sc * K[1], A[6] -= sc * K[1];
        A[5] += sc * K[2], A[7] -= sc * K[2];
        y[0] = y[1] = y[2] = 0.0;
        assert_int_equal(nscd__fc3d_local_mdp_general(A, v, mu, 0.0, y), NSCD_OK);
        double bad = mdp_vi_violation(A, v, mu, y);
        if (!(bad <= 1e-9)) {
            fail_msg("trial %d (skew %g): VI violated by %g", trial, skew, bad);
        }
        if (skew >= 0.3) { /* the check sees the skew part: the symmetric part's solution fails */
            double sym[3] = {0, 0, 0};
            double As[9];
            for (int i = 0; i < 3; ++i) {
                for (int k = 0; k < 3; ++k) {
                    As[3 * i + k] = 0.5 * (A[3 * i + k] + A[3 * k + i]);
                }
            }
            assert_int_equal(nscd_mdp_single_contact(As, b, mu, sym), NSCD_OK);
            assert_true(mdp_vi_violation(A, v, mu, sym) > 1e-4);
        }
    }
}

/* A block the fuzzer found (fuzz_fc3d, corpus seed-mdp-skew-stall): a small
 * skew part (k^2 = 2.5e-6) on a hyperbolic conic (mu s > A_nn), where the
 * analytic solver is good to about sqrt(eps) and the projection steps stall
 * at 1e-8 of the iterate. The solve stops there with OK (it spent 2000 steps
 * and returned NOT_CONVERGED before: 10 s for a 3-contact problem) and its
 * result passes the VI to the floor's accuracy. */
static void mdp_general_stalls_at_solver_accuracy(void **state) {
    (void)state;
    const double A[9] = {3.2516608691428952,  -3.2621749768263526, 0.38059145971596003,
                         -3.2593214625545586, 17.09046715177579,   -1.9919404906817046,
                         0.37109014687312342, -1.9994380591556693, 2.2651072768636333};
    const double v[3] = {-0.00025120791928501252, -2.0094302543878362, -0.32020079831874071};
    const double mu = 1.2778210116731517;
    double y[3] = {0.076929744109847153, 0.080916713777481941, 0.055819851477290107};
    assert_int_equal(nscd__fc3d_local_mdp_general(A, v, mu, 0.0, y), NSCD_OK);
    double bad = mdp_vi_violation(A, v, mu, y);
    if (!(bad <= 1e-6)) {
        fail_msg("VI violated by %g", bad);
    }
}

/* A point mass that moves in the x-z plane only, on a floor, in contact with
 * a free body: its contact block is diag(1/m, 1/m, 0) plus the other body's
 * share in x-z only, singular (the out-of-plane tangent does not move: a
 * redundant direction). Classified semi-definite and solved; Coulomb passes
 * E1, maximum dissipation its sampled VI. */
static void semidefinite_block_solved(void **state) {
    (void)state;
    /* unknowns: the planar mass (x, z; m = 0.5), the free point (x, y, z; m = 1).
     * Contact 0: the mass on the floor, rows n = z, t = x, o = y (o immobile).
     * Contact 1: the point on top of the mass, normal z, tangents rotated. */
    const double c = 0.6, sn = 0.8, minv[5] = {2.0, 2.0, 1.0, 1.0, 1.0};
    const double H[6][5] = {{0, 1, 0, 0, 0},  {1, 0, 0, 0, 0},   {0, 0, 0, 0, 0},
                            {0, -1, 0, 0, 1}, {-c, 0, c, sn, 0}, {sn, 0, -sn, c, 0}};
    double W[36];
    for (int i = 0; i < 6; ++i) {
        for (int k = 0; k < 6; ++k) {
            W[6 * i + k] = 0.0;
            for (int d = 0; d < 5; ++d) {
                W[6 * i + k] += H[i][d] * minv[d] * H[k][d];
            }
        }
    }
    const double q[6] = {-1.0, 0.4, 0.3, 0.5, -0.2, 0.1};
    const double mu[2] = {0.5, 0.4};
    nscd_fc3d_block_report rep = {.struct_size = sizeof rep};
    assert_int_equal(nscd_fc3d_check_dense(2, W, &rep), NSCD_OK);
    assert_int_equal(rep.n_semidefinite, 1);
    assert_int_equal(rep.n_regular, 1);
    assert_true(fabs(rep.min_eigenvalue) <= 1e-12);
    nscd_fc3d_options o = options(NSCD_FC3D_COULOMB);
    double r[6] = {0}, u[6];
    nscd_fc3d_info info = {.struct_size = sizeof info};
    assert_int_equal(nscd_fc3d_solve_dense(2, W, q, mu, &o, r, u, &info), NSCD_OK);
    assert_true(coulomb_e1(2, W, q, mu, r) <= 1e-9);
    assert_true(r[0] > 0.1); /* the mass is pushed into the floor: a real contact */
    /* the out-of-plane velocity cannot change: the contact slides (u_T != 0) */
    assert_true(fabs(u[2] - q[2]) <= 1e-12);
    /* a semi-definite block alone, with a singular direction in the tangent plane
     * and a non-zero tangential free velocity along it */
    const double W1[9] = {1.0, 0.2, 0.0, 0.2, 0.5, 0.0, 0.0, 0.0, 0.0};
    const double q1[3] = {-1.0, -0.3, 0.8}, mu1 = 0.6;
    double r1[3] = {0}, u1[3];
    assert_int_equal(nscd_fc3d_solve_dense(1, W1, q1, &mu1, &o, r1, u1, &info), NSCD_OK);
    assert_true(coulomb_e1(1, W1, q1, &mu1, r1) <= 1e-9);
    /* maximum dissipation on both */
    o = options(NSCD_FC3D_MAX_DISSIPATION);
    memset(r, 0, sizeof r);
    assert_int_equal(nscd_fc3d_solve_dense(2, W, q, mu, &o, r, u, &info), NSCD_OK);
    for (int j = 0; j < 2; ++j) {
        double A[9], v[3];
        for (int i = 0; i < 3; ++i) {
            v[i] = u[3 * j + i];
            for (int k = 0; k < 3; ++k) {
                A[3 * i + k] = W[(3 * j + i) * 6 + 3 * j + k];
                v[i] -= A[3 * i + k] * r[3 * j + k];
            }
        }
        assert_true(mdp_vi_violation(A, v, mu[j], r + 3 * j) <= 1e-8);
    }
}

/* Refused: a block whose symmetric part is indefinite (the report names it),
 * a zero block, a NaN; nothing written on refusal. */
static void refused_blocks_named_and_nothing_changed(void **state) {
    (void)state;
    static double W[M3 * M3];
    double q[M3], mu[N];
    random_problem(3, 1e-3, W, q, mu);
    /* contact 4: W_44 with an indefinite symmetric part (a strong skew part does
     * not help: x'Ax = x'Sx) */
    double *b4 = W + (size_t)(3 * 4) * M3 + 3 * 4;
    double keep[3] = {b4[1], b4[M3], b4[M3 + 1]};
    b4[1] = 10.0 * b4[0] + 50.0; /* S_01 large: S indefinite */
    b4[M3] = b4[1];
    nscd_fc3d_block_report rep = {.struct_size = sizeof rep};
    assert_int_equal(nscd_fc3d_check_dense(N, W, &rep), NSCD_ERR_NOT_SPD);
    assert_int_equal(rep.refused_block, 4);
    assert_int_equal(rep.refused_kind, NSCD_FC3D_BLOCK_INDEFINITE);
    assert_non_null(strstr(rep.message, "diagonal block 4"));
    assert_non_null(strstr(rep.message, "indefinite"));

    static double W_copy[M3 * M3];
    memcpy(W_copy, W, sizeof W);
    double q_copy[M3], mu_copy[N], r[M3], u[M3];
    memcpy(q_copy, q, sizeof q), memcpy(mu_copy, mu, sizeof mu);
    for (int i = 0; i < M3; ++i) {
        r[i] = 0.25 * i, u[i] = -1.0 * i;
    }
    double r_copy[M3], u_copy[M3];
    memcpy(r_copy, r, sizeof r), memcpy(u_copy, u, sizeof u);
    nscd_fc3d_info info, info_copy;
    memset(&info, 0x5a, sizeof info);
    info.struct_size = sizeof info;
    info_copy = info;
    for (int law = 0; law < 2; ++law) {
        nscd_fc3d_options o = options(law);
        assert_int_equal(nscd_fc3d_solve_dense(N, W, q, mu, &o, r, u, &info), NSCD_ERR_NOT_SPD);
    }
    /* the same through the block-CSR entry point (dense rows as blocks) */
    int32_t row_ptr[N + 1], col[N * N];
    static double blocks[9 * N * N];
    for (int j = 0; j <= N; ++j) {
        row_ptr[j] = N * j;
    }
    for (int j = 0; j < N; ++j) {
        for (int k = 0; k < N; ++k) {
            col[N * j + k] = k;
            for (int i = 0; i < 3; ++i) {
                for (int l = 0; l < 3; ++l) {
                    blocks[9 * (N * j + k) + 3 * i + l] = W[(size_t)(3 * j + i) * M3 + 3 * k + l];
                }
            }
        }
    }
    nscd_fc3d_options o = options(NSCD_FC3D_COULOMB);
    assert_int_equal(nscd_fc3d_solve_bsr(N, row_ptr, col, blocks, q, mu, &o, r, u, &info),
                     NSCD_ERR_NOT_SPD);
    nscd_fc3d_block_report rep_bsr = {.struct_size = sizeof rep_bsr};
    assert_int_equal(nscd_fc3d_check_bsr(N, row_ptr, col, blocks, &rep_bsr), NSCD_ERR_NOT_SPD);
    assert_int_equal(rep_bsr.refused_block, 4);
    assert_string_equal(rep_bsr.message, rep.message);

    /* a zero diagonal block */
    b4[1] = keep[0], b4[M3] = keep[1];
    double saved[9];
    for (int i = 0; i < 3; ++i) {
        for (int k = 0; k < 3; ++k) {
            saved[3 * i + k] = b4[i * M3 + k];
            b4[i * M3 + k] = 0.0;
        }
    }
    assert_int_equal(nscd_fc3d_check_dense(N, W, &rep), NSCD_ERR_NOT_SPD);
    assert_int_equal(rep.refused_kind, NSCD_FC3D_BLOCK_NOT_POSITIVE);
    assert_non_null(strstr(rep.message, "diagonal block 4"));
    assert_int_equal(nscd_fc3d_solve_dense(N, W, q, mu, &o, r, u, &info), NSCD_ERR_NOT_SPD);
    for (int i = 0; i < 3; ++i) {
        for (int k = 0; k < 3; ++k) {
            b4[i * M3 + k] = saved[3 * i + k];
        }
    }
    b4[M3 + 1] = keep[2];

    /* NaN in diagonal block 2, then in an off-diagonal block */
    double *b2 = W + (size_t)(3 * 2) * M3 + 3 * 2;
    double w = b2[M3 + 2];
    b2[M3 + 2] = NAN;
    assert_int_equal(nscd_fc3d_check_dense(N, W, &rep), NSCD_ERR_NOT_FINITE);
    assert_int_equal(rep.refused_block, 2);
    assert_int_equal(rep.refused_kind, NSCD_FC3D_BLOCK_NOT_FINITE);
    assert_non_null(strstr(rep.message, "diagonal block 2"));
    assert_int_equal(nscd_fc3d_solve_dense(N, W, q, mu, &o, r, u, &info), NSCD_ERR_NOT_FINITE);
    b2[M3 + 2] = w;
    W[1 * M3 + 3 * 5] = INFINITY; /* row 1 (contact 0), column of contact 5 */
    assert_int_equal(nscd_fc3d_solve_dense(N, W, q, mu, &o, r, u, &info), NSCD_ERR_NOT_FINITE);
    assert_int_equal(nscd_fc3d_check_dense(N, W, &rep), NSCD_ERR_NOT_FINITE);
    assert_int_equal(rep.refused_block, -1);
    W[1 * M3 + 3 * 5] = W_copy[1 * M3 + 3 * 5];

    /* nothing the solver got was changed by any refusal */
    b4[1] = 10.0 * b4[0] + 50.0, b4[M3] = b4[1];
    assert_memory_equal(W, W_copy, sizeof W);
    assert_memory_equal(q, q_copy, sizeof q);
    assert_memory_equal(mu, mu_copy, sizeof mu);
    assert_memory_equal(r, r_copy, sizeof r);
    assert_memory_equal(u, u_copy, sizeof u);
    assert_memory_equal(&info, &info_copy, sizeof info);
}

/* The classification's thresholds are relative to the block's scale: the
 * same blocks times 1e-12 or 1e+12 keep their class. */
static void classification_is_scale_invariant(void **state) {
    (void)state;
    const double blocks[4][9] = {
        {2.0, 0.1, 0.0, 0.12, 1.0, 0.0, 0.0, 0.0, 1.0}, /* regular, non-symmetric */
        {1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0},  /* semi-definite */
        {1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0},  /* semi-definite */
        {1.0, 1.1, 0.0, 1.1, 1.0, 0.0, 0.0, 0.0, 1.0},  /* indefinite */
    };
    const int32_t expected[4] = {NSCD_FC3D_BLOCK_REGULAR, NSCD_FC3D_BLOCK_SEMIDEFINITE,
                                 NSCD_FC3D_BLOCK_SEMIDEFINITE, NSCD_FC3D_BLOCK_INDEFINITE};
    const double scales[3] = {1e-12, 1.0, 1e12};
    for (int b = 0; b < 4; ++b) {
        for (int k = 0; k < 3; ++k) {
            double A[9];
            for (int i = 0; i < 9; ++i) {
                A[i] = scales[k] * blocks[b][i];
            }
            nscd__fc3d_block_class c = nscd__fc3d_block_classify(A);
            assert_int_equal(c.kind, expected[b]);
            nscd_fc3d_block_report rep = {.struct_size = sizeof rep};
            assert_int_equal(nscd_fc3d_check_dense(1, A, &rep),
                             expected[b] == NSCD_FC3D_BLOCK_INDEFINITE ? NSCD_ERR_NOT_SPD
                                                                       : NSCD_OK);
        }
    }
}

/* Dense and block-CSR entry points: bitwise the same on non-symmetric and
 * semi-definite blocks too (fc3d.h, determinism), both laws. */
static void dense_and_bsr_bitwise(void **state) {
    (void)state;
    static double W[M3 * M3], blocks[9 * N * N];
    double q[M3], mu[N];
    random_problem(5, 1e-3, W, q, mu);
    for (int i = 0; i < M3; ++i) { /* contact 2's second tangent (row 8) immobile: H's row 0 */
        W[(size_t)8 * M3 + i] = W[(size_t)i * M3 + 8] = 0.0;
    }
    int32_t row_ptr[N + 1], col[N * N];
    for (int j = 0; j <= N; ++j) {
        row_ptr[j] = N * j;
    }
    for (int j = 0; j < N; ++j) {
        for (int k = 0; k < N; ++k) {
            col[N * j + k] = k;
            for (int i = 0; i < 3; ++i) {
                for (int l = 0; l < 3; ++l) {
                    blocks[9 * (N * j + k) + 3 * i + l] = W[(size_t)(3 * j + i) * M3 + 3 * k + l];
                }
            }
        }
    }
    nscd_fc3d_block_report rep = {.struct_size = sizeof rep};
    assert_int_equal(nscd_fc3d_check_bsr(N, row_ptr, col, blocks, &rep), NSCD_OK);
    assert_int_equal(rep.n_semidefinite, 1);
    for (int law = 0; law < 2; ++law) {
        nscd_fc3d_options o = options(law);
        o.tolerance = 1e-9;
        double r1[M3] = {0}, u1[M3], r2[M3] = {0}, u2[M3];
        nscd_fc3d_info i1 = {.struct_size = sizeof i1}, i2 = {.struct_size = sizeof i2};
        nscd_status s1 = nscd_fc3d_solve_dense(N, W, q, mu, &o, r1, u1, &i1);
        nscd_status s2 = nscd_fc3d_solve_bsr(N, row_ptr, col, blocks, q, mu, &o, r2, u2, &i2);
        assert_int_equal(s1, NSCD_OK);
        assert_int_equal(s2, s1);
        assert_memory_equal(r1, r2, sizeof r1);
        assert_memory_equal(u1, u2, sizeof u1);
        assert_int_equal(i1.iterations, i2.iterations);
        if (law == NSCD_FC3D_COULOMB) {
            assert_true(coulomb_e1(N, W, q, mu, r1) <= 1e-8);
        }
        assert_true(r1[6] > 1e-3); /* the semi-definite contact carries load */
    }
}

/* The report's struct_size is checked before anything is done; NULL report
 * and NULL matrix arguments. */
static void report_arguments(void **state) {
    (void)state;
    const double W[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    nscd_fc3d_block_report rep;
    memset(&rep, 0x33, sizeof rep);
    rep.struct_size = 8;
    nscd_fc3d_block_report copy = rep;
    assert_int_equal(nscd_fc3d_check_dense(1, W, &rep), NSCD_ERR_STRUCT_SIZE);
    assert_memory_equal(&rep, &copy, sizeof rep);
    rep.struct_size = sizeof rep + 8;
    copy = rep;
    assert_int_equal(nscd_fc3d_check_dense(1, W, &rep), NSCD_ERR_STRUCT_SIZE);
    assert_memory_equal(&rep, &copy, sizeof rep);
    assert_int_equal(nscd_fc3d_check_dense(1, W, NULL), NSCD_OK);
    assert_int_equal(nscd_fc3d_check_dense(0, W, NULL), NSCD_ERR_INVALID_ARGUMENT);
    assert_int_equal(nscd_fc3d_check_dense(1, NULL, NULL), NSCD_ERR_NULL_POINTER);
    int32_t row_ptr[2] = {0, 1}, col[1] = {0}, bad_col[1] = {3};
    assert_int_equal(nscd_fc3d_check_bsr(1, row_ptr, NULL, W, NULL), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_fc3d_check_bsr(1, row_ptr, bad_col, W, NULL), NSCD_ERR_INDEX);
    rep.struct_size = sizeof rep;
    assert_int_equal(nscd_fc3d_check_bsr(1, row_ptr, col, W, &rep), NSCD_OK);
    assert_int_equal(rep.n_regular, 1);
    assert_int_equal(rep.refused_block, -1);
    assert_true(rep.max_asymmetry == 0.0 && fabs(rep.min_eigenvalue - 1.0) <= 1e-15);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(coulomb_nonsymmetric_blocks_solved),
        cmocka_unit_test(mdp_nonsymmetric_blocks_solved),
        cmocka_unit_test(mdp_general_block_solver),
        cmocka_unit_test(mdp_general_stalls_at_solver_accuracy),
        cmocka_unit_test(semidefinite_block_solved),
        cmocka_unit_test(refused_blocks_named_and_nothing_changed),
        cmocka_unit_test(classification_is_scale_invariant),
        cmocka_unit_test(dense_and_bsr_bitwise),
        cmocka_unit_test(report_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
