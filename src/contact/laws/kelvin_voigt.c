/* Spring-damper laws with a fixed damper: Hertz spring + linear damper and its
 * linear case, Kelvin-Voigt (seed 001, Sect. 5.2), with the exact restitution
 * of eq. 55 (corrected, see docs/compliant_contact.md). */
#include <math.h>

#include "contact/laws/compliant_law.h"
#include "nscd/compliant.h"

/* x'' + 2 xi x' + x = 0, x(0) = 0, x'(0) = 1, separating where the force
 * 2 xi x' + x vanishes:
 *  xi < 1: the force is zero at the phase theta = atan2(2 xi w, 2 xi^2 - 1) of
 *          the damped oscillation (w = sqrt(1 - xi^2)); there x' = -exp(-xi
 *          theta / w). atan2 picks the quadrant: theta > pi/2 for xi < 1/sqrt2.
 *  xi > 1: the force is zero at tau = ln(xi + s)/s (s = sqrt(xi^2 - 1)) and
 *          x' = -exp(-xi tau) = -((xi - s)/(xi + s))^(xi/s); ln(xi + s) = asinh(s).
 *  Both give exp(-2) at xi = 1.
 *  For xi >> 1, e = (xi + s)^(-2 xi/s) -> 1/(4 xi^2): e tends to 0 (a heavily
 *  overdamped contact gives back almost none of the impact velocity), and underflows
 *  to 0 beyond xi ~ 1e162. (xi - 1)(xi + 1) overflows from xi ~ 1e154 on
 *  (e was NaN); above 1e150, s = xi and xi/s = 1 to rounding (1/xi^2 < 1e-300),
 *  so e = exp(-2 asinh(xi)), finite up to DBL_MAX. */
static double kelvin_voigt_e(double xi) {
    if (xi < 1.0) {
        double w = sqrt((1.0 - xi) * (1.0 + xi));
        return exp(-xi * atan2(2.0 * xi * w, 2.0 * xi * xi - 1.0) / w);
    }
    if (xi == 1.0) {
        return exp(-2.0);
    }
    if (xi > 1e150) {
        return exp(-2.0 * asinh(xi));
    }
    double s = sqrt((xi - 1.0) * (xi + 1.0));
    return exp(-2.0 * xi * asinh(s) / s);
}

nscd_status nscd_kelvin_voigt_restitution(double xi, double *e) {
    if (e == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    if (!isfinite(xi)) {
        return NSCD_ERR_NOT_FINITE;
    }
    if (xi < 0.0) {
        return NSCD_ERR_OUT_OF_RANGE;
    }
    *e = kelvin_voigt_e(xi);
    return NSCD_OK;
}

static void kelvin_voigt_onset(const nscd_contact_law *law, double penetration_rate,
                               nscd__law_memory *memory) {
    memory->impact_velocity = penetration_rate;
    memory->max_penetration = 0.0;
    memory->aux[NSCD__MEM_DAMPING] = law->param[NSCD__CL_C];
}

static const nscd__law_ops kelvin_voigt_ops = {
    .name = "spring_damper",
    .kind = NSCD_LAW_COMPLIANT,
    .onset = kelvin_voigt_onset,
    .force = nscd__spring_damper_force,
    .onset_penetration = nscd__dent_onset_penetration,
    .separation = nscd__dent_separation,
};

nscd_status nscd_contact_law_create_spring_damper(double k, double n, double c, int32_t indentation,
                                                  const nscd_allocator *allocator,
                                                  nscd_contact_law **law) {
    if (law == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    if (!isfinite(k) || !isfinite(n) || !isfinite(c)) {
        return NSCD_ERR_NOT_FINITE;
    }
    if (!(k > 0.0) || n < 1.0 || n > 2.0 || c < 0.0) {
        return NSCD_ERR_OUT_OF_RANGE;
    }
    if (indentation != NSCD_INDENTATION_TEMPORARY && indentation != NSCD_INDENTATION_PERMANENT) {
        return NSCD_ERR_INVALID_ARGUMENT;
    }
    nscd_contact_law value = {&kelvin_voigt_ops, {k, n, 0.0, c}, {0, indentation}, {0}};
    return nscd__law_create(&value, allocator, law);
}

nscd_status nscd_contact_law_create_kelvin_voigt(double k, double c, int32_t indentation,
                                                 const nscd_allocator *allocator,
                                                 nscd_contact_law **law) {
    return nscd_contact_law_create_spring_damper(k, 1.0, c, indentation, allocator, law);
}
