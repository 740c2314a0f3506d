/* Direct central impact under a compliant law (seed 001, eq. 4): the law's
 * own force, scaled by the Hertz length delta0 = (m v^2 / k)^(1/(n+1)) and
 * time delta0 / v so that the integration runs on O(1) numbers. */
#include <math.h>

#include "contact/laws/compliant_law.h"
#include "contact/compliant/impact_ode.h"
#include "core/struct_sizes.h"
#include "nscd/compliant.h"

enum { SIMULATOR_TOLERANCE_EXPONENT = -12 };

typedef struct scaled_law {
    const nscd_contact_law *law;
    nscd__law_memory memory;
    double length, speed, force; /* delta0, v, m v^2 / delta0 */
} scaled_law;

static double scaled_force(void *ctx, double x, double p) {
    const scaled_law *s = ctx;
    return s->law->ops->force(s->law, &s->memory, x * s->length, p * s->speed) / s->force;
}

nscd_status nscd_central_impact(const nscd_contact_law *law, double m, double v,
                                nscd_central_impact_result *result) {
    if (law == NULL || result == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    if (!nscd__struct_size_ok(result->struct_size, NSCD__CENTRAL_IMPACT_RESULT_SIZE_0_1,
                              sizeof *result)) {
        return NSCD_ERR_STRUCT_SIZE;
    }
    if (law->ops->kind != NSCD_LAW_COMPLIANT) {
        return NSCD_ERR_UNSUPPORTED;
    }
    if (!isfinite(m) || !isfinite(v)) {
        return NSCD_ERR_NOT_FINITE;
    }
    if (!(m > 0.0) || !(v > 0.0)) {
        return NSCD_ERR_OUT_OF_RANGE;
    }
    scaled_law s = {.law = law, .speed = v};
    s.memory.effective_mass = m;
    law->ops->onset(law, v, &s.memory);
    double k = law->param[NSCD__CL_K], n = law->param[NSCD__CL_N];
    s.length = pow(m * v * v / k, 1.0 / (n + 1.0));
    s.force = m * v * v / s.length;
    if (!isfinite(s.length) || !(s.length > 0.0) || !isfinite(s.force)) {
        return NSCD_ERR_OUT_OF_RANGE;
    }
    nscd__impact_outcome o;
    nscd_status rc =
        nscd__impact_integrate(scaled_force, &s, pow(10.0, SIMULATOR_TOLERANCE_EXPONENT), &o);
    if (rc != NSCD_OK) {
        return rc;
    }
    nscd_central_impact_result r = {.struct_size = sizeof r};
    r.e_out = o.e_out;
    r.duration = o.duration * s.length / v;
    r.max_penetration = o.max_penetration * s.length;
    r.residual_penetration = o.residual * s.length;
    r.peak_force = o.peak_force * s.force;
    r.damping = s.memory.aux[NSCD__MEM_DAMPING];
    r.steps = o.steps;
    /* only the fields the caller's release has */
    nscd__struct_write(result, &r, sizeof r, NSCD__CENTRAL_IMPACT_RESULT_SIZE_0_1);
    return NSCD_OK;
}
