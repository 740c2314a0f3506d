/* contact/assembly/projection.h, the library's one projection: the mixed
 * LCP of a stage (regular, dependent and zero rows, gaps open and closed)
 * against its definition (u = b + W p, u = 0 on equalities, 0 <= p _|_ u >=
 * 0 on gaps, checked by core/redundant.h's independent check), and the
 * Gauss–Newton loop over a point mass on a circle (the mass-weighted
 * closest point is the radial one, the velocity's tangential part remains)
 * and above a floor (a pushed-back gap ends at -tolerance, a closing
 * velocity stops, a separating one stays). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "contact/assembly/projection.h"
#include "core/redundant.h"

#define M_MAX 4

/* Solves the stage (W copied: the solve adds δ to it); the check of
 * core/redundant.h against the W without δ. */
static void solve(int32_t m, const double *W, const double *b, const int32_t *gap, double *p) {
    double Wd[M_MAX * M_MAX], bb[M_MAX], work[NSCD__PROJECTION_WORK(M_MAX)];
    memcpy(Wd, W, (size_t)m * (size_t)m * sizeof(double));
    memcpy(bb, b, (size_t)m * sizeof(double));
    nscd__projection_system sys = {m, gap, bb, Wd, p, work, 0.0, 0};
    nscd__projection_solve(&sys);
}

static int satisfies(int32_t m, const double *W, const double *b, const int32_t *gap,
                     const double *p) {
    uint8_t equality[M_MAX];
    for (int32_t a = 0; a < m; ++a) {
        equality[a] = gap == NULL || gap[a] == 0;
    }
    return nscd__redundant_check(m, W, b, equality, p);
}

static void test_equalities(void **state) {
    (void)state;
    /* regular: W SPD */
    const double W[9] = {4.0, 1.0, 0.5, 1.0, 3.0, 0.2, 0.5, 0.2, 2.0};
    const double b[3] = {1.0, -2.0, 0.5};
    double p[3];
    solve(3, W, b, NULL, p);
    assert_true(satisfies(3, W, b, NULL, p));
    /* dependent rows: H = [e1; e1; e2], W = H H' (rank 2), b = H (1, 2) in
     * its range; the regularised solve splits the load of the two equal
     * rows evenly (the least-norm p) */
    const double Wr[9] = {1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0};
    const double br[3] = {1.0, 1.0, 2.0};
    solve(3, Wr, br, NULL, p);
    assert_true(satisfies(3, Wr, br, NULL, p));
    assert_true(fabs(p[0] - p[1]) <= 1e-6);
    assert_true(fabs(p[0] + 0.5) <= 1e-6 && fabs(p[2] + 2.0) <= 1e-9);
}

static void test_gaps(void **state) {
    (void)state;
    /* W = [2 1; 1 2], b = (-1, 3): the first gap closes with p = 1/2 (u =
     * 0), the second stays open (p = 0, u = 3.5) */
    const double W[4] = {2.0, 1.0, 1.0, 2.0};
    const double b[2] = {-1.0, 3.0};
    const int32_t gap[2] = {1, 1};
    double p[2];
    solve(2, W, b, gap, p);
    assert_true(fabs(p[0] - 0.5) <= 1e-12 && p[1] == 0.0);
    assert_true(satisfies(2, W, b, gap, p));
    /* mixed: an equality pulls the second row against a gap */
    const double Wm[9] = {2.0, -1.0, 0.0, -1.0, 2.0, -1.0, 0.0, -1.0, 2.0};
    const double bm[3] = {0.5, -1.0, 0.25};
    const int32_t gm[3] = {1, 0, 1};
    double pm[3];
    solve(3, Wm, bm, gm, pm);
    assert_true(pm[0] >= 0.0 && pm[2] >= 0.0);
    assert_true(satisfies(3, Wm, bm, gm, pm));
    /* a zero row (W = 0: δ is 0 too) keeps p = 0, finite */
    const double Wz[4] = {0.0, 0.0, 0.0, 0.0};
    const double bz[2] = {1.0, -1.0};
    solve(2, Wz, bz, gap, p);
    assert_true(p[0] == 0.0 && p[1] == 0.0);
}

/* A point mass in the plane: on the unit circle (an equality, Φ = (|x|^2 -
 * 1) / 2, H = x') or above the floor y = 0 (a gap g = y, H = (0, 1)). */
typedef struct point {
    double x[2], v[2], mass;
    int floor;
    double h[2], W[1], b[1], p[1], work[NSCD__PROJECTION_WORK(1)];
    int32_t gap[1];
    int32_t m;
} point;

static nscd_status point_gather(void *self, int stage, nscd__projection_system *sys) {
    point *pt = self;
    double value = pt->floor ? pt->x[1] : 0.5 * (pt->x[0] * pt->x[0] + pt->x[1] * pt->x[1] - 1.0);
    pt->h[0] = pt->floor ? 0.0 : pt->x[0];
    pt->h[1] = pt->floor ? 1.0 : pt->x[1];
    pt->gap[0] = pt->floor;
    /* velocities: a gap takes part when closed (1e-9: the contact distance) */
    pt->m = stage == NSCD__PROJECT_VELOCITIES && pt->floor && value > 1e-9 ? 0 : 1;
    sys->residual = pt->floor ? fmax(0.0, -value - 1e-12) : fabs(value);
    pt->b[0] = stage == NSCD__PROJECT_POSITIONS ? value + (pt->floor ? 1e-12 : 0.0)
                                                : pt->h[0] * pt->v[0] + pt->h[1] * pt->v[1];
    sys->m = pt->m;
    sys->gap = pt->gap;
    sys->b = pt->b;
    sys->W = pt->W;
    sys->p = pt->p;
    sys->work = pt->work;
    return NSCD_OK;
}

static nscd_status point_delassus(void *self, const nscd__projection_system *sys) {
    point *pt = self;
    sys->W[0] = (pt->h[0] * pt->h[0] + pt->h[1] * pt->h[1]) / pt->mass;
    return NSCD_OK;
}

static nscd_status point_apply(void *self, int stage, const nscd__projection_system *sys) {
    point *pt = self;
    double *x = stage == NSCD__PROJECT_POSITIONS ? pt->x : pt->v;
    for (int k = 0; k < 2 && sys->m > 0; ++k) {
        x[k] += pt->h[k] * sys->p[0] / pt->mass;
    }
    return NSCD_OK;
}

static double project(point *pt, int iterations, int *projected) {
    nscd__projection_ops ops = {pt, point_gather, point_delassus, NULL, point_apply, 1, 0};
    double residual = -1.0;
    assert_int_equal(nscd__project(&ops, 1e-12, iterations, &residual, projected), NSCD_OK);
    return residual;
}

static void test_circle(void **state) {
    (void)state;
    point pt = {{1.1, 0.2}, {0.3, 0.4}, 2.0, 0, {0}, {0}, {0}, {0}, {0}, {0}, 0};
    double r0 = hypot(1.1, 0.2);
    int projected = 0;
    double residual = project(&pt, 10, &projected);
    assert_true(projected && residual <= 1e-12);
    double r = hypot(pt.x[0], pt.x[1]);
    assert_true(fabs(r - 1.0) <= 1e-12);
    /* each step moves along x (M = m I): the closest point is radial */
    assert_true(fabs(pt.x[0] - 1.1 / r0) <= 1e-14 && fabs(pt.x[1] - 0.2 / r0) <= 1e-14);
    /* the velocity keeps its tangential part: v - (x.v) x */
    double xv = 0.3 * pt.x[0] + 0.4 * pt.x[1]; /* x . v0 at the final x */
    assert_true(fabs(pt.v[0] - (0.3 - xv * pt.x[0])) <= 1e-12);
    assert_true(fabs(pt.v[1] - (0.4 - xv * pt.x[1])) <= 1e-12);
    assert_true(fabs(pt.x[0] * pt.v[0] + pt.x[1] * pt.v[1]) <= 1e-11);
    /* no iterations: nothing moves, the residual tells */
    point off = {{1.1, 0.2}, {0.3, 0.4}, 2.0, 0, {0}, {0}, {0}, {0}, {0}, {0}, 0};
    residual = project(&off, 0, &projected);
    assert_true(!projected && fabs(residual - 0.5 * (r0 * r0 - 1.0)) <= 1e-15);
    assert_true(off.x[0] == 1.1 && off.x[1] == 0.2);
}

static void test_floor(void **state) {
    (void)state;
    /* below the floor: pushed back to y = -tolerance, a closing velocity
     * stops, the tangential one stays */
    point pt = {{0.3, -0.01}, {1.0, -2.0}, 3.0, 1, {0}, {0}, {0}, {0}, {0}, {0}, 0};
    int projected = 0;
    double residual = project(&pt, 10, &projected);
    assert_true(projected && residual <= 1e-12);
    assert_true(pt.x[0] == 0.3 && fabs(pt.x[1] + 1e-12) <= 1e-13);
    assert_true(pt.v[0] == 1.0 && fabs(pt.v[1]) <= 1e-11);
    /* closed and separating: the velocity stays */
    point sep = {{0.3, 0.0}, {1.0, 3.0}, 3.0, 1, {0}, {0}, {0}, {0}, {0}, {0}, 0};
    residual = project(&sep, 10, &projected);
    assert_true(!projected && residual == 0.0 && sep.v[0] == 1.0 && sep.v[1] == 3.0);
    /* above it: nothing moves */
    point above = {{0.3, 0.2}, {1.0, -2.0}, 3.0, 1, {0}, {0}, {0}, {0}, {0}, {0}, 0};
    residual = project(&above, 10, &projected);
    assert_true(!projected && residual == 0.0);
    assert_true(above.x[1] == 0.2 && above.v[1] == -2.0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_equalities),
        cmocka_unit_test(test_gaps),
        cmocka_unit_test(test_circle),
        cmocka_unit_test(test_floor),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
