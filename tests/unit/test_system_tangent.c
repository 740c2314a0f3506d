/* The optional stiffness and damping callbacks of the generic system, as the
 * steppers see them through the model's tangent op: K = -dh/dq and
 * C = -dh/dv (checked against central differences of the forces), absent
 * matrices refused, failures and NaN reported. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "models/system.h"

#define A 3.0  /* cubic spring of q0 to the ground */
#define B 2.0  /* linear spring between q0 and q1 */
#define C0 0.7 /* quadratic damper of v0 */
#define C1 0.4 /* linear damper of v1 */

typedef struct spring_user {
    int fail, nan;
} spring_user;

static nscd_status mass(void *user, const double *q, double *m) {
    (void)user, (void)q;
    m[0] = 2.0, m[1] = 0.0, m[2] = 0.0, m[3] = 1.0;
    return NSCD_OK;
}

static nscd_status forces(void *user, double t, const double *q, const double *v, double *h) {
    (void)user;
    h[0] = -A * q[0] * q[0] * q[0] + B * (q[1] - q[0]) - C0 * v[0] * fabs(v[0]);
    h[1] = -B * (q[1] - q[0]) - C1 * v[1] + sin(t);
    return NSCD_OK;
}

static nscd_status stiffness(void *user, double t, const double *q, const double *v, double *K) {
    spring_user *u = user;
    (void)t, (void)v;
    K[0] = 3.0 * A * q[0] * q[0] + B, K[1] = -B;
    K[2] = -B, K[3] = u->nan ? NAN : B;
    return u->fail ? (nscd_status)3 : NSCD_OK;
}

static nscd_status damping(void *user, double t, const double *q, const double *v, double *C) {
    (void)user, (void)t, (void)q;
    C[0] = 2.0 * C0 * fabs(v[0]), C[1] = 0.0;
    C[2] = 0.0, C[3] = C1;
    return NSCD_OK;
}

static nscd_system *springs(spring_user *u, nscd_matrix_fn k, nscd_matrix_fn c) {
    nscd_system_desc d;
    nscd_system_desc_init(&d, sizeof d);
    d.n_dof = 2;
    d.user = u;
    d.mass = mass;
    d.forces = forces;
    d.stiffness = k;
    d.damping = c;
    nscd_system *sys = NULL;
    assert_int_equal(nscd_system_create(&d, &sys), NSCD_OK);
    return sys;
}

/* -dh/dx_j by central differences; `x` is q (wrt_v = 0) or v (wrt_v = 1). */
static void minus_dh(nscd__model *m, double t, const double *q, const double *v, int wrt_v,
                     double *J) {
    const double eps = 1e-6;
    for (int j = 0; j < 2; ++j) {
        double qp[2] = {q[0], q[1]}, vp[2] = {v[0], v[1]}, qm[2] = {q[0], q[1]},
               vm[2] = {v[0], v[1]}, hp[2], hm[2];
        (wrt_v ? vp : qp)[j] += eps;
        (wrt_v ? vm : qm)[j] -= eps;
        assert_int_equal(m->forces(m->self, t, qp, vp, hp), NSCD_OK);
        assert_int_equal(m->forces(m->self, t, qm, vm, hm), NSCD_OK);
        for (int i = 0; i < 2; ++i) {
            J[2 * i + j] = -(hp[i] - hm[i]) / (2.0 * eps);
        }
    }
}

/* K and C are the callbacks' matrices, and they are -dh/dq and -dh/dv. */
static void tangent_is_minus_the_force_jacobian(void **state) {
    (void)state;
    spring_user u = {0, 0};
    nscd_system *sys = springs(&u, stiffness, damping);
    nscd__model *m = nscd__system_model(sys);
    assert_non_null(m->tangent);
    const double t = 0.3, q[2] = {0.4, -0.2}, v[2] = {-1.5, 0.8};
    double K[4], C[4], K_fd[4], C_fd[4];
    assert_int_equal(m->tangent(m->self, t, q, v, K, C), NSCD_OK);
    minus_dh(m, t, q, v, 0, K_fd);
    minus_dh(m, t, q, v, 1, C_fd);
    for (int i = 0; i < 4; ++i) {
        print_message("# K %.9f (fd %.9f)  C %.9f (fd %.9f)\n", K[i], K_fd[i], C[i], C_fd[i]);
        assert_true(fabs(K[i] - K_fd[i]) < 1e-6);
        assert_true(fabs(C[i] - C_fd[i]) < 1e-6);
    }
    assert_true(K[0] == 3.0 * A * q[0] * q[0] + B && K[1] == -B && C[0] == 2.0 * C0 * 1.5);
    double K_only[4] = {0}, C_only[4] = {0}; /* either alone */
    assert_int_equal(m->tangent(m->self, t, q, v, K_only, NULL), NSCD_OK);
    assert_int_equal(m->tangent(m->self, t, q, v, NULL, C_only), NSCD_OK);
    assert_memory_equal(K_only, K, sizeof K);
    assert_memory_equal(C_only, C, sizeof C);
    nscd_system_destroy(sys);
}

/* A matrix without its callback is unknown: NSCD_ERR_UNSUPPORTED before
 * anything is written, even the matrix that is known. */
static void absent_matrices_are_unsupported(void **state) {
    (void)state;
    spring_user u = {0, 0};
    const double q[2] = {0.1, 0.2}, v[2] = {0.3, 0.4};
    double K[4] = {9, 9, 9, 9}, C[4] = {9, 9, 9, 9};
    const double nines[4] = {9, 9, 9, 9};
    nscd_system *sys = springs(&u, stiffness, NULL);
    nscd__model *m = nscd__system_model(sys);
    assert_int_equal(m->tangent(m->self, 0.0, q, v, K, C), NSCD_ERR_UNSUPPORTED);
    assert_memory_equal(K, nines, sizeof K);
    assert_non_null(strstr(nscd_system_last_error(sys), "damping"));
    assert_int_equal(m->tangent(m->self, 0.0, q, v, K, NULL), NSCD_OK);
    assert_int_equal(m->tangent(m->self, 0.0, q, v, NULL, NULL), NSCD_OK); /* nothing wanted */
    nscd_system_destroy(sys);

    sys = springs(&u, NULL, damping);
    m = nscd__system_model(sys);
    memcpy(C, nines, sizeof C);
    assert_int_equal(m->tangent(m->self, 0.0, q, v, K, C), NSCD_ERR_UNSUPPORTED);
    assert_memory_equal(C, nines, sizeof C);
    assert_non_null(strstr(nscd_system_last_error(sys), "stiffness"));
    assert_int_equal(m->tangent(m->self, 0.0, q, v, NULL, C), NSCD_OK);
    assert_true(C[3] == C1);
    nscd_system_destroy(sys);
}

/* A failing callback gives NSCD_ERR_CALLBACK, a NaN NSCD_ERR_NOT_FINITE. */
static void callback_failures_are_reported(void **state) {
    (void)state;
    spring_user u = {1, 0};
    nscd_system *sys = springs(&u, stiffness, damping);
    nscd__model *m = nscd__system_model(sys);
    const double q[2] = {0.1, 0.2}, v[2] = {0.3, 0.4};
    double K[4], C[4];
    assert_int_equal(m->tangent(m->self, 0.0, q, v, K, C), NSCD_ERR_CALLBACK);
    assert_non_null(strstr(nscd_system_last_error(sys), "stiffness callback returned 3"));
    u.fail = 0;
    u.nan = 1;
    assert_int_equal(m->tangent(m->self, 0.0, q, v, K, C), NSCD_ERR_NOT_FINITE);
    assert_non_null(strstr(nscd_system_last_error(sys), "stiffness gave non-finite"));
    u.nan = 0;
    assert_int_equal(m->tangent(m->self, 0.0, q, v, K, C), NSCD_OK);
    nscd_system_destroy(sys);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tangent_is_minus_the_force_jacobian),
        cmocka_unit_test(absent_matrices_are_unsupported),
        cmocka_unit_test(callback_failures_are_reported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
