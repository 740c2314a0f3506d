/* Per-step workspace (see arena.h). */
#include "core/arena.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/memory.h"

#define ALIGNMENT 16
#define FIRST_BLOCK 4096

struct nscd__arena_block {
    nscd__arena_block *next;
    size_t size; /* usable bytes after the header */
    size_t top;  /* bytes used in this block */
};

/* The header is padded so that the usable bytes start aligned. */
#define HEADER ((sizeof(nscd__arena_block) + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT)

void nscd__arena_init(nscd__arena *arena, const nscd_allocator *allocator) {
    memset(arena, 0, sizeof *arena);
    arena->allocator = allocator;
}

void nscd__arena_release(nscd__arena *arena) {
    nscd__arena_block *b = arena->blocks;
    while (b != NULL) {
        nscd__arena_block *next = b->next;
        nscd__free(arena->allocator, b, HEADER + b->size);
        b = next;
    }
    arena->blocks = NULL;
    arena->used = arena->reserved = 0;
}

void nscd__arena_reset(nscd__arena *arena) {
    /* Several blocks mean the last step outgrew the first: replace them by
     * one block that holds what the step used, so the next one fits at once. */
    if (arena->blocks != NULL && arena->blocks->next != NULL) {
        size_t total = arena->reserved;
        nscd__arena_release(arena);
        nscd__arena_block *b = nscd__alloc(arena->allocator, HEADER + total);
        if (b != NULL) {
            b->size = total;
            arena->blocks = b;
            arena->reserved = total;
        }
    }
    if (arena->blocks != NULL) {
        arena->blocks->top = 0;
    }
    arena->used = 0;
}

static nscd__arena_block *grow(nscd__arena *arena, size_t bytes) {
    size_t size = arena->blocks != NULL ? 2 * arena->blocks->size : FIRST_BLOCK;
    size = size > bytes ? size : bytes;
    if (size > SIZE_MAX - HEADER) {
        return NULL;
    }
    nscd__arena_block *b = nscd__alloc(arena->allocator, HEADER + size);
    if (b == NULL) {
        return NULL;
    }
    b->size = size;
    b->next = arena->blocks;
    arena->blocks = b;
    arena->reserved += size;
    return b;
}

/* count x size rounded up to the alignment (at least one unit); false on
 * overflow. Called for every array of every evaluation: no division. */
static bool padded_size(size_t count, size_t size, size_t *bytes) {
#if defined(__GNUC__) || defined(__clang__)
    size_t product = 0;
    if (__builtin_mul_overflow(count, size, &product) || product > SIZE_MAX - ALIGNMENT) {
        return false;
    }
#else
    if (size != 0 && count > (SIZE_MAX - ALIGNMENT) / size) {
        return false;
    }
    size_t product = count * size;
#endif
    *bytes = product == 0 ? ALIGNMENT : (product + ALIGNMENT - 1) & ~(size_t)(ALIGNMENT - 1);
    return true;
}

void *nscd__arena_alloc(nscd__arena *arena, size_t count, size_t size) {
    size_t bytes = 0;
    if (!padded_size(count, size, &bytes)) {
        return NULL;
    }
    nscd__arena_block *b = arena->blocks;
    if (b == NULL || b->size - b->top < bytes) {
        b = grow(arena, bytes);
        if (b == NULL) {
            return NULL;
        }
    }
    unsigned char *p = (unsigned char *)b + HEADER + b->top;
    b->top += bytes;
    arena->used += bytes;
    if (arena->used > arena->peak) {
        arena->peak = arena->used;
    }
    return p;
}

void *nscd__arena_array(nscd__arena *arena, size_t count, size_t size) {
    void *p = nscd__arena_alloc(arena, count, size);
    if (p != NULL) {
        memset(p, 0, count * size);
    }
    return p;
}
