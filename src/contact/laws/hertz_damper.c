/* Hertz spring + linear damper f = c delta_dot + k delta^n (seed 001, eq. 7)
 * with the optimal damping c chosen at the onset of every contact from the
 * impact velocity and effective mass (eqs. 49 and 23), separating when the
 * force vanishes (eq. 20). */
#include <math.h>

#include "contact/laws/compliant_law.h"
#include "contact/compliant/copt.h"
#include "nscd/compliant.h"

double nscd__spring_damper_force(const nscd_contact_law *law, const nscd__law_memory *memory,
                                 double delta, double delta_dot) {
    double d = delta - memory->aux[NSCD__MEM_DENT];
    if (d < 0.0) {
        return 0.0;
    }
    double spring = law->param[NSCD__CL_K] * pow(d, law->param[NSCD__CL_N]);
    return memory->aux[NSCD__MEM_DAMPING] * delta_dot + spring;
}

double nscd__dent_onset_penetration(const nscd_contact_law *law, const nscd__law_memory *memory) {
    (void)law;
    return memory->aux[NSCD__MEM_DENT];
}

void nscd__dent_separation(const nscd_contact_law *law, nscd__law_memory *memory, double delta) {
    if (law->option[NSCD__CL_INDENTATION] == NSCD_INDENTATION_PERMANENT) {
        memory->aux[NSCD__MEM_DENT] = fmax(delta, memory->aux[NSCD__MEM_DENT]);
    }
}

/* c_opt = zeta(e, n) [k v^(n-1) m^n]^(1/(n+1)) for this contact's impact. */
static void hertz_damper_onset(const nscd_contact_law *law, double penetration_rate,
                               nscd__law_memory *memory) {
    double k = law->param[NSCD__CL_K], n = law->param[NSCD__CL_N], e = law->param[NSCD__CL_E];
    double m = memory->effective_mass, c = 0.0;
    if (penetration_rate > 0.0 && m > 0.0 && e < 1.0) {
        double zeta = law->option[NSCD__CL_METHOD] == NSCD_COPT_EXACT
                          ? nscd__copt_zeta_table(e, n)
                          : nscd__copt_zeta_closed_form(e, n);
        c = zeta * nscd__copt_scale(m, k, n, penetration_rate);
    }
    memory->impact_velocity = penetration_rate;
    memory->max_penetration = 0.0;
    memory->aux[NSCD__MEM_DAMPING] = c;
}

static const nscd__law_ops hertz_damper_ops = {
    .name = "hertz_damper",
    .kind = NSCD_LAW_COMPLIANT,
    .onset = hertz_damper_onset,
    .force = nscd__spring_damper_force,
    .onset_penetration = nscd__dent_onset_penetration,
    .separation = nscd__dent_separation,
};

nscd_status nscd_contact_law_create_hertz_damper(double k, double n, double e, int32_t method,
                                                 int32_t indentation,
                                                 const nscd_allocator *allocator,
                                                 nscd_contact_law **law) {
    if (law == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    if (!isfinite(k) || !isfinite(n) || !isfinite(e)) {
        return NSCD_ERR_NOT_FINITE;
    }
    if (!(k > 0.0) || n < 1.0 || n > 2.0 || !(e > 0.0) || e > 1.0) {
        return NSCD_ERR_OUT_OF_RANGE;
    }
    if ((method != NSCD_COPT_CLOSED_FORM && method != NSCD_COPT_EXACT) ||
        (indentation != NSCD_INDENTATION_TEMPORARY && indentation != NSCD_INDENTATION_PERMANENT)) {
        return NSCD_ERR_INVALID_ARGUMENT;
    }
    nscd_contact_law value = {&hertz_damper_ops, {k, n, e}, {method, indentation}, {0}};
    return nscd__law_create(&value, allocator, law);
}
