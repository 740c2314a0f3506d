/* Per-step workspace: a bump allocator over blocks from the host's
 * allocator. A stepper resets it at the start of every stage that needs
 * scratch memory sized by the current contact set (the closed contacts of a
 * right-hand side evaluation, the contacts of an impact); the memory is
 * reused from then on, so a step allocates only while the active set grows
 * beyond what was seen before. Replaces long alloc/check/free lists. */
#ifndef NSCD_CORE_ARENA_H
#define NSCD_CORE_ARENA_H

#include <stddef.h>
#include <stdint.h>

#include "nscd/host.h"

typedef struct nscd__arena_block nscd__arena_block;

typedef struct nscd__arena {
    const nscd_allocator *allocator;
    nscd__arena_block *blocks; /* newest first; the first one is the current */
    size_t used;               /* bytes handed out since the last reset */
    size_t peak;               /* largest `used` ever */
    size_t reserved;           /* bytes held from the allocator */
} nscd__arena;

void nscd__arena_init(nscd__arena *arena, const nscd_allocator *allocator);
/* Returns every block to the allocator. */
void nscd__arena_release(nscd__arena *arena);
/* Forgets what was handed out; keeps (and merges into one) the memory. */
void nscd__arena_reset(nscd__arena *arena);
/* Zero-filled array of count x size bytes, 16-byte aligned, or NULL (out of
 * memory, or count x size overflows). Valid until the next reset. */
void *nscd__arena_array(nscd__arena *arena, size_t count, size_t size);
/* The same without the zero fill, for arrays the caller writes in full (the
 * hot paths of every right-hand-side evaluation). */
void *nscd__arena_alloc(nscd__arena *arena, size_t count, size_t size);

#endif
