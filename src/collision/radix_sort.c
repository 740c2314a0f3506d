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

/* ------------------------------------------------------------ threads
 *
 * The same sort by `chunks` slices of the input: per pass, each slice
 * counts its digits, the offsets are laid out digit by digit and slice by
 * slice (serially), and each slice scatters its keys in order. A stable
 * sort has one result: the same bits as nscd__radix_sort whatever the
 * slices and threads. */

typedef struct radix_job {
    const uint64_t *ks;
    const int32_t *vs;
    uint64_t *kd;
    int32_t *vd;
    int32_t n, chunks, shift;
    uint32_t *counts;  /* chunks x DIGIT_COUNT */
    uint64_t *varying; /* per chunk */
} radix_job;

static void slice(const radix_job *t, int32_t c, int32_t *lo, int32_t *hi) {
    *lo = (int32_t)((int64_t)t->n * c / t->chunks);
    *hi = (int32_t)((int64_t)t->n * (c + 1) / t->chunks);
}

static void varying_range(int32_t begin, int32_t end, int32_t worker, void *ctx) {
    (void)worker;
    radix_job *t = ctx;
    for (int32_t c = begin; c < end; ++c) {
        int32_t lo, hi;
        slice(t, c, &lo, &hi);
        uint64_t v = 0;
        for (int32_t i = lo; i < hi; ++i) {
            v |= t->ks[i] ^ t->ks[0];
        }
        t->varying[c] = v;
    }
}

static void count_range(int32_t begin, int32_t end, int32_t worker, void *ctx) {
    (void)worker;
    radix_job *t = ctx;
    const uint64_t digit_mask = DIGIT_COUNT - 1;
    for (int32_t c = begin; c < end; ++c) {
        int32_t lo, hi;
        slice(t, c, &lo, &hi);
        uint32_t *count = t->counts + (size_t)c * DIGIT_COUNT;
        memset(count, 0, DIGIT_COUNT * sizeof *count);
        for (int32_t i = lo; i < hi; ++i) {
            ++count[(t->ks[i] >> t->shift) & digit_mask];
        }
    }
}

static void scatter_range(int32_t begin, int32_t end, int32_t worker, void *ctx) {
    (void)worker;
    radix_job *t = ctx;
    const uint64_t digit_mask = DIGIT_COUNT - 1;
    for (int32_t c = begin; c < end; ++c) {
        int32_t lo, hi;
        slice(t, c, &lo, &hi);
        uint32_t *count = t->counts + (size_t)c * DIGIT_COUNT;
        for (int32_t i = lo; i < hi; ++i) {
            uint32_t at = count[(t->ks[i] >> t->shift) & digit_mask]++;
            t->kd[at] = t->ks[i];
            t->vd[at] = t->vs[i];
        }
    }
}

size_t nscd__radix_scratch_bytes(void) {
    return NSCD__RADIX_SLICES * (DIGIT_COUNT * sizeof(uint32_t) + sizeof(uint64_t));
}

void nscd__radix_sort_parallel(const nscd__parallel *parallel, void *scratch, uint64_t *keys,
                               int32_t *values, uint64_t *scratch_keys, int32_t *scratch_values,
                               int32_t n) {
    if (parallel == NULL || parallel->threads < 2 || n < NSCD__RADIX_PARALLEL_MIN) {
        nscd__radix_sort(keys, values, scratch_keys, scratch_values, n);
        return;
    }
    radix_job t;
    t.n = n;
    t.chunks = NSCD__RADIX_SLICES;
    t.counts = scratch;
    t.varying = (uint64_t *)(void *)(t.counts + (size_t)NSCD__RADIX_SLICES * DIGIT_COUNT);
    t.ks = keys, t.vs = values, t.kd = scratch_keys, t.vd = scratch_values;
    nscd__parallel_for(parallel, t.chunks, 1, varying_range, &t);
    uint64_t varying = 0;
    for (int32_t c = 0; c < t.chunks; ++c) {
        varying |= t.varying[c];
    }
    for (int shift = 0; shift < 64; shift += DIGIT_BITS) {
        if (((varying >> shift) & (DIGIT_COUNT - 1)) == 0) {
            continue;
        }
        t.shift = shift;
        nscd__parallel_for(parallel, t.chunks, 1, count_range, &t);
        uint32_t offset = 0;
        for (int d = 0; d < DIGIT_COUNT; ++d) {
            for (int32_t c = 0; c < t.chunks; ++c) {
                uint32_t *count = t.counts + (size_t)c * DIGIT_COUNT + d;
                uint32_t k = *count;
                *count = offset;
                offset += k;
            }
        }
        nscd__parallel_for(parallel, t.chunks, 1, scatter_range, &t);
        const uint64_t *kt = t.ks;
        t.ks = t.kd, t.kd = (uint64_t *)(uintptr_t)kt;
        const int32_t *vt = t.vs;
        t.vs = t.vd, t.vd = (int32_t *)(uintptr_t)vt;
    }
    if (t.ks != keys) {
        memcpy(keys, t.ks, (size_t)n * sizeof *keys);
        memcpy(values, t.vs, (size_t)n * sizeof *values);
    }
}
