/* Bathe's base scheme of seed 003, eqs. (56)–(62) (docs/time_stepping.md,
 * "The α schemes"): the trapezoidal rule over dt/2, then the three-point
 * backward difference over [t_i, t_i + dt/2, t_{i+1}]. Each sub-step is one
 * stage in its end acceleration:
 *
 *   first (58)–(59), unknown a_m at t_i + dt/2:
 *     v_m = v_i + dt/4 (a_i + a_m)            γ' = dt/4,  ṽ = v_i + dt/4 a_i
 *     q_m = q_i + dt/4 (v_i + v_m)            β' = dt²/16, q̃ = q_i + dt/2 v_i + dt²/16 a_i
 *   second (60)–(61), unknown a_{i+1} at t_{i+1}:
 *     v_{i+1} = (4 v_m - v_i + dt a_{i+1})/3  γ' = dt/3,  ṽ = (4 v_m - v_i)/3
 *     q_{i+1} = (4 q_m - q_i + dt v_{i+1})/3  β' = dt²/9,
 *                                             q̃ = q_i + 4/3 (q_m - q_i) + dt/3 ṽ
 *
 * (the paper's K̂_1 = 16/dt² M + ..., K̂_2 = 9/dt² M + ... are these
 * effective matrices times 1/β'). Each stage carries the forces of the
 * closed set; the second stage's are the step's λ_{i+1}. */
#include <string.h>

#include "integrators/alpha/mixed_impl.h"

nscd_status nscd__bathe_stages(nscd_time_stepping *ts, const nscd__ts_closed *closed, double dt) {
    nscd__model *m = ts->model;
    int32_t n = m->n_v;
    nscd__ts_stage s1, s2;
    memset(&s1, 0, sizeof s1);
    memset(&s2, 0, sizeof s2);
    nscd_status rc = nscd__ts_stage_alloc(ts, &s1);
    if (rc == NSCD_OK) {
        rc = nscd__ts_stage_alloc(ts, &s2);
    }
    double *pred = nscd__arena_array(&ts->arena, 4 * ((size_t)n + 1), sizeof(double));
    if (rc != NSCD_OK || pred == NULL) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    double *v1 = pred, *dq1 = pred + n + 1, *v2 = dq1 + n + 1, *dq2 = v2 + n + 1;
    const double *a = ts->alpha.acc;
    for (int32_t i = 0; i < n; ++i) {
        v1[i] = m->v[i] + 0.25 * dt * a[i];
        dq1[i] = 0.5 * dt * m->v[i] + dt * dt / 16.0 * a[i];
    }
    s1 = (nscd__ts_stage){
        *m->t + 0.5 * dt, 0.25 * dt, dt * dt / 16.0, m->q, dq1, v1, s1.a, s1.v, s1.dq, s1.q,
        s1.force};
    memcpy(s1.a, a, (size_t)n * sizeof(double));
    memcpy(s1.force, ts->force, 3 * (size_t)m->n_contacts * sizeof(double));
    rc = nscd__ts_stage_solve(ts, closed, &s1);
    if (rc != NSCD_OK) {
        return rc;
    }
    for (int32_t i = 0; i < n; ++i) {
        v2[i] = (4.0 * s1.v[i] - m->v[i]) / 3.0;
        dq2[i] = 4.0 / 3.0 * s1.dq[i] + dt / 3.0 * v2[i];
    }
    s2 = (nscd__ts_stage){*m->t + dt, dt / 3.0, dt * dt / 9.0, m->q, dq2,     v2,
                          s2.a,       s2.v,     s2.dq,         s2.q, s2.force};
    memcpy(s2.a, s1.a, (size_t)n * sizeof(double));
    memcpy(s2.force, s1.force, 3 * (size_t)m->n_contacts * sizeof(double));
    rc = nscd__ts_stage_solve(ts, closed, &s2);
    if (rc != NSCD_OK) {
        return rc;
    }
    memcpy(ts->alpha.acc_new, s2.a, (size_t)n * sizeof(double));
    memcpy(ts->alpha.acc_aux_new, s2.a, (size_t)n * sizeof(double));
    memcpy(ts->alpha.force_new, s2.force, 3 * (size_t)m->n_contacts * sizeof(double));
    memcpy(m->v, s2.v, (size_t)n * sizeof(double));
    memcpy(m->q, s2.q, (size_t)m->n_q * sizeof(double));
    return NSCD_OK;
}
