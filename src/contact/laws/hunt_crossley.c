/* Hunt-Crossley force f = (mu delta_dot + k) delta^n (seed 001, eq. 9) and
 * its hysteresis damping factors (eqs. 13-19). */
#include <math.h>

#include "core/bracket.h"
#include "contact/laws/compliant_law.h"
#include "nscd/compliant.h"

/* phi(d) = F(d)/d^2 with F(d) = ln(1 + d/e) - ln(1 - d) - d (1 + 1/e), the
 * residual of eq. 19. Both logarithms expand to sum_k [1 + (-1)^(k+1) e^-k]
 * d^k / k, whose k = 1 term cancels d (1 + 1/e); the series is used for
 * small d/e, where the closed form loses every digit to cancellation. */
static double gonthier_residual(double d, double e) {
    if (d < 0.25 * e) {
        /* term k: [d^(k-2) + (-1)^(k+1) (d/e)^(k-2) / e^2] / k */
        double r = d / e, dk = d, rk = r, sign = 1.0;
        double sum = -(1.0 - e) * (1.0 + e) / (2.0 * e * e); /* k = 2, without cancellation */
        for (int k = 3; k < 200; ++k) {
            double term = (dk + sign * rk / (e * e)) / k;
            sum += term;
            if (fabs(term) <= 1e-17 * fabs(sum)) {
                break;
            }
            dk *= d;
            rk *= r;
            sign = -sign;
        }
        return sum;
    }
    return (log1p(d / e) - log1p(-d) - d * (1.0 + 1.0 / e)) / (d * d);
}

/* The root d in (0, 1) of eq. 19: phi < 0 near 0 (phi(0) = (1 - 1/e^2)/2)
 * and phi -> +inf at 1; Illinois regula falsi on that bracket. */
static double gonthier_d(double e) {
    if (e >= 1.0) {
        return 0.0;
    }
    const double top = 1.0 - 1e-15;
    nscd__bracket br = nscd__bracket_make(0.0, -(1.0 - e) * (1.0 + e) / (2.0 * e * e), top,
                                          gonthier_residual(top, e));
    double c = 0.5;
    for (int it = 0; it < 200 && br.b - br.a > 2e-16 * br.b; ++it) {
        c = nscd__bracket_trial(&br);
        double fc = gonthier_residual(c, e);
        if (fc == 0.0) {
            break;
        }
        nscd__bracket_update(&br, c, fc, fc < 0.0);
    }
    return c;
}

double nscd__hc_factor(int32_t model, double k, double e, double v) {
    switch (model) {
    case NSCD_HC_HUNT_CROSSLEY: return 3.0 * k * (1.0 - e) / (2.0 * v);           /* eq. 13 */
    case NSCD_HC_LANKARANI_NIKRAVESH: return 3.0 * k * (1.0 - e * e) / (4.0 * v); /* eq. 14 */
    case NSCD_HC_HU_GUO: return 3.0 * k * (1.0 - e) / (2.0 * e * v);              /* eq. 15 */
    case NSCD_HC_FLORES: return 8.0 * k * (1.0 - e) / (5.0 * e * v);              /* eq. 16 */
    case NSCD_HC_GONTHIER: return gonthier_d(e) * k / (e * v);                    /* eq. 18 */
    default: return NAN;
    }
}

nscd_status nscd_hunt_crossley_factor(int32_t model, double k, double e, double v, double *mu) {
    if (mu == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    if (model < NSCD_HC_HUNT_CROSSLEY || model > NSCD_HC_GONTHIER) {
        return NSCD_ERR_INVALID_ARGUMENT;
    }
    if (!isfinite(k) || !isfinite(e) || !isfinite(v)) {
        return NSCD_ERR_NOT_FINITE;
    }
    if (k < 1e5 || k > 1e10 || v < 1e-3 || v > 1e2 || !(e > 0.0) || e > 1.0) {
        return NSCD_ERR_OUT_OF_RANGE;
    }
    *mu = nscd__hc_factor(model, k, e, v);
    return NSCD_OK;
}

static void hunt_crossley_onset(const nscd_contact_law *law, double penetration_rate,
                                nscd__law_memory *memory) {
    double mu = 0.0;
    if (penetration_rate > 0.0) {
        mu = nscd__hc_factor(law->option[NSCD__CL_METHOD], law->param[NSCD__CL_K],
                             law->param[NSCD__CL_E], penetration_rate);
    }
    memory->impact_velocity = penetration_rate;
    memory->max_penetration = 0.0;
    memory->aux[NSCD__MEM_DAMPING] = mu;
}

static double hunt_crossley_force(const nscd_contact_law *law, const nscd__law_memory *memory,
                                  double delta, double delta_dot) {
    if (delta <= 0.0) {
        return 0.0;
    }
    double mu = memory->aux[NSCD__MEM_DAMPING];
    return (mu * delta_dot + law->param[NSCD__CL_K]) * pow(delta, law->param[NSCD__CL_N]);
}

static double hunt_crossley_onset_penetration(const nscd_contact_law *law,
                                              const nscd__law_memory *memory) {
    (void)law;
    (void)memory;
    return 0.0;
}

static void hunt_crossley_separation(const nscd_contact_law *law, nscd__law_memory *memory,
                                     double delta) {
    (void)law;
    (void)memory;
    (void)delta;
}

static const nscd__law_ops hunt_crossley_ops = {
    .name = "hunt_crossley",
    .kind = NSCD_LAW_COMPLIANT,
    .onset = hunt_crossley_onset,
    .force = hunt_crossley_force,
    .onset_penetration = hunt_crossley_onset_penetration,
    .separation = hunt_crossley_separation,
};

nscd_status nscd_contact_law_create_hunt_crossley(double k, double n, double e, int32_t model,
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
    if (model < NSCD_HC_HUNT_CROSSLEY || model > NSCD_HC_GONTHIER) {
        return NSCD_ERR_INVALID_ARGUMENT;
    }
    nscd_contact_law value = {&hunt_crossley_ops, {k, n, e}, {model}, {0}};
    return nscd__law_create(&value, allocator, law);
}
