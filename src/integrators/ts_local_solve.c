/* The local problem of one time step (docs/time_stepping.md):
 *
 *     u = W P + c,   W = H M^-1 H',   c = H v_free + bias,
 *
 * over the rows H of the active entries, with Newton's law on the normal
 * rows of contacts (0 <= P_N _|_ u_N >= 0, the bias carrying e min(u_k, 0)),
 * u = 0 on the rows of equality entries (P of either sign) and, with the
 * fc3d solvers, Coulomb's law (or maximum dissipation) on the tangential
 * rows. Frictionless problems go to the mixed LCP of the impacts
 * (nscd__impact_lcp); frictional ones to the fc3d block Gauss–Seidel with
 * three rows per contact, planar and frictionless contacts padded with zero
 * rows as contact/impact_friction.c does. */
#include <math.h>
#include <string.h>

#include "contact/fc3d_internal.h"
#include "contact/impact_rules.h"
#include "integrators/time_stepping_impl.h"

static int frictional(const nscd__contact_slot *slot) {
    return slot->kind == NSCD__ENTRY_UNILATERAL && slot->friction > 0.0 && slot->n_tangent >= 1;
}

/* Tangential rows of a contact that are real (the others are dummies). */
static int32_t real_tangents(const nscd__contact_slot *slot) {
    return frictional(slot) ? (slot->n_tangent < 2 ? slot->n_tangent : 2) : 0;
}

/* Picks the solver for the active set: local->fc3d and local->law. */
static nscd_status choose_solver(nscd_time_stepping *ts, nscd__ts_local *local) {
    const nscd__model *m = ts->model;
    int friction = 0, equality = 0;
    for (int32_t i = 0; i < local->n_entries; ++i) {
        const nscd__contact_slot *slot = &m->contacts[local->entries[i]];
        friction |= frictional(slot);
        equality |= slot->kind == NSCD__ENTRY_EQUALITY;
    }
    int32_t solver = ts->options.local_solver;
    if (solver == NSCD_TS_SOLVER_AUTO) {
        solver = friction ? NSCD_TS_SOLVER_FC3D_COULOMB : NSCD_TS_SOLVER_LCP;
    }
    local->fc3d = solver != NSCD_TS_SOLVER_LCP;
    local->law = solver == NSCD_TS_SOLVER_FC3D_MAX_DISSIPATION ? NSCD_FC3D_MAX_DISSIPATION
                                                               : NSCD_FC3D_COULOMB;
    if (!local->fc3d && friction) {
        return nscd__fail(&ts->diag, NSCD_ERR_UNSUPPORTED,
                          "an active contact has friction: the LCP solver is frictionless");
    }
    if (local->fc3d && equality) {
        return nscd__fail(&ts->diag, NSCD_ERR_UNSUPPORTED,
                          "equality entries need the LCP solver (fc3d takes contacts only)");
    }
    return NSCD_OK;
}

/* Rows of one active entry in the local problem. */
static int32_t entry_rows(const nscd__ts_local *local, const nscd__contact_slot *slot,
                          const nscd__rows *rows) {
    if (local->fc3d) {
        return 3;
    }
    return slot->kind == NSCD__ENTRY_EQUALITY ? rows->n_rows : 1;
}

/* Row a (0 normal, 1 and 2 tangents) of a contact for fc3d: a real row or a
 * zero row of the same pattern (a dummy). */
static nscd_status contact_row(nscd_time_stepping *ts, const nscd__contact_slot *slot,
                               const nscd__rows *rows, int32_t a, nscd__rows *out, int32_t *kind) {
    *out = nscd__rows_row(rows, 0);
    *kind = a;
    if (a == 0 || a <= real_tangents(slot)) {
        *out = nscd__rows_row(rows, a);
        return NSCD_OK;
    }
    *kind = -2;
    out->values = nscd__arena_array(&ts->arena, (size_t)rows->width_total, sizeof(double));
    return out->values != NULL ? NSCD_OK : NSCD_ERR_OUT_OF_MEMORY;
}

/* Fills H, row_entry and row_kind. */
static nscd_status fill_rows(nscd_time_stepping *ts, const nscd__rows *all, nscd__ts_local *local) {
    const nscd__model *m = ts->model;
    int32_t r = 0;
    for (int32_t i = 0; i < local->n_entries; ++i) {
        int32_t e = local->entries[i];
        const nscd__contact_slot *slot = &m->contacts[e];
        int32_t n = entry_rows(local, slot, &all[e]);
        for (int32_t a = 0; a < n; ++a, ++r) {
            local->row_entry[r] = i;
            if (local->fc3d) {
                if (contact_row(ts, slot, &all[e], a, &local->H[r], &local->row_kind[r]) !=
                    NSCD_OK) {
                    return NSCD_ERR_OUT_OF_MEMORY;
                }
                continue;
            }
            local->H[r] = nscd__rows_row(&all[e], a);
            local->row_kind[r] = slot->kind == NSCD__ENTRY_EQUALITY ? -1 : 0;
        }
        if (local->fc3d) {
            local->mu[i] = frictional(slot) ? slot->friction : 0.0;
        }
    }
    return NSCD_OK;
}

nscd_status nscd__ts_local_build(nscd_time_stepping *ts, const nscd__rows *all, const double *q,
                                 const double *h, nscd__ts_local *local) {
    nscd__model *m = ts->model;
    nscd__arena *arena = &ts->arena;
    nscd_status rc = choose_solver(ts, local);
    if (rc != NSCD_OK) {
        return rc;
    }
    local->m = 0;
    for (int32_t i = 0; i < local->n_entries; ++i) {
        int32_t e = local->entries[i];
        local->m += entry_rows(local, &m->contacts[e], &all[e]);
    }
    size_t mm = (size_t)local->m, ms = mm > 0 ? mm : 1;
    local->H = nscd__arena_array(arena, ms, sizeof *local->H);
    local->row_entry = nscd__arena_array(arena, ms, sizeof(int32_t));
    local->row_kind = nscd__arena_array(arena, ms, sizeof(int32_t));
    local->W = nscd__arena_array(arena, ms * ms, sizeof(double));
    local->c = nscd__arena_array(arena, ms, sizeof(double));
    local->P = nscd__arena_array(arena, ms, sizeof(double));
    local->mu = nscd__arena_array(arena, (size_t)local->n_entries + 1, sizeof(double));
    if (!local->H || !local->row_entry || !local->row_kind || !local->W || !local->c || !local->P ||
        !local->mu || fill_rows(ts, all, local) != NSCD_OK) {
        return nscd__fail(&ts->diag, NSCD_ERR_OUT_OF_MEMORY, "local problem of %d rows",
                          (int)local->m);
    }
    rc = nscd__response_build(m, arena, q, h, local->m, local->H, &local->response);
    if (rc == NSCD_OK) {
        nscd__response_delassus(&local->response, local->m, local->H, local->W);
    }
    return rc;
}

/* ------------------------------------------------------------ LCP */

/* max over rows of |min(P, u)| (contacts) and |u| (equalities): the
 * complementarity residual of the LCP's answer. */
static double lcp_residual(const nscd__ts_local *local) {
    int32_t m = local->m;
    double worst = 0.0;
    for (int32_t a = 0; a < m; ++a) {
        double u = local->c[a];
        for (int32_t b = 0; b < m; ++b) {
            u += local->W[(size_t)a * (size_t)m + (size_t)b] * local->P[b];
        }
        double r = local->row_kind[a] == -1 ? fabs(u) : fabs(fmin(local->P[a], u));
        worst = fmax(worst, r);
    }
    return worst;
}

static nscd_status solve_lcp(nscd_time_stepping *ts, nscd__ts_local *local) {
    nscd__model *m = ts->model;
    int32_t *row_contact = nscd__arena_array(&ts->arena, (size_t)local->m, sizeof(int32_t));
    if (row_contact == NULL) {
        return nscd__fail(&ts->diag, NSCD_ERR_OUT_OF_MEMORY, "local LCP");
    }
    for (int32_t a = 0; a < local->m; ++a) {
        row_contact[a] = local->entries[local->row_entry[a]];
    }
    /* the mixed LCP of the impacts: only the arena of the work and the kinds
     * of the rows' entries are used */
    nscd__impact_work work;
    memset(&work, 0, sizeof work);
    work.arena = &ts->arena;
    nscd__impact impact;
    memset(&impact, 0, sizeof impact);
    impact.count = local->m;
    impact.contacts = row_contact;
    nscd_status rc = nscd__impact_lcp(m, &work, &impact, local->W, local->c, local->P);
    if (rc != NSCD_OK) {
        return nscd__fail(&ts->diag, rc, "local LCP of %d rows failed", (int)local->m);
    }
    ts->report.iterations = 1;
    ts->report.residual = lcp_residual(local);
    ts->report.converged = 1;
    return NSCD_OK;
}

/* ------------------------------------------------------------ fc3d */

/* Symmetrises W and gives the dummy rows the normal's diagonal (as
 * contact/impact_friction.c: keeps the 3x3 blocks positive definite and the
 * dummy impulses zero). */
static void prepare_fc3d(nscd__ts_local *local) {
    int32_t m = local->m;
    double *W = local->W;
    for (int32_t a = 0; a < m; ++a) {
        for (int32_t b = a + 1; b < m; ++b) {
            double mean =
                0.5 * (W[(size_t)a * (size_t)m + (size_t)b] + W[(size_t)b * (size_t)m + (size_t)a]);
            W[(size_t)a * (size_t)m + (size_t)b] = W[(size_t)b * (size_t)m + (size_t)a] = mean;
        }
    }
    for (int32_t a = 0; a < m; ++a) {
        if (local->row_kind[a] == -2) {
            int32_t n = a - a % 3;
            W[(size_t)a * (size_t)m + (size_t)a] = W[(size_t)n * (size_t)m + (size_t)n];
        }
    }
}

/* The dense W as a full block-CSR matrix in the arena. */
static nscd_status dense_to_bsr(nscd__arena *arena, const nscd__ts_local *local,
                                nscd__fc3d_matrix *bsr) {
    int32_t n = local->m / 3, m = local->m;
    int32_t *row_ptr = nscd__arena_array(arena, (size_t)n + 1, sizeof(int32_t));
    int32_t *col = nscd__arena_array(arena, (size_t)n * (size_t)n, sizeof(int32_t));
    int32_t *diag = nscd__arena_array(arena, (size_t)n, sizeof(int32_t));
    double *blocks = nscd__arena_array(arena, 9 * (size_t)n * (size_t)n, sizeof(double));
    if (!row_ptr || !col || !diag || !blocks) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    for (int32_t i = 0; i < n; ++i) {
        row_ptr[i + 1] = (i + 1) * n;
        diag[i] = i * n + i;
        for (int32_t j = 0; j < n; ++j) {
            int32_t b = i * n + j;
            col[b] = j;
            for (int32_t a = 0; a < 9; ++a) {
                blocks[9 * (size_t)b + (size_t)a] =
                    local->W[(size_t)(3 * i + a / 3) * (size_t)m + (size_t)(3 * j + a % 3)];
            }
        }
    }
    *bsr = (nscd__fc3d_matrix){n, row_ptr, col, blocks, diag};
    return NSCD_OK;
}

static nscd_status solve_fc3d(nscd_time_stepping *ts, nscd__ts_local *local) {
    int32_t n = local->m / 3;
    prepare_fc3d(local);
    nscd_fc3d_options opts;
    nscd_fc3d_options_init(&opts, sizeof opts);
    opts.friction_law = local->law;
    opts.tolerance = ts->options.tolerance;
    opts.max_iterations = ts->options.max_iterations;
    opts.warm_start = 1;
    nscd_fc3d_options resolved;
    nscd__fc3d_matrix bsr;
    double *u = nscd__arena_array(&ts->arena, (size_t)local->m, sizeof(double));
    double *work = nscd__arena_array(&ts->arena, NSCD__FC3D_RUN_WORK((size_t)n), sizeof(double));
    if (u == NULL || work == NULL || dense_to_bsr(&ts->arena, local, &bsr) != NSCD_OK) {
        return nscd__fail(&ts->diag, NSCD_ERR_OUT_OF_MEMORY, "fc3d problem of %d contacts", (int)n);
    }
    nscd_fc3d_info info = {.struct_size = sizeof info};
    nscd_status rc = nscd__fc3d_check_args(n, NSCD__FC3D_MAX_CONTACTS, local->c, local->mu, &opts,
                                           local->P, u, &info, &resolved);
    for (int32_t i = 0; rc == NSCD_OK && i < n; ++i) {
        rc = nscd__fc3d_check_diag_block(bsr.blocks + 9 * (size_t)bsr.diag[i]);
    }
    if (rc == NSCD_OK) {
        rc = nscd__fc3d_run_work(&bsr, local->c, local->mu, NULL, &resolved, local->P, u, &info,
                                 work);
    }
    for (int32_t a = 0; a < local->m; ++a) { /* dummy impulses are zero (see the header) */
        local->P[a] = local->row_kind[a] == -2 ? 0.0 : local->P[a];
    }
    ts->report.iterations = info.iterations;
    ts->report.residual = info.merit;
    ts->report.converged = info.converged;
    if (rc != NSCD_OK) {
        return nscd__fail(&ts->diag, rc, "fc3d solve of %d contacts: %d sweeps, merit %.3g", (int)n,
                          (int)info.iterations, info.merit);
    }
    return NSCD_OK;
}

nscd_status nscd__ts_local_solve(nscd_time_stepping *ts, nscd__ts_local *local) {
    ts->report.iterations = 0;
    ts->report.residual = 0.0;
    ts->report.converged = 1;
    if (local->m == 0) {
        return NSCD_OK;
    }
    return local->fc3d ? solve_fc3d(ts, local) : solve_lcp(ts, local);
}
