/* Generic part of the contact-law handles: creation, destruction, queries. */
#include <math.h>

#include "core/law.h"
#include "core/memory.h"

nscd_status nscd__law_create(const nscd_contact_law *value, const nscd_allocator *allocator,
                             nscd_contact_law **law) {
    if (law == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    if (!nscd__allocator_valid(allocator)) {
        return NSCD_ERR_INVALID_ARGUMENT;
    }
    nscd_allocator a = nscd__allocator_resolve(allocator);
    nscd_contact_law *created = nscd__alloc(&a, sizeof *created);
    if (created == NULL) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    *created = *value;
    created->allocator = a;
    *law = created;
    return NSCD_OK;
}

void nscd_contact_law_destroy(nscd_contact_law *law) {
    if (law != NULL) {
        nscd_allocator a = law->allocator;
        nscd__free(&a, law, sizeof *law);
    }
}

nscd_status nscd_contact_law_get_kind(const nscd_contact_law *law, int32_t *kind) {
    if (law == NULL || kind == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    *kind = law->ops->kind;
    return NSCD_OK;
}

const char *nscd_contact_law_name(const nscd_contact_law *law) {
    return law == NULL ? "(null)" : law->ops->name;
}

nscd_status nscd__restitution_law_create(const nscd__law_ops *ops, double e,
                                         const nscd_allocator *allocator, nscd_contact_law **law) {
    if (law == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    if (!isfinite(e)) {
        return NSCD_ERR_NOT_FINITE;
    }
    if (e < 0.0 || e > 1.0) {
        return NSCD_ERR_OUT_OF_RANGE;
    }
    nscd_contact_law value = {ops, {e}, {0}, {NULL, NULL, NULL}};
    return nscd__law_create(&value, allocator, law);
}

double nscd__restitution_coefficient(const nscd_contact_law *law) { return law->param[0]; }
