/* The friction cone and the De Saxcé natural-map residual, written without
 * the library: the independent error E1 of the unit tests (tests/unit/
 * fc3d_e1.h), the fuzzers (tests/fuzz/fuzz_common.h) and bench_fclib
 * (bench/bench_fclib.c) is built from these two functions, so that a
 * mistake in the library's own cone (src/contact/single/friction_cone.c)
 * cannot hide in the check. Header only, C11, no dependency but <math.h>. */
#ifndef NSCD_FRICTION_CONE_REFERENCE_H
#define NSCD_FRICTION_CONE_REFERENCE_H

#include <math.h>

/* Euclidean projection p of x = (x_n, x_t, x_o) onto the cone
 * K = {y : ||(y_t, y_o)|| <= mu y_n}: x itself inside K, 0 inside the polar
 * cone (mu ||x_T|| <= -x_n), else the nearest point of K's surface. The
 * x_n >= 0 of the first test matters only at mu = 0, where K is the ray
 * y_T = 0, y_n >= 0 and (-1, 0, 0) projects to 0. */
static inline void reference_cone_projection(const double x[3], double mu, double p[3]) {
    double t = sqrt(x[1] * x[1] + x[2] * x[2]);
    if (t <= mu * x[0] && x[0] >= 0.0) {
        p[0] = x[0], p[1] = x[1], p[2] = x[2];
    } else if (mu * t <= -x[0]) {
        p[0] = p[1] = p[2] = 0.0;
    } else {
        double n = (x[0] + mu * t) / (1.0 + mu * mu);
        p[0] = n;
        p[1] = t > 0.0 ? mu * n * x[1] / t : 0.0;
        p[2] = t > 0.0 ? mu * n * x[2] / t : 0.0;
    }
}

/* ||r - P_K(r - u~)||² of one contact, u~ = (u_n + mu ||u_T||, u_T) (De
 * Saxcé's modified velocity): zero exactly when (r, u) satisfy Coulomb's
 * law with friction coefficient mu. */
static inline double reference_coulomb_residual2(const double r[3], const double u[3], double mu) {
    double ut = sqrt(u[1] * u[1] + u[2] * u[2]);
    double x[3] = {r[0] - (u[0] + mu * ut), r[1] - u[1], r[2] - u[2]}, p[3];
    reference_cone_projection(x, mu, p);
    return (r[0] - p[0]) * (r[0] - p[0]) + (r[1] - p[1]) * (r[1] - p[1]) +
           (r[2] - p[2]) * (r[2] - p[2]);
}

#endif
