/* Small input-validation helpers shared by all layers. */
#ifndef NSCD_CORE_CHECK_H
#define NSCD_CORE_CHECK_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "nscd/status.h"

/* True when all n values are finite. */
static inline bool nscd__all_finite(const double *x, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        if (!isfinite(x[i])) {
            return false;
        }
    }
    return true;
}

/* True when a caller's struct_size is one this library understands: at least
 * the size of the first release of the struct and at most the current size. */
static inline bool nscd__struct_size_ok(uint32_t size, size_t first, size_t current) {
    return size >= first && size <= current;
}

/* The *_init functions of desc/options structs: checks the caller's
 * struct_size, zero-fills the struct and stamps its first member, the
 * uint32_t struct_size. */
static inline nscd_status nscd__struct_init(void *object, size_t given, size_t actual) {
    if (object == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    if (given != actual) {
        return NSCD_ERR_STRUCT_SIZE;
    }
    memset(object, 0, actual);
    uint32_t size = (uint32_t)actual;
    memcpy(object, &size, sizeof size);
    return NSCD_OK;
}

#endif
