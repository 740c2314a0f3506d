/* Growable blocks of the collision layer (collision_internal.h). */
#include <stdint.h>
#include <string.h>

#include "collision/collision_internal.h"
#include "core/memory.h"

int nscd__buffer_reserve(const nscd_allocator *al, nscd__buffer *b, size_t bytes, size_t keep) {
    if (bytes <= b->bytes) {
        return 1;
    }
    /* 1.5x growth: amortised O(1) appends, little slack at 1e5 shapes. */
    size_t grown = b->bytes + b->bytes / 2;
    size_t size = grown > bytes ? grown : bytes;
    if (size < bytes) { /* overflow of the growth */
        size = bytes;
    }
    void *data = nscd__alloc(al, size);
    if (data == NULL) {
        return 0;
    }
    if (keep > 0) {
        memcpy(data, b->data, keep < b->bytes ? keep : b->bytes);
    }
    nscd__free(al, b->data, b->bytes);
    b->data = data;
    b->bytes = size;
    return 1;
}

void nscd__buffer_release(const nscd_allocator *al, nscd__buffer *b) {
    nscd__free(al, b->data, b->bytes);
    b->data = NULL;
    b->bytes = 0;
}
