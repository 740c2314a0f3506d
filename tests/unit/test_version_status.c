/* Version and status API. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "nscd/nscd.h"

static void version_matches_header(void **state) {
    (void)state;
    assert_int_equal(nscd_version(), NSCD_VERSION);
    assert_int_equal(nscd_version(),
                     NSCD_VERSION_MAJOR * 10000 + NSCD_VERSION_MINOR * 100 + NSCD_VERSION_PATCH);
    char expected[32];
    snprintf(expected, sizeof expected, "%d.%d.%d", NSCD_VERSION_MAJOR, NSCD_VERSION_MINOR,
             NSCD_VERSION_PATCH);
    assert_string_equal(nscd_version_string(), expected);
    assert_int_equal(nscd_abi_version(), NSCD_ABI_VERSION);
}

static void status_codes_are_fixed(void **state) {
    (void)state;
    /* These values are ABI: renumbering any of them is a break. */
    assert_int_equal(NSCD_OK, 0);
    assert_int_equal(NSCD_ERR_NULL_POINTER, -1);
    assert_int_equal(NSCD_ERR_INVALID_ARGUMENT, -2);
    assert_int_equal(NSCD_ERR_NOT_FINITE, -3);
    assert_int_equal(NSCD_ERR_OUT_OF_RANGE, -4);
    assert_int_equal(NSCD_ERR_OUT_OF_MEMORY, -5);
    assert_int_equal(NSCD_ERR_STRUCT_SIZE, -6);
    assert_int_equal(NSCD_ERR_INDEX, -7);
    assert_int_equal(NSCD_ERR_STALE_HANDLE, -8);
    assert_int_equal(NSCD_ERR_NOT_SPD, -9);
    assert_int_equal(NSCD_ERR_SINGULAR, -10);
    assert_int_equal(NSCD_ERR_CALLBACK, -11);
    assert_int_equal(NSCD_ERR_NOT_CONVERGED, -12);
    assert_int_equal(NSCD_ERR_ZENO, -13);
    assert_int_equal(NSCD_ERR_STEP_TOO_SMALL, -14);
    assert_int_equal(NSCD_ERR_MAX_STEPS, -15);
    assert_int_equal(NSCD_ERR_NOT_COLLIDING, -16);
    assert_int_equal(NSCD_ERR_STATE, -17);
    assert_int_equal(NSCD_ERR_UNSUPPORTED, -18);
    assert_int_equal(NSCD_ERR_BUFFER_TOO_SMALL, -19);
    assert_int_equal(NSCD_ERR_IO, -20);
    assert_int_equal(sizeof(nscd_status), 4);
}

static void status_strings_are_distinct(void **state) {
    (void)state;
    assert_string_equal(nscd_status_string(NSCD_OK), "ok");
    assert_string_equal(nscd_status_string(12345), "unknown status");
    for (nscd_status a = NSCD_ERR_IO; a <= NSCD_OK; ++a) {
        assert_string_not_equal(nscd_status_string(a), "unknown status");
        for (nscd_status b = a + 1; b <= NSCD_OK; ++b) {
            assert_string_not_equal(nscd_status_string(a), nscd_status_string(b));
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(version_matches_header),
        cmocka_unit_test(status_codes_are_fixed),
        cmocka_unit_test(status_strings_are_distinct),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
