/* Poisson's kinetic restitution, frictionless: the normal impulse of
 * restitution is e times that of compression (seed 000, eq. 28). */
#include "core/law.h"
#include "nscd/restitution.h"

static const nscd__law_ops poisson_ops = {
    .name = "poisson",
    .kind = NSCD_LAW_IMPULSIVE,
    .impact_rule = NSCD__IMPACT_POISSON,
    .restitution = nscd__restitution_coefficient,
};

nscd_status nscd_contact_law_create_poisson(double e, const nscd_allocator *allocator,
                                            nscd_contact_law **law) {
    return nscd__restitution_law_create(&poisson_ops, e, allocator, law);
}
