/* Pair friction overrides in an open-addressing hash table (linear probing,
 * load factor at most 1/2); see material_pairs.h. */
#include "world/material_pairs.h"

#include <string.h>

/* The unordered pair as one non-zero key (0 marks an empty slot). */
static uint64_t pair_key(int32_t a, int32_t b) {
    uint64_t lo = (uint64_t)(a < b ? a : b), hi = (uint64_t)(a < b ? b : a);
    return ((hi << 32) | lo) + 1;
}

/* Fibonacci hashing: the top bits of key times 2^64 / φ. */
static uint32_t home_slot(uint64_t key, int32_t capacity) {
    return (uint32_t)((key * UINT64_C(0x9E3779B97F4A7C15)) >> 32) & (uint32_t)(capacity - 1);
}

/* The slot holding key, or the empty slot where it would go. */
static int32_t find_slot(const uint64_t *keys, int32_t capacity, uint64_t key) {
    uint32_t mask = (uint32_t)(capacity - 1), slot = home_slot(key, capacity);
    while (keys[slot] != 0 && keys[slot] != key) {
        slot = (slot + 1) & mask;
    }
    return (int32_t)slot;
}

static nscd_status grow(nscd__material_pairs *p, const nscd_allocator *allocator) {
    int32_t capacity = p->capacity == 0 ? 8 : 2 * p->capacity;
    uint64_t *keys = nscd__alloc_array(allocator, (size_t)capacity, sizeof(uint64_t));
    double *friction = nscd__alloc_array(allocator, (size_t)capacity, sizeof(double));
    if (keys == NULL || friction == NULL) {
        nscd__free(allocator, keys, (size_t)capacity * sizeof(uint64_t));
        nscd__free(allocator, friction, (size_t)capacity * sizeof(double));
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    memset(keys, 0, (size_t)capacity * sizeof(uint64_t));
    for (int32_t i = 0; i < p->capacity; ++i) {
        if (p->keys[i] != 0) {
            int32_t slot = find_slot(keys, capacity, p->keys[i]);
            keys[slot] = p->keys[i];
            friction[slot] = p->friction[i];
        }
    }
    int32_t count = p->count;
    nscd__material_pairs_free(p, allocator);
    p->count = count;
    p->keys = keys;
    p->friction = friction;
    p->capacity = capacity;
    return NSCD_OK;
}

nscd_status nscd__material_pairs_set(nscd__material_pairs *p, const nscd_allocator *allocator,
                                     int32_t a, int32_t b, double friction) {
    uint64_t key = pair_key(a, b);
    if (p->capacity > 0) {
        int32_t slot = find_slot(p->keys, p->capacity, key);
        if (p->keys[slot] == key) {
            p->friction[slot] = friction;
            return NSCD_OK;
        }
    }
    if (2 * (p->count + 1) > p->capacity) { /* nothing changes when this fails */
        nscd_status st = grow(p, allocator);
        if (st != NSCD_OK) {
            return st;
        }
    }
    int32_t slot = find_slot(p->keys, p->capacity, key);
    p->keys[slot] = key;
    p->friction[slot] = friction;
    p->count++;
    return NSCD_OK;
}

bool nscd__material_pairs_get(const nscd__material_pairs *p, int32_t a, int32_t b,
                              double *friction) {
    if (p->count == 0) {
        return false;
    }
    uint64_t key = pair_key(a, b);
    int32_t slot = find_slot(p->keys, p->capacity, key);
    if (p->keys[slot] != key) {
        return false;
    }
    *friction = p->friction[slot];
    return true;
}

void nscd__material_pairs_free(nscd__material_pairs *p, const nscd_allocator *allocator) {
    nscd__free(allocator, p->keys, (size_t)p->capacity * sizeof(uint64_t));
    nscd__free(allocator, p->friction, (size_t)p->capacity * sizeof(double));
    p->keys = NULL;
    p->friction = NULL;
    p->capacity = 0;
    p->count = 0;
}
