/* Newton's kinematic restitution law: g_N+ = -e g_N- at every closing contact. */
#include <math.h>

#include "core/law.h"

static double newton_restitution(const nscd_contact_law *law) { return law->param[0]; }

static const nscd__law_ops newton_ops = {
    "newton", NSCD_LAW_IMPULSIVE, NSCD__IMPACT_NEWTON, newton_restitution, NULL, NULL, NULL, NULL,
};

nscd_status nscd_contact_law_create_newton(double e, const nscd_allocator *allocator,
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
    nscd_contact_law value = {&newton_ops, {e}, {0}, {NULL, NULL, NULL}};
    return nscd__law_create(&value, allocator, law);
}
