/* The generic system: creation, validation, state, contacts, allocator hooks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "models/system.h"
#include "models.h"

/* Allocator that counts, and fails after a budget of allocations. */
typedef struct counting {
    long live, total, budget;
    size_t bytes;
} counting;

static void *count_allocate(void *user, size_t size) {
    counting *c = user;
    if (c->total >= c->budget) {
        return NULL;
    }
    c->total++;
    c->live++;
    c->bytes += size;
    return malloc(size);
}

static void count_release(void *user, void *block, size_t size) {
    counting *c = user;
    c->live--;
    c->bytes -= size;
    free(block);
}

static void desc_validation(void **state) {
    (void)state;
    ball_model b = {1.0, 9.81, 0.0, 0.0, 1};
    nscd_system_desc d;
    nscd_system *sys = (nscd_system *)&b; /* sentinel: must stay untouched */
    assert_int_equal(nscd_system_desc_init(NULL, sizeof d), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_system_desc_init(&d, sizeof d + 1), NSCD_ERR_STRUCT_SIZE);
    assert_int_equal(nscd_system_desc_init(&d, sizeof d), NSCD_OK);
    assert_int_equal(nscd_system_create(&d, &sys), NSCD_ERR_INVALID_ARGUMENT); /* n_dof = 0 */
    d.n_dof = 1;
    assert_int_equal(nscd_system_create(&d, &sys), NSCD_ERR_NULL_POINTER); /* no mass */
    d.mass = ball_mass;
    d.n_contacts = 1;
    assert_int_equal(nscd_system_create(&d, &sys), NSCD_ERR_NULL_POINTER); /* no contact fn */
    d.n_contacts = -1;
    assert_int_equal(nscd_system_create(&d, &sys), NSCD_ERR_INVALID_ARGUMENT);
    d.n_contacts = 0;
    d.allocator.allocate = NULL;
    d.allocator.release = count_release;
    assert_int_equal(nscd_system_create(&d, &sys), NSCD_ERR_INVALID_ARGUMENT); /* half hooks */
    d.allocator.release = NULL;
    d.struct_size = 8;
    assert_int_equal(nscd_system_create(&d, &sys), NSCD_ERR_STRUCT_SIZE);
    assert_int_equal(nscd_system_create(NULL, &sys), NSCD_ERR_NULL_POINTER);
    assert_true(sys == (nscd_system *)&b);
    nscd_system_destroy(NULL);
}

static void contact_settings_validation(void **state) {
    (void)state;
    ball_model b = {1.0, 9.81, 0.0, 0.0, 1};
    nscd_system *sys = NULL;
    assert_int_equal(make_ball(&b, 1.0, 0.5, &sys), NSCD_OK);
    nscd_contact_desc c;
    assert_int_equal(nscd_contact_desc_init(&c, sizeof c), NSCD_OK);
    c.friction = -0.1;
    assert_int_equal(nscd_system_set_contact(sys, 0, &c), NSCD_ERR_OUT_OF_RANGE);
    assert_true(strstr(nscd_system_last_error(sys), "friction") != NULL);
    c.friction = NAN;
    assert_int_equal(nscd_system_set_contact(sys, 0, &c), NSCD_ERR_NOT_FINITE);
    c.friction = 0.3;
    c.n_tangent = 3;
    assert_int_equal(nscd_system_set_contact(sys, 0, &c), NSCD_ERR_OUT_OF_RANGE);
    c.n_tangent = 0;
    assert_int_equal(nscd_system_set_contact(sys, 1, &c), NSCD_ERR_INDEX);
    assert_int_equal(nscd_system_set_contact(sys, -1, &c), NSCD_ERR_INDEX);
    assert_int_equal(nscd_system_set_contact(sys, 0, NULL), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_system_set_contact(NULL, 0, &c), NSCD_ERR_NULL_POINTER);

    nscd_contact_law *law = (nscd_contact_law *)&c;
    assert_int_equal(nscd_contact_law_create_newton(1.5, NULL, &law), NSCD_ERR_OUT_OF_RANGE);
    assert_int_equal(nscd_contact_law_create_newton(-0.1, NULL, &law), NSCD_ERR_OUT_OF_RANGE);
    assert_int_equal(nscd_contact_law_create_newton(NAN, NULL, &law), NSCD_ERR_NOT_FINITE);
    assert_int_equal(nscd_contact_law_create_newton(0.5, NULL, NULL), NSCD_ERR_NULL_POINTER);
    assert_true(law == (nscd_contact_law *)&c);
    assert_int_equal(nscd_contact_law_create_newton(1.0, NULL, &law), NSCD_OK);
    int32_t kind = 0;
    assert_int_equal(nscd_contact_law_get_kind(law, &kind), NSCD_OK);
    assert_int_equal(kind, NSCD_LAW_IMPULSIVE);
    assert_string_equal(nscd_contact_law_name(law), "newton");
    assert_string_equal(nscd_contact_law_name(NULL), "(null)");
    nscd_contact_law_destroy(law);
    nscd_contact_law_destroy(NULL);
    nscd_system_destroy(sys);
}

static void state_and_queries(void **state) {
    (void)state;
    ball_model b = {2.0, 9.81, 0.0, 0.0, 1};
    nscd_system *sys = NULL;
    assert_int_equal(make_ball(&b, 1.0, 0.5, &sys), NSCD_OK);
    double q = 0.25, v = -3.0, t = 0.0;
    assert_int_equal(nscd_system_set_state(sys, 1.5, &q, &v), NSCD_OK);
    double bad = NAN;
    assert_int_equal(nscd_system_set_state(sys, 2.0, &bad, &v), NSCD_ERR_NOT_FINITE);
    assert_int_equal(nscd_system_set_state(sys, INFINITY, &q, &v), NSCD_ERR_NOT_FINITE);
    assert_int_equal(nscd_system_set_state(sys, 2.0, NULL, &v), NSCD_ERR_NULL_POINTER);
    q = v = 0.0;
    assert_int_equal(nscd_system_get_state(sys, &t, &q, &v), NSCD_OK);
    assert_true(t == 1.5 && q == 0.25 && v == -3.0); /* the failed calls changed nothing */
    int32_t n_dof = 0, n_contacts = 0, mode = -1;
    assert_int_equal(nscd_system_get_sizes(sys, &n_dof, &n_contacts), NSCD_OK);
    assert_true(n_dof == 1 && n_contacts == 1);
    double gap = 0.0, rate = 0.0, energy = 0.0;
    assert_int_equal(nscd_system_get_contact(sys, 0, &gap, &rate, &mode), NSCD_OK);
    assert_true(gap == 0.25 && rate == -3.0 && mode == NSCD_CONTACT_OPEN);
    assert_int_equal(nscd_system_get_contact(sys, 2, &gap, NULL, NULL), NSCD_ERR_INDEX);
    assert_int_equal(nscd_system_kinetic_energy(sys, &energy), NSCD_OK);
    assert_true(fabs(energy - 9.0) < 1e-15);
    assert_int_equal(nscd_system_kinetic_energy(sys, NULL), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_system_get_state(NULL, &t, NULL, NULL), NSCD_ERR_NULL_POINTER);
    nscd_system_destroy(sys);
}

static void negative_mass_is_rejected(void **state) {
    (void)state;
    ball_model b = {1.0, 9.81, 0.0, 0.0, 1};
    nscd_system *sys = NULL;
    assert_int_equal(make_ball(&b, 1.0, 0.5, &sys), NSCD_OK);
    b.mass_sign = -1;
    double q = 2.0, v = 1.0, t;
    assert_int_equal(nscd_system_set_state(sys, 0.0, &q, &v), NSCD_ERR_NOT_SPD);
    assert_true(strstr(nscd_system_last_error(sys), "positive definite") != NULL);
    nscd_system_get_state(sys, &t, &q, &v);
    assert_true(q == 1.0 && v == 0.0); /* unchanged */
    nscd_event_driven *ed = NULL;
    assert_int_equal(nscd_event_driven_create(sys, NULL, &ed), NSCD_OK);
    assert_int_equal(nscd_event_driven_advance(ed, 1.0, NULL), NSCD_ERR_NOT_SPD);
    nscd_system_get_state(sys, &t, &q, &v);
    assert_true(t == 0.0 && q == 1.0 && v == 0.0);
    nscd_event_driven_destroy(ed);
    nscd_system_destroy(sys);
}

static void allocator_hooks_and_failures(void **state) {
    (void)state;
    ball_model b = {1.0, 9.81, 0.0, 0.0, 1};
    for (long budget = 0; budget < 200; ++budget) {
        counting c = {0, 0, budget, 0};
        nscd_system_desc d;
        nscd_system_desc_init(&d, sizeof d);
        d.n_dof = 1, d.n_contacts = 1, d.user = &b;
        d.mass = ball_mass, d.forces = ball_forces, d.contact = ball_floor;
        d.allocator.allocate = count_allocate;
        d.allocator.release = count_release;
        d.allocator.user = &c;
        nscd_system *sys = NULL;
        nscd_event_driven *ed = NULL;
        nscd_status rc = nscd_system_create(&d, &sys);
        if (rc == NSCD_OK) {
            rc = nscd_event_driven_create(sys, NULL, &ed);
            assert_true(rc == NSCD_OK || rc == NSCD_ERR_OUT_OF_MEMORY);
            assert_true(rc == NSCD_OK || ed == NULL);
        } else {
            assert_int_equal(rc, NSCD_ERR_OUT_OF_MEMORY);
            assert_null(sys);
        }
        nscd_event_driven_destroy(ed);
        nscd_system_destroy(sys);
        assert_int_equal(c.live, 0); /* nothing leaks, whatever failed */
        assert_int_equal(c.bytes, 0);
        if (rc == NSCD_OK) {
            break;
        }
    }
}

static nscd_status failing_contact(void *user, int32_t i, double t, const double *q, double *g,
                                   double *w, double *wt) {
    (void)user, (void)i, (void)t, (void)q, (void)g, (void)w, (void)wt;
    return -77;
}

static void callback_errors_surface(void **state) {
    (void)state;
    ball_model b = {1.0, 9.81, 0.0, 0.0, 1};
    nscd_system_desc d;
    nscd_system_desc_init(&d, sizeof d);
    d.n_dof = 1, d.n_contacts = 1, d.user = &b;
    d.mass = ball_mass, d.forces = ball_forces, d.contact = failing_contact;
    nscd_system *sys = NULL;
    assert_int_equal(nscd_system_create(&d, &sys), NSCD_OK);
    double gap = 5.0;
    assert_int_equal(nscd_system_get_contact(sys, 0, &gap, NULL, NULL), NSCD_ERR_CALLBACK);
    assert_true(gap == 5.0);
    assert_true(strstr(nscd_system_last_error(sys), "contact callback returned -77") != NULL);
    nscd_event_driven *ed = NULL;
    assert_int_equal(nscd_event_driven_create(sys, NULL, &ed), NSCD_OK);
    assert_int_equal(nscd_event_driven_advance(ed, 1.0, NULL), NSCD_ERR_CALLBACK);
    assert_true(strstr(nscd_event_driven_last_error(ed), "contact callback") != NULL);
    nscd_event_driven_destroy(ed);
    nscd_system_destroy(sys);
}

/* M^-1 b with a NaN in b (a diverged state, e.g. an explicit RK4 step too
 * large for a stiff compliant contact) is NOT_FINITE with a message.
 * Regression (found by tests/fuzz/fuzz_event_driven.c): LAPACKE's NaN check
 * made it INVALID_ARGUMENT, and nscd_event_driven_advance() returned that
 * with an empty last error. */
static void mass_solve_of_non_finite_values(void **state) {
    (void)state;
    ball_model b = {2.0, 9.81, 0.0, 0.0, 1};
    nscd_system *sys = NULL;
    assert_int_equal(make_ball(&b, 1.0, 0.5, &sys), NSCD_OK);
    nscd__model *model = nscd__system_model(sys);
    double q = 1.0, rhs = NAN, x = 7.0;
    assert_int_equal(model->mass_solve(model->self, &q, 0, 1, &rhs, &x), NSCD_ERR_NOT_FINITE);
    assert_true(nscd_system_last_error(sys)[0] != '\0');
    rhs = 4.0;
    assert_int_equal(model->mass_solve(model->self, &q, 0, 1, &rhs, &x), NSCD_OK);
    assert_true(fabs(x - 2.0) < 1e-15);
    nscd_system_destroy(sys);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(desc_validation),
        cmocka_unit_test(contact_settings_validation),
        cmocka_unit_test(state_and_queries),
        cmocka_unit_test(negative_mass_is_rejected),
        cmocka_unit_test(allocator_hooks_and_failures),
        cmocka_unit_test(callback_errors_surface),
        cmocka_unit_test(mass_solve_of_non_finite_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
