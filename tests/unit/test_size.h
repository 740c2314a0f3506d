/* Test sizes of the tiers (docs/testing.md, "Test tiers"): the valgrind tier
 * (tests/integration.cmake) runs a few long unit tests with NSCD_TEST_SMALL=1,
 * under which they choose the small size of their longest scenes (fewer
 * steps, fewer random trials): the same code paths with every allocation
 * and every read checked, at a fraction of valgrind's 30-100x cost. The
 * native run (unit.*) and the portable rerun always use the full size, so no
 * physical or algorithmic bound is weakened there; the sanitizer build too,
 * except test_world_threads (tests/CMakeLists.txt says why). */
#ifndef NSCD_TEST_SIZE_H
#define NSCD_TEST_SIZE_H

#include <stdlib.h>
#include <string.h>

/* 1 when NSCD_TEST_SMALL is set to anything but "" or "0". */
static inline int nscd_test_small(void) {
    const char *s = getenv("NSCD_TEST_SMALL");
    return s != NULL && s[0] != '\0' && strcmp(s, "0") != 0;
}

/* FULL normally, SMALL under NSCD_TEST_SMALL=1. */
#define NSCD_TEST_SIZE(full, small) (nscd_test_small() ? (small) : (full))

#endif
