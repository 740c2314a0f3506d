/* The unit tests' independent error of a dense local friction-contact
 * problem, E1 = ||r - P_K(r - u~)|| / (1 + ||q||) with u = W r + q and
 * u~_j = (u_N + mu ||u_T||, u_T): the same measure as bench_fclib's, written
 * here without the library. Include after <cmocka.h>. */
#ifndef NSCD_TEST_FC3D_E1_H
#define NSCD_TEST_FC3D_E1_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Projection onto { x : ||x_t|| <= mu x_n } (the test's own). */
static inline void cone_projection(const double x[3], double mu, double p[3]) {
    double t = sqrt(x[1] * x[1] + x[2] * x[2]);
    if (t <= mu * x[0]) {
        memcpy(p, x, 3 * sizeof *p);
    } else if (mu * t <= -x[0] || (mu == 0.0 && x[0] <= 0.0)) {
        p[0] = p[1] = p[2] = 0.0;
    } else {
        double pn = (x[0] + mu * t) / (1.0 + mu * mu);
        p[0] = pn;
        p[1] = t > 0.0 ? mu * pn * x[1] / t : 0.0;
        p[2] = t > 0.0 ? mu * pn * x[2] / t : 0.0;
    }
}

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
        const double *rj = r + 3 * j, *uj = u + 3 * j;
        double ut = sqrt(uj[1] * uj[1] + uj[2] * uj[2]);
        double x[3] = {rj[0] - (uj[0] + mu[j] * ut), rj[1] - uj[1], rj[2] - uj[2]}, p[3];
        cone_projection(x, mu[j], p);
        for (int i = 0; i < 3; ++i) {
            e2 += (rj[i] - p[i]) * (rj[i] - p[i]);
            q2 += q[3 * j + i] * q[3 * j + i];
        }
    }
    free(u);
    return sqrt(e2) / (1.0 + sqrt(q2));
}

#endif
