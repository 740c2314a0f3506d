/* The unit tests' independent error of a dense local friction-contact
 * problem, E1 = ||r - P_K(r - u~)|| / (1 + ||q||) with u = W r + q and
 * u~_j = (u_N + mu ||u_T||, u_T): the same measure as bench_fclib's, from
 * tests/common/friction_cone_reference.h (without the library). Include after <cmocka.h>. */
#ifndef NSCD_TEST_FC3D_E1_H
#define NSCD_TEST_FC3D_E1_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../common/friction_cone_reference.h"

/* u = W r + q (row-major dense W, n contacts). */
static inline void velocity(int32_t n, const double *W, const double *q, const double *r,
                            double *u) {
    int32_t m = 3 * n;
    for (int32_t i = 0; i < m; ++i) {
        double s = q[i];
        for (int32_t k = 0; k < m; ++k) {
            s += W[i * m + k] * r[k];
        }
        u[i] = s;
    }
}

static inline double e1_error(int32_t n, const double *W, const double *q, const double *mu,
                              const double *r) {
    double *u = malloc(3 * (size_t)n * sizeof *u), e2 = 0.0, q2 = 0.0;
    assert_non_null(u);
    velocity(n, W, q, r, u);
    for (int32_t j = 0; j < n; ++j) {
        e2 += reference_coulomb_residual2(r + 3 * j, u + 3 * j, mu[j]);
        for (int i = 0; i < 3; ++i) {
            q2 += q[3 * j + i] * q[3 * j + i];
        }
    }
    free(u);
    return sqrt(e2) / (1.0 + sqrt(q2));
}

#endif
