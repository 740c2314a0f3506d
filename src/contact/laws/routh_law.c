/* Routh's law for a contact of a system: Poisson restitution with Coulomb
 * friction in the plane, solved by nscd_routh_impact() (contact/single/routh_impact.c).
 * The friction coefficient belongs to the contact, not to the law. */
#include "core/law.h"
#include "nscd/restitution.h"

static const nscd__law_ops routh_ops = {
    .name = "routh",
    .kind = NSCD_LAW_IMPULSIVE,
    .impact_rule = NSCD__IMPACT_ROUTH,
    .restitution = nscd__restitution_coefficient,
};

nscd_status nscd_contact_law_create_routh(double e, const nscd_allocator *allocator,
                                          nscd_contact_law **law) {
    return nscd__restitution_law_create(&routh_ops, e, allocator, law);
}
