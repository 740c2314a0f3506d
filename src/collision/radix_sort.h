/* Stable LSD radix sort of (64-bit key, 32-bit value) pairs: O(n) per digit,
 * deterministic, no allocation (the caller lends the scratch arrays). The
 * broad phase sorts shapes by cell and by key with it, the collision layer
 * sorts candidate pairs; comparison sorts would make the step O(n log n). */
#ifndef NSCD_COLLISION_RADIX_SORT_H
#define NSCD_COLLISION_RADIX_SORT_H

#include <stdint.h>

/* Sorts keys[0..n) ascending, carrying values along; equal keys keep their
 * input order. Only the digits in which some keys differ are sorted, so a
 * small key range costs few passes. scratch_keys and scratch_values hold n
 * entries each; on return the result is in keys/values. */
void nscd__radix_sort(uint64_t *keys, int32_t *values, uint64_t *scratch_keys,
                      int32_t *scratch_values, int32_t n);

#endif
