/* Messages of failing calls (issue 25, case 9): a getter that fails says
 * why in the world's last error (it was left empty), a negative capacity
 * is a bad argument that names the capacity (it was
 * NSCD_ERR_BUFFER_TOO_SMALL), and a body whose inertia determinant
 * underflows is told so (not "needs a positive mass and inertia"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "nscd/world.h"

static nscd_world *world_with_sphere(nscd_body_id *id) {
    nscd_world_desc d;
    nscd_world_desc_init(&d, sizeof d);
    nscd_world *w = NULL;
    assert_int_equal(nscd_world_create(&d, &w), NSCD_OK);
    nscd_body_desc b;
    nscd_body_desc_init(&b, sizeof b);
    nscd_shape_desc s;
    nscd_shape_desc_init(&s, sizeof s);
    assert_int_equal(nscd_world_add_body(w, &b, &s, 1, id), NSCD_OK);
    return w;
}

static void failing_getters_say_why(void **state) {
    (void)state;
    nscd_body_id id = 0;
    nscd_world *w = world_with_sphere(&id);
    assert_int_equal(nscd_world_remove_body(w, id), NSCD_OK);
    double x[3], f[3], m = 0.0;
    assert_int_equal(nscd_world_get_body(w, id, x, NULL, NULL, NULL), NSCD_ERR_STALE_HANDLE);
    assert_non_null(strstr(nscd_world_last_error(w), "not alive"));
    nscd_body_id other = 0;
    nscd_body_desc b;
    nscd_body_desc_init(&b, sizeof b);
    nscd_shape_desc s;
    nscd_shape_desc_init(&s, sizeof s);
    assert_int_equal(nscd_world_add_body(w, &b, &s, 1, &other), NSCD_OK);
    assert_int_equal(nscd_world_get_body(w, other, x, NULL, NULL, NULL), NSCD_OK);
    assert_string_equal(nscd_world_last_error(w), ""); /* describes the latest call */
    assert_int_equal(nscd_world_get_applied_force(w, id, f, NULL), NSCD_ERR_STALE_HANDLE);
    assert_non_null(strstr(nscd_world_last_error(w), "not alive"));
    assert_int_equal(nscd_world_get_body_mass(w, id, &m, NULL), NSCD_ERR_STALE_HANDLE);
    assert_non_null(strstr(nscd_world_last_error(w), "not alive"));

    int32_t count = -7;
    assert_int_equal(nscd_world_get_bodies(w, -1, &count, NULL, NULL, NULL, NULL, NULL, NULL),
                     NSCD_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(nscd_world_last_error(w), "capacity -1"));
    assert_int_equal(nscd_world_get_bodies(w, 0, &count, NULL, NULL, NULL, NULL, NULL, NULL),
                     NSCD_ERR_BUFFER_TOO_SMALL);
    assert_int_equal(count, 1);
    assert_non_null(strstr(nscd_world_last_error(w), "capacity 0 < 1 bodies"));
    assert_int_equal(nscd_world_get_contacts(w, -3, &count, NULL, NULL, NULL, NULL, NULL, NULL),
                     NSCD_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(nscd_world_last_error(w), "capacity -3"));
    nscd_world_destroy(w);
}

/* A sphere of radius 1e-60 has a positive mass (4e-177 kg) and positive
 * moments (1.7e-297 kg m²) whose product underflows. */
static void inertia_underflow_is_named(void **state) {
    (void)state;
    nscd_body_id id = 0;
    nscd_world *w = world_with_sphere(&id);
    nscd_body_desc b;
    nscd_body_desc_init(&b, sizeof b);
    nscd_shape_desc s;
    nscd_shape_desc_init(&s, sizeof s);
    s.radius = 1e-60;
    assert_int_equal(nscd_world_add_body(w, &b, &s, 1, &id), NSCD_ERR_OUT_OF_RANGE);
    assert_non_null(strstr(nscd_world_last_error(w), "inertia tensor"));
    assert_non_null(strstr(nscd_world_last_error(w), "underflows"));
    assert_int_equal(nscd_world_body_count(w), 1); /* nothing added */
    nscd_world_destroy(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(failing_getters_say_why),
        cmocka_unit_test(inertia_underflow_is_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
