/* Newton's kinematic restitution law: g_N+ = -e g_N- at every closing contact. */
#include "core/law.h"

static const nscd__law_ops newton_ops = {
    .name = "newton",
    .kind = NSCD_LAW_IMPULSIVE,
    .impact_rule = NSCD__IMPACT_NEWTON,
    .restitution = nscd__restitution_coefficient,
};

nscd_status nscd_contact_law_create_newton(double e, const nscd_allocator *allocator,
                                           nscd_contact_law **law) {
    return nscd__restitution_law_create(&newton_ops, e, allocator, law);
}
