/* Stable LSD radix sort of (64-bit key, 32-bit value) pairs: O(n) per digit,
 * deterministic, no allocation (the caller lends the scratch arrays). The
 * broad phase sorts shapes by cell and by key with it, the collision layer
 * sorts candidate pairs; comparison sorts would make the step O(n log n). */
#ifndef NSCD_COLLISION_RADIX_SORT_H
#define NSCD_COLLISION_RADIX_SORT_H

#include <stddef.h>
#include <stdint.h>

#include "core/parallel.h"

/* Sorts keys[0..n) ascending, carrying values along; equal keys keep their
 * input order. Only the digits in which some keys differ are sorted, so a
 * small key range costs few passes. scratch_keys and scratch_values hold n
 * entries each; on return the result is in keys/values. */
void nscd__radix_sort(uint64_t *keys, int32_t *values, uint64_t *scratch_keys,
                      int32_t *scratch_values, int32_t n);

/* Slices of the threaded sort and the smallest n it cuts. */
#define NSCD__RADIX_SLICES 16
#define NSCD__RADIX_PARALLEL_MIN 32768
/* Bytes of the scratch of nscd__radix_sort_parallel. */
size_t nscd__radix_scratch_bytes(void);
/* nscd__radix_sort by `parallel` (NULL or one thread: nscd__radix_sort);
 * the same result. */
void nscd__radix_sort_parallel(const nscd__parallel *parallel, void *scratch, uint64_t *keys,
                               int32_t *values, uint64_t *scratch_keys, int32_t *scratch_values,
                               int32_t n);

#endif
