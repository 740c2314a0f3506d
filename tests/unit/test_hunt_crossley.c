/* Hunt-Crossley damping factors (seed 001, eqs. 13-19): the printed
 * formulas, Gonthier's exact factor checked against eq. 19 and with the
 * library's impact simulator, limits and bad inputs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "nscd/nscd.h"

static double factor(int32_t model, double k, double e, double v) {
    double mu = NAN;
    assert_int_equal(nscd_hunt_crossley_factor(model, k, e, v, &mu), NSCD_OK);
    return mu;
}

static void printed_formulas(void **state) {
    (void)state;
    double k = 4e7, e = 0.35, v = 1.7;
    assert_true(fabs(factor(NSCD_HC_HUNT_CROSSLEY, k, e, v) - 3 * k * (1 - e) / (2 * v)) <
                1e-15 * k);
    assert_true(fabs(factor(NSCD_HC_LANKARANI_NIKRAVESH, k, e, v) - 3 * k * (1 - e * e) / (4 * v)) <
                1e-15 * k);
    assert_true(fabs(factor(NSCD_HC_HU_GUO, k, e, v) - 3 * k * (1 - e) / (2 * e * v)) < 1e-15 * k);
    assert_true(fabs(factor(NSCD_HC_FLORES, k, e, v) - 8 * k * (1 - e) / (5 * e * v)) < 1e-15 * k);
}

/* d = mu e v / k solves (1 + d/e)/(1 - d) = exp(d (1 + 1/e)) (eq. 19),
 * checked as 1 - d = (1 + d/e) exp(-d (1 + 1/e)): for small e, d is 1 to
 * within rounding and 1 - d is not representable, yet mu is exact. */
static void gonthier_solves_eq19(void **state) {
    (void)state;
    double k = 1e6, v = 1.0;
    for (double e = 0.01; e < 0.999; e += 0.0123) {
        double d = factor(NSCD_HC_GONTHIER, k, e, v) * e * v / k;
        assert_true(d > 0.0 && d < 1.0);
        double d_eq19 = 1.0 - (1.0 + d / e) * exp(-d * (1.0 + 1.0 / e));
        assert_true(fabs(d - d_eq19) < 1e-13);
    }
}

/* As e -> 1 every factor vanishes and Gonthier's tends to Hunt-Crossley's
 * (d -> 3(1 - e)/2, the small-dissipation limit behind eq. 13). */
static void limits_at_e_one(void **state) {
    (void)state;
    for (int32_t model = NSCD_HC_HUNT_CROSSLEY; model <= NSCD_HC_GONTHIER; ++model) {
        assert_true(factor(model, 1e6, 1.0, 1.0) == 0.0);
    }
    double e = 1.0 - 1e-7;
    double ratio =
        factor(NSCD_HC_GONTHIER, 1e6, e, 1.0) / factor(NSCD_HC_HUNT_CROSSLEY, 1e6, e, 1.0);
    assert_true(fabs(ratio - 1.0) < 1e-6);
}

/* Gonthier's factor is exact: the simulated impact restitutes e for any n,
 * m, v, k; the approximate factors are not. */
static void gonthier_is_exact_in_simulation(void **state) {
    (void)state;
    double worst = 0.0, worst_flores = 0.0;
    const double ns[] = {1.0, 1.5, 2.0};
    for (int i = 0; i < 3; ++i) {
        for (double e = 0.05; e <= 1.0; e += 0.05) {
            nscd_contact_law *law = NULL;
            assert_int_equal(
                nscd_contact_law_create_hunt_crossley(3e8, ns[i], e, NSCD_HC_GONTHIER, NULL, &law),
                NSCD_OK);
            nscd_central_impact_result r = {.struct_size = sizeof r};
            assert_int_equal(nscd_central_impact(law, 0.2 + e, 0.5 + ns[i], &r), NSCD_OK);
            worst = fmax(worst, fabs(r.e_out - e));
            /* Ends at delta = 0, up to the simulator's force threshold (1e-11 of
             * the force scale): with strong damping (small e) the force fades
             * while delta is still a few % of its maximum, but e_out no longer
             * changes there. */
            if (e >= 0.2) {
                assert_true(r.residual_penetration < 1e-4 * r.max_penetration);
            }
            nscd_contact_law_destroy(law);
            assert_int_equal(
                nscd_contact_law_create_hunt_crossley(3e8, ns[i], e, NSCD_HC_FLORES, NULL, &law),
                NSCD_OK);
            assert_int_equal(nscd_central_impact(law, 0.2 + e, 0.5 + ns[i], &r), NSCD_OK);
            worst_flores = fmax(worst_flores, fabs(r.e_out - e));
            nscd_contact_law_destroy(law);
        }
    }
    print_message("Gonthier: max |e_out - e| = %.3e (Flores eq. 16: %.3e)\n", worst, worst_flores);
    assert_true(worst <= 1e-9);
    assert_true(worst_flores > 1e-3);
}

static void bad_inputs(void **state) {
    (void)state;
    double mu = 42.0;
    assert_int_equal(nscd_hunt_crossley_factor(NSCD_HC_FLORES, 1e6, 0.5, 1.0, NULL),
                     NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_hunt_crossley_factor(0, 1e6, 0.5, 1.0, &mu), NSCD_ERR_INVALID_ARGUMENT);
    assert_int_equal(nscd_hunt_crossley_factor(6, 1e6, 0.5, 1.0, &mu), NSCD_ERR_INVALID_ARGUMENT);
    assert_int_equal(nscd_hunt_crossley_factor(NSCD_HC_FLORES, NAN, 0.5, 1.0, &mu),
                     NSCD_ERR_NOT_FINITE);
    assert_int_equal(nscd_hunt_crossley_factor(NSCD_HC_FLORES, 1e6, 0.0, 1.0, &mu),
                     NSCD_ERR_OUT_OF_RANGE);
    assert_int_equal(nscd_hunt_crossley_factor(NSCD_HC_FLORES, 1e6, 1.5, 1.0, &mu),
                     NSCD_ERR_OUT_OF_RANGE);
    assert_int_equal(nscd_hunt_crossley_factor(NSCD_HC_FLORES, 1e6, 0.5, 0.0, &mu),
                     NSCD_ERR_OUT_OF_RANGE);
    assert_int_equal(nscd_hunt_crossley_factor(NSCD_HC_FLORES, -1e6, 0.5, 1.0, &mu),
                     NSCD_ERR_OUT_OF_RANGE);
    assert_true(mu == 42.0);
    nscd_contact_law *law = NULL;
    assert_int_equal(nscd_contact_law_create_hunt_crossley(1e6, 1.5, 0.5, 9, NULL, &law),
                     NSCD_ERR_INVALID_ARGUMENT);
    assert_int_equal(nscd_contact_law_create_hunt_crossley(1e6, 2.5, 0.5, 1, NULL, &law),
                     NSCD_ERR_OUT_OF_RANGE);
    assert_int_equal(nscd_contact_law_create_hunt_crossley(1e6, 1.5, NAN, 1, NULL, &law),
                     NSCD_ERR_NOT_FINITE);
    assert_int_equal(nscd_contact_law_create_hunt_crossley(1e6, 1.5, 0.5, 1, NULL, NULL),
                     NSCD_ERR_NULL_POINTER);
    assert_null(law);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(printed_formulas), cmocka_unit_test(gonthier_solves_eq19),
        cmocka_unit_test(limits_at_e_one),  cmocka_unit_test(gonthier_is_exact_in_simulation),
        cmocka_unit_test(bad_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
