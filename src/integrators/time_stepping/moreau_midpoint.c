/* One step of Moreau's midpoint rule (Moreau 1988; the reference
 * tools/reference/slider_crank.py, docs/time_stepping.md):
 *
 *   midpoint     q_M = q_k + dt/2 v_k,  t_M = t_k + dt/2
 *   active set   I = {equalities} ∪ {contacts: g(q_M) <= 0}
 *   free motion  v_free = v_k + dt M(q_M)^-1 h(t_M, q_M, v_k)
 *   local law    the same as Moreau–Jean's, with H = H(q_M):
 *                v_{k+1} = v_free + M^-1 H' P,
 *                0 <= P_N _|_ u_N + e min(W_N(q_M) v_k, 0) >= 0, u_E = 0
 *   positions    q_{k+1} = q_M + dt/2 v_{k+1}
 *
 * The forces are explicit (θ of the options is not used): second order on
 * smooth motion, stable for ω dt <= 2 only. Everything but the midpoint
 * itself is moreau_jean.c's (nscd__ts_*), so the local problem, its solvers
 * and the loaded-contact rule against creep are the same. */
#include <string.h>

#include "core/check.h"
#include "integrators/time_stepping/time_stepping_impl.h"

/* q_M = q_k + dt/2 v_k into ts->q_theta (through displace: q may be a
 * configuration with rotations). */
static void midpoint(nscd_time_stepping *ts, double dt) {
    nscd__model *m = ts->model;
    double *dq = ts->v_mid;
    for (int32_t i = 0; i < m->n_v; ++i) {
        dq[i] = 0.5 * dt * m->v[i];
    }
    m->displace(m->self, m->q, dq, ts->q_theta);
}

/* v_{k+1} = v_free + M^-1 H' P, q_{k+1} = q_M + dt/2 v_{k+1} (from q_M,
 * not q_k: the second half step uses the new velocity alone). */
static void update_state(nscd_time_stepping *ts, const nscd__ts_local *local, double dt) {
    nscd__model *m = ts->model;
    double *dv = ts->v_mid;
    nscd__ts_local_velocity(local, m->n_v, dv);
    for (int32_t i = 0; i < m->n_v; ++i) {
        m->v[i] = ts->v_free[i] + dv[i];
        dv[i] = 0.5 * dt * m->v[i];
    }
    m->displace(m->self, ts->q_theta, dv, m->q);
}

nscd_status nscd__moreau_midpoint_step(nscd_time_stepping *ts, double dt) {
    nscd__model *m = ts->model;
    double t = *m->t, t_mid = t + 0.5 * dt, *gaps = NULL;
    nscd__arena_reset(&ts->arena);
    nscd__ts_local local;
    memset(&local, 0, sizeof local);
    local.prox_r = 0.1 * dt; /* the paper's r for impulses (Sect. 2.5) */
    local.dt = dt;
    local.rows_at_midpoint = 1;
    midpoint(ts, dt);
    if (!nscd__all_finite(ts->q_theta, (size_t)m->n_q)) {
        return nscd__fail(&ts->diag, NSCD_ERR_NOT_FINITE, "the midpoint from t = %.17g", t);
    }
    nscd__rows *rows = NULL;
    nscd_status rc = nscd__ts_gather(ts, t_mid, ts->q_theta, &rows, &gaps, &local);
    if (rc == NSCD_OK) {
        rc = nscd__ts_forces_at(ts, t_mid, ts->q_theta);
    }
    if (rc == NSCD_OK) {
        rc = nscd__ts_free_velocity(ts, m, ts->q_theta, dt);
    }
    if (rc == NSCD_OK) { /* gamma_dt = 0: the gap at q_M alone predicts contact */
        rc = nscd__ts_contact_impulses(ts, m, rows, gaps, 0.0, ts->q_theta, &local);
    }
    if (rc != NSCD_OK) {
        return rc;
    }
    update_state(ts, &local, dt);
    return nscd__ts_finish_step(ts, &local, t, dt);
}
