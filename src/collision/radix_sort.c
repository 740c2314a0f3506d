/* Stable LSD radix sort with 11-bit digits (see radix_sort.h). */
#include "collision/radix_sort.h"

#include <string.h>

enum { DIGIT_BITS = 11, DIGIT_COUNT = 1 << DIGIT_BITS };

/* One counting-sort pass on the digit at `shift`, from (ks, vs) into (kd, vd). */
static void radix_pass(const uint64_t *ks, const int32_t *vs, uint64_t *kd, int32_t *vd, int32_t n,
                       int shift) {
    uint32_t count[DIGIT_COUNT];
    memset(count, 0, sizeof count);
    const uint64_t digit_mask = DIGIT_COUNT - 1;
    for (int32_t i = 0; i < n; ++i) {
        ++count[(ks[i] >> shift) & digit_mask];
    }
    uint32_t offset = 0;
    for (int d = 0; d < DIGIT_COUNT; ++d) {
        uint32_t c = count[d];
        count[d] = offset;
        offset += c;
    }
    for (int32_t i = 0; i < n; ++i) {
        uint32_t at = count[(ks[i] >> shift) & digit_mask]++;
        kd[at] = ks[i];
        vd[at] = vs[i];
    }
}

void nscd__radix_sort(uint64_t *keys, int32_t *values, uint64_t *scratch_keys,
                      int32_t *scratch_values, int32_t n) {
    if (n < 2) {
        return;
    }
    /* Bits in which some key differs from the first: digits without any are
     * already sorted and skipped. */
    uint64_t varying = 0;
    for (int32_t i = 1; i < n; ++i) {
        varying |= keys[i] ^ keys[0];
    }
    uint64_t *ks = keys, *kd = scratch_keys;
    int32_t *vs = values, *vd = scratch_values;
    for (int shift = 0; shift < 64; shift += DIGIT_BITS) {
        if (((varying >> shift) & (DIGIT_COUNT - 1)) == 0) {
            continue;
        }
        radix_pass(ks, vs, kd, vd, n, shift);
        uint64_t *kt = ks;
        ks = kd, kd = kt;
        int32_t *vt = vs;
        vs = vd, vd = vt;
    }
    if (ks != keys) {
        memcpy(keys, ks, (size_t)n * sizeof *keys);
        memcpy(values, vs, (size_t)n * sizeof *values);
    }
}
