/* vec3/mat3/quat algebra and the dense linear algebra wrappers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "core/dense.h"
#include "core/vec3.h"

#define PI 3.14159265358979323846

static void near(double a, double b) { assert_true(fabs(a - b) <= 1e-14 * (1.0 + fabs(b))); }

static void vectors(void **state) {
    (void)state;
    nscd__vec3 a = nscd__v3(1, 2, 3), b = nscd__v3(-2, 0.5, 4);
    nscd__vec3 c = nscd__v3_cross(a, b);
    near(nscd__v3_dot(c, a), 0.0);
    near(nscd__v3_dot(c, b), 0.0);
    near(c.x, 2 * 4 - 3 * 0.5);
    near(nscd__v3_norm(nscd__v3_normalize(b)), 1.0);
    nscd__vec3 z = nscd__v3_normalize(nscd__v3(0, 0, 0));
    assert_true(z.x == 0 && z.y == 0 && z.z == 0);
    nscd__vec3 s = nscd__m3_apply(nscd__m3_skew(a), b); /* [a]x b = a x b */
    near(s.x, c.x), near(s.y, c.y), near(s.z, c.z);
}

static void matrices(void **state) {
    (void)state;
    nscd__mat3 m = {{{4, 1, 0.5}, {-1, 3, 2}, {0.25, 0, 5}}}, inv;
    assert_int_equal(nscd__m3_inverse(m, &inv), 1);
    nscd__mat3 id = nscd__m3_mul(m, inv);
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            near(id.m[i][j], i == j ? 1.0 : 0.0);
        }
    }
    near(nscd__m3_det(m), 4 * 15 - 1 * (-5 - 0.5) + 0.5 * (0 - 0.75));
    nscd__mat3 singular = {{{1, 2, 3}, {2, 4, 6}, {0, 1, 1}}};
    assert_int_equal(nscd__m3_inverse(singular, &inv), 0);
    nscd__mat3 t = nscd__m3_transpose(m);
    near(t.m[0][1], m.m[1][0]);
}

static void quaternions(void **state) {
    (void)state;
    nscd__quat q = nscd__q_from_axis_angle(nscd__v3(0, 0, 2), PI / 2); /* axis normalised inside */
    nscd__vec3 r = nscd__q_rotate(q, nscd__v3(1, 0, 0));
    near(r.x, 0.0), near(r.y, 1.0), near(r.z, 0.0);
    nscd__quat p = nscd__q_from_axis_angle(nscd__v3(1, 1, 0), 0.7);
    nscd__vec3 v = nscd__v3(0.3, -1.2, 2.0);
    nscd__vec3 composed = nscd__q_rotate(nscd__q_mul(q, p), v);
    nscd__vec3 sequential = nscd__q_rotate(q, nscd__q_rotate(p, v));
    near(composed.x, sequential.x), near(composed.y, sequential.y), near(composed.z, sequential.z);
    nscd__vec3 by_matrix = nscd__m3_apply(nscd__q_to_mat3(p), v), by_quat = nscd__q_rotate(p, v);
    near(by_matrix.x, by_quat.x), near(by_matrix.y, by_quat.y), near(by_matrix.z, by_quat.z);
    nscd__vec3 back = nscd__q_rotate(nscd__q_conj(p), by_quat);
    near(back.x, v.x), near(back.y, v.y), near(back.z, v.z);
    nscd__quat n = nscd__q_normalize((nscd__quat){2, 0, 0, 0});
    near(n.w, 1.0);
    nscd__quat fallback = nscd__q_normalize((nscd__quat){0, 0, 0, 0});
    near(fallback.w, nscd__q_identity().w);
}

static void dense_linear_algebra(void **state) {
    (void)state;
    double A[9] = {4, 2, 0.6, 2, 5, 1, 0.6, 1, 3}, b[3] = {1, -2, 0.5}, x[3], y[3];
    double L[9];
    assert_int_equal(nscd__cholesky_cm(3, A, L), NSCD_OK);
    for (int i = 0; i < 3; ++i) {
        x[i] = b[i];
    }
    assert_int_equal(nscd__cholesky_solve_cm(3, L, 1, x), NSCD_OK);
    nscd__gemv(3, 3, A, x, y);
    for (int i = 0; i < 3; ++i) {
        near(y[i], b[i]);
    }
    const double notspd[4] = {1, 2, 2, 1};
    double factor[4];
    assert_int_equal(nscd__cholesky_cm(2, notspd, factor), NSCD_ERR_NOT_SPD);
    double lu[4] = {0, 1, 1, 0}, rhs[2] = {3, 4};
    int32_t piv[2];
    assert_int_equal(nscd__lu_solve(2, lu, piv, 1, rhs), NSCD_OK);
    near(rhs[0], 4.0), near(rhs[1], 3.0);
    double sing[4] = {1, 1, 1, 1}, r2[2] = {1, 2};
    assert_int_equal(nscd__lu_solve(2, sing, piv, 1, r2), NSCD_ERR_SINGULAR);
    double B[6] = {1, 2, 3, 4, 5, 6}, C[4];
    nscd__gemm_nt(2, 2, 3, B, B, C); /* B B' */
    near(C[0], 14), near(C[1], 32), near(C[2], 32), near(C[3], 77);
    near(nscd__dot(3, b, b), 1 + 4 + 0.25);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(vectors),
        cmocka_unit_test(matrices),
        cmocka_unit_test(quaternions),
        cmocka_unit_test(dense_linear_algebra),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
