/* A non-symmetric local problem under NSCD_TS_SOLVER_AUTO
 * (integrators/time_stepping/ts_local_solve.c): ED-α's coupled stages give local matrices
 * W that are not symmetric, which the fc3d solvers refuse (NSCD_ERR_NOT_SPD).
 * Here W is a given 4 x 4 non-symmetric positive definite matrix (A + A' is
 * positive definite) of two planar frictional contacts, put in through a
 * proxy model whose mass solve multiplies by it (H = I, so W = A), as
 * ed_alpha.c's proxy does with (Γ ⊗ I) J^-1. AUTO must solve it (prox), and
 * its impulses must be those of an independent solution: the Coulomb problem
 * solved by enumerating the 4^2 contact modes (separate, stick, slide either
 * way), each a 4 x 4 linear system, exactly one of which is admissible. An
 * explicit fc3d choice must fail with NSCD_ERR_NOT_SPD, and a symmetric W
 * must stay with fc3d under AUTO (the same answer as the enumeration). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "contact/assembly/assembly.h"
#include "core/arena.h"
#include "integrators/time_stepping/time_stepping_impl.h"
#include "nscd/nscd.h"

#define N 4
#define MU 0.3

/* Positive definite, not symmetric: symmetric part S (diagonally dominant),
 * skew part of entries up to 0.4. */
static const double W_NONSYMMETRIC[N * N] = {2.0,  0.7,  0.2, -0.1, /* */
                                             -0.1, 1.5,  0.5, 0.2,  /* */
                                             0.2,  -0.3, 2.5, 0.6,  /* */
                                             0.3,  0.2,  0.0, 1.8};
static const double W_SYMMETRIC[N * N] = {2.0, 0.3, 0.2, 0.1, /* */
                                          0.3, 1.5, 0.1, 0.2, /* */
                                          0.2, 0.1, 2.5, 0.3, /* */
                                          0.1, 0.2, 0.3, 1.8};
/* c = H v_free: contact 0 approaching and slipping fast (slides), contact 1
 * approaching with a small slip (sticks). */
static const double C[N] = {-1.0, 0.9, -0.5, -0.1};

/* The same answers from numpy (np.linalg.solve on the enumerated modes of
 * both matrices, an independent script): (slide +, stick) in both. */
static const double P_NUMPY_NONSYMMETRIC[N] = {0.541955867353285, -0.1625867602059855,
                                               0.14114237380899072, -0.016705226758215782};
static const double P_NUMPY_SYMMETRIC[N] = {0.5055386750245233, -0.15166160250735702,
                                            0.16357633322965762, 0.017058640572289886};

/* ------------------------------------------------------------ the model */

static nscd_status mass(void *user, const double *q, double *m) {
    (void)user, (void)q;
    memset(m, 0, N * N * sizeof(double));
    for (int i = 0; i < N; ++i) {
        m[i * N + i] = 1.0;
    }
    return NSCD_OK;
}

static nscd_status forces(void *user, double t, const double *q, const double *v, double *h) {
    (void)user, (void)t, (void)q, (void)v;
    memset(h, 0, N * sizeof(double));
    return NSCD_OK;
}

/* Contact i: normal row e_{2i}, tangent row e_{2i+1}, closed (gap 0). */
static nscd_status contact(void *user, int32_t index, double t, const double *q, double *gap,
                           double *w_normal, double *w_tangent) {
    (void)user, (void)t, (void)q;
    *gap = 0.0;
    memset(w_normal, 0, N * sizeof(double));
    w_normal[2 * index] = 1.0;
    if (w_tangent != NULL) {
        memset(w_tangent, 0, N * sizeof(double));
        w_tangent[2 * index + 1] = 1.0;
    }
    return NSCD_OK;
}

static nscd_system *make_system(void) {
    nscd_system_desc desc;
    nscd_system_desc_init(&desc, sizeof desc);
    desc.n_dof = N;
    desc.n_contacts = 2;
    desc.mass = mass;
    desc.forces = forces;
    desc.contact = contact;
    nscd_system *s = NULL;
    assert_int_equal(nscd_system_create(&desc, &s), NSCD_OK);
    nscd_contact_desc c;
    nscd_contact_desc_init(&c, sizeof c);
    c.friction = MU;
    c.n_tangent = 1;
    for (int32_t i = 0; i < 2; ++i) {
        assert_int_equal(nscd_system_set_contact(s, i, &c), NSCD_OK);
    }
    return s;
}

/* The proxy: X = W B (n_v = N rows of nrhs columns, row-major). */
typedef struct proxy {
    nscd__model model;
    const double *W;
} proxy;

static nscd_status proxy_solve(void *self, const double *q, int32_t block, int32_t nrhs,
                               const double *B, double *X) {
    const proxy *p = self;
    (void)q, (void)block;
    for (int32_t i = 0; i < N; ++i) {
        for (int32_t c = 0; c < nrhs; ++c) {
            double s = 0.0;
            for (int32_t k = 0; k < N; ++k) {
                s += p->W[i * N + k] * B[k * nrhs + c];
            }
            X[i * nrhs + c] = s;
        }
    }
    return NSCD_OK;
}

/* Builds and solves the local problem of both contacts with the solver
 * `solver`; P receives the impulses in the row order (n0, t0, n1, t1). */
static nscd_status solve_local(int32_t solver, const double *W, double P[N], int *used_prox) {
    nscd_system *s = make_system();
    nscd_time_stepping_options o;
    nscd_time_stepping_options_init(&o, sizeof o);
    o.local_solver = solver;
    nscd_time_stepping *ts = NULL;
    assert_int_equal(nscd_time_stepping_create(s, &o, &ts), NSCD_OK);
    proxy p;
    p.model = *ts->model;
    p.model.self = &p;
    p.model.mass_solve = proxy_solve;
    p.W = W;
    const double q[N] = {0.0, 0.0, 0.0, 0.0};
    int32_t entries[2] = {0, 1};
    nscd__rows *rows = NULL;
    assert_int_equal(nscd__gather_rows(ts->model, &ts->arena, 0.0, q, 2, entries, &rows, NULL),
                     NSCD_OK);
    nscd__ts_local local;
    memset(&local, 0, sizeof local);
    local.entries = entries;
    local.n_entries = 2;
    nscd_status rc = nscd__ts_local_build(ts, &p.model, rows, q, C, NULL, &local);
    if (rc == NSCD_OK) {
        rc = nscd__ts_local_solve(ts, &local);
    }
    *used_prox = local.prox;
    memset(P, 0, N * sizeof(double));
    for (int32_t a = 0; rc == NSCD_OK && a < local.m; ++a) {
        int32_t kind = local.row_kind[a];
        if (kind >= 0) {
            P[2 * local.row_entry[a] + kind] = local.P[a];
        }
    }
    if (rc != NSCD_OK) {
        printf("solver %d: status %d, %s\n", (int)solver, (int)rc,
               nscd_time_stepping_last_error(ts));
    }
    nscd__arena_reset(&ts->arena);
    nscd_time_stepping_destroy(ts);
    nscd_system_destroy(s);
    return rc;
}

/* ------------------------------------------------------------ enumeration */

enum { SEPARATE, STICK, SLIDE_PLUS, SLIDE_MINUS };

/* Solves A x = b (N x N) by Gaussian elimination with partial pivoting. */
static int linear_solve(double A[N * N], double b[N], double x[N]) {
    for (int k = 0; k < N; ++k) {
        int p = k;
        for (int i = k + 1; i < N; ++i) {
            p = fabs(A[i * N + k]) > fabs(A[p * N + k]) ? i : p;
        }
        if (fabs(A[p * N + k]) < 1e-14) {
            return 0;
        }
        for (int j = 0; j < N; ++j) {
            double t = A[k * N + j];
            A[k * N + j] = A[p * N + j];
            A[p * N + j] = t;
        }
        double t = b[k];
        b[k] = b[p];
        b[p] = t;
        for (int i = k + 1; i < N; ++i) {
            double f = A[i * N + k] / A[k * N + k];
            for (int j = k; j < N; ++j) {
                A[i * N + j] -= f * A[k * N + j];
            }
            b[i] -= f * b[k];
        }
    }
    for (int i = N - 1; i >= 0; --i) {
        double s = b[i];
        for (int j = i + 1; j < N; ++j) {
            s -= A[i * N + j] * x[j];
        }
        x[i] = s / A[i * N + i];
    }
    return 1;
}

/* The two equations of contact i in mode `mode`: rows 2i, 2i+1 of A x = b
 * over x = P, with u = W P + C. */
static void mode_equations(const double *W, int i, int mode, double A[N * N], double b[N]) {
    int n = 2 * i, t = n + 1;
    memset(A + n * N, 0, 2 * N * sizeof(double));
    b[n] = b[t] = 0.0;
    if (mode == SEPARATE) { /* P_n = 0, P_t = 0 */
        A[n * N + n] = 1.0;
        A[t * N + t] = 1.0;
        return;
    }
    for (int k = 0; k < N; ++k) { /* u_n = 0 */
        A[n * N + k] = W[n * N + k];
    }
    b[n] = -C[n];
    if (mode == STICK) { /* u_t = 0 */
        for (int k = 0; k < N; ++k) {
            A[t * N + k] = W[t * N + k];
        }
        b[t] = -C[t];
    } else { /* P_t = -+ mu P_n */
        A[t * N + t] = 1.0;
        A[t * N + n] = mode == SLIDE_PLUS ? MU : -MU;
    }
}

static int admissible(const double *W, const int mode[2], const double P[N]) {
    const double tol = 1e-12;
    for (int i = 0; i < 2; ++i) {
        int n = 2 * i, t = n + 1;
        double un = C[n], ut = C[t];
        for (int k = 0; k < N; ++k) {
            un += W[n * N + k] * P[k];
            ut += W[t * N + k] * P[k];
        }
        int ok = mode[i] == SEPARATE     ? un >= -tol
                 : mode[i] == STICK      ? P[n] >= -tol && fabs(P[t]) <= MU * P[n] + tol
                 : mode[i] == SLIDE_PLUS ? P[n] >= -tol && ut > tol
                                         : P[n] >= -tol && ut < -tol;
        if (!ok) {
            return 0;
        }
    }
    return 1;
}

/* The impulses of the only admissible mode pair; asserts that there is
 * exactly one. */
static void enumerate(const double *W, double P[N], int found_mode[2]) {
    int count = 0;
    for (int m0 = 0; m0 < 4; ++m0) {
        for (int m1 = 0; m1 < 4; ++m1) {
            double A[N * N], b[N], x[N];
            const int mode[2] = {m0, m1};
            mode_equations(W, 0, m0, A, b);
            mode_equations(W, 1, m1, A, b);
            if (linear_solve(A, b, x) && admissible(W, mode, x)) {
                memcpy(P, x, sizeof x);
                found_mode[0] = m0, found_mode[1] = m1;
                ++count;
            }
        }
    }
    assert_int_equal(count, 1);
}

/* ------------------------------------------------------------ tests */

static double max_difference(const double *a, const double *b) {
    double d = 0.0;
    for (int i = 0; i < N; ++i) {
        d = fmax(d, fabs(a[i] - b[i]));
    }
    return d;
}

static void auto_solves_a_nonsymmetric_problem(void **state) {
    (void)state;
    double reference[N], P[N];
    int mode[2], prox = 0;
    enumerate(W_NONSYMMETRIC, reference, mode);
    assert_int_equal(solve_local(NSCD_TS_SOLVER_AUTO, W_NONSYMMETRIC, P, &prox), NSCD_OK);
    double d = max_difference(P, reference);
    printf("non-symmetric W, AUTO (prox %d): P = %.12f %.12f %.12f %.12f, modes %d %d, "
           "enumeration max diff %.2e\n",
           prox, P[0], P[1], P[2], P[3], mode[0], mode[1], d);
    assert_int_equal(prox, 1);
    assert_int_equal(mode[0], SLIDE_PLUS); /* the case meant: one slides, one sticks */
    assert_int_equal(mode[1], STICK);
    assert_true(d <= 1e-9);
    assert_true(max_difference(reference, P_NUMPY_NONSYMMETRIC) <= 1e-12);
}

static void explicit_fc3d_refuses_it(void **state) {
    (void)state;
    double P[N];
    int prox = 1;
    assert_int_equal(solve_local(NSCD_TS_SOLVER_FC3D_COULOMB, W_NONSYMMETRIC, P, &prox),
                     NSCD_ERR_NOT_SPD);
    assert_int_equal(prox, 0);
}

static void symmetric_problem_stays_with_fc3d(void **state) {
    (void)state;
    double reference[N], P[N];
    int mode[2], prox = 1;
    enumerate(W_SYMMETRIC, reference, mode);
    assert_int_equal(solve_local(NSCD_TS_SOLVER_AUTO, W_SYMMETRIC, P, &prox), NSCD_OK);
    double d = max_difference(P, reference);
    printf("symmetric W, AUTO (prox %d): modes %d %d, enumeration max diff %.2e\n", prox, mode[0],
           mode[1], d);
    assert_int_equal(prox, 0);
    assert_true(d <= 1e-8);
    assert_true(max_difference(reference, P_NUMPY_SYMMETRIC) <= 1e-12);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(auto_solves_a_nonsymmetric_problem),
        cmocka_unit_test(explicit_fc3d_refuses_it),
        cmocka_unit_test(symmetric_problem_stays_with_fc3d),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
