/* nscd_time_stepping_options::impulse_velocities (integrators/
 * impulse_subspace.c): the impulsive correction of the α schemes on the
 * first K velocities only. Two coupled dofs without forces, M = [[2, 0.5],
 * [0.5, 1]] (constant), a floor on dof 0 (gap q0, row (1, 0)), Newton e =
 * 0.5, approaching at v = (-1, 0.3). After the impact v0 = -e v0^- = 0.5
 * either way; dof 1 keeps v1 = 0.3 with K = 1, and with every velocity
 * (K = 0 or 2) Δv = M^-1 (1, 0)' P moves it by (M^-1)_10 / (M^-1)_00 Δv0 =
 * -0.5 x 1.5: v1 = -0.45. Without forces the velocities are constant
 * between impacts, so these are exact after the step. Then bad options. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "nscd/nscd.h"

static nscd_status mass(void *user, const double *q, double *m) {
    (void)user, (void)q;
    const double M[4] = {2.0, 0.5, 0.5, 1.0};
    memcpy(m, M, sizeof M);
    return NSCD_OK;
}

static nscd_status forces(void *user, double t, const double *q, const double *v, double *h) {
    (void)user, (void)t, (void)q, (void)v;
    h[0] = h[1] = 0.0;
    return NSCD_OK;
}

static nscd_status floor_gap(void *user, int32_t index, double t, const double *q, double *gap,
                             double *w_normal, double *w_tangent) {
    (void)user, (void)index, (void)t, (void)w_tangent;
    *gap = q[0];
    w_normal[0] = 1.0;
    w_normal[1] = 0.0;
    return NSCD_OK;
}

static nscd_system *make_system(void) {
    nscd_system_desc desc;
    nscd_system_desc_init(&desc, sizeof desc);
    desc.n_dof = 2;
    desc.n_contacts = 1;
    desc.mass = mass;
    desc.forces = forces;
    desc.contact = floor_gap;
    nscd_system *s = NULL;
    assert_int_equal(nscd_system_create(&desc, &s), NSCD_OK);
    nscd_contact_law *law = NULL;
    assert_int_equal(nscd_contact_law_create_newton(0.5, NULL, &law), NSCD_OK);
    nscd_contact_desc c;
    nscd_contact_desc_init(&c, sizeof c);
    c.law = law;
    assert_int_equal(nscd_system_set_contact(s, 0, &c), NSCD_OK);
    nscd_contact_law_destroy(law);
    const double q0[2] = {0.00105, 0.0}, v0[2] = {-1.0, 0.3};
    assert_int_equal(nscd_system_set_state(s, 0.0, q0, v0), NSCD_OK);
    return s;
}

static nscd_time_stepping_options options(int32_t scheme, int32_t k) {
    nscd_time_stepping_options o;
    nscd_time_stepping_options_init(&o, sizeof o);
    o.scheme = scheme;
    o.dt = 1e-4;
    o.impulse_velocities = k;
    return o;
}

/* Velocities at t = 2e-3 (one impact near t = 1.05e-3). */
static void run(int32_t scheme, int32_t k, double v[2]) {
    nscd_system *s = make_system();
    nscd_time_stepping_options o = options(scheme, k);
    nscd_time_stepping *ts = NULL;
    assert_int_equal(nscd_time_stepping_create(s, &o, &ts), NSCD_OK);
    nscd_time_stepping_stats st = {.struct_size = sizeof st};
    assert_int_equal(nscd_time_stepping_advance(ts, 2e-3, &st), NSCD_OK);
    double t, q[2];
    nscd_system_get_state(s, &t, q, v);
    printf("scheme %d, K = %d: v = (%.15f, %.15f), q0 = %.3e\n", (int)scheme, (int)k, v[0], v[1],
           q[0]);
    nscd_time_stepping_destroy(ts);
    nscd_system_destroy(s);
}

static void impulses_on_the_first_velocities(void **state) {
    (void)state;
    const int32_t schemes[3] = {NSCD_TS_GENERALIZED_ALPHA, NSCD_TS_BATHE, NSCD_TS_ED_ALPHA};
    for (int i = 0; i < 3; ++i) {
        double all[2], both[2], first[2];
        run(schemes[i], 0, all);
        run(schemes[i], 2, both);
        run(schemes[i], 1, first);
        assert_true(fabs(all[0] - 0.5) <= 1e-12 && fabs(all[1] + 0.45) <= 1e-12);
        assert_true(fabs(both[0] - all[0]) <= 1e-14 && fabs(both[1] - all[1]) <= 1e-14);
        assert_true(fabs(first[0] - 0.5) <= 1e-12 && fabs(first[1] - 0.3) <= 1e-12);
    }
}

static void bad_options_fail_cleanly(void **state) {
    (void)state;
    nscd_system *s = make_system();
    nscd_time_stepping *ts = NULL;
    nscd_time_stepping_options o = options(NSCD_TS_BATHE, -1);
    assert_int_equal(nscd_time_stepping_create(s, &o, &ts), NSCD_ERR_OUT_OF_RANGE);
    o = options(NSCD_TS_BATHE, 3); /* more than the 2 velocities */
    assert_int_equal(nscd_time_stepping_create(s, &o, &ts), NSCD_ERR_OUT_OF_RANGE);
    o = options(NSCD_TS_MOREAU_JEAN, 1); /* impulses are the whole step: no correction */
    assert_int_equal(nscd_time_stepping_create(s, &o, &ts), NSCD_ERR_UNSUPPORTED);
    assert_null(ts);
    /* an options struct of the first 0.2 size: the field defaults to 0 */
    nscd_time_stepping_options old;
    memset(&old, 0, sizeof old);
    assert_int_equal(
        nscd_time_stepping_options_init(&old, offsetof(nscd_time_stepping_options, dt_min)),
        NSCD_OK);
    old.scheme = NSCD_TS_BATHE;
    old.impulse_velocities = 7; /* beyond the caller's size: not read */
    assert_int_equal(nscd_time_stepping_create(s, &old, &ts), NSCD_OK);
    nscd_time_stepping_destroy(ts);
    nscd_system_destroy(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(impulses_on_the_first_velocities),
        cmocka_unit_test(bad_options_fail_cleanly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
