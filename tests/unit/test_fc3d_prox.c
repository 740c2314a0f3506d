/* fc3d: the proximal-point method (NSCD_FC3D_PROX) and AUTO's proximal phase
 * on rank-deficient problems: piles of 2 and 3 boxes, each resting on 4
 * coplanar corner contacts (12 rows per box pair of levels for 6 degrees of
 * freedom per box: W = H M^-1 H' of rank 6 per box, 3x redundant). On these,
 * plain Newton from r = 0 may need many steps (it wanders over the null space
 * of W); the proximal loop must reach the tolerance. Every solution is checked
 * by an error computed here, independently of the library:
 *
 *     E1 = || r - P_K(r - u~) || / (1 + ||q||),   u~_j = (u_j,n + mu_j ||u_j,t||, u_j,t),
 *
 * with u = W r + q recomputed from W. The bounds are on merits, never on
 * iteration counts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fc3d_e1.h"
#include "nscd/nscd.h"

#define NB 3         /* boxes at most */
#define NC (4 * NB)  /* contacts at most */
#define M (3 * NC)   /* rows at most */
#define DOF (6 * NB) /* body velocities */

/* A deterministic generator (the test's own; no libc rand()). */
static double uniform(uint64_t *state) {
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*state >> 11) / 9007199254740992.0;
}

/* A pile of nb boxes (half extents 1, 0.5, 0.25, mass 1): box 0 on the floor,
 * box k on box k - 1 (shifted by `shift` along x, its contacts at the corners of
 * a 0.8 x 0.5 rectangle), each on 4 corner contacts, normals +z, tangents x, y.
 * Body velocities V (6 per box). W = H M^-1 H', q = H V. */
static int32_t box_pile(int32_t nb, double shift, const double *V, double *W, double *q) {
    const double a = 1.0, b = 0.5, c = 0.25, mass = 1.0;
    const double inv[6] = {1 / mass,
                           1 / mass,
                           1 / mass,
                           3 / (mass * (b * b + c * c)),
                           3 / (mass * (a * a + c * c)),
                           3 / (mass * (a * a + b * b))};
    static const double corner[4][2] = {{1, 1}, {-1, 1}, {-1, -1}, {1, -1}};
    static const double dirs[3][3] = {{0, 0, 1}, {1, 0, 0}, {0, 1, 0}};
    double H[M][DOF];
    memset(H, 0, sizeof H);
    int32_t nc = 4 * nb, rows = 3 * nc;
    for (int32_t lvl = 0; lvl < nb; ++lvl) {
        for (int k = 0; k < 4; ++k) {
            double px = corner[k][0] * a * (lvl ? 0.8 : 1.0), py = corner[k][1] * b;
            for (int d = 0; d < 3; ++d) {
                const double *e = dirs[d];
                double *h = H[3 * (4 * lvl + k) + d];
                /* the upper body: the point (px, py, -c) from its centre */
                double p[3] = {px, py, -c};
                h[6 * lvl + 0] = e[0], h[6 * lvl + 1] = e[1], h[6 * lvl + 2] = e[2];
                h[6 * lvl + 3] = p[1] * e[2] - p[2] * e[1];
                h[6 * lvl + 4] = p[2] * e[0] - p[0] * e[2];
                h[6 * lvl + 5] = p[0] * e[1] - p[1] * e[0];
                if (lvl > 0) { /* minus the lower body: the point (px + shift, py, c) */
                    int32_t lo = lvl - 1;
                    double pl[3] = {px + shift, py, c};
                    h[6 * lo + 0] = -e[0], h[6 * lo + 1] = -e[1], h[6 * lo + 2] = -e[2];
                    h[6 * lo + 3] = -(pl[1] * e[2] - pl[2] * e[1]);
                    h[6 * lo + 4] = -(pl[2] * e[0] - pl[0] * e[2]);
                    h[6 * lo + 5] = -(pl[0] * e[1] - pl[1] * e[0]);
                }
            }
        }
    }
    for (int32_t i = 0; i < rows; ++i) {
        q[i] = 0.0;
        for (int32_t k = 0; k < 6 * nb; ++k) {
            q[i] += H[i][k] * V[k];
        }
        for (int32_t k = 0; k < rows; ++k) {
            double s = 0.0;
            for (int32_t l = 0; l < 6 * nb; ++l) {
                s += H[i][l] * inv[l % 6] * H[k][l];
            }
            W[i * rows + k] = s;
        }
    }
    return nc;
}

static nscd_fc3d_info new_info(void) {
    nscd_fc3d_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    return info;
}

/* Random piles of 2 and 3 boxes (falling, slipping, spinning; one mu per
 * pile): PROX and AUTO from r = 0 reach the tolerance, and E1 confirms it. */
static void random_piles_converge(void **state) {
    (void)state;
    uint64_t seed = 2027;
    for (int trial = 0; trial < 60; ++trial) {
        int32_t nb = 2 + trial % 2;
        double V[DOF], W[M * M], q[M], mu[NC];
        for (int32_t i = 0; i < 6 * nb; ++i) {
            V[i] = 0.4 * (uniform(&seed) - 0.5);
        }
        for (int32_t k = 0; k < nb; ++k) {
            V[6 * k + 2] = -1.0 + 0.3 * (uniform(&seed) - 0.5);
        }
        double shift = 0.3 * (uniform(&seed) - 0.5), mu0 = 0.1 + 0.8 * uniform(&seed);
        int32_t nc = box_pile(nb, shift, V, W, q);
        for (int32_t j = 0; j < nc; ++j) {
            mu[j] = mu0;
        }
        const int32_t methods[2] = {NSCD_FC3D_PROX, NSCD_FC3D_AUTO};
        for (int k = 0; k < 2; ++k) {
            nscd_fc3d_options o;
            assert_int_equal(nscd_fc3d_options_init(&o, sizeof o), NSCD_OK);
            o.method = methods[k];
            o.tolerance = 1e-10;
            o.warm_start = 0;
            double r[M], u[M];
            nscd_fc3d_info info = new_info();
            assert_int_equal(nscd_fc3d_solve_dense(nc, W, q, mu, &o, r, u, &info), NSCD_OK);
            assert_int_equal(info.converged, 1);
            assert_true(info.merit <= o.tolerance);
            assert_true(e1_error(nc, W, q, mu, r) <= 1e-9);
            for (int32_t i = 0; i < 3 * nc; ++i) {
                assert_true(isfinite(r[i]) && isfinite(u[i]));
            }
        }
    }
}

/* The proximal loop from a warm start at a solution stops at once, and from
 * an iterate far off still converges (the outer loop's rho rule). */
static void warm_starts(void **state) {
    (void)state;
    double V[DOF] = {0.1, -0.05, -1.0, 0.02, 0.0, 0.1, 0.0, 0.1, -0.8, 0.0, 0.05, -0.1};
    double W[M * M], q[M], mu[NC];
    int32_t nc = box_pile(2, 0.1, V, W, q);
    for (int32_t j = 0; j < nc; ++j) {
        mu[j] = 0.3;
    }
    nscd_fc3d_options o;
    assert_int_equal(nscd_fc3d_options_init(&o, sizeof o), NSCD_OK);
    o.method = NSCD_FC3D_PROX;
    double r[M], u[M];
    for (int32_t i = 0; i < 3 * nc; ++i) {
        r[i] = i % 3 == 0 ? 10.0 : -3.0; /* far off, outside the cones */
    }
    nscd_fc3d_info info = new_info();
    assert_int_equal(nscd_fc3d_solve_dense(nc, W, q, mu, &o, r, u, &info), NSCD_OK);
    assert_true(e1_error(nc, W, q, mu, r) <= 1e-9);
    info = new_info();
    assert_int_equal(nscd_fc3d_solve_dense(nc, W, q, mu, &o, r, u, &info), NSCD_OK);
    assert_int_equal(info.newton_iterations, 0); /* already solved: no step */
    assert_true(info.merit <= o.tolerance);
}

/* PROX is Coulomb only and checks its input as Newton does: refused input
 * changes nothing. */
static void refused_input_changes_nothing(void **state) {
    (void)state;
    double V[DOF] = {0.1, 0.0, -1.0, 0.0, 0.0, 0.0};
    double W[M * M], q[M], mu[4] = {0.3, 0.3, 0.3, 0.3};
    int32_t nc = box_pile(1, 0.0, V, W, q);
    nscd_fc3d_options o;
    assert_int_equal(nscd_fc3d_options_init(&o, sizeof o), NSCD_OK);
    o.method = NSCD_FC3D_PROX;
    o.friction_law = NSCD_FC3D_MAX_DISSIPATION;
    double r[12], u[12], r0[12], u0[12];
    for (int i = 0; i < 12; ++i) {
        r[i] = r0[i] = 0.5 * i, u[i] = u0[i] = -1.0;
    }
    nscd_fc3d_info info = new_info(), info0 = info;
    assert_int_equal(nscd_fc3d_solve_dense(nc, W, q, mu, &o, r, u, &info), NSCD_ERR_UNSUPPORTED);
    o.friction_law = NSCD_FC3D_COULOMB;
    o.method = NSCD_FC3D_PROX + 1;
    assert_int_equal(nscd_fc3d_solve_dense(nc, W, q, mu, &o, r, u, &info),
                     NSCD_ERR_INVALID_ARGUMENT);
    o.method = NSCD_FC3D_PROX;
    o.max_iterations = 0;
    assert_int_equal(nscd_fc3d_solve_dense(nc, W, q, mu, &o, r, u, &info), NSCD_ERR_OUT_OF_RANGE);
    assert_memory_equal(r, r0, sizeof r);
    assert_memory_equal(u, u0, sizeof u);
    assert_memory_equal(&info, &info0, sizeof info);
    /* one box: 4 redundant contacts; converges */
    o.max_iterations = 1000;
    assert_int_equal(nscd_fc3d_solve_dense(nc, W, q, mu, &o, r, u, &info), NSCD_OK);
    assert_true(e1_error(nc, W, q, mu, r) <= 1e-9);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_piles_converge),
        cmocka_unit_test(warm_starts),
        cmocka_unit_test(refused_input_changes_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
