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

nscd_status nscd__reserve_arrays(const nscd_allocator *a, nscd__array *arrays, int n,
                                 int32_t *capacity, int32_t needed) {
    needed = needed > 0 ? needed : 1;
    if (needed <= *capacity) {
        return NSCD_OK;
    }
    int64_t cap = *capacity > 0 ? *capacity : 16;
    while (cap < needed) {
        cap *= 2;
    }
    if (cap > INT32_MAX / 16) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    enum { MAX_ARRAYS = 32 };
    void *fresh[MAX_ARRAYS];
    if (n > MAX_ARRAYS) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    for (int k = 0; k < n; ++k) {
        fresh[k] = nscd__alloc_array(a, (size_t)cap, arrays[k].element);
        if (fresh[k] == NULL) {
            for (int j = 0; j < k; ++j) {
                nscd__free(a, fresh[j], (size_t)cap * arrays[j].element);
            }
            return NSCD_ERR_OUT_OF_MEMORY;
        }
    }
    for (int k = 0; k < n; ++k) {
        if (arrays[k].keep > 0) {
            memcpy(fresh[k], *arrays[k].data, (size_t)arrays[k].keep * arrays[k].element);
        }
        nscd__free(a, *arrays[k].data, (size_t)*capacity * arrays[k].element);
        *arrays[k].data = fresh[k];
    }
    *capacity = (int32_t)cap;
    return NSCD_OK;
}

nscd_status nscd__reserve_array(const nscd_allocator *a, void **array, int32_t count, int32_t *cap,
                                int32_t need, size_t size) {
    nscd__array one = {array, size, count};
    return nscd__reserve_arrays(a, &one, 1, cap, need);
}
