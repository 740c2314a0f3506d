/* One step of the mixed framework of seed 003 (Fig. 4; Sect. 2.3–2.5;
 * docs/time_stepping.md, "The α schemes"):
 *
 *   closed set   I_1^i = {equalities} ∪ {contacts: g(q_i) <= 0, or loaded
 *                in the previous step}                              (41)
 *   start        a_0 (consistent: with the forces λ_0 of I_1^0; paper:
 *                M^-1 h_0, eqs. 25/62) when the scheme has no history
 *   base scheme  its stages with the non-impulsive forces of I_1^i
 *                (generalized_alpha.c, bathe.c, ed_alpha.c)
 *   impact test  some contact outside I_1^i with g(q_{i+1}) <= 0   (18)
 *   correction   v^+ = v^- + M^-1 H' Λ over every entry with
 *                g(q_{i+1}) <= 0 and every equality, Newton's law
 *                0 <= ġ^+ + ε ġ^- ⊥ Λ >= 0 with friction   (46)–(54)
 *
 * The correction changes v only: a_{i+1} and A_{i+1} are kept as the base
 * scheme left them (the paper's Fig. 4 restarts nothing either). */
#include <math.h>
#include <string.h>

#include "core/check.h"
#include "integrators/alpha/mixed_impl.h"

/* I_1 at (t, q): equalities, contacts with g <= 0, and when loaded_dt > 0
 * the contacts loaded in the previous step of size loaded_dt that still
 * touch (nscd__ts_keep_loaded: creep without them, phantom supports if
 * they were kept at any gap). */
static nscd_status closed_set(nscd_time_stepping *ts, double t, const double *q, double loaded_dt,
                              nscd__ts_closed *closed, double **gaps_out) {
    nscd__model *m = ts->model;
    size_t nc = (size_t)m->n_contacts + 1;
    int32_t *all = nscd__arena_array(&ts->arena, nc, sizeof(int32_t));
    double *gaps = nscd__arena_array(&ts->arena, nc, sizeof(double));
    closed->entries = nscd__arena_array(&ts->arena, nc, sizeof(int32_t));
    closed->resting = nscd__arena_array(&ts->arena, nc, sizeof(int32_t));
    if (all == NULL || gaps == NULL || closed->entries == NULL || closed->resting == NULL) {
        return nscd__fail(&ts->diag, NSCD_ERR_OUT_OF_MEMORY, "closed set");
    }
    for (int32_t e = 0; e < m->n_contacts; ++e) {
        all[e] = e;
    }
    nscd__rows *rows = NULL;
    nscd_status rc = nscd__gather_rows(m, &ts->arena, t, q, m->n_contacts, all, &rows, gaps);
    if (rc != NSCD_OK) {
        return rc;
    }
    if (!nscd__all_finite(gaps, (size_t)m->n_contacts)) {
        return nscd__fail(&ts->diag, NSCD_ERR_NOT_FINITE, "a gap is not finite at t = %.17g", t);
    }
    int32_t *in = all; /* reused: the entry's membership */
    for (int32_t e = 0; e < m->n_contacts; ++e) {
        in[e] = m->contacts[e].kind == NSCD__ENTRY_EQUALITY || gaps[e] <= 0.0;
    }
    int loaded_too = loaded_dt > 0.0;
    if (loaded_too) {
        rc = nscd__ts_keep_loaded(ts, rows, gaps, q, loaded_dt, in);
        if (rc != NSCD_OK) {
            return rc;
        }
    }
    closed->n = closed->n_resting = 0;
    for (int32_t e = 0; e < m->n_contacts; ++e) {
        int equality = m->contacts[e].kind == NSCD__ENTRY_EQUALITY;
        if (in[e]) {
            closed->entries[closed->n++] = e;
        }
        if (in[e] && (equality || nscd__rows_dot(&rows[e], 0, m->v) <= 0.0 ||
                      (loaded_too && ts->force[3 * e] > 0.0))) {
            closed->resting[closed->n_resting++] = e;
        }
    }
    *gaps_out = gaps;
    return NSCD_OK;
}

/* The start a_0 at the model's state: M^-1 h_0 (paper, eqs. 25/62) or
 * M^-1 (h_0 + H' λ_0) with λ_0 from 0 <= H a_0 + Ḣ v_0 ⊥ λ_0 >= 0 over
 * I_1^0 (consistent, the default), into ts->alpha.acc and acc_aux. */
static nscd_status start(nscd_time_stepping *ts, const nscd__ts_closed *closed) {
    nscd__model *m = ts->model;
    int32_t n = m->n_v;
    nscd__ts_stage s;
    memset(&s, 0, sizeof s);
    nscd_status rc = nscd__ts_stage_alloc(ts, &s);
    double *zero = nscd__arena_array(&ts->arena, (size_t)n + 1, sizeof(double));
    if (rc != NSCD_OK || zero == NULL) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    /* a stage with γ' = β' = 0 at the current state: M a = h + H' λ, λ on
     * the acceleration level; the paper's start has no closed entries */
    nscd__ts_closed none = {0, closed->entries, 0, closed->resting};
    nscd__ts_closed resting = nscd__ts_resting(closed);
    int32_t level = ts->options.level;
    ts->options.level = NSCD_TS_LEVEL_ACCELERATION;
    s.t = *m->t;
    s.gamma_p = 0.0;
    s.beta_p = 0.0;
    s.q_base = m->q;
    s.dq_pred = zero;
    s.v_pred = m->v;
    memset(s.a, 0, (size_t)n * sizeof(double));
    int32_t newton = ts->report.newton_iterations;
    rc = nscd__ts_stage_solve(ts, ts->options.start == NSCD_TS_START_PAPER ? &none : &resting, &s);
    ts->report.newton_iterations = newton; /* the start is not a step's iteration */
    ts->options.level = level;
    if (rc != NSCD_OK) {
        return rc;
    }
    memcpy(ts->alpha.acc, s.a, (size_t)n * sizeof(double));
    memcpy(ts->alpha.acc_aux, s.a, (size_t)n * sizeof(double));
    return NSCD_OK;
}

/* The impulsive correction at q_{i+1} over `set` (46)–(54): the
 * Moreau–Jean local problem with v_free = v_k = v^- (the restitution bias
 * ε min(ġ^-, 0), ε_T ġ_T^-) and M^-1; v^+ into the model, Λ into the
 * entries' state.impulse. */
static nscd_status impulsive_correction(nscd_time_stepping *ts, const nscd__ts_closed *set,
                                        double t, double dt) {
    nscd__model *m = ts->model;
    int32_t n = m->n_v;
    double *v_minus = nscd__arena_array(&ts->arena, (size_t)n + 1, sizeof(double));
    double *dv = nscd__arena_array(&ts->arena, (size_t)n + 1, sizeof(double));
    double *impulses =
        nscd__arena_array(&ts->arena, 3 * ((size_t)m->n_contacts + 1), sizeof(double));
    nscd__rows *all = nscd__arena_array(&ts->arena, (size_t)m->n_contacts + 1, sizeof *all);
    nscd__rows *rows = NULL;
    if (!v_minus || !dv || !impulses || !all) {
        return nscd__fail(&ts->diag, NSCD_ERR_OUT_OF_MEMORY, "impulsive correction");
    }
    nscd_status rc = nscd__gather_rows(m, &ts->arena, t, m->q, set->n, set->entries, &rows, NULL);
    if (rc != NSCD_OK) {
        return rc;
    }
    for (int32_t i = 0; i < set->n; ++i) {
        all[set->entries[i]] = rows[i];
    }
    memcpy(v_minus, m->v, (size_t)n * sizeof(double));
    nscd__ts_local local;
    memset(&local, 0, sizeof local);
    local.entries = set->entries;
    local.n_entries = set->n;
    local.tangential_restitution = 1;
    local.prox_r = 0.1 * dt;         /* the paper's r for impulses (Sect. 2.5) */
    nscd__impulse_subspace subspace; /* impulse_velocities > 0: the first K only */
    nscd__model *target = nscd__impulse_subspace_model(ts, &subspace);
    rc = nscd__ts_local_build(ts, target, all, m->q, v_minus, v_minus, &local);
    for (int32_t r = 0; rc == NSCD_OK && local.fc3d && r < local.m; ++r) { /* cold start */
        local.P[r] = 0.0;
    }
    int32_t before = ts->report.iterations;
    if (rc == NSCD_OK) {
        rc = nscd__ts_local_solve(ts, &local);
    }
    ts->report.iterations += before;
    if (rc != NSCD_OK) {
        return rc;
    }
    nscd__ts_local_velocity(&local, n, dv);
    for (int32_t i = 0; i < n; ++i) {
        m->v[i] = v_minus[i] + dv[i];
    }
    nscd__ts_store_entry_values(&local, 1.0, m->n_contacts, impulses);
    for (int32_t e = 0; e < m->n_contacts; ++e) {
        memcpy(m->contacts[e].state.impulse, impulses + 3 * (size_t)e, 3 * sizeof(double));
    }
    return NSCD_OK;
}

/* Test (18) and, when a contact outside I_1^i closed, the correction over
 * the closed set at q_{i+1}; marks ts->active with the entries the step used. */
static nscd_status impacts(nscd_time_stepping *ts, const nscd__ts_closed *closed, double t_next,
                           double dt, int32_t *impact_set_size) {
    nscd__model *m = ts->model;
    for (int32_t e = 0; e < m->n_contacts; ++e) {
        memset(m->contacts[e].state.impulse, 0, sizeof m->contacts[e].state.impulse);
        ts->active[e] = 0;
    }
    for (int32_t i = 0; i < closed->n; ++i) {
        ts->active[closed->entries[i]] = 1;
    }
    nscd__ts_closed after;
    double *gaps = NULL;
    nscd_status rc = closed_set(ts, t_next, m->q, 0.0, &after, &gaps);
    if (rc != NSCD_OK) {
        return rc;
    }
    int32_t fresh = 0;
    for (int32_t i = 0; i < after.n; ++i) {
        fresh += !ts->active[after.entries[i]];
    }
    ts->report.new_contacts = fresh;
    ts->report.impact = fresh > 0;
    *impact_set_size = 0;
    if (fresh == 0) {
        return NSCD_OK;
    }
    for (int32_t i = 0; i < after.n; ++i) {
        ts->active[after.entries[i]] = 1;
    }
    *impact_set_size = after.n;
    return impulsive_correction(ts, &after, t_next, dt);
}

nscd_status nscd__alpha_step(nscd_time_stepping *ts, double dt) {
    nscd__model *m = ts->model;
    double t = *m->t, *gaps = NULL;
    nscd__arena_reset(&ts->arena);
    ts->report.iterations = 0;
    ts->report.newton_iterations = 0;
    ts->report.residual = 0.0;
    ts->report.converged = 1;
    ts->report.rows = 0;
    nscd__ts_closed closed;
    nscd_status rc = closed_set(ts, t, m->q, dt, &closed, &gaps);
    if (rc == NSCD_OK && !ts->alpha.has_history) {
        rc = start(ts, &closed);
    }
    if (rc == NSCD_OK) {
        rc = ts->scheme->stages(ts, &closed, dt); /* the base scheme's */
    }
    int32_t impact_set = 0;
    if (rc == NSCD_OK) {
        rc = impacts(ts, &closed, t + dt, dt, &impact_set);
    }
    if (rc != NSCD_OK) {
        return rc;
    }
    nscd__ts_local summary;
    memset(&summary, 0, sizeof summary);
    summary.n_entries = impact_set > closed.n ? impact_set : closed.n;
    summary.m = ts->report.rows;
    int32_t fresh = ts->report.new_contacts;
    rc = nscd__ts_finish_step(ts, &summary, t, dt);
    ts->report.new_contacts = fresh; /* the new impacts of test (18) */
    return rc;
}
