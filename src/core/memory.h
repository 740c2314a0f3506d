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
/* Grows *array (elements of `size` bytes, capacity *cap) to hold at least
 * `need` elements, doubling from 16, keeping the first `count`; at least
 * one element, so that an empty array is valid. NSCD_ERR_OUT_OF_MEMORY
 * (nothing changed) when the allocation fails or the capacity would pass
 * INT32_MAX / 4. */
nscd_status nscd__reserve_array(const nscd_allocator *a, void **array, int32_t count, int32_t *cap,
                                int32_t need, size_t size);

#endif
