/* Shared layout and helpers of the compliant laws (seed 001): Hertz-damper,
 * Hunt-Crossley and Kelvin-Voigt. Every one keeps the stiffness k in
 * param[0] and the exponent n in param[1], so that the impact simulator can
 * scale any of them; the damping chosen at onset is kept in the contact's
 * memory. */
#ifndef NSCD_CONTACT_COMPLIANT_LAW_H
#define NSCD_CONTACT_COMPLIANT_LAW_H

#include <stdint.h>

#include "core/law.h"

enum {
    NSCD__CL_K = 0, /* param: stiffness */
    NSCD__CL_N = 1, /* param: Hertz exponent */
    NSCD__CL_E = 2, /* param: target restitution (Hertz-damper, Hunt-Crossley) */
    NSCD__CL_C = 3  /* param: fixed damping (Kelvin-Voigt) */
};
enum {
    NSCD__CL_METHOD = 0,     /* option: nscd_copt_method or nscd_hc_model */
    NSCD__CL_INDENTATION = 1 /* option: nscd_indentation */
};
enum {
    NSCD__MEM_DAMPING = 0, /* memory aux: c or mu chosen at onset */
    NSCD__MEM_DENT = 1     /* memory aux: permanent indentation */
};

/* Hunt-Crossley factor without input checks (eqs. 13-19). */
double nscd__hc_factor(int32_t model, double k, double e, double v);

/* Spring-damper force c delta_dot + k (delta - dent)^n, signed; zero when
 * the penetration is below the dent (shared by Hertz-damper and Kelvin-Voigt). */
double nscd__spring_damper_force(const nscd_contact_law *law, const nscd__law_memory *memory,
                                 double delta, double delta_dot);
double nscd__dent_onset_penetration(const nscd_contact_law *law, const nscd__law_memory *memory);
void nscd__dent_separation(const nscd_contact_law *law, nscd__law_memory *memory, double delta);

#endif
