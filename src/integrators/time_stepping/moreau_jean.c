/* One step of Moreau–Jean's θ-method at the velocity level (Moreau 1988,
 * Jean 1999; Siconos' MoreauJeanOSI, docs/time_stepping.md):
 *
 *   active set   I = {equalities} ∪ {contacts: g_k + gamma dt ġ_k <= 0}
 *   free motion  v_free = v_k + dt M^-1 h(t_θ, q_θ, v_k),
 *                t_θ = t_k + θ dt,  q_θ = q_k + θ dt v_k
 *   local law    u = H v_{k+1},  v_{k+1} = v_free + M^-1 H' P,
 *                0 <= P_N _|_ u_N + e min(u_N,k, 0) >= 0,  u_E = 0,
 *                friction: Coulomb (or maximum dissipation) on P_T, u_T
 *   positions    q_{k+1} = q_k + dt ((1 - θ) v_k + θ v_{k+1})
 *
 * With explicit forces (no Jacobians, or NSCD_TS_FORCES_EXPLICIT) h is
 * taken at the θ-point as above: θ = 1/2 is second order (and area
 * preserving on a linear oscillator), θ = 1 first order (symplectic Euler),
 * stable for ω dt <= 2 only. With implicit forces (moreau_jean_implicit.c)
 * Siconos' form M(v_{k+1} - v_k) = dt(θ f_{k+1} + (1 - θ) f_k) + P is
 * linearised with K = -dh/dq, C = -dh/dv: M is replaced by
 * W_it = M + θ dt C + θ² dt² K and h by h(t_θ, q_k, v_k) - θ dt K v_k. */
#include <math.h>
#include <string.h>

#include "core/check.h"
#include "integrators/time_stepping/time_stepping_impl.h"

/* The active entries at (t_k, q_k, v_k): every equality, and the contacts
 * whose predicted gap g + gamma dt W_N v_k is <= 0 (Siconos' prediction),
 * or that carried a normal impulse in the stepper's previous step and still
 * touch (nscd__ts_keep_loaded; ts->loaded is cleared when the state was
 * changed from outside since). gamma_dt = gamma dt (0 for the midpoint
 * rule: g(q_M) <= 0); local->dt the step. */
static nscd_status select_active(nscd_time_stepping *ts, const nscd__rows *all, const double *gaps,
                                 double gamma_dt, const double *q, nscd__ts_local *local) {
    const nscd__model *m = ts->model;
    int every = local->gaps != NULL; /* seed 004: eq. (24) on every gap */
    for (int32_t e = 0; e < m->n_contacts; ++e) {
        ts->active[e] = every || m->contacts[e].kind == NSCD__ENTRY_EQUALITY ||
                        gaps[e] + gamma_dt * nscd__rows_dot(&all[e], 0, m->v) <= 0.0;
    }
    nscd_status rc = nscd__ts_keep_loaded(ts, all, gaps, q, local->dt, ts->active);
    local->n_entries = 0;
    for (int32_t e = 0; e < m->n_contacts; ++e) {
        if (ts->active[e]) {
            local->entries[local->n_entries++] = e;
        }
    }
    return rc;
}

/* The normal impulse contact e carried over the last step of size dt: the
 * Moreau schemes' and HETS's P_N; the α schemes' impulse Λ_N plus dt times
 * their force λ_N. */
static double step_normal_impulse(const nscd_time_stepping *ts, int32_t e, double dt) {
    double impulse = ts->model->contacts[e].state.impulse[0];
    return ts->scheme->staged ? impulse + dt * ts->force[3 * e] : impulse;
}

nscd_status nscd__ts_keep_loaded(nscd_time_stepping *ts, const nscd__rows *all, const double *gaps,
                                 const double *q, double dt, int32_t *active) {
    nscd__model *m = ts->model;
    int32_t k = 0;
    for (int32_t e = 0; e < m->n_contacts; ++e) {
        if (!active[e] && ts->loaded[e]) {
            active[e] = gaps[e] <= 0.0 || !(dt > 0.0); /* no dt given: unbounded, as before */
            k += !active[e];
        }
    }
    if (k == 0) {
        return NSCD_OK;
    }
    nscd__rows *H = nscd__arena_array(&ts->arena, (size_t)k, sizeof *H);
    int32_t *which = nscd__arena_array(&ts->arena, (size_t)k, sizeof(int32_t));
    if (H == NULL || which == NULL) {
        return nscd__fail(&ts->diag, NSCD_ERR_OUT_OF_MEMORY, "%d loaded contacts", (int)k);
    }
    for (int32_t e = 0, j = 0; e < m->n_contacts; ++e) {
        if (!active[e] && ts->loaded[e]) {
            H[j] = nscd__rows_row(&all[e], 0);
            which[j++] = e;
        }
    }
    nscd__response response;
    nscd_status rc = nscd__response_build(m, &ts->arena, q, NULL, k, H, &response);
    for (int32_t j = 0; rc == NSCD_OK && j < k; ++j) {
        double w = nscd__response_entry(&response, &H[j], j); /* W_ee = w M^-1 w' */
        int32_t e = which[j];
        active[e] = gaps[e] <= dt * w * step_normal_impulse(ts, e, dt);
    }
    return rc;
}

nscd_status nscd__ts_forces_at(nscd_time_stepping *ts, double t, const double *q) {
    nscd__model *m = ts->model;
    nscd_status rc = m->forces(m->self, t, q, m->v, ts->h);
    if (rc == NSCD_ERR_NOT_FINITE) { /* a diverged state, e.g. explicit forces with ω dt > 2 */
        return nscd__fail(&ts->diag, rc, "forces are not finite at t = %.17g (diverged?)", *m->t);
    }
    if (rc != NSCD_OK) {
        return nscd__fail(&ts->diag, NSCD_ERR_CALLBACK, "forces callback failed (%d)", (int)rc);
    }
    if (!nscd__all_finite(ts->h, (size_t)m->n_v)) {
        return nscd__fail(&ts->diag, NSCD_ERR_NOT_FINITE, "forces are not finite");
    }
    return NSCD_OK;
}

/* Explicit: h(t_θ, q_θ, v_k) with q_θ = q_k + θ dt v_k. Implicit:
 * h(t_θ, q_k, v_k) - θ dt K v_k, the θ-mean of the forces linearised at
 * q_k (docs/time_stepping.md). Seed 004's semi-implicit step with explicit
 * forces: h(t_k, q_k, v_k), the forces of K_n at the step's start (eq.
 * 26b), so that its free motion is symplectic Euler. */
static nscd_status theta_forces(nscd_time_stepping *ts, double dt, int implicit) {
    nscd__model *m = ts->model;
    double *dq = ts->v_mid;
    const double *q = m->q;
    if (!implicit && ts->scheme->linearised_gaps) {
        return nscd__ts_forces_at(ts, *m->t, q);
    }
    if (!implicit) {
        for (int32_t i = 0; i < m->n_v; ++i) {
            dq[i] = ts->options.theta * dt * m->v[i];
        }
        m->displace(m->self, m->q, dq, ts->q_theta);
        q = ts->q_theta;
    }
    nscd_status rc = nscd__ts_forces_at(ts, *m->t + ts->options.theta * dt, q);
    if (rc != NSCD_OK) {
        return rc;
    }
    if (implicit) {
        nscd__mj_implicit_rhs(ts, dt, ts->h);
    }
    return NSCD_OK;
}

nscd_status nscd__ts_free_velocity(nscd_time_stepping *ts, nscd__model *solver, const double *q,
                                   double dt) {
    nscd__model *m = ts->model;
    nscd__response response;
    double none = 0.0, *a = ts->v_mid;
    nscd_status rc = nscd__response_build(solver, &ts->arena, q, ts->h, 0, NULL, &response);
    if (rc != NSCD_OK) {
        return rc;
    }
    nscd__response_acceleration(&response, &none, a);
    for (int32_t i = 0; i < m->n_v; ++i) {
        ts->v_free[i] = m->v[i] + dt * a[i];
    }
    if (m->free_rotation != NULL) { /* the gyroscopic torque, energy-safe (core/model.h) */
        m->free_rotation(m->self, q, dt, ts->v_free);
    }
    return NSCD_OK;
}

/* Warm start of fc3d and prox from the entries' last impulses. */
static void warm_start(nscd_time_stepping *ts, nscd__ts_local *local) {
    for (int32_t r = 0; (local->fc3d || local->prox) && r < local->m; ++r) {
        const nscd__contact_slot *slot = &ts->model->contacts[local->entries[local->row_entry[r]]];
        /* row_kind: 0 normal, 1.. tangent (fc3d's dummies -2, equalities -1) */
        local->P[r] = local->row_kind[r] >= 0 ? slot->state.impulse[local->row_kind[r]] : 0.0;
    }
}

/* The impulses into the entries' state (0 for inactive entries). */
static void store_impulses(nscd_time_stepping *ts, const nscd__ts_local *local) {
    nscd__model *m = ts->model;
    for (int32_t e = 0; e < m->n_contacts; ++e) {
        memset(m->contacts[e].state.impulse, 0, sizeof m->contacts[e].state.impulse);
    }
    int32_t first = 0;
    for (int32_t r = 0; r < local->m; ++r) {
        first = (r == 0 || local->row_entry[r] != local->row_entry[r - 1]) ? r : first;
        if (r - first < 3) {
            m->contacts[local->entries[local->row_entry[r]]].state.impulse[r - first] = local->P[r];
        }
    }
}

/* v_{k+1} = v_free + W_it^-1 H' P, q_{k+1} = q_k + dt((1 - θ) v_k + θ v_{k+1}). */
static void update_state(nscd_time_stepping *ts, const nscd__ts_local *local, double dt) {
    nscd__model *m = ts->model;
    double *dv = ts->v_mid, theta = ts->options.theta;
    nscd__ts_local_velocity(local, m->n_v, dv);
    for (int32_t i = 0; i < m->n_v; ++i) {
        double v_next = ts->v_free[i] + dv[i];
        dv[i] = dt * ((1.0 - theta) * m->v[i] + theta * v_next);
        m->v[i] = v_next;
    }
    m->displace(m->self, m->q, dv, ts->q_theta);
    memcpy(m->q, ts->q_theta, (size_t)m->n_q * sizeof(double));
}

nscd_status nscd__ts_finish_step(nscd_time_stepping *ts, const nscd__ts_local *local, double t,
                                 double dt) {
    nscd__model *m = ts->model;
    *m->t = t + dt;
    if (!nscd__all_finite(m->q, (size_t)m->n_q) || !nscd__all_finite(m->v, (size_t)m->n_v)) {
        return nscd__fail(&ts->diag, NSCD_ERR_NOT_FINITE, "the step from t = %.17g diverged", t);
    }
    t = *m->t;
    nscd__rows *rows = NULL;
    double *gaps = nscd__arena_array(&ts->arena, (size_t)m->n_contacts + 1, sizeof(double));
    int32_t *all = nscd__arena_array(&ts->arena, (size_t)m->n_contacts + 1, sizeof(int32_t));
    if (gaps == NULL || all == NULL) {
        return nscd__fail(&ts->diag, NSCD_ERR_OUT_OF_MEMORY, "gaps of %d entries",
                          (int)m->n_contacts);
    }
    for (int32_t e = 0; e < m->n_contacts; ++e) {
        all[e] = e;
    }
    nscd_status rc = nscd__gather_rows(m, &ts->arena, t, m->q, m->n_contacts, all, &rows, gaps);
    nscd_time_stepping_report *r = &ts->report;
    r->max_penetration = 0.0;
    r->equality_violation = 0.0;
    r->new_contacts = 0;
    for (int32_t e = 0; rc == NSCD_OK && e < m->n_contacts; ++e) {
        if (m->contacts[e].kind == NSCD__ENTRY_UNILATERAL) {
            r->max_penetration = fmax(r->max_penetration, -gaps[e]);
        } else {
            r->equality_violation = fmax(r->equality_violation, fabs(gaps[e]));
        }
        r->new_contacts += ts->active[e] && !ts->active_before[e];
    }
    r->active_contacts = local->n_entries;
    r->rows = local->m;
    return rc;
}

nscd_status nscd__ts_gather(nscd_time_stepping *ts, double t, const double *q, nscd__rows **rows,
                            double **gaps, nscd__ts_local *local) {
    nscd__model *m = ts->model;
    size_t n_c = (size_t)m->n_contacts + 1;
    int32_t *all = nscd__arena_array(&ts->arena, n_c, sizeof(int32_t));
    *gaps = nscd__arena_array(&ts->arena, n_c, sizeof(double));
    local->entries = nscd__arena_array(&ts->arena, n_c, sizeof(int32_t));
    if (all == NULL || *gaps == NULL || local->entries == NULL) {
        return nscd__fail(&ts->diag, NSCD_ERR_OUT_OF_MEMORY, "entries of one step");
    }
    for (int32_t e = 0; e < m->n_contacts; ++e) {
        all[e] = e;
    }
    nscd_status rc = nscd__gather_rows(m, &ts->arena, t, q, m->n_contacts, all, rows, *gaps);
    if (rc != NSCD_OK) {
        return rc;
    }
    if (!nscd__all_finite(*gaps, (size_t)m->n_contacts)) {
        return nscd__fail(&ts->diag, NSCD_ERR_NOT_FINITE, "a gap is not finite at t = %.17g", t);
    }
    return NSCD_OK;
}

nscd_status nscd__ts_contact_impulses(nscd_time_stepping *ts, nscd__model *solver,
                                      const nscd__rows *rows, const double *gaps, double gamma_dt,
                                      const double *q, nscd__ts_local *local) {
    nscd__model *m = ts->model;
    nscd_status rc = select_active(ts, rows, gaps, gamma_dt, q, local);
    if (rc == NSCD_OK) {
        rc = nscd__ts_local_build(ts, solver, rows, q, ts->v_free, m->v, local);
    }
    if (rc != NSCD_OK) {
        return rc;
    }
    warm_start(ts, local);
    rc = nscd__ts_local_solve(ts, local);
    if (rc == NSCD_ERR_NOT_CONVERGED && local->block_gs &&
        ts->options.local_solver == NSCD_TS_SOLVER_AUTO) {
        /* AUTO: the block Gauss-Seidel did not reach the tolerance; the
         * same active set goes to the solver AUTO picks without it */
        nscd__diag_clear(&ts->diag);
        local->block_gs_allowed = 0;
        rc = nscd__ts_local_build(ts, solver, rows, q, ts->v_free, m->v, local);
        if (rc == NSCD_OK) {
            warm_start(ts, local);
            rc = nscd__ts_local_solve(ts, local);
        }
    }
    if (rc != NSCD_OK) {
        return rc;
    }
    store_impulses(ts, local);
    return NSCD_OK;
}

/* H' P of the step into y (n_v, zeroed first): the dense problem's rows and
 * impulses, or for fc3d each contact's rows and stored impulses (its dummy
 * rows carry P = 0). */
static void constraint_impulse(const nscd_time_stepping *ts, const nscd__ts_local *local,
                               const nscd__rows *rows, double *y) {
    const nscd__model *m = ts->model;
    memset(y, 0, (size_t)m->n_v * sizeof(double));
    if (!local->fc3d) {
        for (int32_t r = 0; r < local->m; ++r) {
            nscd__rows_add_to(&local->H[r], 0, local->P[r], y);
        }
        return;
    }
    for (int32_t i = 0; i < local->n_entries; ++i) {
        int32_t e = local->entries[i];
        int32_t n = rows[e].n_rows < 3 ? rows[e].n_rows : 3;
        for (int32_t a = 0; a < n; ++a) {
            nscd__rows_add_to(&rows[e], a, m->contacts[e].state.impulse[a], y);
        }
    }
}

/* The residual of the impulse balance (eq. 16a discretised),
 * max_i |(M(q_k)(v_{k+1} - v_k) - dt h - H' P)_i|, recomputed with the
 * model's mass product after the update (q_k, v_k from the state saved
 * before the step); -1 when the model has no mass product. */
static double momentum_residual(nscd_time_stepping *ts, const nscd__ts_local *local,
                                const nscd__rows *rows, double dt) {
    nscd__model *m = ts->model;
    size_t n = (size_t)m->n_v;
    double *dv = nscd__arena_array(&ts->arena, n + 1, sizeof(double));
    double *Mdv = nscd__arena_array(&ts->arena, n + 1, sizeof(double));
    double *HtP = nscd__arena_array(&ts->arena, n + 1, sizeof(double));
    if (dv == NULL || Mdv == NULL || HtP == NULL || m->mass_times == NULL) {
        return -1.0;
    }
    for (size_t i = 0; i < n; ++i) {
        dv[i] = m->v[i] - ts->saved.v[i];
    }
    if (m->mass_times(m->self, ts->saved.q, dv, Mdv) != NSCD_OK) {
        nscd__diag_clear(m->diag); /* not available: no error of the step */
        return -1.0;
    }
    constraint_impulse(ts, local, rows, HtP);
    double worst = 0.0;
    for (size_t i = 0; i < n; ++i) {
        worst = fmax(worst, fabs(Mdv[i] - dt * ts->h[i] - HtP[i]));
    }
    return worst;
}

nscd_status nscd__moreau_jean_step(nscd_time_stepping *ts, double dt) {
    nscd__model *m = ts->model;
    double t = *m->t, *gaps = NULL;
    nscd__arena_reset(&ts->arena);
    nscd__ts_local local;
    memset(&local, 0, sizeof local);
    local.prox_r = 0.1 * dt; /* the paper's r for impulses (Sect. 2.5) */
    local.dt = dt;
    nscd__rows *rows = NULL;
    nscd_status rc = nscd__ts_gather(ts, t, m->q, &rows, &gaps, &local);
    if (rc != NSCD_OK) {
        return rc;
    }
    if (ts->scheme->linearised_gaps) { /* eqs. (23), (24): biases g_k / dt */
        local.gaps = gaps;
    }
    nscd__model *solver = m;
    rc = nscd__mj_forces_setup(ts, dt, &solver);
    if (rc == NSCD_OK) {
        rc = theta_forces(ts, dt, solver != m);
    }
    if (rc == NSCD_OK) {
        rc = nscd__ts_free_velocity(ts, solver, m->q, dt);
    }
    /* the block Gauss-Seidel needs M itself (explicit forces): W_it of
     * implicit forces is not a rigid body's */
    local.block_gs_allowed = solver == m;
    if (rc == NSCD_OK) {
        rc =
            nscd__ts_contact_impulses(ts, solver, rows, gaps, ts->options.gamma * dt, m->q, &local);
    }
    if (rc != NSCD_OK) {
        return rc;
    }
    update_state(ts, &local, dt);
    rc = nscd__ts_finish_step(ts, &local, t, dt);
    /* the semi-implicit scheme only (the others keep their cost); implicit
     * forces balance with W_it, not M */
    if (rc == NSCD_OK && local.gaps != NULL && solver == m) {
        ts->report.momentum_residual = momentum_residual(ts, &local, rows, dt);
    }
    return rc;
}
