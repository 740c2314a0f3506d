/* Optimal damping of the Hertz spring + linear damper (seed 001): the printed
 * constants of eqs. 52 and 57, the exactness of nscd_copt_exact checked with
 * the library's own impact simulator and with the exact Kelvin-Voigt
 * restitution (eq. 55), and bad inputs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "contact/compliant/copt.h"
#include "nscd/nscd.h"

static unsigned rng_state = 2024u;

static double uniform(void) {
    rng_state = rng_state * 1664525u + 1013904223u;
    return (rng_state >> 8) / 16777216.0;
}

/* eq. 52: n = 3/2 gives 1.95 (e^-0.3 - 1) k^0.4 v^0.2 m^0.6 (rounded constants). */
static void closed_form_matches_eq52(void **state) {
    (void)state;
    assert_true(fabs(nscd__copt_alpha(1.5) - 1.95) < 0.005);
    assert_true(fabs(nscd__copt_beta(1.5) + 0.3) < 0.0005);
    double m = 0.3, k = 1e8, v = 2.5, e = 0.6, c;
    assert_int_equal(nscd_copt_closed_form(m, k, 1.5, v, e, &c), NSCD_OK);
    double printed = 1.95 * (pow(e, -0.3) - 1.0) * pow(k, 0.4) * pow(v, 0.2) * pow(m, 0.6);
    assert_true(fabs(c - printed) < 3e-3 * printed);
}

/* eq. 57: n = 1 gives 1.4181 (e^-0.44 - 1) sqrt(k m), the constants exactly. */
static void closed_form_matches_eq57(void **state) {
    (void)state;
    assert_true(fabs(nscd__copt_alpha(1.0) - 1.4181) < 1e-12);
    assert_true(fabs(nscd__copt_beta(1.0) + 0.44) < 1e-12);
    double m = 2.0, k = 3e6, v = 0.7, e = 0.25, c;
    assert_int_equal(nscd_copt_closed_form(m, k, 1.0, v, e, &c), NSCD_OK);
    double printed = 1.4181 * (pow(e, -0.44) - 1.0) * sqrt(k * m);
    assert_true(fabs(c - printed) < 1e-12 * printed);
}

static void restitution_one_gives_zero_damping(void **state) {
    (void)state;
    double c = -1.0;
    assert_int_equal(nscd_copt_exact(1.0, 1e6, 1.5, 1.0, 1.0, &c), NSCD_OK);
    assert_true(c == 0.0);
    c = -1.0;
    assert_int_equal(nscd_copt_closed_form(1.0, 1e6, 1.5, 1.0, 1.0, &c), NSCD_OK);
    assert_true(c == 0.0);
}

/* The Hertz-damper law with exact c_opt, simulated by nscd_central_impact,
 * leaves with the requested e (|e_out - e| <= 1e-9) over the paper's ranges. */
static void exact_copt_restitutes_e_in_simulation(void **state) {
    (void)state;
    double worst = 0.0;
    for (int i = 0; i < 300; ++i) {
        double m = pow(10.0, -5.0 + 7.0 * uniform());
        double k = pow(10.0, 5.0 + 5.0 * uniform());
        double v = pow(10.0, -3.0 + 5.0 * uniform());
        double n = 1.0 + uniform();
        double e = i % 3 == 0 ? pow(10.0, -4.0 * uniform())
                              : (i % 3 == 1 ? uniform() : 1.0 - pow(10.0, -8.0 * uniform()));
        if (e < 1e-4) {
            e = 1e-4;
        }
        nscd_contact_law *law = NULL;
        assert_int_equal(nscd_contact_law_create_hertz_damper(
                             k, n, e, NSCD_COPT_EXACT, NSCD_INDENTATION_TEMPORARY, NULL, &law),
                         NSCD_OK);
        nscd_central_impact_result r = {.struct_size = sizeof r};
        assert_int_equal(nscd_central_impact(law, m, v, &r), NSCD_OK);
        double c;
        assert_int_equal(nscd_copt_exact(m, k, n, v, e, &c), NSCD_OK);
        assert_true(fabs(r.damping - c) <= 1e-14 * c);
        worst = fmax(worst, fabs(r.e_out - e));
        nscd_contact_law_destroy(law);
    }
    print_message("max |e_out - e| of exact c_opt over 300 random systems: %.3e\n", worst);
    assert_true(worst <= 1e-9);
}

/* For n = 1 the exact optimum must reproduce eq. 55: xi = c/(2 sqrt(k m)) and
 * e_exact(xi) = e, an independent closed-form check that reaches far below
 * the table's smallest interval. */
static void exact_copt_matches_kelvin_voigt_for_n1(void **state) {
    (void)state;
    double worst = 0.0;
    for (double e = 1e-12; e <= 1.0; e *= 1.07) {
        double m = 0.5, k = 2e7, c, ek;
        assert_int_equal(nscd_copt_exact(m, k, 1.0, 3.0, e, &c), NSCD_OK);
        assert_int_equal(nscd_kelvin_voigt_restitution(c / (2.0 * sqrt(k * m)), &ek), NSCD_OK);
        worst = fmax(worst, fabs(ek - e));
    }
    print_message("n = 1: max |e_exact(xi(c_opt)) - e| = %.3e\n", worst);
    assert_true(worst <= 1e-10);
}

/* Below the tabulated range (e < 2^-21) the result is still within 1e-9. */
static void exact_copt_tiny_restitution(void **state) {
    (void)state;
    const double ns[] = {1.0, 1.5, 2.0};
    for (int i = 0; i < 3; ++i) {
        for (double e = 3e-7; e > 1e-9; e *= 0.3) {
            double zeta = nscd__copt_zeta_table(e, ns[i]), e_out;
            assert_int_equal(nscd__hertz_damper_restitution(zeta, ns[i], 1e-13, &e_out), NSCD_OK);
            assert_true(fabs(e_out - e) <= 1e-9);
        }
    }
}

/* Adjacent table intervals agree at their common end (e = 2^-l, 1 - 2^-h). */
static void table_is_continuous_across_intervals(void **state) {
    (void)state;
    for (double n = 1.0; n <= 2.0; n += 0.125) {
        for (int j = 1; j <= 27; ++j) {
            double ends[2] = {ldexp(1.0, -j), 1.0 - ldexp(1.0, -j)};
            for (int side = 0; side < 2; ++side) {
                double e = ends[side];
                if (e < 2e-7) {
                    continue;
                }
                double below = nscd__copt_zeta_table(nextafter(e, 0.0), n);
                double above = nscd__copt_zeta_table(nextafter(e, 2.0), n);
                /* relative jumps are ~1e-12, up to 1e-10 near e = 1e-6 where
                 * |d e_out/d zeta| = (n+1) e/zeta makes them irrelevant */
                double jump = fabs(below - above) / fmax(1.0, above);
                assert_true(jump < 1e-10);
                assert_true(jump * fmin(1.0, (n + 1.0) * e) < 1e-12);
            }
        }
    }
}

/* The closed form is an approximation: a few 1e-3 at worst for e >= 0.1. */
static void closed_form_is_close(void **state) {
    (void)state;
    double worst = 0.0;
    for (double n = 1.0; n <= 2.0; n += 0.25) {
        for (double e = 0.1; e < 1.0; e += 0.05) {
            double zeta = nscd__copt_zeta_closed_form(e, n), e_out;
            assert_int_equal(nscd__hertz_damper_restitution(zeta, n, 1e-12, &e_out), NSCD_OK);
            worst = fmax(worst, fabs(e_out - e));
        }
    }
    print_message("closed form, e in [0.1, 1): max |e_out - e| = %.3e\n", worst);
    assert_true(worst < 1e-2);
    assert_true(worst > 1e-5); /* it is not exact */
}

/* The slack variable of eq. 34 lies in [0, 1] (eq. 33). */
static void lambda_is_a_slack_variable(void **state) {
    (void)state;
    for (double n = 1.0; n <= 2.0; n += 0.1) {
        for (double e = 1e-4; e <= 1.0; e *= 1.5) {
            double lambda = e * nscd__copt_zeta_table(e, n) * pow((n + 1.0) / 2.0, -n / (n + 1.0));
            assert_true(lambda >= 0.0 && lambda <= 1.0);
        }
    }
}

static void bad_inputs(void **state) {
    (void)state;
    double c = 42.0;
    nscd_status (*fns[2])(double, double, double, double, double,
                          double *) = {nscd_copt_closed_form, nscd_copt_exact};
    for (int f = 0; f < 2; ++f) {
        assert_int_equal(fns[f](1.0, 1e6, 1.5, 1.0, 0.5, NULL), NSCD_ERR_NULL_POINTER);
        assert_int_equal(fns[f](NAN, 1e6, 1.5, 1.0, 0.5, &c), NSCD_ERR_NOT_FINITE);
        assert_int_equal(fns[f](1.0, INFINITY, 1.5, 1.0, 0.5, &c), NSCD_ERR_NOT_FINITE);
        assert_int_equal(fns[f](1.0, 1e6, 1.5, 1.0, NAN, &c), NSCD_ERR_NOT_FINITE);
        assert_int_equal(fns[f](1e-6, 1e6, 1.5, 1.0, 0.5, &c), NSCD_ERR_OUT_OF_RANGE);
        assert_int_equal(fns[f](1e3, 1e6, 1.5, 1.0, 0.5, &c), NSCD_ERR_OUT_OF_RANGE);
        assert_int_equal(fns[f](1.0, 1e4, 1.5, 1.0, 0.5, &c), NSCD_ERR_OUT_OF_RANGE);
        assert_int_equal(fns[f](1.0, 1e11, 1.5, 1.0, 0.5, &c), NSCD_ERR_OUT_OF_RANGE);
        assert_int_equal(fns[f](1.0, 1e6, 0.99, 1.0, 0.5, &c), NSCD_ERR_OUT_OF_RANGE);
        assert_int_equal(fns[f](1.0, 1e6, 2.01, 1.0, 0.5, &c), NSCD_ERR_OUT_OF_RANGE);
        assert_int_equal(fns[f](1.0, 1e6, 1.5, 1e-4, 0.5, &c), NSCD_ERR_OUT_OF_RANGE);
        assert_int_equal(fns[f](1.0, 1e6, 1.5, 200.0, 0.5, &c), NSCD_ERR_OUT_OF_RANGE);
        assert_int_equal(fns[f](1.0, 1e6, 1.5, -1.0, 0.5, &c), NSCD_ERR_OUT_OF_RANGE);
        assert_int_equal(fns[f](1.0, 1e6, 1.5, 1.0, 0.0, &c), NSCD_ERR_OUT_OF_RANGE);
        assert_int_equal(fns[f](1.0, 1e6, 1.5, 1.0, -0.1, &c), NSCD_ERR_OUT_OF_RANGE);
        assert_int_equal(fns[f](1.0, 1e6, 1.5, 1.0, 1.0 + 1e-12, &c), NSCD_ERR_OUT_OF_RANGE);
        assert_true(c == 42.0); /* untouched on failure */
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(closed_form_matches_eq52),
        cmocka_unit_test(closed_form_matches_eq57),
        cmocka_unit_test(restitution_one_gives_zero_damping),
        cmocka_unit_test(exact_copt_restitutes_e_in_simulation),
        cmocka_unit_test(exact_copt_matches_kelvin_voigt_for_n1),
        cmocka_unit_test(exact_copt_tiny_restitution),
        cmocka_unit_test(table_is_continuous_across_intervals),
        cmocka_unit_test(closed_form_is_close),
        cmocka_unit_test(lambda_is_a_slack_variable),
        cmocka_unit_test(bad_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
