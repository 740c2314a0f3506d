/* One step of the half-explicit time-stepping scheme on velocity level
 * (HETS; Schindler, Rezaei, Kursawe and Acary 2015, seed 003's refs [40, 41],
 * which the paper only names; the variant and its derivation are in
 * docs/time_stepping.md, "Half-explicit time stepping"):
 *
 *   stage 1 at (t_k, q_k, v_k), the contacts closed at q_k (g <= 0 or loaded):
 *     V_2 = v_k + dt M^-1 (h(t_k, q_k, v_k) + H_k' lambda_1),
 *     0 <= P_1N _|_ H_kN V_2 >= 0 (no restitution), friction, H_kE V_2 = 0,
 *     with the unknown P_1 = dt lambda_1 (the non-impulsive force);
 *   stage 2 at (t_k + dt, Q_2 = q_k + dt v_k, V_2), the contacts with
 *     g(Q_2) <= 0 or loaded:
 *     v_free  = v_k + dt/2 (a_1 + M(Q_2)^-1 h(t_k + dt, Q_2, V_2)),
 *     a_1     = M^-1 (h_k + H_k' lambda_1),
 *     v_{k+1} = v_free + M(Q_2)^-1 H_2' P   (Moreau–Jean's local problem:
 *               Newton's restitution e min(H_2N v_k, 0), friction, equalities);
 *   positions q_{k+1} = q_k + dt/2 (v_k + v_{k+1}).
 *
 * Explicit forces (Heun's trapezoid on the velocities): second order on
 * smooth motion, the Störmer–Verlet map on a linear undamped oscillator,
 * stable for ω dt <= 2 only. An entry's impulse of the step is
 * dt/2 lambda_1 + P, its mean force that over dt. */
#include <string.h>

#include "core/check.h"
#include "integrators/time_stepping/time_stepping_impl.h"

/* What a HETS step keeps between its stages (arena arrays of n_v). */
typedef struct hets_work {
    double *a1;  /* M^-1 h_k, then a_1 = M^-1 (h_k + H_k' lambda_1) */
    double *V2;  /* the stage velocity */
    double *a2;  /* M(Q_2)^-1 h(t_k + dt, Q_2, V_2) */
    double *dv;  /* scratch: M^-1 H' P */
    double *gap; /* gaps at q_k (n_contacts) */
    nscd__rows *rows;
    nscd__ts_local stage1;
} hets_work;

/* h(t, q, v) into ts->h, for any velocity v (nscd__ts_forces_at takes v_k). */
static nscd_status forces_at(nscd_time_stepping *ts, double t, const double *q, const double *v) {
    nscd__model *m = ts->model;
    nscd_status rc = m->forces(m->self, t, q, v, ts->h);
    if (rc == NSCD_ERR_NOT_FINITE) { /* a diverged state: ω dt > 2 on a stiff mode */
        return nscd__fail(&ts->diag, rc, "forces are not finite at t = %.17g (diverged?)", t);
    }
    if (rc != NSCD_OK) {
        return nscd__fail(&ts->diag, NSCD_ERR_CALLBACK, "forces callback failed (%d)", (int)rc);
    }
    if (!nscd__all_finite(ts->h, (size_t)m->n_v)) {
        return nscd__fail(&ts->diag, NSCD_ERR_NOT_FINITE, "forces are not finite at t = %.17g", t);
    }
    return NSCD_OK;
}

/* a = M(q)^-1 ts->h through the problem assembly (the one M^-1). */
static nscd_status free_acceleration(nscd_time_stepping *ts, const double *q, double *a) {
    nscd__response response;
    double none = 0.0;
    nscd_status rc = nscd__response_build(ts->model, &ts->arena, q, ts->h, 0, NULL, &response);
    if (rc == NSCD_OK) {
        nscd__response_acceleration(&response, &none, a);
    }
    return rc;
}

static nscd_status allocate_work(nscd_time_stepping *ts, hets_work *w) {
    size_t nv = (size_t)ts->n_v;
    w->a1 = nscd__arena_array(&ts->arena, nv, sizeof(double));
    w->V2 = nscd__arena_array(&ts->arena, nv, sizeof(double));
    w->a2 = nscd__arena_array(&ts->arena, nv, sizeof(double));
    w->dv = nscd__arena_array(&ts->arena, nv, sizeof(double));
    if (w->a1 == NULL || w->V2 == NULL || w->a2 == NULL || w->dv == NULL) {
        return nscd__fail(&ts->diag, NSCD_ERR_OUT_OF_MEMORY, "HETS stages of %d velocities",
                          (int)nv);
    }
    return NSCD_OK;
}

/* The entries closed at q_k (eq. 41 of seed 003): every equality, every
 * contact with g <= 0, and the loaded contacts nscd__ts_keep_loaded keeps
 * (moreau_jean.c's rule against creep, bounded against phantom supports). */
static nscd_status select_closed(nscd_time_stepping *ts, const nscd__rows *rows, const double *gaps,
                                 nscd__ts_local *local) {
    const nscd__model *m = ts->model;
    int32_t *closed = nscd__arena_array(&ts->arena, (size_t)m->n_contacts + 1, sizeof(int32_t));
    if (closed == NULL) {
        return nscd__fail(&ts->diag, NSCD_ERR_OUT_OF_MEMORY, "closed set");
    }
    for (int32_t e = 0; e < m->n_contacts; ++e) {
        closed[e] = m->contacts[e].kind == NSCD__ENTRY_EQUALITY || gaps[e] <= 0.0;
    }
    nscd_status rc = nscd__ts_keep_loaded(ts, rows, gaps, m->q, local->dt, closed);
    local->n_entries = 0;
    for (int32_t e = 0; e < m->n_contacts; ++e) {
        if (closed[e]) {
            local->entries[local->n_entries++] = e;
        }
    }
    return rc;
}

/* Adds scale * P of a solved local problem to its entries' impulses (the
 * first three rows of each entry, as store_impulses of moreau_jean.c). */
static void add_impulses(nscd_time_stepping *ts, const nscd__ts_local *local, double scale) {
    int32_t first = 0;
    for (int32_t r = 0; r < local->m; ++r) {
        first = (r == 0 || local->row_entry[r] != local->row_entry[r - 1]) ? r : first;
        if (r - first < 3) {
            nscd__contact_slot *slot = &ts->model->contacts[local->entries[local->row_entry[r]]];
            slot->state.impulse[r - first] += scale * local->P[r];
        }
    }
}

/* Warm start of an iterative solver from the entries' last impulses. */
static void warm_start(const nscd_time_stepping *ts, nscd__ts_local *local) {
    int32_t first = 0;
    for (int32_t r = 0; r < local->m; ++r) {
        first = (r == 0 || local->row_entry[r] != local->row_entry[r - 1]) ? r : first;
        const nscd__contact_slot *slot = &ts->model->contacts[local->entries[local->row_entry[r]]];
        local->P[r] =
            (r - first < 3 && local->row_kind[r] >= 0) ? slot->state.impulse[r - first] : 0.0;
    }
}

/* Stage 1: a_1 and V_2 = v_k + dt a_1 with P_1 = dt lambda_1 making V_2
 * admissible on the contacts closed at q_k (velocity level, no restitution:
 * lambda_1 is a force, not an impact). Leaves dt/2 lambda_1 = P_1 / 2 in
 * the entries' impulses: the warm start of stage 2 and half the step's
 * non-impulsive impulse. */
static nscd_status stage_one(nscd_time_stepping *ts, double t, double dt, hets_work *w) {
    nscd__model *m = ts->model;
    nscd__ts_local *local = &w->stage1;
    nscd_status rc = nscd__ts_gather(ts, t, m->q, &w->rows, &w->gap, local);
    if (rc == NSCD_OK) {
        rc = forces_at(ts, t, m->q, m->v);
    }
    if (rc == NSCD_OK) {
        rc = free_acceleration(ts, m->q, w->a1);
    }
    if (rc != NSCD_OK) {
        return rc;
    }
    for (int32_t i = 0; i < m->n_v; ++i) {
        w->V2[i] = m->v[i] + dt * w->a1[i];
    }
    rc = select_closed(ts, w->rows, w->gap, local);
    if (rc == NSCD_OK) {
        rc = nscd__ts_local_build(ts, m, w->rows, m->q, w->V2, NULL, local);
    }
    if (rc != NSCD_OK) {
        return rc;
    }
    warm_start(ts, local);
    rc = nscd__ts_local_solve(ts, local);
    if (rc != NSCD_OK) {
        return rc;
    }
    nscd__ts_local_velocity(local, m->n_v, w->dv);
    for (int32_t i = 0; i < m->n_v; ++i) {
        w->V2[i] += w->dv[i];
        w->a1[i] += w->dv[i] / dt;
    }
    for (int32_t e = 0; e < m->n_contacts; ++e) {
        memset(m->contacts[e].state.impulse, 0, sizeof m->contacts[e].state.impulse);
    }
    add_impulses(ts, local, 0.5);
    return NSCD_OK;
}

/* Stage 2 and the impulses: v_free from the trapezoid of a_1 and a_2, then
 * Moreau–Jean's local problem at Q_2 (ts->q_theta) for P. */
static nscd_status stage_two(nscd_time_stepping *ts, double t, double dt, hets_work *w,
                             nscd__ts_local *local) {
    nscd__model *m = ts->model;
    double *gaps = NULL;
    nscd__rows *rows = NULL;
    nscd_status rc = nscd__ts_gather(ts, t + dt, ts->q_theta, &rows, &gaps, local);
    if (rc == NSCD_OK) {
        rc = forces_at(ts, t + dt, ts->q_theta, w->V2);
    }
    if (rc == NSCD_OK) {
        rc = free_acceleration(ts, ts->q_theta, w->a2);
    }
    if (rc != NSCD_OK) {
        return rc;
    }
    for (int32_t i = 0; i < m->n_v; ++i) {
        ts->v_free[i] = m->v[i] + 0.5 * dt * (w->a1[i] + w->a2[i]);
    }
    /* gamma_dt = 0: Q_2 already looks a whole step ahead */
    return nscd__ts_contact_impulses(ts, m, rows, gaps, 0.0, ts->q_theta, local);
}

/* Q_2 = q_k + dt v_k into ts->q_theta (displace: q may hold rotations). */
static nscd_status predict_positions(nscd_time_stepping *ts, double t, double dt) {
    nscd__model *m = ts->model;
    for (int32_t i = 0; i < m->n_v; ++i) {
        ts->v_mid[i] = dt * m->v[i];
    }
    m->displace(m->self, m->q, ts->v_mid, ts->q_theta);
    if (!nscd__all_finite(ts->q_theta, (size_t)m->n_q)) {
        return nscd__fail(&ts->diag, NSCD_ERR_NOT_FINITE, "the predicted positions from t = %.17g",
                          t);
    }
    return NSCD_OK;
}

/* v_{k+1} = v_free + M(Q_2)^-1 H_2' P, q_{k+1} = q_k + dt/2 (v_k + v_{k+1}). */
static void update_state(nscd_time_stepping *ts, const nscd__ts_local *local, double dt,
                         double *dv) {
    nscd__model *m = ts->model;
    nscd__ts_local_velocity(local, m->n_v, dv);
    for (int32_t i = 0; i < m->n_v; ++i) {
        double v_next = ts->v_free[i] + dv[i];
        dv[i] = 0.5 * dt * (m->v[i] + v_next);
        m->v[i] = v_next;
    }
    m->displace(m->self, m->q, dv, ts->q_theta);
    memcpy(m->q, ts->q_theta, (size_t)m->n_q * sizeof(double));
}

nscd_status nscd__hets_step(nscd_time_stepping *ts, double dt) {
    nscd__model *m = ts->model;
    double t = *m->t;
    nscd__arena_reset(&ts->arena);
    hets_work w;
    memset(&w, 0, sizeof w);
    nscd__ts_local local;
    memset(&local, 0, sizeof local);
    local.prox_r = w.stage1.prox_r = 0.1 * dt; /* the paper's r for impulses (Sect. 2.5) */
    local.dt = w.stage1.dt = dt;
    nscd_status rc = allocate_work(ts, &w);
    if (rc == NSCD_OK) {
        rc = stage_one(ts, t, dt, &w);
    }
    nscd_time_stepping_report first = ts->report; /* stage 1's solver counts */
    if (rc == NSCD_OK) {
        rc = predict_positions(ts, t, dt);
    }
    if (rc == NSCD_OK) {
        rc = stage_two(ts, t, dt, &w, &local);
    }
    if (rc != NSCD_OK) {
        return rc;
    }
    add_impulses(ts, &w.stage1, 0.5); /* stage 2 stored P alone */
    ts->report.iterations += first.iterations;
    ts->report.residual =
        ts->report.residual > first.residual ? ts->report.residual : first.residual;
    ts->report.converged = ts->report.converged && first.converged;
    update_state(ts, &local, dt, w.dv);
    return nscd__ts_finish_step(ts, &local, t, dt);
}
