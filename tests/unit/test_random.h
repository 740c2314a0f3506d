/* Small helpers the unit tests share: a reproducible random number and the
 * Euclidean norm. */
#ifndef NSCD_TEST_RANDOM_H
#define NSCD_TEST_RANDOM_H

#include <math.h>
#include <stdint.h>

/* Uniform in [-1, 1) from a 64-bit linear congruential state (Knuth's
 * MMIX constants): the same sequence on every machine. */
static inline double rnd(uint64_t *s) {
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) / 4503599627370496.0 - 1.0;
}

/* ||x||_2 of m entries, summed in order. */
static inline double norm(const double *x, int m) {
    double s = 0.0;
    for (int i = 0; i < m; ++i) {
        s += x[i] * x[i];
    }
    return sqrt(s);
}

#endif
