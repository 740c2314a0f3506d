/* Routh's law for a contact of a system: Poisson restitution with Coulomb
 * friction in the plane, solved by nscd_routh_impact() (contact/routh.c).
 * The friction coefficient belongs to the contact, not to the law. */
#include <math.h>

#include "core/law.h"
#include "nscd/restitution.h"

static double routh_restitution(const nscd_contact_law *law) { return law->param[0]; }

static const nscd__law_ops routh_ops = {
    "routh", NSCD_LAW_IMPULSIVE, NSCD__IMPACT_ROUTH, routh_restitution, NULL, NULL,
};

nscd_status nscd_contact_law_create_routh(double e, const nscd_allocator *allocator,
                                          nscd_contact_law **law) {
    if (law == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    if (!isfinite(e)) {
        return NSCD_ERR_NOT_FINITE;
    }
    if (e < 0.0 || e > 1.0) {
        return NSCD_ERR_OUT_OF_RANGE;
    }
    nscd_contact_law value = {&routh_ops, {e}, {0}, {NULL, NULL, NULL}};
    return nscd__law_create(&value, allocator, law);
}
