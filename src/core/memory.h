/* Allocation through the host's nscd_allocator (or malloc/free). */
#ifndef NSCD_CORE_MEMORY_H
#define NSCD_CORE_MEMORY_H

#include <stdbool.h>
#include <stddef.h>

#include "nscd/host.h"

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

#endif
