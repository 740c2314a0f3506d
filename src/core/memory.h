/* Allocation through the host's nscd_allocator (or malloc/free). */
#ifndef NSCD_CORE_MEMORY_H
#define NSCD_CORE_MEMORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nscd/host.h"
#include "nscd/status.h"

/* A resolved allocator: never has NULL hooks. */
nscd_allocator nscd__allocator_resolve(const nscd_allocator *requested);
/* True when `a` is all-NULL or has both hooks. */
bool nscd__allocator_valid(const nscd_allocator *a);
/* Zero-filled block of `size` bytes, or NULL. */
void *nscd__alloc(const nscd_allocator *a, size_t size);
/* Zero-filled array of `count` elements of `size` bytes, or NULL (also on overflow). */
void *nscd__alloc_array(const nscd_allocator *a, size_t count, size_t size);
/* Frees a block of `size` bytes; NULL is ignored. */
void nscd__free(const nscd_allocator *a, void *block, size_t size);
/* One of several arrays that share a capacity: where its pointer is, its
 * element size and how many elements it keeps when it grows. */
typedef struct nscd__array {
    void **data;
    size_t element;
    int32_t keep;
} nscd__array;
/* Grows the n arrays that share *capacity to hold at least `needed`
 * elements (doubling from 16; at least one, so that an empty array is
 * valid), all or nothing; each keeps its first `keep` elements.
 * NSCD_ERR_OUT_OF_MEMORY, nothing changed, when an allocation fails or the
 * capacity would pass INT32_MAX / 16 (byte sizes and int32 indices never
 * overflow). */
nscd_status nscd__reserve_arrays(const nscd_allocator *a, nscd__array *arrays, int n,
                                 int32_t *capacity, int32_t needed);
/* nscd__reserve_arrays() of one array that keeps `count` elements. */
nscd_status nscd__reserve_array(const nscd_allocator *a, void **array, int32_t count, int32_t *cap,
                                int32_t need, size_t size);

#endif
