/* |a - b| <= tol for cmocka tests, printing both values on failure. */
#ifndef NSCD_TEST_ASSERT_NEAR_H
#define NSCD_TEST_ASSERT_NEAR_H

#include <math.h>

#define assert_near(a, b, tol)                                                                     \
    do {                                                                                           \
        double a_ = (a), b_ = (b);                                                                 \
        if (!(fabs(a_ - b_) <= (tol))) {                                                           \
            fail_msg("%s = %.17g, expected %.17g (tol %g)", #a, a_, b_, (double)(tol));            \
        }                                                                                          \
    } while (0)

#endif
