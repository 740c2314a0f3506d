/* The friction of material pairs set by nscd_world_set_pair_friction: an
 * open-addressing hash table keyed by the unordered pair, so that memory is
 * proportional to the pairs actually overridden (a dense n x n matrix of
 * the 65,536 materials a world may hold needed 32 GiB; issue 25). A lookup
 * is one multiplicative hash and, at a load factor of at most 1/2, about
 * 1.5 probes on average; a table with no pair answers at once. */
#ifndef NSCD_MODELS_MATERIAL_PAIRS_H
#define NSCD_MODELS_MATERIAL_PAIRS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/memory.h"
#include "nscd/status.h"

typedef struct nscd__material_pairs {
    uint64_t *keys;          /* capacity slots: 0 empty, else the pair's key (pair_key) */
    double *friction;        /* capacity slots */
    int32_t count, capacity; /* capacity: 0 or a power of two >= 8 */
} nscd__material_pairs;

/* Sets (or replaces) the friction of the pair {a, b}, a and b >= 0. */
nscd_status nscd__material_pairs_set(nscd__material_pairs *pairs, const nscd_allocator *allocator,
                                     int32_t a, int32_t b, double friction);
/* The friction of the pair {a, b} into *friction, or false when it was never set. */
bool nscd__material_pairs_get(const nscd__material_pairs *pairs, int32_t a, int32_t b,
                              double *friction);
void nscd__material_pairs_free(nscd__material_pairs *pairs, const nscd_allocator *allocator);

#endif
