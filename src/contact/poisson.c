/* Poisson's kinetic restitution, frictionless: the normal impulse of
 * restitution is e times that of compression (seed 000, eq. 28). */
#include <math.h>

#include "core/law.h"
#include "nscd/restitution.h"

static double poisson_restitution(const nscd_contact_law *law) { return law->param[0]; }

static const nscd__law_ops poisson_ops = {
    "poisson", NSCD_LAW_IMPULSIVE, NSCD__IMPACT_POISSON, poisson_restitution, NULL, NULL,
};

nscd_status nscd_contact_law_create_poisson(double e, const nscd_allocator *allocator,
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
    nscd_contact_law value = {&poisson_ops, {e}, {0}, {NULL, NULL, NULL}};
    return nscd__law_create(&value, allocator, law);
}
