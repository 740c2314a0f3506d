/* Global fc3d problems (gfc3d.h): a box sliding on a plane (M diagonal, an
 * analytic result), a coupled M with fill (checked against a dense solve
 * written here), and bad inputs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "nscd/nscd.h"
#include "test_random.h"

#define NDOF_MAX 12
#define NC_MAX 4

#define assert_close(a, b, tol) assert_close_at((a), (b), (tol), __FILE__, __LINE__)
static void assert_close_at(double a, double b, double tol, const char *file, int line) {
    if (!(fabs(a - b) <= tol)) {
        print_error("%.17g != %.17g (tol %g)\n", a, b, tol);
        _fail(file, line);
    }
}

/* Projection onto the cone ||x_t|| <= mu x_n (normal first). */
static void project_cone(double mu, const double x[3], double p[3]) {
    double t = sqrt(x[1] * x[1] + x[2] * x[2]);
    if (t <= mu * x[0]) {
        memcpy(p, x, 3 * sizeof *p);
    } else if (mu * t <= -x[0]) {
        p[0] = p[1] = p[2] = 0.0;
    } else {
        double a = (x[0] + mu * t) / (1.0 + mu * mu);
        p[0] = a;
        p[1] = mu * a * x[1] / t;
        p[2] = mu * a * x[2] / t;
    }
}

/* E1 = ||r - P_K(r - u~)|| / (1 + ||w||), u~_j = u_j + mu_j ||u_j,t|| e_n. */
static double merit_e1(int32_t nc, const double *r, const double *u, const double *w,
                       const double *mu) {
    double e2 = 0.0, w2 = 0.0;
    for (int32_t j = 0; j < nc; ++j) {
        const double *rj = r + 3 * j, *uj = u + 3 * j;
        double ut = sqrt(uj[1] * uj[1] + uj[2] * uj[2]);
        double x[3] = {rj[0] - (uj[0] + mu[j] * ut), rj[1] - uj[1], rj[2] - uj[2]}, p[3];
        project_cone(mu[j], x, p);
        for (int k = 0; k < 3; ++k) {
            e2 += (rj[k] - p[k]) * (rj[k] - p[k]);
            w2 += w[3 * j + k] * w[3 * j + k];
        }
    }
    return sqrt(e2) / (1.0 + sqrt(w2));
}

/* A dense matrix (row-major) to CSC, dropping exact zeros. */
static int32_t to_csc(int32_t rows, int32_t cols, const double *A, int32_t *cp, int32_t *ri,
                      double *x) {
    int32_t k = 0;
    cp[0] = 0;
    for (int32_t c = 0; c < cols; ++c) {
        for (int32_t i = 0; i < rows; ++i) {
            if (A[i * cols + c] != 0.0) {
                ri[k] = i;
                x[k++] = A[i * cols + c];
            }
        }
        cp[c + 1] = k;
    }
    return k;
}

typedef struct problem {
    int32_t n, nc;
    double M[NDOF_MAX * NDOF_MAX], H[NDOF_MAX * 3 * NC_MAX];
    double f[NDOF_MAX], w[3 * NC_MAX], mu[NC_MAX];
    int32_t Mp[NDOF_MAX + 1], Mi[NDOF_MAX * NDOF_MAX];
    double Mx[NDOF_MAX * NDOF_MAX];
    int32_t Hp[3 * NC_MAX + 1], Hi[NDOF_MAX * 3 * NC_MAX];
    double Hx[NDOF_MAX * 3 * NC_MAX];
} problem;

static void finish(problem *p) {
    to_csc(p->n, p->n, p->M, p->Mp, p->Mi, p->Mx);
    to_csc(p->n, 3 * p->nc, p->H, p->Hp, p->Hi, p->Hx);
}

/* A box (mass m, half extents a x a x c) flat on the plane z = 0, corners as
 * contacts (normal +z, tangents x, y), moving at v0 = (vx0, 0, -1) before the
 * step of length h under gravity. Dofs: (v, omega). H column of direction d at
 * corner p: (d, p x d), so that u = H' v. */
static void box_on_plane(problem *p, double vx0, double mu, double h) {
    memset(p, 0, sizeof *p);
    const double m = 2.0, a = 1.0, c = 0.1, g = 9.81;
    p->n = 6;
    p->nc = 4;
    double I[3] = {m * (a * a + c * c) / 3.0, m * (a * a + c * c) / 3.0, m * 2.0 * a * a / 3.0};
    for (int i = 0; i < 3; ++i) {
        p->M[i * 6 + i] = m;
        p->M[(i + 3) * 6 + i + 3] = I[i];
    }
    double v0[6] = {vx0, 0.0, -1.0, 0.0, 0.0, 0.0};
    for (int i = 0; i < 6; ++i) {
        p->f[i] = p->M[i * 6 + i] * v0[i];
    }
    p->f[2] -= h * m * g;
    const double sx[4] = {1, -1, -1, 1}, sy[4] = {1, 1, -1, -1};
    const double dirs[3][3] = {{0, 0, 1}, {1, 0, 0}, {0, 1, 0}};
    for (int j = 0; j < 4; ++j) {
        double q[3] = {sx[j] * a, sy[j] * a, -c};
        for (int k = 0; k < 3; ++k) {
            const double *d = dirs[k];
            double col[6] = {d[0],
                             d[1],
                             d[2],
                             q[1] * d[2] - q[2] * d[1],
                             q[2] * d[0] - q[0] * d[2],
                             q[0] * d[1] - q[1] * d[0]};
            for (int i = 0; i < 6; ++i) {
                p->H[i * 12 + 3 * j + k] = col[i];
            }
        }
        p->mu[j] = mu;
    }
    finish(p);
}

static nscd_fc3d_options tight(void) {
    nscd_fc3d_options o;
    assert_int_equal(nscd_fc3d_options_init(&o, sizeof o), NSCD_OK);
    o.tolerance = 1e-12;
    o.max_iterations = 10000;
    o.warm_start = 0;
    return o;
}

/* Independent checks of a returned (v, r, u): u = H'v + w, M v = H r + f, and
 * E1 of Coulomb's law in De Saxce's form. Returns E1. */
static double check_solution(const problem *p, const double *v, const double *r, const double *u) {
    int32_t n = p->n, m = 3 * p->nc;
    double scale = 1.0;
    for (int32_t i = 0; i < n; ++i) {
        scale = fmax(scale, fabs(p->f[i]));
    }
    for (int32_t i = 0; i < n; ++i) {
        double s = -p->f[i];
        for (int32_t k = 0; k < n; ++k) {
            s += p->M[i * n + k] * v[k];
        }
        for (int32_t c = 0; c < m; ++c) {
            s -= p->H[i * m + c] * r[c];
        }
        assert_close(s, 0.0, 1e-12 * scale);
    }
    for (int32_t c = 0; c < m; ++c) {
        double s = p->w[c];
        for (int32_t i = 0; i < n; ++i) {
            s += p->H[i * m + c] * v[i];
        }
        assert_close(u[c], s, 1e-12 * scale);
    }
    return merit_e1(p->nc, r, u, p->w, p->mu);
}

static void box_slides_with_coulomb_friction(void **state) {
    (void)state;
    problem p;
    const double mu = 0.3, h = 0.01, vx0 = 2.0;
    box_on_plane(&p, vx0, mu, h);
    nscd_fc3d_options lo = tight();
    double v[6], r[12] = {0}, u[12];
    nscd_gfc3d_info info = {.struct_size = sizeof info};
    assert_int_equal(nscd_gfc3d_solve(p.n, p.nc, p.Mp, p.Mi, p.Mx, p.Hp, p.Hi, p.Hx, p.f, p.w, p.mu,
                                      NULL, &lo, v, r, u, &info),
                     NSCD_OK);
    assert_int_equal(info.converged, 1);
    assert_true(info.equilibrium_residual < 1e-14);
    assert_true(check_solution(&p, v, r, u) < 1e-9);
    /* Analytic: the box stops vertically, no rotation, and slides on with
     * vx = vx0 - mu (1 + h g) (friction mu times the normal impulse m (1 + h g)). */
    assert_close(v[0], vx0 - mu * (1.0 + h * 9.81), 1e-9);
    for (int i = 1; i < 6; ++i) {
        assert_close(v[i], 0.0, 1e-9);
    }
    /* A box that cannot slide that far sticks. */
    box_on_plane(&p, 0.1, mu, h);
    memset(r, 0, sizeof r);
    assert_int_equal(nscd_gfc3d_solve(p.n, p.nc, p.Mp, p.Mi, p.Mx, p.Hp, p.Hi, p.Hx, p.f, p.w, p.mu,
                                      NULL, &lo, v, r, u, &info),
                     NSCD_OK);
    assert_true(check_solution(&p, v, r, u) < 1e-9);
    for (int i = 0; i < 6; ++i) {
        assert_close(v[i], 0.0, 1e-9);
    }
}

/* Deterministic uniform numbers in [-1, 1). */
/* M pentadiagonal SPD (fill in L), H dense random with normals pointing so that
 * contacts close: checked by the independent merit, residuals and u = H'v + w. */
static void coupled_mass_matrix_with_fill(void **state) {
    (void)state;
    uint64_t seed = 7;
    for (int trial = 0; trial < 5; ++trial) {
        problem p;
        memset(&p, 0, sizeof p);
        p.n = 12;
        p.nc = 3;
        int32_t n = p.n, m = 3 * p.nc;
        for (int32_t i = 0; i < n; ++i) {
            p.M[i * n + i] = 4.0 + rnd(&seed);
            if (i + 1 < n) {
                p.M[i * n + i + 1] = p.M[(i + 1) * n + i] = 0.5 * rnd(&seed);
            }
            if (i + 3 < n) {
                p.M[i * n + i + 3] = p.M[(i + 3) * n + i] = 0.4 * rnd(&seed);
            }
            p.f[i] = rnd(&seed);
        }
        for (int32_t i = 0; i < n; ++i) {
            for (int32_t c = 0; c < m; ++c) {
                p.H[i * m + c] = (i + c) % 4 == 0 ? 0.0 : rnd(&seed);
            }
        }
        for (int32_t c = 0; c < m; ++c) {
            p.w[c] = c % 3 == 0 ? -1.0 : 0.2 * rnd(&seed);
        }
        for (int32_t j = 0; j < p.nc; ++j) {
            p.mu[j] = 0.2 + 0.3 * (1.0 + rnd(&seed));
        }
        finish(&p);
        nscd_fc3d_options lo = tight();
        /* both ways to W: the same problem, each solution checked independently */
        double vs[2][NDOF_MAX];
        for (int way = 0; way < 2; ++way) {
            nscd_gfc3d_options go;
            assert_int_equal(nscd_gfc3d_options_init(&go, sizeof go), NSCD_OK);
            go.condensation = way == 0 ? NSCD_GFC3D_CONDENSE_SPARSE : NSCD_GFC3D_CONDENSE_DENSE;
            double r[3 * NC_MAX] = {0}, u[3 * NC_MAX];
            nscd_gfc3d_info info = {.struct_size = sizeof info};
            assert_int_equal(nscd_gfc3d_solve(n, p.nc, p.Mp, p.Mi, p.Mx, p.Hp, p.Hi, p.Hx, p.f, p.w,
                                              p.mu, &go, &lo, vs[way], r, u, &info),
                             NSCD_OK);
            assert_true(info.factor_nnz > 0);
            assert_int_equal(info.dense_condensation, way);
            assert_true(check_solution(&p, vs[way], r, u) < 1e-9);
        }
        for (int32_t i = 0; i < n; ++i) { /* W positive definite here: one solution */
            assert_close(vs[0][i], vs[1][i], 1e-7 * (1.0 + fabs(vs[0][i])));
        }
        /* CHOLMOD's factorisation, when the library has it: the same solution */
        nscd_gfc3d_options go;
        assert_int_equal(nscd_gfc3d_options_init(&go, sizeof go), NSCD_OK);
        go.factorization = NSCD_GFC3D_FACTOR_CHOLMOD;
        double vc[NDOF_MAX], r[3 * NC_MAX] = {0}, u[3 * NC_MAX];
        nscd_gfc3d_info info = {.struct_size = sizeof info};
        nscd_status st = nscd_gfc3d_solve(n, p.nc, p.Mp, p.Mi, p.Mx, p.Hp, p.Hi, p.Hx, p.f, p.w,
                                          p.mu, &go, &lo, vc, r, u, &info);
        if (st != NSCD_ERR_UNSUPPORTED) {
            assert_int_equal(st, NSCD_OK);
            assert_int_equal(info.factorization, NSCD_GFC3D_FACTOR_CHOLMOD);
            assert_true(check_solution(&p, vc, r, u) < 1e-9);
            for (int32_t i = 0; i < n; ++i) {
                assert_close(vc[i], vs[0][i], 1e-7 * (1.0 + fabs(vs[0][i])));
            }
        }
    }
}

static void bad_inputs_change_nothing(void **state) {
    (void)state;
    problem p;
    box_on_plane(&p, 2.0, 0.3, 0.01);
    double v[6], r[12], u[12];
    for (int i = 0; i < 6; ++i) {
        v[i] = 7.0;
    }
    for (int i = 0; i < 12; ++i) {
        r[i] = u[i] = 7.0;
    }
    nscd_gfc3d_info info = {.struct_size = sizeof info, .iterations = 99};
#define SOLVE(n_, nc_)                                                                             \
    nscd_gfc3d_solve((n_), (nc_), p.Mp, p.Mi, p.Mx, p.Hp, p.Hi, p.Hx, p.f, p.w, p.mu, NULL, NULL,  \
                     v, r, u, &info)
    assert_int_equal(nscd_gfc3d_solve(6, 4, NULL, p.Mi, p.Mx, p.Hp, p.Hi, p.Hx, p.f, p.w, p.mu,
                                      NULL, NULL, v, r, u, &info),
                     NSCD_ERR_NULL_POINTER);
    assert_int_equal(SOLVE(0, 4), NSCD_ERR_INVALID_ARGUMENT);
    assert_int_equal(SOLVE(6, -1), NSCD_ERR_INVALID_ARGUMENT);
    p.Hi[3] = 6;
    assert_int_equal(SOLVE(6, 4), NSCD_ERR_INDEX);
    p.Hi[3] = p.Hi[2];
    assert_int_equal(SOLVE(6, 4), NSCD_ERR_INVALID_ARGUMENT);
    box_on_plane(&p, 2.0, 0.3, 0.01);
    p.mu[2] = -0.1;
    assert_int_equal(SOLVE(6, 4), NSCD_ERR_OUT_OF_RANGE);
    p.mu[2] = NAN;
    assert_int_equal(SOLVE(6, 4), NSCD_ERR_NOT_FINITE);
    box_on_plane(&p, 2.0, 0.3, 0.01);
    p.Mx[4] = -1.0; /* an indefinite diagonal */
    assert_int_equal(SOLVE(6, 4), NSCD_ERR_NOT_SPD);
    {
        nscd_gfc3d_options go;
        assert_int_equal(nscd_gfc3d_options_init(&go, sizeof go), NSCD_OK);
        go.factorization = NSCD_GFC3D_FACTOR_CHOLMOD;
        nscd_status st = nscd_gfc3d_solve(6, 4, p.Mp, p.Mi, p.Mx, p.Hp, p.Hi, p.Hx, p.f, p.w, p.mu,
                                          &go, NULL, v, r, u, &info);
        assert_true(st == NSCD_ERR_NOT_SPD || st == NSCD_ERR_UNSUPPORTED);
    }
    /* A non-symmetric M. */
    box_on_plane(&p, 2.0, 0.3, 0.01);
    p.M[0 * 6 + 1] = 0.5;
    finish(&p);
    assert_int_equal(SOLVE(6, 4), NSCD_ERR_NOT_SPD);
    /* A contact H does not reach: W's diagonal block is zero. */
    box_on_plane(&p, 2.0, 0.3, 0.01);
    for (int i = 0; i < 6; ++i) {
        for (int k = 0; k < 3; ++k) {
            p.H[i * 12 + 9 + k] = 0.0;
        }
    }
    finish(&p);
    assert_int_equal(SOLVE(6, 4), NSCD_ERR_NOT_SPD);
    nscd_gfc3d_info small = {.struct_size = 8};
    box_on_plane(&p, 2.0, 0.3, 0.01);
    assert_int_equal(nscd_gfc3d_solve(6, 4, p.Mp, p.Mi, p.Mx, p.Hp, p.Hi, p.Hx, p.f, p.w, p.mu,
                                      NULL, NULL, v, r, u, &small),
                     NSCD_ERR_STRUCT_SIZE);
    nscd_gfc3d_options o;
    assert_int_equal(nscd_gfc3d_options_init(&o, sizeof o), NSCD_OK);
    o.pivot_tolerance = 1.0;
    assert_int_equal(nscd_gfc3d_solve(6, 4, p.Mp, p.Mi, p.Mx, p.Hp, p.Hi, p.Hx, p.f, p.w, p.mu, &o,
                                      NULL, v, r, u, &info),
                     NSCD_ERR_OUT_OF_RANGE);
#undef SOLVE
    for (int i = 0; i < 6; ++i) {
        assert_true(v[i] == 7.0);
    }
    for (int i = 0; i < 12; ++i) {
        assert_true(r[i] == 7.0 && u[i] == 7.0);
    }
    assert_int_equal(info.iterations, 99);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(box_slides_with_coulomb_friction),
        cmocka_unit_test(coupled_mass_matrix_with_fill),
        cmocka_unit_test(bad_inputs_change_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
