/* One implicit stage of an α scheme with the forces of its closed entries
 * (seed 003, Sect. 2.4.2 and eq. 55; docs/time_stepping.md):
 *
 *     v = v_pred + γ' a,   q = q_base "+" (dq_pred + β' a),
 *     M(q) a = h(t, q, v) + H(q)' λ.
 *
 * Newton on a with the effective matrix M̂ = M + γ' C + β' K (K = -dh/dq,
 * C = -dh/dv; eq. 36 for generalized-α), M, h, H, K, C at the iterate:
 *
 *     a^{k+1} = a_free + M̂^-1 H' λ,   a_free = a^k + M̂^-1 (h^k - M^k a^k).
 *
 * Without Jacobians M̂ = M and a_free = M^-1 h^k: the fixed point of (55).
 * Velocity level (eqs. 27–40): v^{k+1} = v_pred + γ' a_free + γ' M̂^-1 H' λ
 * is affine in λ, so with P = γ' λ the local problem is Moreau–Jean's,
 * W = H M̂^-1 H', c = H (v_pred + γ' a_free), no restitution bias, solved by
 * the same code (the proxy model of moreau_jean_implicit.c applies M̂^-1).
 * Acceleration level: 0 <= H a + Ḣ v ⊥ λ >= 0 (= 0 on equality rows), the
 * same problem for P = λ with c = H a_free + Ḣ v. */
#include <math.h>
#include <string.h>

#include "core/check.h"
#include "core/dense.h"
#include "integrators/alpha/mixed_impl.h"

nscd_status nscd__ts_stage_alloc(nscd_time_stepping *ts, nscd__ts_stage *stage) {
    const nscd__model *m = ts->model;
    size_t nv = (size_t)m->n_v + 1, nq = (size_t)m->n_q + 1;
    stage->a = nscd__arena_array(&ts->arena, nv, sizeof(double));
    stage->v = nscd__arena_array(&ts->arena, nv, sizeof(double));
    stage->dq = nscd__arena_array(&ts->arena, nv, sizeof(double));
    stage->q = nscd__arena_array(&ts->arena, nq, sizeof(double));
    stage->force = nscd__arena_array(&ts->arena, 3 * ((size_t)m->n_contacts + 1), sizeof(double));
    if (!stage->a || !stage->v || !stage->dq || !stage->q || !stage->force) {
        return nscd__fail(&ts->diag, NSCD_ERR_OUT_OF_MEMORY, "stage of %d velocities", (int)m->n_v);
    }
    return NSCD_OK;
}

/* v, dq and q of the stage for its current a. */
static void place(const nscd_time_stepping *ts, nscd__ts_stage *s) {
    const nscd__model *m = ts->model;
    for (int32_t i = 0; i < m->n_v; ++i) {
        s->v[i] = s->v_pred[i] + s->gamma_p * s->a[i];
        s->dq[i] = s->dq_pred[i] + s->beta_p * s->a[i];
    }
    m->displace(m->self, s->q_base, s->dq, s->q);
}

/* h(t, q, v) of the model into h, with the stepper's messages. */
static nscd_status forces(nscd_time_stepping *ts, double t, const double *q, const double *v,
                          double *h) {
    nscd__model *m = ts->model;
    nscd_status rc = m->forces(m->self, t, q, v, h);
    if (rc == NSCD_ERR_NOT_FINITE || (rc == NSCD_OK && !nscd__all_finite(h, (size_t)m->n_v))) {
        return nscd__fail(&ts->diag, NSCD_ERR_NOT_FINITE, "forces are not finite at t = %.17g", t);
    }
    if (rc != NSCD_OK) {
        return nscd__fail(&ts->diag, NSCD_ERR_CALLBACK, "forces callback failed (%d)", (int)rc);
    }
    return NSCD_OK;
}

/* a_free = M^-1 h (no Jacobians: solver is the model) or
 * a + M̂^-1 (h - M a) (Newton), M̂^-1 through solver->mass_solve. */
static nscd_status free_acceleration(nscd_time_stepping *ts, nscd__model *solver, const double *q,
                                     const double *a, double *h, double *a_free) {
    nscd__model *m = ts->model;
    int32_t n = m->n_v;
    if (solver != m) { /* the residual h - M a with the M of the same q */
        const double *M = ts->implicit.M;
        for (int32_t i = 0; i < n; ++i) {
            h[i] -= nscd__dot(n, M + (size_t)i * (size_t)n, a);
        }
    }
    nscd__response response;
    double none = 0.0;
    nscd_status rc = nscd__response_build(solver, &ts->arena, q, h, 0, NULL, &response);
    if (rc != NSCD_OK) {
        return rc;
    }
    nscd__response_acceleration(&response, &none, a_free);
    for (int32_t i = 0; solver != m && i < n; ++i) {
        a_free[i] += a[i];
    }
    return NSCD_OK;
}

void nscd__ts_store_entry_values(const nscd__ts_local *local, double scale, int32_t n_entries,
                                 double *values) {
    memset(values, 0, 3 * (size_t)n_entries * sizeof(double));
    int32_t first = 0;
    for (int32_t r = 0; r < local->m; ++r) {
        first = (r == 0 || local->row_entry[r] != local->row_entry[r - 1]) ? r : first;
        if (r - first < 3 && local->row_kind[r] != -2) {
            values[3 * (size_t)local->entries[local->row_entry[r]] + (size_t)(r - first)] =
                local->P[r] / scale;
        }
    }
}

void nscd__ts_add_rows_rate(const nscd__ts_local *local, const double *hv) {
    int32_t first = 0;
    for (int32_t r = 0; r < local->m; ++r) {
        first = (r == 0 || local->row_entry[r] != local->row_entry[r - 1]) ? r : first;
        if (local->row_kind[r] != -2) {
            size_t e = (size_t)local->entries[local->row_entry[r]];
            local->c[r] += hv[e * NSCD__MAX_ENTRY_ROWS + (size_t)(r - first)];
        }
    }
}

/* Rows of the closed entries at q "+" s v into *rows (indexed by entry). */
static nscd_status rows_along(nscd_time_stepping *ts, const nscd__ts_closed *closed, double t,
                              const double *q, const double *v, double s, double *dq, double *qs,
                              nscd__rows **rows) {
    nscd__model *m = ts->model;
    for (int32_t i = 0; i < m->n_v; ++i) {
        dq[i] = s * v[i];
    }
    m->displace(m->self, q, dq, qs);
    return nscd__gather_rows(m, &ts->arena, t, qs, closed->n, closed->entries, rows, NULL);
}

nscd_status nscd__ts_rows_rate(nscd_time_stepping *ts, const nscd__ts_closed *closed, double t,
                               const double *q, const double *v, double *hv) {
    nscd__model *m = ts->model;
    memset(hv, 0, (size_t)m->n_contacts * NSCD__MAX_ENTRY_ROWS * sizeof(double));
    double vmax = 0.0, qmax = 0.0;
    for (int32_t i = 0; i < m->n_v; ++i) {
        vmax = fmax(vmax, fabs(v[i]));
    }
    for (int32_t i = 0; i < m->n_q; ++i) {
        qmax = fmax(qmax, fabs(q[i]));
    }
    if (closed->n == 0 || vmax == 0.0) {
        return NSCD_OK;
    }
    /* ε v moves q by about 1e-7 (1 + |q|): the central difference's error
     * O(ε²) and its rounding O(1e-16 / ε) balance there */
    double eps = 1e-7 * (1.0 + qmax) / vmax;
    double *dq = nscd__arena_array(&ts->arena, (size_t)m->n_v + 1, sizeof(double));
    double *qs = nscd__arena_array(&ts->arena, (size_t)m->n_q + 1, sizeof(double));
    if (dq == NULL || qs == NULL) {
        return nscd__fail(&ts->diag, NSCD_ERR_OUT_OF_MEMORY, "rows rate");
    }
    nscd__rows *plus = NULL, *minus = NULL;
    nscd_status rc = rows_along(ts, closed, t, q, v, eps, dq, qs, &plus);
    if (rc == NSCD_OK) {
        rc = rows_along(ts, closed, t, q, v, -eps, dq, qs, &minus);
    }
    for (int32_t i = 0; rc == NSCD_OK && i < closed->n; ++i) {
        size_t e = (size_t)closed->entries[i];
        for (int32_t r = 0; r < plus[i].n_rows && r < NSCD__MAX_ENTRY_ROWS; ++r) {
            double up = nscd__rows_dot(&plus[i], r, v), down = nscd__rows_dot(&minus[i], r, v);
            hv[e * NSCD__MAX_ENTRY_ROWS + (size_t)r] = up == down ? 0.0 : (up - down) / (2 * eps);
        }
    }
    return rc;
}

/* The closed entries' local problem of one iterate, solved: a_new receives
 * a_free + M̂^-1 H' λ and s->force the forces λ. */
static nscd_status closed_forces(nscd_time_stepping *ts, const nscd__ts_closed *all_closed,
                                 nscd__model *solver, nscd__ts_stage *s, const double *a_free,
                                 double *a_new) {
    nscd__model *m = ts->model;
    int32_t n = m->n_v;
    int velocity = ts->options.level == NSCD_TS_LEVEL_VELOCITY;
    nscd__ts_closed resting = nscd__ts_resting(all_closed);
    const nscd__ts_closed *closed = velocity ? all_closed : &resting;
    double scale = velocity ? s->gamma_p : 1.0; /* P = γ' λ on the velocity level */
    double *base = nscd__arena_array(&ts->arena, (size_t)n + 1, sizeof(double));
    double *zero = nscd__arena_array(&ts->arena, (size_t)n + 1, sizeof(double));
    double *dv = nscd__arena_array(&ts->arena, (size_t)n + 1, sizeof(double));
    nscd__rows *all = nscd__arena_array(&ts->arena, (size_t)m->n_contacts + 1, sizeof *all);
    nscd__rows *rows = NULL;
    if (!base || !zero || !dv || !all) {
        return nscd__fail(&ts->diag, NSCD_ERR_OUT_OF_MEMORY, "closed-contact forces");
    }
    nscd_status rc =
        nscd__gather_rows(m, &ts->arena, s->t, s->q, closed->n, closed->entries, &rows, NULL);
    if (rc != NSCD_OK) {
        return rc;
    }
    for (int32_t i = 0; i < closed->n; ++i) { /* the build indexes rows by entry */
        all[closed->entries[i]] = rows[i];
    }
    for (int32_t i = 0; i < n; ++i) {
        base[i] = velocity ? s->v_pred[i] + s->gamma_p * a_free[i] : a_free[i];
    }
    nscd__ts_local local;
    memset(&local, 0, sizeof local);
    local.entries = closed->entries;
    local.n_entries = closed->n;
    local.prox_r = 0.1 * scale; /* the paper's r = 0.1 for forces (Sect. 2.4.2), P = scale λ */
    rc = nscd__ts_local_build(ts, solver, all, s->q, base, zero, &local); /* v_k = 0: no bias */
    if (rc == NSCD_OK && !velocity) {
        double *hv = nscd__arena_array(&ts->arena, (size_t)m->n_contacts * NSCD__MAX_ENTRY_ROWS + 1,
                                       sizeof(double));
        rc = hv == NULL ? NSCD_ERR_OUT_OF_MEMORY
                        : nscd__ts_rows_rate(ts, closed, s->t, s->q, s->v, hv);
        if (rc == NSCD_OK) {
            nscd__ts_add_rows_rate(&local, hv);
        }
    }
    for (int32_t r = 0; rc == NSCD_OK && local.fc3d && r < local.m; ++r) { /* warm start */
        int32_t kind = local.row_kind[r];
        local.P[r] = kind >= 0 ? scale * s->force[3 * local.entries[local.row_entry[r]] + kind] : 0;
    }
    if (rc == NSCD_OK) {
        int32_t before = ts->report.iterations;
        rc = nscd__ts_local_solve(ts, &local);
        ts->report.iterations += before;
    }
    if (rc != NSCD_OK) {
        return rc;
    }
    nscd__ts_local_velocity(&local, n, dv);
    for (int32_t i = 0; i < n; ++i) {
        a_new[i] = a_free[i] + dv[i] / scale;
    }
    nscd__ts_store_entry_values(&local, scale, m->n_contacts, s->force);
    ts->report.rows = local.m;
    return NSCD_OK;
}

/* One update a^k -> a^{k+1}; *change = max |v^{k+1} - v^k|. */
static nscd_status update(nscd_time_stepping *ts, const nscd__ts_closed *closed, nscd__ts_stage *s,
                          double *change) {
    nscd__model *m = ts->model;
    int32_t n = m->n_v;
    double *h = nscd__arena_array(&ts->arena, (size_t)n + 1, sizeof(double));
    double *a_free = nscd__arena_array(&ts->arena, (size_t)n + 1, sizeof(double));
    double *a_new = nscd__arena_array(&ts->arena, (size_t)n + 1, sizeof(double));
    if (!h || !a_free || !a_new) {
        return nscd__fail(&ts->diag, NSCD_ERR_OUT_OF_MEMORY, "stage of %d velocities", (int)n);
    }
    nscd__model *solver = m;
    nscd_status rc = forces(ts, s->t, s->q, s->v, h);
    if (rc == NSCD_OK) {
        rc = nscd__ts_effective_setup(ts, s->t, s->q, s->v, s->gamma_p, s->beta_p, &solver);
    }
    if (rc == NSCD_OK) {
        rc = free_acceleration(ts, solver, s->q, s->a, h, a_free);
    }
    if (rc == NSCD_OK) {
        rc = closed_forces(ts, closed, solver, s, a_free, a_new);
    }
    if (rc != NSCD_OK) {
        return rc;
    }
    *change = 0.0;
    for (int32_t i = 0; i < n; ++i) {
        *change = fmax(*change, fabs(s->gamma_p * (a_new[i] - s->a[i])));
    }
    memcpy(s->a, a_new, (size_t)n * sizeof(double));
    place(ts, s);
    if (!nscd__all_finite(s->a, (size_t)n) || !nscd__all_finite(s->q, (size_t)m->n_q)) {
        return nscd__fail(&ts->diag, NSCD_ERR_NOT_FINITE, "stage at t = %.17g diverged", s->t);
    }
    return NSCD_OK;
}

nscd_status nscd__ts_stage_solve(nscd_time_stepping *ts, const nscd__ts_closed *closed,
                                 nscd__ts_stage *stage) {
    const nscd__model *m = ts->model;
    place(ts, stage);
    double change = 0.0;
    for (int32_t k = 1; k <= ts->options.max_newton_iterations; ++k) {
        nscd_status rc = update(ts, closed, stage, &change);
        if (rc != NSCD_OK) {
            return rc;
        }
        double vmax = 0.0;
        for (int32_t i = 0; i < m->n_v; ++i) {
            vmax = fmax(vmax, fabs(stage->v[i]));
        }
        if (change <= ts->options.newton_tolerance * (1.0 + vmax)) {
            ts->report.newton_iterations += k;
            return NSCD_OK;
        }
    }
    return nscd__fail(&ts->diag, NSCD_ERR_NOT_CONVERGED,
                      "stage at t = %.17g: %d force iterations, |dv| = %.3g", stage->t,
                      (int)ts->options.max_newton_iterations, change);
}
