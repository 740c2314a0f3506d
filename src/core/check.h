/* Small input-validation helpers shared by all layers. */
#ifndef NSCD_CORE_CHECK_H
#define NSCD_CORE_CHECK_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

#endif
