/* ED-α of seed 003, eqs. (77)–(84) (docs/time_stepping.md, "ED-α"): two
 * coupled stages, j = i^+ at t_i and i+1 at t_i + dt, whose accelerations
 * z = (a_j, a_{i+1}) are the unknowns:
 *
 *   M_j a_j = h(t_i, q_j, v_j) + H_j' λ_j                          (77)
 *   M_{i+1} a_{i+1} = h(t_{i+1}, q_{i+1}, v_{i+1}) + H_{i+1}' λ_{i+1}  (78)
 *   v_j = v_i + dt α_AR (α (a_j - a_i) - a_{i+1} + a_i)            (79)
 *   v_{i+1} = v_i + dt/2 (a_j + a_{i+1})                           (80)
 *   q_j = q_i + dt α_AR (α (v_j - v_i) - v_{i+1} + v_i)            (81)
 *   q_{i+1} = q_i + dt/2 (v_j + v_{i+1})                           (82)
 *   α = (1 - ρ∞)/(1 + ρ∞)                                          (84)
 *
 * Substituting (79)–(80) into (81)–(82) makes every stage quantity affine
 * in z: v_s = ṽ_s + Σ_r Γ_sr a_r, q_s = q_i + d̃_s + Σ_r B_sr dt² a_r with
 *
 *   Γ = dt [[α_AR α, -α_AR], [1/2, 1/2]],
 *   B = [[α_AR (α² α_AR - 1/2), -α_AR (α α_AR + 1/2)],
 *        [(α α_AR + 1/2)/2,      (1/2 - α_AR)/2]],
 *   ṽ_j = v_i + dt α_AR (1 - α) a_i,        d̃_j = dt² α_AR² α (1 - α) a_i,
 *   ṽ_{i+1} = v_i,                          d̃_{i+1} = dt v_i + dt²/2 α_AR (1 - α) a_i.
 *
 * Newton on z with the dense 2n x 2n Jacobian J_sr = δ_sr M_s + Γ_sr C_s +
 * dt² B_sr K_s (M alone without K, C): z_free = z + J^-1 (h - M z), z =
 * z_free + J^-1 H_c' λ_c with H_c = diag(H_j, H_{i+1}). The closed set's
 * forces at both stages form one local problem on a proxy model of 2n
 * velocities and 2 n_entries entries (stage j, then stage i+1, whose rows
 * are shifted by n columns) whose mass_solve applies (Γ ⊗ I) J^-1 on the
 * velocity level (the law on v_j, v_{i+1}) and J^-1 on the acceleration
 * level. This equals the paper's condensed form (86)–(90) with c_7 = -c_14
 * = (1 - α)/(1 + α) and the damping C added (docs/time_stepping.md). The
 * dense J limits ED-α to models with one mass block and M given (`mass`);
 * its local matrix is not symmetric (the LCP solver handles that; fc3d
 * needs symmetric positive definite diagonal blocks, which the stiffness
 * and damping of the stages break and H_j Γ_jj M^-1 H_j' loses at
 * ρ∞ = 1, α = 0: NSCD_TS_SOLVER_AUTO then takes the prox solver,
 * ts_local_solve.c). */
#include <math.h>
#include <string.h>

#include "core/check.h"
#include "core/dense.h"
#include "integrators/alpha/mixed_impl.h"

/* The proxy model's solve: X = S J^-1 B with S = Γ ⊗ I or I. */
typedef struct ed_proxy {
    nscd__model model;
    nscd__arena *arena;
    nscd_diag *diag;
    const double *J;     /* 2n x 2n row-major */
    int32_t n;           /* n_v of the real model */
    const double *gamma; /* 2 x 2, or NULL (acceleration level) */
} ed_proxy;

static nscd_status solve_j(ed_proxy *p, int32_t nrhs, const double *B, double *X) {
    size_t n2 = 2 * (size_t)p->n, nb = n2 * (size_t)nrhs;
    if (!nscd__all_finite(B, nb)) {
        return nscd__fail(p->diag, NSCD_ERR_NOT_FINITE, "ED-α: J^-1 b with a non-finite b");
    }
    double *A = nscd__arena_array(p->arena, n2 * n2, sizeof(double));
    int32_t *pivots = nscd__arena_array(p->arena, n2, sizeof(int32_t));
    if (A == NULL || pivots == NULL) {
        return nscd__fail(p->diag, NSCD_ERR_OUT_OF_MEMORY, "ED-α: LU of J");
    }
    memcpy(A, p->J, n2 * n2 * sizeof(double));
    memcpy(X, B, nb * sizeof(double));
    if (nscd__lu_solve((int32_t)n2, A, pivots, nrhs, X) != NSCD_OK) {
        return nscd__fail(p->diag, NSCD_ERR_SINGULAR, "ED-α: the effective matrix is singular");
    }
    return nscd__all_finite(X, nb) ? NSCD_OK
                                   : nscd__fail(p->diag, NSCD_ERR_NOT_FINITE,
                                                "ED-α: J is too "
                                                "ill-conditioned");
}

static nscd_status proxy_solve(void *self, const double *q, int32_t block, int32_t nrhs,
                               const double *B, double *X) {
    ed_proxy *p = self;
    (void)q, (void)block;
    nscd_status rc = solve_j(p, nrhs, B, X);
    if (rc != NSCD_OK || p->gamma == NULL) {
        return rc;
    }
    size_t n = (size_t)p->n, w = (size_t)nrhs;
    for (size_t k = 0; k < n; ++k) { /* rows k (stage j) and n + k (stage i+1) */
        for (size_t c = 0; c < w; ++c) {
            double zj = X[k * w + c], z1 = X[(n + k) * w + c];
            X[(n + k) * w + c] = p->gamma[2] * zj + p->gamma[3] * z1;
        }
    }
    return NSCD_OK;
}

/* Everything one ED-α step works on. */
typedef struct ed_step {
    double dt, gamma[4], beta[4]; /* Γ, and dt² B */
    double t[2];
    double *v_pred[2], *d_pred[2];
    double *z;                   /* 2n: (a_j, a_{i+1}) */
    double *v[2], *dq[2], *q[2]; /* stage velocities, increments, positions */
    double *force;               /* 6 n_contacts: λ_j then λ_{i+1} per entry */
} ed_step;

static void place(nscd_time_stepping *ts, ed_step *e) {
    nscd__model *m = ts->model;
    int32_t n = m->n_v;
    for (int s = 0; s < 2; ++s) {
        for (int32_t i = 0; i < n; ++i) {
            e->v[s][i] =
                e->v_pred[s][i] + e->gamma[2 * s] * e->z[i] + e->gamma[2 * s + 1] * e->z[n + i];
            e->dq[s][i] =
                e->d_pred[s][i] + e->beta[2 * s] * e->z[i] + e->beta[2 * s + 1] * e->z[n + i];
        }
        m->displace(m->self, m->q, e->dq[s], e->q[s]);
    }
}

/* J (2n x 2n) and the residual r = h - M z of both stages. */
static nscd_status jacobian(nscd_time_stepping *ts, ed_step *e, double *J, double *r) {
    nscd__model *m = ts->model;
    int32_t n = m->n_v;
    size_t nn = (size_t)n * (size_t)n, n2 = 2 * (size_t)n;
    double *M = nscd__arena_array(&ts->arena, nn, sizeof(double));
    double *K = nscd__arena_array(&ts->arena, nn, sizeof(double));
    double *C = nscd__arena_array(&ts->arena, nn, sizeof(double));
    if (!M || !K || !C) {
        return nscd__fail(&ts->diag, NSCD_ERR_OUT_OF_MEMORY, "ED-α Jacobian");
    }
    memset(J, 0, n2 * n2 * sizeof(double));
    int has_k = ts->jacobians & NSCD__TS_HAS_K, has_c = ts->jacobians & NSCD__TS_HAS_C;
    for (int s = 0; s < 2; ++s) {
        nscd_status rc =
            m->mass_block == NULL ? NSCD_ERR_UNSUPPORTED : m->mass_block(m->self, e->q[s], 0, M);
        if (rc == NSCD_OK && (has_k || has_c)) {
            rc = m->tangent(m->self, e->t[s], e->q[s], e->v[s], has_k ? K : NULL, has_c ? C : NULL);
        }
        if (rc == NSCD_OK) {
            rc = m->forces(m->self, e->t[s], e->q[s], e->v[s], r + (size_t)s * (size_t)n);
            rc = rc == NSCD_OK || rc == NSCD_ERR_NOT_FINITE ? rc : NSCD_ERR_CALLBACK;
        }
        if (rc != NSCD_OK) {
            return nscd__fail(&ts->diag, rc,
                              "ED-α needs the mass matrix of a model with one mass block, "
                              "forces and Jacobians (status %d)",
                              (int)rc);
        }
        for (int32_t i = 0; i < n; ++i) {
            double *ri = r + (size_t)s * (size_t)n + (size_t)i;
            *ri -= nscd__dot(n, M + (size_t)i * (size_t)n, e->z + (size_t)s * (size_t)n);
            for (int c = 0; c < 2; ++c) {
                double *row = J + ((size_t)s * (size_t)n + (size_t)i) * n2 + (size_t)c * (size_t)n;
                for (int32_t k = 0; k < n; ++k) {
                    size_t ik = (size_t)i * (size_t)n + (size_t)k;
                    row[k] = (s == c ? M[ik] : 0.0) + (has_c ? e->gamma[2 * s + c] * C[ik] : 0.0) +
                             (has_k ? e->beta[2 * s + c] * K[ik] : 0.0);
                }
            }
        }
    }
    if (!nscd__all_finite(r, n2) || !nscd__all_finite(J, n2 * n2)) {
        return nscd__fail(&ts->diag, NSCD_ERR_NOT_FINITE, "ED-α: forces or J not finite");
    }
    return NSCD_OK;
}

/* The proxy of 2n velocities and 2 n_contacts entries. */
static nscd_status make_proxy(nscd_time_stepping *ts, const double *J, const double *gamma,
                              ed_proxy *p, int32_t *block_start) {
    nscd__model *m = ts->model;
    int32_t nc = m->n_contacts;
    nscd__contact_slot *slots = nscd__arena_array(&ts->arena, 2 * (size_t)nc + 1, sizeof *slots);
    if (slots == NULL) {
        return nscd__fail(&ts->diag, NSCD_ERR_OUT_OF_MEMORY, "ED-α proxy");
    }
    memcpy(slots, m->contacts, (size_t)nc * sizeof *slots);
    memcpy(slots + nc, m->contacts, (size_t)nc * sizeof *slots);
    p->model = *m;
    p->model.self = p;
    p->model.n_v = 2 * m->n_v;
    p->model.n_contacts = 2 * nc;
    p->model.contacts = slots;
    p->model.n_mass_blocks = 1;
    block_start[0] = 0;
    block_start[1] = 2 * m->n_v;
    p->model.mass_block_start = block_start;
    p->model.mass_solve = proxy_solve;
    p->arena = &ts->arena;
    p->diag = &ts->diag;
    p->J = J;
    p->n = m->n_v;
    p->gamma = gamma;
    return NSCD_OK;
}

/* The closed set's rows at both stages as proxy entries (stage i+1 shifted). */
static nscd_status coupled_rows(nscd_time_stepping *ts, const nscd__ts_closed *sets, ed_step *e,
                                nscd__rows *all, int32_t *entries) {
    nscd__model *m = ts->model;
    int32_t nc = m->n_contacts;
    for (int s = 0; s < 2; ++s) {
        const nscd__ts_closed *closed = &sets[s];
        nscd__rows *rows = NULL;
        nscd_status rc = nscd__gather_rows(m, &ts->arena, e->t[s], e->q[s], closed->n,
                                           closed->entries, &rows, NULL);
        if (rc != NSCD_OK) {
            return rc;
        }
        for (int32_t i = 0; i < closed->n; ++i) {
            int32_t entry = closed->entries[i] + s * nc;
            all[entry] = rows[i];
            for (int32_t b = 0; b < rows[i].n_blocks; ++b) {
                all[entry].column[b] += s * m->n_v;
            }
            entries[(s == 1 ? sets[0].n : 0) + i] = entry;
        }
    }
    return NSCD_OK;
}

/* Ḣ v of both stages added to the local problem (acceleration level). */
static nscd_status add_rates(nscd_time_stepping *ts, const nscd__ts_closed *sets, ed_step *e,
                             int velocity, nscd__ts_local *local) {
    size_t per = (size_t)ts->model->n_contacts * NSCD__MAX_ENTRY_ROWS;
    double *hv = nscd__arena_array(&ts->arena, 2 * per + 1, sizeof(double));
    if (hv == NULL) {
        return nscd__fail(&ts->diag, NSCD_ERR_OUT_OF_MEMORY, "ED-α rows rate");
    }
    memset(hv, 0, (2 * per + 1) * sizeof(double));
    for (int s = 0; s < (velocity ? 1 : 2); ++s) {
        nscd_status rc = nscd__ts_rows_rate(ts, &sets[s], e->t[s], e->q[s], e->v[s], hv + s * per);
        if (rc != NSCD_OK) {
            return rc;
        }
    }
    nscd__ts_add_rows_rate(local, hv);
    return NSCD_OK;
}

/* One Newton update of z with the coupled closed-contact forces. */
static nscd_status update(nscd_time_stepping *ts, const nscd__ts_closed *closed, ed_step *e,
                          double *change) {
    nscd__model *m = ts->model;
    int32_t n = m->n_v, nc = m->n_contacts;
    size_t n2 = 2 * (size_t)n;
    int velocity = ts->options.level == NSCD_TS_LEVEL_VELOCITY;
    /* stage j: the acceleration level over the resting entries; stage i+1:
     * the velocity level over the closed set (or acceleration, resting) */
    const nscd__ts_closed sets[2] = {nscd__ts_resting(closed),
                                     velocity ? *closed : nscd__ts_resting(closed)};
    double *J = nscd__arena_array(&ts->arena, n2 * n2, sizeof(double));
    double *r = nscd__arena_array(&ts->arena, n2, sizeof(double));
    double *z_free = nscd__arena_array(&ts->arena, n2, sizeof(double));
    double *base = nscd__arena_array(&ts->arena, n2, sizeof(double));
    double *zero = nscd__arena_array(&ts->arena, n2, sizeof(double));
    double *g = nscd__arena_array(&ts->arena, n2, sizeof(double));
    nscd__rows *all = nscd__arena_array(&ts->arena, 2 * (size_t)nc + 1, sizeof *all);
    int32_t *entries = nscd__arena_array(&ts->arena, 2 * (size_t)nc + 1, sizeof(int32_t));
    if (!J || !r || !z_free || !base || !zero || !g || !all || !entries) {
        return nscd__fail(&ts->diag, NSCD_ERR_OUT_OF_MEMORY, "ED-α step");
    }
    nscd_status rc = jacobian(ts, e, J, r);
    ed_proxy p;
    int32_t block_start[2];
    if (rc == NSCD_OK) {
        rc = make_proxy(ts, J, velocity ? e->gamma : NULL, &p, block_start);
    }
    if (rc == NSCD_OK) {
        ed_proxy plain = p;
        plain.gamma = NULL;
        rc = solve_j(&plain, 1, r, z_free);
    }
    if (rc == NSCD_OK) {
        rc = coupled_rows(ts, sets, e, all, entries);
    }
    if (rc != NSCD_OK) {
        return rc;
    }
    for (size_t i = 0; i < n2; ++i) {
        z_free[i] += e->z[i];
    }
    for (int s = 0; s < 2; ++s) {
        for (int32_t i = 0; i < n; ++i) {
            base[(size_t)s * (size_t)n + (size_t)i] =
                velocity && s == 1 ? e->v_pred[s][i] + e->gamma[2 * s] * z_free[i] +
                                         e->gamma[2 * s + 1] * z_free[n + i]
                                   : z_free[(size_t)s * (size_t)n + (size_t)i];
        }
    }
    nscd__ts_local local;
    memset(&local, 0, sizeof local);
    local.entries = entries;
    local.n_entries = sets[0].n + sets[1].n;
    local.prox_r = 0.1; /* the paper's r for forces (Sect. 2.4.2), in the units of the unknowns */
    rc = nscd__ts_local_build(ts, &p.model, all, m->q, base, zero, &local);
    if (rc == NSCD_OK) { /* stage j always on the acceleration level */
        rc = add_rates(ts, sets, e, velocity, &local);
    }
    for (int32_t row = 0; rc == NSCD_OK && local.fc3d && row < local.m; ++row) {
        int32_t kind = local.row_kind[row];
        local.P[row] = kind >= 0 ? e->force[3 * local.entries[local.row_entry[row]] + kind] : 0.0;
    }
    int32_t before = ts->report.iterations;
    if (rc == NSCD_OK) {
        rc = nscd__ts_local_solve(ts, &local);
    }
    ts->report.iterations += before;
    if (rc != NSCD_OK) {
        return rc;
    }
    /* z = z_free + J^-1 H_c' λ_c */
    memset(g, 0, n2 * sizeof(double));
    const nscd__rows *H = local.fc3d ? local.form.rows : local.H;
    for (int32_t row = 0; row < local.m; ++row) {
        if (local.row_kind[row] != -2) {
            nscd__rows_add_to(&H[row], 0, local.P[row], g);
        }
    }
    ed_proxy plain = p;
    plain.gamma = NULL;
    rc = solve_j(&plain, 1, g, r);
    if (rc != NSCD_OK) {
        return rc;
    }
    nscd__ts_store_entry_values(&local, 1.0, 2 * nc, e->force);
    ts->report.rows = local.m;
    double *v_old = base; /* reuse: the velocities before the update */
    memcpy(v_old, e->v[0], (size_t)n * sizeof(double));
    memcpy(v_old + n, e->v[1], (size_t)n * sizeof(double));
    for (size_t i = 0; i < n2; ++i) {
        e->z[i] = z_free[i] + r[i];
    }
    place(ts, e);
    *change = 0.0;
    for (int32_t i = 0; i < n; ++i) {
        *change = fmax(*change, fmax(fabs(e->v[0][i] - v_old[i]), fabs(e->v[1][i] - v_old[n + i])));
    }
    if (!nscd__all_finite(e->z, n2)) {
        return nscd__fail(&ts->diag, NSCD_ERR_NOT_FINITE, "ED-α step diverged");
    }
    return NSCD_OK;
}

/* Γ, dt² B and the predictors of (79)–(82) from (t_i, q_i, v_i, a_i). */
static void coefficients(nscd_time_stepping *ts, double dt, ed_step *e) {
    const nscd__model *m = ts->model;
    double rho = ts->options.rho_infinity, ar = ts->options.alpha_ar;
    double al = (1.0 - rho) / (1.0 + rho), h2 = dt * dt;
    const double gamma[4] = {dt * ar * al, -dt * ar, 0.5 * dt, 0.5 * dt};
    const double beta[4] = {h2 * ar * (al * al * ar - 0.5), -h2 * ar * (al * ar + 0.5),
                            0.5 * h2 * (al * ar + 0.5), 0.5 * h2 * (0.5 - ar)};
    memcpy(e->gamma, gamma, sizeof gamma);
    memcpy(e->beta, beta, sizeof beta);
    e->dt = dt;
    e->t[0] = *m->t;
    e->t[1] = *m->t + dt;
    const double *a = ts->alpha.acc;
    for (int32_t i = 0; i < m->n_v; ++i) {
        e->v_pred[0][i] = m->v[i] + dt * ar * (1.0 - al) * a[i];
        e->d_pred[0][i] = h2 * ar * ar * al * (1.0 - al) * a[i];
        e->v_pred[1][i] = m->v[i];
        e->d_pred[1][i] = dt * m->v[i] + 0.5 * h2 * ar * (1.0 - al) * a[i];
        e->z[i] = e->z[m->n_v + i] = a[i]; /* the first iterate: a_i */
    }
}

static nscd_status allocate(nscd_time_stepping *ts, ed_step *e) {
    const nscd__model *m = ts->model;
    size_t nv = (size_t)m->n_v + 1, nq = (size_t)m->n_q + 1;
    int ok = 1;
    for (int s = 0; s < 2; ++s) {
        e->v_pred[s] = nscd__arena_array(&ts->arena, nv, sizeof(double));
        e->d_pred[s] = nscd__arena_array(&ts->arena, nv, sizeof(double));
        e->v[s] = nscd__arena_array(&ts->arena, nv, sizeof(double));
        e->dq[s] = nscd__arena_array(&ts->arena, nv, sizeof(double));
        e->q[s] = nscd__arena_array(&ts->arena, nq, sizeof(double));
        ok = ok && e->v_pred[s] && e->d_pred[s] && e->v[s] && e->dq[s] && e->q[s];
    }
    e->z = nscd__arena_array(&ts->arena, 2 * nv, sizeof(double));
    e->force = nscd__arena_array(&ts->arena, 6 * ((size_t)m->n_contacts + 1), sizeof(double));
    return ok && e->z && e->force ? NSCD_OK
                                  : nscd__fail(&ts->diag, NSCD_ERR_OUT_OF_MEMORY,
                                               "ED-α step of %d velocities", (int)m->n_v);
}

nscd_status nscd__ed_alpha_stages(nscd_time_stepping *ts, const nscd__ts_closed *closed,
                                  double dt) {
    nscd__model *m = ts->model;
    int32_t n = m->n_v, nc = m->n_contacts;
    nscd__model *solver = NULL;
    nscd_status rc = ts->jacobians < 0 /* probe the Jacobians once */
                         ? nscd__ts_effective_setup(ts, *m->t, m->q, m->v, 0.0, 0.0, &solver)
                         : NSCD_OK;
    ed_step e;
    memset(&e, 0, sizeof e);
    if (rc == NSCD_OK) {
        rc = allocate(ts, &e);
    }
    if (rc != NSCD_OK) {
        return rc;
    }
    coefficients(ts, dt, &e);
    memcpy(e.force, ts->force, 3 * (size_t)nc * sizeof(double)); /* warm start: λ_i */
    memcpy(e.force + 3 * (size_t)nc, ts->force, 3 * (size_t)nc * sizeof(double));
    place(ts, &e);
    double change = 0.0;
    for (int32_t k = 1; k <= ts->options.max_newton_iterations; ++k) {
        rc = update(ts, closed, &e, &change);
        if (rc != NSCD_OK) {
            return rc;
        }
        double vmax = 0.0;
        for (int32_t i = 0; i < n; ++i) {
            vmax = fmax(vmax, fmax(fabs(e.v[0][i]), fabs(e.v[1][i])));
        }
        if (change <= ts->options.newton_tolerance * (1.0 + vmax)) {
            ts->report.newton_iterations += k;
            memcpy(ts->alpha.acc_new, e.z + n, (size_t)n * sizeof(double));
            memcpy(ts->alpha.acc_aux_new, e.z + n, (size_t)n * sizeof(double));
            memcpy(ts->alpha.force_new, e.force + 3 * (size_t)nc, 3 * (size_t)nc * sizeof(double));
            memcpy(m->v, e.v[1], (size_t)n * sizeof(double));
            memcpy(m->q, e.q[1], (size_t)m->n_q * sizeof(double));
            return NSCD_OK;
        }
    }
    return nscd__fail(&ts->diag, NSCD_ERR_NOT_CONVERGED,
                      "ED-α step at t = %.17g: %d force iterations, |dv| = %.3g", *m->t,
                      (int)ts->options.max_newton_iterations, change);
}
