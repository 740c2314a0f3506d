/* fc3d: the semismooth Newton solver (NSCD_FC3D_NEWTON) and the Gauss–Seidel /
 * Newton switch (NSCD_FC3D_AUTO). Every solution is checked by an error
 * computed here, independently of the library:
 *
 *     E1 = || r - P_K(r - u~) || / (1 + ||q||),   u~_j = (u_j,n + mu_j ||u_j,t||, u_j,t),
 *
 * P_K the projection onto the friction cones (written below), u = W r + q
 * recomputed from W. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "assert_near.h"
#include "fc3d_e1.h"
#include "nscd/nscd.h"

#define NMAX 8
#define MMAX (3 * NMAX)

/* The independent checks (E1, the cone projection): fc3d_e1.h. */

static nscd_fc3d_options newton_options(int32_t method) {
    nscd_fc3d_options o;
    assert_int_equal(nscd_fc3d_options_init(&o, sizeof o), NSCD_OK);
    o.method = method;
    o.tolerance = 1e-12;
    return o;
}

static nscd_fc3d_info new_info(void) {
    nscd_fc3d_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    return info;
}

/* ------------------------------------------------------------ problems */

/* A sphere on the floor: W = diag(a, b, b). */
static void sphere(double a, double b, double *W) {
    memset(W, 0, 9 * sizeof *W);
    W[0] = a, W[4] = b, W[8] = b;
}

/* W = H M^-1 H' and q = H v0 of a rigid body (mass m, principal inertia I)
 * touching the plane z = 0 at `count` points p_k (relative to the centre of
 * mass): normal +z, tangents x and y. Row for direction d at p: [d, p x d]. */
static void rigid_body_contacts(int32_t count, const double (*p)[3], double m, const double I[3],
                                const double v0[6], double *W, double *q) {
    double H[MMAX][6];
    static const double dirs[3][3] = {{0, 0, 1}, {1, 0, 0}, {0, 1, 0}};
    for (int32_t k = 0; k < count; ++k) {
        for (int a = 0; a < 3; ++a) {
            const double *d = dirs[a];
            double *h = H[3 * k + a];
            h[0] = d[0], h[1] = d[1], h[2] = d[2];
            h[3] = p[k][1] * d[2] - p[k][2] * d[1];
            h[4] = p[k][2] * d[0] - p[k][0] * d[2];
            h[5] = p[k][0] * d[1] - p[k][1] * d[0];
        }
    }
    double minv[6] = {1 / m, 1 / m, 1 / m, 1 / I[0], 1 / I[1], 1 / I[2]};
    int32_t rows = 3 * count;
    for (int32_t i = 0; i < rows; ++i) {
        q[i] = 0.0;
        for (int c = 0; c < 6; ++c) {
            q[i] += H[i][c] * v0[c];
        }
        for (int32_t k = 0; k < rows; ++k) {
            double s = 0.0;
            for (int c = 0; c < 6; ++c) {
                s += H[i][c] * minv[c] * H[k][c];
            }
            W[i * rows + k] = s;
        }
    }
}

static void box_with_velocity(const double v0[6], double *W, double *q) {
    const double a = 1.0, b = 0.5, c = 0.25, m = 1.0;
    const double I[3] = {m / 3 * (b * b + c * c), m / 3 * (a * a + c * c), m / 3 * (a * a + b * b)};
    const double p[4][3] = {{a, b, -c}, {-a, b, -c}, {-a, -b, -c}, {a, -b, -c}};
    rigid_body_contacts(4, p, m, I, v0, W, q);
}

/* A box (half extents 1, 0.5, 0.25, mass 1) on the floor on its 4 bottom
 * corners: 12 rows, rank 6 — redundant contacts. It falls (v_z = -1) and
 * slides slowly (v_x = 0.1): with mu = 0.1 it is at the edge between sticking
 * and sliding (found by a scan of velocities and mu, where Gauss–Seidel
 * reached E1 ~ 2e-7 in 2000 sweeps and stalled there). */
static void box_on_plane(double *W, double *q) {
    const double a = 1.0, b = 0.5, c = 0.25, m = 1.0;
    const double I[3] = {m / 3 * (b * b + c * c), m / 3 * (a * a + c * c), m / 3 * (a * a + b * b)};
    const double p[4][3] = {{a, b, -c}, {-a, b, -c}, {-a, -b, -c}, {a, -b, -c}};
    const double v0[6] = {0.1, 0.0, -1.0, 0.0, 0.0, 0.0};
    rigid_body_contacts(4, p, m, I, v0, W, q);
}

/* ------------------------------------------------------------ single contacts */

static void single_contact_regimes(void **state) {
    (void)state;
    const double a = 1.0, b = 3.5;
    struct {
        double q[3], mu, r[3]; /* r: the closed-form solution */
    } cases[] = {
        /* sticking: r = -W^-1 q inside the cone */
        {{-1.0, 0.1, -0.05}, 0.5, {1.0 / a, -0.1 / b, 0.05 / b}},
        /* sliding along x: r_n = 1/a, r_t = -mu r_n */
        {{-1.0, 5.0, 0.0}, 0.3, {1.0 / a, -0.3 / a, 0.0}},
        /* separating */
        {{1.0, 2.0, -1.0}, 0.5, {0.0, 0.0, 0.0}},
    };
    const int32_t methods[2] = {NSCD_FC3D_NEWTON, NSCD_FC3D_AUTO};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        for (int k = 0; k < 2; ++k) {
            double W[9], r[3] = {0}, u[3];
            sphere(a, b, W);
            nscd_fc3d_options o = newton_options(methods[k]);
            nscd_fc3d_info info = new_info();
            assert_int_equal(nscd_fc3d_solve_dense(1, W, cases[c].q, &cases[c].mu, &o, r, u, &info),
                             NSCD_OK);
            assert_int_equal(info.converged, 1);
            assert_int_equal(info.newton_failure, NSCD_FC3D_NEWTON_NO_FAILURE);
            assert_true(info.merit <= o.tolerance);
            for (int i = 0; i < 3; ++i) {
                assert_near(r[i], cases[c].r[i], 1e-10);
            }
            assert_true(e1_error(1, W, cases[c].q, &cases[c].mu, r) <= 1e-10);
            if (methods[k] == NSCD_FC3D_NEWTON) {
                assert_int_equal(info.iterations, 0); /* no sweeps */
            }
        }
    }
}

/* A coupled sliding contact (W_jj with normal-tangent coupling, not symmetric
 * in its off-diagonal blocks' sense) solved by Newton satisfies the law. */
static void coupled_and_mixed_contacts(void **state) {
    (void)state;
    /* A body (mass 1, inertia 0.3/0.4/0.5) on 3 points of the plane at heights
     * that couple the rows; v0 mixes approach, slip and spin. */
    const double I[3] = {0.3, 0.4, 0.5};
    const double p[3][3] = {{0.7, 0.1, -0.3}, {-0.4, 0.6, -0.3}, {-0.2, -0.5, -0.3}};
    const double v0s[3][6] = {{0.2, -0.1, -1.0, 0.3, 0.1, 0.2},
                              {2.0, 1.0, -0.2, 0.0, 0.0, 0.1},
                              {0.0, 0.0, -1.0, 1.5, 0.0, 0.0}};
    const double mu[3] = {0.3, 0.5, 0.8};
    for (int c = 0; c < 3; ++c) {
        double W[81], q[9];
        rigid_body_contacts(3, p, 1.0, I, v0s[c], W, q);
        const int32_t methods[2] = {NSCD_FC3D_NEWTON, NSCD_FC3D_AUTO};
        for (int k = 0; k < 2; ++k) {
            double r[9] = {0}, u[9];
            nscd_fc3d_options o = newton_options(methods[k]);
            nscd_fc3d_info info = new_info();
            assert_int_equal(nscd_fc3d_solve_dense(3, W, q, mu, &o, r, u, &info), NSCD_OK);
            assert_true(e1_error(3, W, q, mu, r) <= 1e-10);
            double uu[9];
            velocity(3, W, q, r, uu);
            for (int i = 0; i < 9; ++i) {
                assert_near(u[i], uu[i], 1e-12);
            }
        }
    }
}

/* Box on a plane with 4 redundant contacts: Gauss–Seidel does not reach a
 * tight tolerance in 2000 sweeps (the impulses drift along the null space of
 * W), Newton does; AUTO switches to it. */
static void redundant_box_gauss_seidel_stalls_newton_converges(void **state) {
    (void)state;
    double W[144], q[12], mu[4] = {0.1, 0.1, 0.1, 0.1};
    box_on_plane(W, q);
    nscd_fc3d_options gs = newton_options(NSCD_FC3D_GAUSS_SEIDEL);
    gs.max_iterations = 2000;
    double r[12] = {0}, u[12];
    nscd_fc3d_info info = new_info();
    assert_int_equal(nscd_fc3d_solve_dense(4, W, q, mu, &gs, r, u, &info), NSCD_ERR_NOT_CONVERGED);
    double e_gs = e1_error(4, W, q, mu, r);
    assert_true(e_gs > 1e-9);

    const int32_t methods[2] = {NSCD_FC3D_NEWTON, NSCD_FC3D_AUTO};
    for (int k = 0; k < 2; ++k) {
        nscd_fc3d_options o = newton_options(methods[k]);
        o.max_iterations = 2000;
        memset(r, 0, sizeof r);
        info = new_info();
        assert_int_equal(nscd_fc3d_solve_dense(4, W, q, mu, &o, r, u, &info), NSCD_OK);
        assert_true(info.newton_iterations >= 1);
        assert_true(e1_error(4, W, q, mu, r) <= 1e-10);
        assert_true(e1_error(4, W, q, mu, r) < 1e-3 * e_gs);
        if (methods[k] == NSCD_FC3D_AUTO) { /* switched after a stalled window */
            assert_true(info.iterations >= 2 * NSCD_FC3D_AUTO_WINDOW);
            assert_true(info.iterations < 2000);
        }
    }
}

/* ------------------------------------------------------------ AUTO on an easy problem */

/* Where Gauss–Seidel converges without stalling, AUTO runs exactly its sweeps:
 * same iterate, bitwise. */
static void auto_equals_gauss_seidel_when_it_converges(void **state) {
    (void)state;
    double W[9];
    sphere(1.0, 2.0, W);
    double W2[36] = {0}, q2[6] = {-1.0, 0.3, 0.2, -0.5, -0.2, 0.1}, mu2[2] = {0.4, 0.6};
    for (int i = 0; i < 3; ++i) { /* two coupled spheres */
        for (int k = 0; k < 3; ++k) {
            W2[i * 6 + k] = W[i * 3 + k];
            W2[(i + 3) * 6 + k + 3] = 1.5 * W[i * 3 + k];
        }
        W2[i * 6 + 3 + i] = W2[(3 + i) * 6 + i] = 0.4;
    }
    double rg[6] = {0}, ug[6], ra[6] = {0}, ua[6];
    nscd_fc3d_options o = newton_options(NSCD_FC3D_GAUSS_SEIDEL);
    nscd_fc3d_info ig = new_info(), ia = new_info();
    assert_int_equal(nscd_fc3d_solve_dense(2, W2, q2, mu2, &o, rg, ug, &ig), NSCD_OK);
    o.method = NSCD_FC3D_AUTO;
    assert_int_equal(nscd_fc3d_solve_dense(2, W2, q2, mu2, &o, ra, ua, &ia), NSCD_OK);
    assert_int_equal(ia.newton_iterations, 0);
    assert_int_equal(ia.iterations, ig.iterations);
    assert_memory_equal(ra, rg, sizeof ra);
    assert_memory_equal(ua, ug, sizeof ua);
}

/* Dense and block-CSR give the same Newton result (same blocks, same order). */
static void dense_and_bsr_agree(void **state) {
    (void)state;
    double W[144], q[12], mu[4] = {0.1, 0.1, 0.1, 0.1};
    box_on_plane(W, q);
    int32_t row_ptr[5], col_idx[16];
    double blocks[16 * 9];
    for (int32_t j = 0, b = 0; j < 4; ++j) {
        row_ptr[j] = b;
        for (int32_t k = 0; k < 4; ++k, ++b) {
            col_idx[b] = k;
            for (int i = 0; i < 3; ++i) {
                for (int c = 0; c < 3; ++c) {
                    blocks[9 * b + 3 * i + c] = W[(3 * j + i) * 12 + 3 * k + c];
                }
            }
        }
        row_ptr[j + 1] = b;
    }
    nscd_fc3d_options o = newton_options(NSCD_FC3D_NEWTON);
    double rd[12] = {0}, ud[12], rb[12] = {0}, ub[12];
    assert_int_equal(nscd_fc3d_solve_dense(4, W, q, mu, &o, rd, ud, NULL), NSCD_OK);
    assert_int_equal(nscd_fc3d_solve_bsr(4, row_ptr, col_idx, blocks, q, mu, &o, rb, ub, NULL),
                     NSCD_OK);
    assert_memory_equal(rd, rb, sizeof rd);
    assert_memory_equal(ud, ub, sizeof ud);
}

/* 40 boxes, each on its own floor (160 contacts, W block diagonal in 4x4
 * blocks of contacts, rank 240 of 480), given in block-CSR form: large enough
 * for the sparse LU when the build has UMFPACK (more than 100 contacts), the
 * dense LU otherwise. Each box slides and spins differently. */
static void many_boxes_block_csr(void **state) {
    (void)state;
    enum { BOXES = 40, N = 4 * BOXES, M = 3 * N };
    double *Wd = calloc((size_t)M * M, sizeof *Wd),
           *blocks = malloc(16 * BOXES * 9 * sizeof *blocks);
    double q[M], mu[N], r[M] = {0}, u[M];
    int32_t row_ptr[N + 1], col_idx[16 * BOXES];
    assert_true(Wd != NULL && blocks != NULL);
    int32_t nb = 0;
    for (int32_t k = 0; k < BOXES; ++k) {
        double Wk[144], qk[12];
        const double v0[6] = {
            0.05 * (k % 7), 0.02 * (k % 3), -1.0 - 0.1 * (k % 5), 0.05 * (k % 2), 0.0,
            0.1 * (k % 4)};
        box_with_velocity(v0, Wk, qk);
        for (int32_t j = 0; j < 4; ++j) {
            int32_t row = 4 * k + j;
            row_ptr[row] = nb;
            mu[row] = 0.1 + 0.1 * (k % 4);
            for (int32_t l = 0; l < 4; ++l, ++nb) {
                col_idx[nb] = 4 * k + l;
                for (int a = 0; a < 3; ++a) {
                    q[3 * row + a] = qk[3 * j + a];
                    for (int c = 0; c < 3; ++c) {
                        double v = Wk[(3 * j + a) * 12 + 3 * l + c];
                        blocks[9 * nb + 3 * a + c] = v;
                        Wd[(size_t)(3 * row + a) * M + 3 * (4 * k + l) + c] = v;
                    }
                }
            }
        }
    }
    row_ptr[N] = nb;
    const int32_t methods[2] = {NSCD_FC3D_NEWTON, NSCD_FC3D_AUTO};
    for (int m = 0; m < 2; ++m) {
        nscd_fc3d_options o = newton_options(methods[m]);
        o.max_iterations = 3000;
        memset(r, 0, sizeof r);
        nscd_fc3d_info info = new_info();
        assert_int_equal(nscd_fc3d_solve_bsr(N, row_ptr, col_idx, blocks, q, mu, &o, r, u, &info),
                         NSCD_OK);
        assert_true(e1_error(N, Wd, q, mu, r) <= 1e-10);
    }
    free(Wd);
    free(blocks);
}

/* Scaling W by 1024 and q by 1/8 (powers of two: exact) scales r by 1/8192
 * and changes nothing else: every decision of Newton (regularisation, line
 * search, stopping) is relative to the problem's scale. */
static void newton_is_scale_invariant(void **state) {
    (void)state;
    double W[144], q[12], mu[4] = {0.1, 0.1, 0.1, 0.1}, Ws[144], qs[12];
    box_on_plane(W, q);
    for (int i = 0; i < 144; ++i) {
        Ws[i] = 1024.0 * W[i];
    }
    for (int i = 0; i < 12; ++i) {
        qs[i] = q[i] / 8.0;
    }
    const int32_t methods[2] = {NSCD_FC3D_NEWTON, NSCD_FC3D_AUTO};
    for (int k = 0; k < 2; ++k) {
        nscd_fc3d_options o = newton_options(methods[k]);
        double r[12] = {0}, u[12], rs[12] = {0}, us[12];
        nscd_fc3d_info a = new_info(), b = new_info();
        assert_int_equal(nscd_fc3d_solve_dense(4, W, q, mu, &o, r, u, &a), NSCD_OK);
        assert_int_equal(nscd_fc3d_solve_dense(4, Ws, qs, mu, &o, rs, us, &b), NSCD_OK);
        assert_int_equal(a.newton_iterations, b.newton_iterations);
        assert_int_equal(a.iterations, b.iterations);
        assert_true(a.merit == b.merit);
        for (int i = 0; i < 12; ++i) {
            assert_true(rs[i] == r[i] / 8192.0 && us[i] == u[i] / 8.0);
        }
    }
}

/* ------------------------------------------------------------ failures */

/* A point mass pinched between two walls that both approach it: no impulses
 * satisfy u_n >= 0 at both contacts (W is singular, q outside its range), so
 * there is no solution. Newton and AUTO must say so. */
static void infeasible_problem_is_an_error(void **state) {
    (void)state;
    /* contact 1: normal +x (tangents y, z); contact 2: normal -x (tangents -y, z) */
    double W[36] = {0};
    const double R1[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, R2[9] = {-1, 0, 0, 0, -1, 0, 0, 0, 1};
    const double *R[2] = {R1, R2};
    for (int j = 0; j < 2; ++j) {
        for (int k = 0; k < 2; ++k) {
            for (int a = 0; a < 3; ++a) {
                for (int c = 0; c < 3; ++c) {
                    double s = 0.0;
                    for (int e = 0; e < 3; ++e) {
                        s += R[j][3 * a + e] * R[k][3 * c + e];
                    }
                    W[(3 * j + a) * 6 + 3 * k + c] = s;
                }
            }
        }
    }
    double q[6] = {-1.0, 0.0, 0.0, -1.0, 0.0, 0.0}, mu[2] = {0.3, 0.3};
    const int32_t methods[2] = {NSCD_FC3D_NEWTON, NSCD_FC3D_AUTO};
    for (int k = 0; k < 2; ++k) {
        nscd_fc3d_options o = newton_options(methods[k]);
        o.max_iterations = 200;
        double r[6] = {0}, u[6], uu[6];
        nscd_fc3d_info info = new_info();
        nscd_status st = nscd_fc3d_solve_dense(2, W, q, mu, &o, r, u, &info);
        assert_int_equal(st, NSCD_ERR_NOT_CONVERGED);
        assert_int_equal(info.converged, 0);
        assert_true(!(info.merit <= o.tolerance));
        if (methods[k] == NSCD_FC3D_NEWTON) {
            assert_int_not_equal(info.newton_failure, NSCD_FC3D_NEWTON_NO_FAILURE);
        }
        velocity(2, W, q, r, uu); /* the last iterate, consistent */
        for (int i = 0; i < 6; ++i) {
            assert_true(isfinite(r[i]));
            assert_near(u[i], uu[i], 1e-9 * (1.0 + fabs(uu[i])));
        }
    }
}

static void step_limit_is_reported(void **state) {
    (void)state;
    double W[144], q[12], mu[4] = {0.1, 0.1, 0.1, 0.1};
    box_on_plane(W, q);
    nscd_fc3d_options o = newton_options(NSCD_FC3D_NEWTON);
    o.max_iterations = 1;
    double r[12] = {0}, u[12], uu[12];
    nscd_fc3d_info info = new_info();
    assert_int_equal(nscd_fc3d_solve_dense(4, W, q, mu, &o, r, u, &info), NSCD_ERR_NOT_CONVERGED);
    assert_int_equal(info.converged, 0);
    assert_int_equal(info.newton_iterations, 1);
    assert_int_equal(info.newton_failure, NSCD_FC3D_NEWTON_MAX_ITERATIONS);
    assert_true(info.merit > o.tolerance && isfinite(info.merit));
    velocity(4, W, q, r, uu);
    for (int i = 0; i < 12; ++i) {
        assert_near(u[i], uu[i], 1e-12);
    }
}

static void bad_input_is_refused_unchanged(void **state) {
    (void)state;
    double W[9], q[3] = {-1.0, 0.0, 0.0}, mu = 0.5;
    sphere(1.0, 1.0, W);
    double r[3] = {7, 7, 7}, u[3] = {8, 8, 8};
    nscd_fc3d_info info = new_info();
    info.iterations = 99;
    nscd_fc3d_info before = info;

    nscd_fc3d_options o = newton_options(NSCD_FC3D_NEWTON);
    o.friction_law = NSCD_FC3D_MAX_DISSIPATION; /* Newton is Coulomb only */
    assert_int_equal(nscd_fc3d_solve_dense(1, W, q, &mu, &o, r, u, &info), NSCD_ERR_UNSUPPORTED);
    o = newton_options(NSCD_FC3D_PROX + 1); /* not a method */
    assert_int_equal(nscd_fc3d_solve_dense(1, W, q, &mu, &o, r, u, &info),
                     NSCD_ERR_INVALID_ARGUMENT);
    o = newton_options(-1);
    assert_int_equal(nscd_fc3d_solve_dense(1, W, q, &mu, &o, r, u, &info),
                     NSCD_ERR_INVALID_ARGUMENT);
    const int32_t methods[2] = {NSCD_FC3D_NEWTON, NSCD_FC3D_AUTO};
    for (int k = 0; k < 2; ++k) {
        o = newton_options(methods[k]);
        double qbad[3] = {-1.0, NAN, 0.0}, mubad = -0.1;
        assert_int_equal(nscd_fc3d_solve_dense(1, W, qbad, &mu, &o, r, u, &info),
                         NSCD_ERR_NOT_FINITE);
        assert_int_equal(nscd_fc3d_solve_dense(1, W, q, &mubad, &o, r, u, &info),
                         NSCD_ERR_OUT_OF_RANGE);
        o.tolerance = 0.0;
        assert_int_equal(nscd_fc3d_solve_dense(1, W, q, &mu, &o, r, u, &info),
                         NSCD_ERR_OUT_OF_RANGE);
        o = newton_options(methods[k]);
        double Wbad[9];
        sphere(-1.0, 1.0, Wbad);
        assert_int_equal(nscd_fc3d_solve_dense(1, Wbad, q, &mu, &o, r, u, &info), NSCD_ERR_NOT_SPD);
        assert_int_equal(nscd_fc3d_solve_dense(1, W, q, &mu, &o, NULL, u, &info),
                         NSCD_ERR_NULL_POINTER);
    }
    for (int i = 0; i < 3; ++i) {
        assert_true(r[i] == 7.0 && u[i] == 8.0);
    }
    assert_memory_equal(&info, &before, sizeof info);

    /* AUTO with maximum dissipation is Gauss–Seidel (no Newton for that law) */
    o = newton_options(NSCD_FC3D_AUTO);
    o.friction_law = NSCD_FC3D_MAX_DISSIPATION;
    double r2[3] = {0};
    info = new_info();
    assert_int_equal(nscd_fc3d_solve_dense(1, W, q, &mu, &o, r2, u, &info), NSCD_OK);
    assert_int_equal(info.newton_iterations, 0);
}

/* One contact more than the dense LU takes (independent spheres, W block
 * diagonal, so cheap to give in block-CSR form): a build with UMFPACK solves
 * it by the sparse LU, a build without refuses NEWTON with
 * NSCD_ERR_UNSUPPORTED and untouched outputs; AUTO runs (Gauss–Seidel). */
static void beyond_the_dense_limit(void **state) {
    (void)state;
    enum { N = NSCD_FC3D_NEWTON_DENSE_MAX_CONTACTS + 1 };
    int32_t *row_ptr = malloc((N + 1) * sizeof *row_ptr), *col_idx = malloc(N * sizeof *col_idx);
    double *blocks = malloc(9 * (size_t)N * sizeof *blocks), *q = malloc(3 * N * sizeof *q);
    double *mu = malloc(N * sizeof *mu), *r = malloc(3 * N * sizeof *r);
    double *u = malloc(3 * N * sizeof *u);
    assert_true(row_ptr && col_idx && blocks && q && mu && r && u);
    for (int32_t j = 0; j <= N; ++j) {
        row_ptr[j] = j;
    }
    for (int32_t j = 0; j < N; ++j) {
        col_idx[j] = j;
        sphere(1.0 + 0.001 * (j % 7), 3.5, blocks + 9 * (size_t)j);
        q[3 * j] = (j % 3 == 0) ? 0.5 : -1.0; /* every third separates */
        q[3 * j + 1] = 0.01 * (j % 11) - 0.05, q[3 * j + 2] = 2.0 * (j % 2); /* stick or slide */
        mu[j] = 0.3;
    }
    for (int m = 0; m < 2; ++m) {
        nscd_fc3d_options o = newton_options(m == 0 ? NSCD_FC3D_NEWTON : NSCD_FC3D_AUTO);
        for (int32_t i = 0; i < 3 * N; ++i) {
            r[i] = 7.0, u[i] = 8.0;
        }
        o.warm_start = 0;
        nscd_fc3d_info info = new_info();
        nscd_status st = nscd_fc3d_solve_bsr(N, row_ptr, col_idx, blocks, q, mu, &o, r, u, &info);
        if (st == NSCD_ERR_UNSUPPORTED) { /* no UMFPACK in this build */
            assert_int_equal(o.method, NSCD_FC3D_NEWTON);
            for (int32_t i = 0; i < 3 * N; ++i) {
                assert_true(r[i] == 7.0 && u[i] == 8.0);
            }
            assert_int_equal(info.iterations, 0);
            continue;
        }
        assert_int_equal(st, NSCD_OK);
        for (int32_t j = 0; j < N; ++j) { /* each contact alone: its closed form */
            double a = blocks[9 * j],
                   e = e1_error(1, blocks + 9 * (size_t)j, q + 3 * j, mu + j, r + 3 * j);
            assert_true(e <= 1e-9);
            if (q[3 * j] > 0.0) {
                assert_near(r[3 * j], 0.0, 1e-12);
            } else {
                assert_near(r[3 * j], 1.0 / a, 1e-9);
            }
        }
    }
    free(row_ptr), free(col_idx), free(blocks), free(q), free(mu), free(r), free(u);
}

/* A caller of the 0.1 info size gets the 0.1 fields only. */
static void old_info_size_gets_no_newton_fields(void **state) {
    (void)state;
    double W[144], q[12], mu[4] = {0.1, 0.1, 0.1, 0.1};
    box_on_plane(W, q);
    union {
        nscd_fc3d_info info;
        unsigned char bytes[sizeof(nscd_fc3d_info)];
    } b;
    memset(b.bytes, 0xA5, sizeof b.bytes);
    size_t old = offsetof(nscd_fc3d_info, local_failures) + sizeof(int32_t);
    b.info.struct_size = (uint32_t)old;
    nscd_fc3d_options o = newton_options(NSCD_FC3D_NEWTON);
    double r[12] = {0}, u[12];
    assert_int_equal(nscd_fc3d_solve_dense(4, W, q, mu, &o, r, u, &b.info), NSCD_OK);
    assert_int_equal(b.info.converged, 1);
    for (size_t i = old; i < sizeof b.bytes; ++i) {
        assert_int_equal(b.bytes[i], 0xA5);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(single_contact_regimes),
        cmocka_unit_test(coupled_and_mixed_contacts),
        cmocka_unit_test(redundant_box_gauss_seidel_stalls_newton_converges),
        cmocka_unit_test(auto_equals_gauss_seidel_when_it_converges),
        cmocka_unit_test(dense_and_bsr_agree),
        cmocka_unit_test(many_boxes_block_csr),
        cmocka_unit_test(newton_is_scale_invariant),
        cmocka_unit_test(infeasible_problem_is_an_error),
        cmocka_unit_test(step_limit_is_reported),
        cmocka_unit_test(bad_input_is_refused_unchanged),
        cmocka_unit_test(beyond_the_dense_limit),
        cmocka_unit_test(old_info_size_gets_no_newton_fields),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
