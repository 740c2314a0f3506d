/* Exact restitution of the Kelvin-Voigt impact (seed 001, eq. 55) against
 * direct integration on both branches, the quadrant near xi = sqrt(2)/2 and
 * the corrected exponent of the xi > 1 branch. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "nscd/nscd.h"

static double kv(double xi) {
    double e = NAN;
    assert_int_equal(nscd_kelvin_voigt_restitution(xi, &e), NSCD_OK);
    return e;
}

/* e_out of the simulated impact of a Kelvin-Voigt law with damping ratio xi. */
static double simulated(double xi) {
    double m = 0.8, k = 5e6, v = 1.3;
    nscd_contact_law *law = NULL;
    assert_int_equal(nscd_contact_law_create_kelvin_voigt(k, 2.0 * xi * sqrt(k * m),
                                                          NSCD_INDENTATION_TEMPORARY, NULL, &law),
                     NSCD_OK);
    nscd_central_impact_result r = {.struct_size = sizeof r};
    assert_int_equal(nscd_central_impact(law, m, v, &r), NSCD_OK);
    nscd_contact_law_destroy(law);
    return r.e_out;
}

static void matches_integration_on_both_branches(void **state) {
    (void)state;
    const double xis[] = {0.0,  1e-3,  0.05, 0.3,   0.6, 0.7, 0.7071, sqrt(0.5), 0.7072, 0.75,
                          0.95, 0.999, 1.0,  1.001, 1.2, 2.0, 5.0,    20.0,      100.0};
    double worst = 0.0;
    for (size_t i = 0; i < sizeof xis / sizeof xis[0]; ++i) {
        double d = fabs(kv(xis[i]) - simulated(xis[i]));
        worst = fmax(worst, d);
        assert_true(d < 1e-10);
    }
    print_message("eq. 55 (corrected) vs integration: max difference %.3e\n", worst);
}

/* The principal value of tan^-1 in eq. 55 is wrong for xi < sqrt(2)/2 (the
 * paper warns about the quadrant): it would give e > 1. */
static void quadrant_below_sqrt2_over_2(void **state) {
    (void)state;
    for (double xi = 0.05; xi < 0.7; xi += 0.05) {
        double w = sqrt(1.0 - xi * xi);
        double principal = exp(-xi / w * atan(2.0 * xi * w / (2.0 * xi * xi - 1.0)));
        assert_true(principal > 1.0);
        assert_true(kv(xi) < 1.0);
        assert_true(fabs(kv(xi) - simulated(xi)) < 1e-10);
    }
    /* continuous through sqrt(2)/2, where 2 xi^2 - 1 changes sign */
    double a = kv(sqrt(0.5) - 1e-9), b = kv(sqrt(0.5) + 1e-9);
    assert_true(fabs(a - b) < 1e-8);
    assert_true(fabs(kv(sqrt(0.5)) - exp(-acos(-1.0) / 2.0)) < 1e-14); /* theta = pi/2, xi/w = 1 */
}

/* The printed xi > 1 branch has the exponent 2 xi s/(2 xi^2 - 1); the exact
 * one is xi/s (s = sqrt(xi^2 - 1)). The printed one tends to 1 at xi -> 1+
 * while the xi < 1 branch tends to exp(-2), and it disagrees with the
 * integration; the corrected branch is continuous and agrees. */
static void corrected_branch_above_one(void **state) {
    (void)state;
    assert_true(fabs(kv(1.0) - exp(-2.0)) < 1e-15);
    assert_true(fabs(kv(1.0 - 1e-9) - exp(-2.0)) < 1e-8);
    assert_true(fabs(kv(1.0 + 1e-9) - exp(-2.0)) < 1e-8);
    for (double xi = 1.1; xi < 10.0; xi *= 1.3) {
        double s = sqrt(xi * xi - 1.0);
        double base = (xi - s) / (xi + s);
        double printed = pow(base, 2.0 * xi * s / (2.0 * xi * xi - 1.0));
        double corrected = pow(base, xi / s);
        double integrated = simulated(xi);
        assert_true(fabs(corrected - integrated) < 1e-10);
        assert_true(fabs(kv(xi) - corrected) < 1e-14);
        assert_true(fabs(printed - integrated) > 1e-2 * integrated);
    }
}

static void bad_inputs(void **state) {
    (void)state;
    double e = 42.0;
    assert_int_equal(nscd_kelvin_voigt_restitution(0.5, NULL), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_kelvin_voigt_restitution(NAN, &e), NSCD_ERR_NOT_FINITE);
    assert_int_equal(nscd_kelvin_voigt_restitution(INFINITY, &e), NSCD_ERR_NOT_FINITE);
    assert_int_equal(nscd_kelvin_voigt_restitution(-0.1, &e), NSCD_ERR_OUT_OF_RANGE);
    assert_true(e == 42.0);
    nscd_contact_law *law = NULL;
    assert_int_equal(nscd_contact_law_create_kelvin_voigt(0.0, 1.0, 0, NULL, &law),
                     NSCD_ERR_OUT_OF_RANGE);
    assert_int_equal(nscd_contact_law_create_kelvin_voigt(1e6, -1.0, 0, NULL, &law),
                     NSCD_ERR_OUT_OF_RANGE);
    assert_int_equal(nscd_contact_law_create_kelvin_voigt(1e6, NAN, 0, NULL, &law),
                     NSCD_ERR_NOT_FINITE);
    assert_int_equal(nscd_contact_law_create_kelvin_voigt(1e6, 1.0, 7, NULL, &law),
                     NSCD_ERR_INVALID_ARGUMENT);
    assert_int_equal(nscd_contact_law_create_spring_damper(1e6, 0.5, 1.0, 0, NULL, &law),
                     NSCD_ERR_OUT_OF_RANGE);
    assert_null(law);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(matches_integration_on_both_branches),
        cmocka_unit_test(quadrant_below_sqrt2_over_2),
        cmocka_unit_test(corrected_branch_above_one),
        cmocka_unit_test(bad_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
