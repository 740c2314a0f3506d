/* The direct central impact simulator and the compliant laws' per-contact
 * state (seed 001): the undamped Hertz impact in closed form (eqs. 26-27),
 * the residual penetration of eq. 51, onset/separation with permanent or
 * temporary indentation, and bad inputs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "contact/laws/compliant_law.h"
#include "nscd/nscd.h"

/* e = 1 means c = 0: the pure Hertz impact. Maximum penetration eq. 27,
 * peak force k delta_m^n, duration 2 (delta_m/v) B(1/(n+1), 1/2)/(n+1). */
static void undamped_hertz_in_closed_form(void **state) {
    (void)state;
    const double ns[] = {1.0, 1.25, 1.5, 2.0};
    for (int i = 0; i < 4; ++i) {
        double n = ns[i], k = 2e7, m = 0.4, v = 3.0;
        nscd_contact_law *law = NULL;
        assert_int_equal(nscd_contact_law_create_hertz_damper(
                             k, n, 1.0, NSCD_COPT_EXACT, NSCD_INDENTATION_TEMPORARY, NULL, &law),
                         NSCD_OK);
        nscd_central_impact_result r = {.struct_size = sizeof r};
        assert_int_equal(nscd_central_impact(law, m, v, &r), NSCD_OK);
        double dm = pow((n + 1.0) * m * v * v / (2.0 * k), 1.0 / (n + 1.0));
        double a = 1.0 / (n + 1.0);
        double beta = tgamma(a) * tgamma(0.5) / tgamma(a + 0.5);
        double duration = 2.0 * dm / v * beta / (n + 1.0);
        assert_true(fabs(r.e_out - 1.0) < 1e-10);
        assert_true(fabs(r.max_penetration - dm) < 1e-10 * dm);
        assert_true(fabs(r.peak_force - k * pow(dm, n)) < 1e-6 * k * pow(dm, n));
        assert_true(fabs(r.duration - duration) < 1e-9 * duration);
        assert_true(r.damping == 0.0);
        nscd_contact_law_destroy(law);
    }
}

/* eq. 51: delta_s = (v c e / k)^(1/n) at separation (zero force, e_out = e). */
static void residual_penetration_eq51(void **state) {
    (void)state;
    double k = 1e8, n = 1.5, m = 1.2, v = 0.8;
    for (double e = 0.1; e < 1.0; e += 0.2) {
        nscd_contact_law *law = NULL;
        assert_int_equal(nscd_contact_law_create_hertz_damper(
                             k, n, e, NSCD_COPT_EXACT, NSCD_INDENTATION_PERMANENT, NULL, &law),
                         NSCD_OK);
        nscd_central_impact_result r = {.struct_size = sizeof r};
        assert_int_equal(nscd_central_impact(law, m, v, &r), NSCD_OK);
        double ds = pow(v * r.damping * e / k, 1.0 / n);
        assert_true(fabs(r.residual_penetration - ds) < 1e-8 * ds);
        assert_true(r.residual_penetration < r.max_penetration);
        /* the peak of a damped impact is at least the force at onset, c v */
        assert_true(r.peak_force >= r.damping * v * (1.0 - 1e-12));
        nscd_contact_law_destroy(law);
    }
}

/* The law ops the event-driven stepper uses: onset captures v and the
 * effective mass; the force is signed and vanishes at the residual; the
 * permanent dent moves the next onset, the temporary one does not. */
static void onset_and_separation_state(void **state) {
    (void)state;
    for (int32_t mode = NSCD_INDENTATION_TEMPORARY; mode <= NSCD_INDENTATION_PERMANENT; ++mode) {
        double k = 1e8, n = 1.5, e = 0.4, m = 0.7, v = 2.0;
        nscd_contact_law *law = NULL;
        assert_int_equal(
            nscd_contact_law_create_hertz_damper(k, n, e, NSCD_COPT_EXACT, mode, NULL, &law),
            NSCD_OK);
        nscd__law_memory mem = {0};
        mem.effective_mass = m;
        assert_true(law->ops->onset_penetration(law, &mem) == 0.0);
        law->ops->onset(law, v, &mem);
        double c;
        assert_int_equal(nscd_copt_exact(m, k, n, v, e, &c), NSCD_OK);
        assert_true(mem.impact_velocity == v);
        assert_true(fabs(mem.aux[NSCD__MEM_DAMPING] - c) <= 1e-15 * c);
        /* eq. 20: zero force where c delta_dot + k delta^n = 0 */
        double ds = 1e-4, dv = -k * pow(ds, n) / c;
        assert_true(fabs(law->ops->force(law, &mem, ds, dv)) < 1e-9 * k * pow(ds, n));
        assert_true(law->ops->force(law, &mem, ds, 1.1 * dv) < 0.0); /* signed */
        law->ops->separation(law, &mem, ds);
        double next = law->ops->onset_penetration(law, &mem);
        assert_true(next == (mode == NSCD_INDENTATION_PERMANENT ? ds : 0.0));
        /* a later contact: the dent persists across onset, the force counts from it */
        law->ops->onset(law, v, &mem);
        assert_true(law->ops->onset_penetration(law, &mem) == next);
        assert_true(law->ops->force(law, &mem, next + 1e-5, 0.0) == k * pow(next + 1e-5 - next, n));
        nscd_contact_law_destroy(law);
    }
}

/* Laws of the simulator agree with each other where they coincide: the
 * spring-damper with the exact c_opt restitutes e like the Hertz-damper. */
static void spring_damper_with_copt(void **state) {
    (void)state;
    double k = 3e9, n = 1.8, m = 2e-3, v = 11.0, e = 0.55, c;
    assert_int_equal(nscd_copt_exact(m, k, n, v, e, &c), NSCD_OK);
    nscd_contact_law *law = NULL;
    assert_int_equal(nscd_contact_law_create_spring_damper(k, n, c, 0, NULL, &law), NSCD_OK);
    nscd_central_impact_result r = {.struct_size = sizeof r};
    assert_int_equal(nscd_central_impact(law, m, v, &r), NSCD_OK);
    assert_true(fabs(r.e_out - e) < 1e-9);
    assert_string_equal(nscd_contact_law_name(law), "spring_damper");
    nscd_contact_law_destroy(law);
}

static void bad_inputs(void **state) {
    (void)state;
    nscd_contact_law *law = NULL, *newton = NULL;
    assert_int_equal(nscd_contact_law_create_kelvin_voigt(1e6, 10.0, 0, NULL, &law), NSCD_OK);
    assert_int_equal(nscd_contact_law_create_newton(0.5, NULL, &newton), NSCD_OK);
    nscd_central_impact_result r = {.struct_size = sizeof r, .e_out = 42.0};
    assert_int_equal(nscd_central_impact(NULL, 1.0, 1.0, &r), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_central_impact(law, 1.0, 1.0, NULL), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_central_impact(newton, 1.0, 1.0, &r), NSCD_ERR_UNSUPPORTED);
    assert_int_equal(nscd_central_impact(law, NAN, 1.0, &r), NSCD_ERR_NOT_FINITE);
    assert_int_equal(nscd_central_impact(law, 1.0, INFINITY, &r), NSCD_ERR_NOT_FINITE);
    assert_int_equal(nscd_central_impact(law, 0.0, 1.0, &r), NSCD_ERR_OUT_OF_RANGE);
    assert_int_equal(nscd_central_impact(law, 1.0, -1.0, &r), NSCD_ERR_OUT_OF_RANGE);
    r.struct_size = 8;
    assert_int_equal(nscd_central_impact(law, 1.0, 1.0, &r), NSCD_ERR_STRUCT_SIZE);
    assert_true(r.e_out == 42.0);
    nscd_contact_law_destroy(law);
    nscd_contact_law_destroy(newton);
    law = NULL;
    assert_int_equal(nscd_contact_law_create_hertz_damper(1e6, 1.5, 0.5, 2, 0, NULL, &law),
                     NSCD_ERR_INVALID_ARGUMENT);
    assert_int_equal(nscd_contact_law_create_hertz_damper(1e6, 1.5, 0.5, 0, -1, NULL, &law),
                     NSCD_ERR_INVALID_ARGUMENT);
    assert_int_equal(nscd_contact_law_create_hertz_damper(0.0, 1.5, 0.5, 0, 0, NULL, &law),
                     NSCD_ERR_OUT_OF_RANGE);
    assert_int_equal(nscd_contact_law_create_hertz_damper(1e6, 1.5, 0.0, 0, 0, NULL, &law),
                     NSCD_ERR_OUT_OF_RANGE);
    assert_int_equal(nscd_contact_law_create_hertz_damper(1e6, NAN, 0.5, 0, 0, NULL, &law),
                     NSCD_ERR_NOT_FINITE);
    assert_int_equal(nscd_contact_law_create_hertz_damper(1e6, 1.5, 0.5, 0, 0, NULL, NULL),
                     NSCD_ERR_NULL_POINTER);
    assert_null(law);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(undamped_hertz_in_closed_form),
        cmocka_unit_test(residual_penetration_eq51),
        cmocka_unit_test(onset_and_separation_state),
        cmocka_unit_test(spring_damper_with_copt),
        cmocka_unit_test(bad_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
