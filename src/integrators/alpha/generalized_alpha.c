/* The generalized-α base scheme of seed 003 in Arnold and Brüls' form,
 * eqs. (20)–(26) (docs/time_stepping.md, "The α schemes"):
 *
 *   M a_{i+1} = h_{i+1} + H' λ_{i+1}                                   (20)
 *   (1 - α_m) A_{i+1} + α_m A_i = (1 - α_f) a_{i+1} + α_f a_i         (21)
 *   q_{i+1} = q_i + dt v_i + dt² ((1/2 - β) A_i + β A_{i+1})          (22)
 *   v_{i+1} = v_i + dt ((1 - γ) A_i + γ A_{i+1})                       (23)
 *   α_m = (2ρ∞ - 1)/(ρ∞ + 1), α_f = ρ∞/(ρ∞ + 1),
 *   γ = 1/2 - α_m + α_f, β = (1 - α_m + α_f)²/4                        (26)
 *
 * One stage in a_{i+1}: with A_{i+1} = ((1 - α_f) a_{i+1} + α_f a_i -
 * α_m A_i)/(1 - α_m) from (21),
 *
 *   v_{i+1} = ṽ + γ' a_{i+1},   γ' = dt γ (1 - α_f)/(1 - α_m),
 *   q_{i+1} = q̃ + β' a_{i+1},   β' = dt² β (1 - α_f)/(1 - α_m),
 *   ṽ = v_i + dt (1 - γ) A_i + dt γ B,  q̃ = q_i + dt v_i + dt² ((1/2 - β) A_i + β B),
 *   B = (α_f a_i - α_m A_i)/(1 - α_m),
 *
 * which makes M̂ = M + γ' C + β' K the effective matrix (36). */
#include <string.h>

#include "integrators/alpha/mixed_impl.h"

nscd_status nscd__generalized_alpha_stages(nscd_time_stepping *ts, const nscd__ts_closed *closed,
                                           double dt) {
    nscd__model *m = ts->model;
    int32_t n = m->n_v;
    double rho = ts->options.rho_infinity;
    double am = (2.0 * rho - 1.0) / (rho + 1.0), af = rho / (rho + 1.0);
    double gamma = 0.5 - am + af, beta = 0.25 * (1.0 - am + af) * (1.0 - am + af);
    double ratio = (1.0 - af) / (1.0 - am);
    nscd__ts_stage s;
    memset(&s, 0, sizeof s);
    nscd_status rc = nscd__ts_stage_alloc(ts, &s);
    double *v_pred = nscd__arena_array(&ts->arena, (size_t)n + 1, sizeof(double));
    double *dq_pred = nscd__arena_array(&ts->arena, (size_t)n + 1, sizeof(double));
    if (rc != NSCD_OK || v_pred == NULL || dq_pred == NULL) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    const double *a = ts->alpha.acc, *A = ts->alpha.acc_aux;
    for (int32_t i = 0; i < n; ++i) {
        double B = (af * a[i] - am * A[i]) / (1.0 - am);
        v_pred[i] = m->v[i] + dt * (1.0 - gamma) * A[i] + dt * gamma * B;
        dq_pred[i] = dt * m->v[i] + dt * dt * ((0.5 - beta) * A[i] + beta * B);
    }
    s.t = *m->t + dt;
    s.gamma_p = dt * gamma * ratio;
    s.beta_p = dt * dt * beta * ratio;
    s.q_base = m->q;
    s.dq_pred = dq_pred;
    s.v_pred = v_pred;
    memcpy(s.a, a, (size_t)n * sizeof(double)); /* the first iterate: a_i (55) */
    memcpy(s.force, ts->force, 3 * (size_t)m->n_contacts * sizeof(double));
    rc = nscd__ts_stage_solve(ts, closed, &s);
    if (rc != NSCD_OK) {
        return rc;
    }
    for (int32_t i = 0; i < n; ++i) {
        ts->alpha.acc_new[i] = s.a[i];
        ts->alpha.acc_aux_new[i] = ((1.0 - af) * s.a[i] + af * a[i] - am * A[i]) / (1.0 - am);
    }
    memcpy(ts->alpha.force_new, s.force, 3 * (size_t)m->n_contacts * sizeof(double));
    memcpy(m->v, s.v, (size_t)n * sizeof(double));
    memcpy(m->q, s.q, (size_t)m->n_q * sizeof(double));
    return NSCD_OK;
}
