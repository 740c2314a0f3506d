/* Allocation through the host's nscd_allocator, with zero-filling. */
#include "core/memory.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void *default_allocate(void *user, size_t size) {
    (void)user;
    return malloc(size);
}

static void default_release(void *user, void *block, size_t size) {
    (void)user;
    (void)size;
    free(block);
}

bool nscd__allocator_valid(const nscd_allocator *a) {
    return a == NULL || (a->allocate == NULL) == (a->release == NULL);
}

nscd_allocator nscd__allocator_resolve(const nscd_allocator *requested) {
    if (requested != NULL && requested->allocate != NULL && requested->release != NULL) {
        return *requested;
    }
    nscd_allocator a = {default_allocate, default_release, NULL};
    return a;
}

void *nscd__alloc(const nscd_allocator *a, size_t size) {
    if (size == 0) {
        size = 1; /* a valid, freeable pointer for empty arrays */
    }
    void *block = a->allocate(a->user, size);
    if (block != NULL) {
        memset(block, 0, size);
    }
    return block;
}

void *nscd__alloc_array(const nscd_allocator *a, size_t count, size_t size) {
    if (size != 0 && count > SIZE_MAX / size) {
        return NULL;
    }
    return nscd__alloc(a, count * size);
}

void nscd__free(const nscd_allocator *a, void *block, size_t size) {
    if (block != NULL) {
        a->release(a->user, block, size == 0 ? 1 : size);
    }
}

nscd_status nscd__reserve_array(const nscd_allocator *a, void **array, int32_t count, int32_t *cap,
                                int32_t need, size_t size) {
    need = need > 0 ? need : 1;
    if (need <= *cap) {
        return NSCD_OK;
    }
    int64_t grown = *cap > 0 ? 2 * (int64_t)*cap : 16;
    grown = grown < need ? need : grown;
    if (grown > INT32_MAX / 4) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    void *p = nscd__alloc_array(a, (size_t)grown, size);
    if (p == NULL) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    if (count > 0) {
        memcpy(p, *array, (size_t)count * size);
    }
    nscd__free(a, *array, (size_t)*cap * size);
    *array = p;
    *cap = (int32_t)grown;
    return NSCD_OK;
}
