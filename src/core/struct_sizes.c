/* Versioned public structs: reading and writing only the caller's prefix
 * (see struct_sizes.h for the rules). */
#include "core/struct_sizes.h"

#include <string.h>

uint32_t nscd__struct_size_of(const void *object) {
    uint32_t size; /* memcpy: the struct's type is not known here */
    memcpy(&size, object, sizeof size);
    return size;
}

/* Stamps the first member, uint32_t struct_size. */
static void stamp(void *object, size_t size) {
    uint32_t value = (uint32_t)size;
    memcpy(object, &value, sizeof value);
}

nscd_status nscd__struct_init(void *object, size_t size, const void *defaults, size_t current,
                              size_t first) {
    if (object == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    if (!nscd__struct_size_ok(size, first, current)) {
        return NSCD_ERR_STRUCT_SIZE;
    }
    memcpy(object, defaults, size);
    stamp(object, size);
    return NSCD_OK;
}

nscd_status nscd__struct_read(void *dst_defaults, size_t current, const void *src, size_t first) {
    size_t size = nscd__struct_size_of(src);
    if (!nscd__struct_size_ok(size, first, current)) {
        return NSCD_ERR_STRUCT_SIZE;
    }
    memcpy(dst_defaults, src, size);
    stamp(dst_defaults, current);
    return NSCD_OK;
}

nscd_status nscd__struct_write(void *dst, const void *src, size_t current, size_t first) {
    size_t size = nscd__struct_size_of(dst);
    if (!nscd__struct_size_ok(size, first, current)) {
        return NSCD_ERR_STRUCT_SIZE;
    }
    memcpy(dst, src, size);
    stamp(dst, size);
    return NSCD_OK;
}
