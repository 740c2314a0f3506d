/* The local problem of one time step (docs/time_stepping.md):
 *
 *     u = W P + c,   W = H M^-1 H',   c = H v_free + bias,
 *
 * over the rows H of the active entries, with Newton's law on the normal
 * rows of contacts (0 <= P_N _|_ u_N >= 0, the bias carrying e min(u_k, 0)),
 * u = 0 on the rows of equality entries (P of either sign) and, with the
 * fc3d solvers, Coulomb's law (or maximum dissipation) on the tangential
 * rows. Frictionless problems go to the mixed LCP of the impacts
 * (nscd__impact_lcp) on a dense W; frictional ones to the fc3d block
 * Gauss–Seidel on the block-CSR local form (nscd__local_form_bsr, memory
 * O(nnz)) with three rows per contact, planar and frictionless contacts
 * padded with zero rows as contact/impacts/impact_friction.c does. The prox solver
 * (contact/solvers/prox_gn.c) takes the dense W over every real row (normal, real
 * tangents, equality rows) and solves friction and equalities together. */
#include <math.h>
#include <string.h>

#include "contact/solvers/block_gs.h"
#include "contact/solvers/fc3d_internal.h"
#include "contact/impacts/impact_rules.h"
#include "contact/solvers/prox_gn.h"
#include "integrators/time_stepping/time_stepping_impl.h"
#include "nscd/lcp.h"

/* Picks the solver for the active set: local->fc3d and local->law. */
static nscd_status choose_solver(nscd_time_stepping *ts, nscd__ts_local *local) {
    const nscd__model *m = local->model;
    int friction = 0, equality = 0;
    for (int32_t i = 0; i < local->n_entries; ++i) {
        const nscd__contact_slot *slot = &m->contacts[local->entries[i]];
        friction |= nscd__slot_frictional(slot);
        equality |= slot->kind == NSCD__ENTRY_EQUALITY;
    }
    int32_t solver = ts->options.local_solver;
    if (solver == NSCD_TS_SOLVER_AUTO && friction && equality) {
        solver = NSCD_TS_SOLVER_PROX; /* the LCP is frictionless, fc3d takes contacts only */
    } else if (solver == NSCD_TS_SOLVER_AUTO) { /* the pivoting LCP is for small problems */
        int small = equality || local->n_entries <= NSCD_LCP_MAX_SIZE;
        solver = friction || !small ? NSCD_TS_SOLVER_FC3D_COULOMB : NSCD_TS_SOLVER_LCP;
    }
    local->prox = solver == NSCD_TS_SOLVER_PROX;
    local->fc3d = solver != NSCD_TS_SOLVER_LCP && !local->prox;
    local->law = solver == NSCD_TS_SOLVER_FC3D_MAX_DISSIPATION ? NSCD_FC3D_MAX_DISSIPATION
                                                               : NSCD_FC3D_COULOMB;
    if (local->prox) { /* contacts with friction and equalities alike */
        return NSCD_OK;
    }
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

/* Rows of one active entry in the dense problem: an equality's rows; a
 * contact's normal, and with the prox solver its real tangent rows too. */
static int32_t dense_rows(const nscd__ts_local *local, const nscd__contact_slot *slot,
                          const nscd__rows *rows) {
    if (slot->kind == NSCD__ENTRY_EQUALITY) {
        return rows->n_rows;
    }
    return 1 + (local->prox ? nscd__slot_real_tangents(slot) : 0);
}

/* e min(w v_k, 0) for a contact's normal row w: Newton's law at the velocity
 * level; for a persistent contact (slot->mean_velocity) under the midpoint
 * rule e (w v_k - start_approach), the mean velocity held (core/model.h,
 * docs/joints.md), and under the other schemes 0 (plastic, as without the
 * form); 0 without v_k (a non-impulsive stage: no restitution). */
static double restitution_bias(const nscd__ts_local *local, const nscd__contact_slot *slot,
                               const nscd__rows *normal, const double *v_k) {
    if (v_k == NULL) {
        return 0.0;
    }
    double rate = nscd__rows_dot(normal, 0, v_k);
    if (slot->mean_velocity) {
        return local->rows_at_midpoint
                   ? nscd__slot_restitution(slot) * (rate - slot->start_approach)
                   : 0.0;
    }
    return nscd__slot_restitution(slot) * fmin(rate, 0.0);
}

/* e w v_k on an equality row w of an entry whose law has restitution e > 0
 * (the world's ideal joints, docs/joints.md): the row then holds
 * w (v_{k+1} + e v_k) = 0, with e = 1 and the midpoint rule the mean
 * velocity tangent at q_M, which keeps a rigid rod's energy. Every other
 * equality holds u = 0 and is left untouched (bitwise as before). */
static void add_equality_bias(const nscd__contact_slot *slot, const nscd__rows *row,
                              const double *v_k, double *c) {
    double e = nscd__slot_restitution(slot);
    if (v_k != NULL && e > 0.0) {
        *c += e * nscd__rows_dot(row, 0, v_k);
    }
}

/* The bias of row `kind` of active entry e: seed 004's linearised gap
 * g_k / dt (eq. 24 on a contact's normal row, eq. 23 on a one-row
 * equality) when local->gaps is set, else Newton's law on normal rows. */
static double row_bias(const nscd__ts_local *local, int32_t e, const nscd__contact_slot *slot,
                       const nscd__rows *entry_rows, int32_t kind, const double *v_k) {
    if (local->gaps != NULL) {
        int one_row_equality = kind == -1 && entry_rows->n_rows == 1;
        return kind == 0 || one_row_equality ? local->gaps[e] / local->dt : 0.0;
    }
    return kind == 0 ? restitution_bias(local, slot, entry_rows, v_k) : 0.0;
}

/* Arrays of a local problem of m rows. */
static nscd_status allocate_local(nscd__arena *arena, nscd__ts_local *local, int dense) {
    size_t mm = (size_t)local->m, ms = mm > 0 ? mm : 1;
    local->H = nscd__arena_array(arena, ms, sizeof *local->H);
    local->row_entry = nscd__arena_array(arena, ms, sizeof(int32_t));
    local->row_kind = nscd__arena_array(arena, ms, sizeof(int32_t));
    local->W = dense ? nscd__arena_array(arena, ms * ms, sizeof(double)) : NULL;
    local->c = nscd__arena_array(arena, ms, sizeof(double));
    local->P = nscd__arena_array(arena, ms, sizeof(double));
    local->mu = nscd__arena_array(arena, (size_t)local->n_entries + 1, sizeof(double));
    int ok = local->H && local->row_entry && local->row_kind && local->c && local->P && local->mu;
    return ok && (local->W || !dense) ? NSCD_OK : NSCD_ERR_OUT_OF_MEMORY;
}

/* LCP: one row per contact (its normal), every row of an equality; prox:
 * also the real tangent rows of frictional contacts. Dense W = H M^-1 H' and
 * c = H v_free + e min(H_N v_k, 0) on the normal rows. */
static nscd_status build_dense(nscd_time_stepping *ts, nscd__model *m, const nscd__rows *all,
                               const double *q, const double *v_free, const double *v_k,
                               nscd__ts_local *local) {
    local->m = 0;
    for (int32_t i = 0; i < local->n_entries; ++i) {
        int32_t e = local->entries[i];
        local->m += dense_rows(local, &m->contacts[e], &all[e]);
    }
    if (local->prox && local->m > NSCD__PROX_MAX_ROWS) {
        return nscd__fail(&ts->diag, NSCD_ERR_UNSUPPORTED,
                          "%d rows exceed the prox solver's %d (dense; use fc3d)", (int)local->m,
                          NSCD__PROX_MAX_ROWS);
    }
    if (allocate_local(&ts->arena, local, 1) != NSCD_OK) {
        return nscd__fail(&ts->diag, NSCD_ERR_OUT_OF_MEMORY, "dense problem of %d rows",
                          (int)local->m);
    }
    for (int32_t i = 0, r = 0; i < local->n_entries; ++i) {
        int32_t e = local->entries[i];
        const nscd__contact_slot *slot = &m->contacts[e];
        local->mu[i] = nscd__slot_frictional(slot) ? slot->friction : 0.0;
        for (int32_t a = 0; a < dense_rows(local, slot, &all[e]); ++a, ++r) {
            local->row_entry[r] = i;
            local->H[r] = nscd__rows_row(&all[e], a);
            local->row_kind[r] = slot->kind == NSCD__ENTRY_EQUALITY ? -1 : a;
            local->c[r] = nscd__rows_dot(&local->H[r], 0, v_free);
            if (local->row_kind[r] == 0 || local->gaps != NULL) { /* as before the gap bias */
                local->c[r] += row_bias(local, e, slot, &all[e], local->row_kind[r], v_k);
            } else if (local->row_kind[r] < 0) {
                add_equality_bias(slot, &local->H[r], v_k, &local->c[r]);
            }
        }
    }
    nscd_status rc =
        nscd__response_build(m, &ts->arena, q, NULL, local->m, local->H, &local->response);
    if (rc == NSCD_OK) {
        nscd__response_delassus(&local->response, local->m, local->H, local->W);
    }
    return rc;
}

/* The three rows of a contact for fc3d (normal, real tangents, zero rows
 * for the dummies), with the entry's block pattern, into *out. */
static nscd_status contact_rows(nscd__arena *arena, const nscd__contact_slot *slot,
                                const nscd__rows *rows, nscd__rows *out) {
    *out = *rows;
    out->n_rows = 3;
    size_t w = (size_t)rows->width_total;
    out->values = nscd__arena_array(arena, 3 * w, sizeof(double)); /* zero-filled */
    if (out->values == NULL) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    for (int32_t a = 0; a <= nscd__slot_real_tangents(slot); ++a) {
        memcpy(out->values + (size_t)a * w, rows->values + (size_t)a * w, w * sizeof(double));
    }
    return NSCD_OK;
}

/* fc3d: three rows per contact, the block-CSR local form (contact/assembly/assembly.h)
 * with the restitution bias on the normal rows; dummy rows get the normal's
 * diagonal (as contact/impacts/impact_friction.c: keeps the diagonal blocks positive
 * definite and the dummy impulses zero). */
static nscd_status build_fc3d(nscd_time_stepping *ts, nscd__model *m, const nscd__rows *all,
                              const double *q, const double *v_free, const double *v_k,
                              nscd__ts_local *local) {
    int32_t k = local->n_entries;
    local->m = 3 * k;
    nscd__rows *rows = nscd__arena_array(&ts->arena, (size_t)k + 1, sizeof *rows);
    if (rows == NULL || allocate_local(&ts->arena, local, 0) != NSCD_OK) {
        return nscd__fail(&ts->diag, NSCD_ERR_OUT_OF_MEMORY, "fc3d problem of %d contacts", (int)k);
    }
    for (int32_t i = 0; i < k; ++i) {
        int32_t e = local->entries[i];
        const nscd__contact_slot *slot = &m->contacts[e];
        if (contact_rows(&ts->arena, slot, &all[e], &rows[i]) != NSCD_OK) {
            return nscd__fail(&ts->diag, NSCD_ERR_OUT_OF_MEMORY, "fc3d rows");
        }
        local->mu[i] = nscd__slot_frictional(slot) ? slot->friction : 0.0;
        for (int32_t a = 0; a < 3; ++a) {
            local->row_entry[3 * i + a] = i;
            local->row_kind[3 * i + a] = (a == 0 || a <= nscd__slot_real_tangents(slot)) ? a : -2;
        }
        local->c[3 * i] = row_bias(local, e, slot, &all[e], 0, v_k); /* the bias */
        for (int32_t a = 1; local->tangential_restitution && a <= nscd__slot_real_tangents(slot);
             ++a) {
            local->c[3 * i + a] = slot->tangential_restitution * nscd__rows_dot(&all[e], a, v_k);
        }
    }
    nscd_status rc =
        nscd__local_form_bsr(m, &ts->arena, q, k, rows, v_free, local->c, &local->form);
    if (rc != NSCD_OK) {
        return rc;
    }
    memcpy(local->c, local->form.q, (size_t)local->m * sizeof(double));
    for (int32_t i = 0; i < k; ++i) {
        double *block = local->form.blocks + 9 * (size_t)local->form.diag[i];
        for (int32_t a = 1; a < 3; ++a) {
            block[4 * a] = local->row_kind[3 * i + a] == -2 ? block[0] : block[4 * a];
        }
    }
    return NSCD_OK;
}

/* ------------------------------------------------------------ block GS */

/* Lower Cholesky factor (row-major 3x3, n <= 3) of a joint's n x n block A;
 * 0 when A is not positive definite (pivots <= 1e-12 of its largest
 * diagonal: dependent rows). A contact's block is finished by
 * nscd__bgs_contact_rows_factor, as in the world step. */
static int cholesky3(const double *A, int32_t n, double *L) {
    double largest = 0.0;
    for (int32_t r = 0; r < n; ++r) {
        largest = fmax(largest, A[4 * r]);
    }
    memset(L, 0, 9 * sizeof(double));
    for (int32_t r = 0; r < n; ++r) {
        for (int32_t c = 0; c <= r; ++c) {
            double sum = A[3 * r + c];
            for (int32_t k = 0; k < c; ++k) {
                sum -= L[3 * r + k] * L[3 * c + k];
            }
            if (r == c) {
                if (!(sum > 1e-12 * largest)) {
                    return 0;
                }
                L[4 * r] = sqrt(sum);
            } else {
                L[3 * r + c] = sum / L[4 * c];
            }
        }
    }
    return 1;
}

/* The model's mass blocks as rigid bodies: 6 wide, M_b^-1 = diag(s I, J)
 * (inv_mass[b] = s, inv_inertia 9 per body); 0 when one is not. */
static int rigid_bodies(nscd__model *m, const double *q, double *inv_mass, double *inv_inertia) {
    double I6[36], X[36];
    for (int32_t k = 0; k < 36; ++k) {
        I6[k] = k % 7 == 0 ? 1.0 : 0.0;
    }
    for (int32_t b = 0; b < m->n_mass_blocks; ++b) {
        if (nscd__mass_block_width(m, b) != 6 || m->mass_block_start[b] != 6 * b ||
            m->mass_solve(m->self, q, b, 6, I6, X) != NSCD_OK) {
            return 0;
        }
        double s = X[0], scale = 0.0;
        for (int32_t k = 0; k < 36; ++k) {
            scale = fmax(scale, fabs(X[k]));
        }
        for (int32_t r = 0; r < 6; ++r) {
            for (int32_t c = 0; c < 6; ++c) {
                int lin = r < 3 && c < 3, ang = r >= 3 && c >= 3;
                double want = lin ? (r == c ? s : 0.0) : X[6 * r + c] * ang;
                if (!(fabs(X[6 * r + c] - want) <= 1e-12 * scale)) {
                    return 0;
                }
                if (ang) {
                    inv_inertia[9 * (size_t)b + 3 * (size_t)(r - 3) + (size_t)(c - 3)] =
                        X[6 * r + c];
                }
            }
        }
        inv_mass[b] = s;
    }
    return m->n_v == 6 * m->n_mass_blocks;
}

/* The bodies (mass blocks) of an entry's row blocks, 6 wide each and at
 * most two; 0 when its rows are not such. */
static int entry_bodies(const nscd__model *m, const nscd__rows *rows, int32_t body[2]) {
    body[0] = body[1] = -1;
    if (rows->n_blocks < 1 || rows->n_blocks > 2) {
        return 0;
    }
    for (int32_t j = 0; j < rows->n_blocks; ++j) {
        if (rows->width[j] != 6 || rows->column[j] % 6 != 0 || rows->column[j] < 0 ||
            rows->column[j] >= m->n_v) {
            return 0;
        }
        body[j] = rows->column[j] / 6;
    }
    return 1;
}

/* y = J h: the angular response of a row's angular part h (3). */
static void apply3(const double *J, const double *h, double *y) {
    for (int k = 0; k < 3; ++k) {
        y[k] = J[3 * k] * h[0] + J[3 * k + 1] * h[1] + J[3 * k + 2] * h[2];
    }
}

/* The lever l of a side whose angular rows are l (n x e_k) (a centred
 * sphere: r = l n) and whose inverse inertia is j E; 0 when they are not. */
static int sphere_side(const double *frame, const double *ang, const double *J, double *l,
                       double *j) {
    double size = fabs(J[0]);
    for (int k = 0; k < 9; ++k) {
        size = fmax(size, fabs(ang[k]));
    }
    for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 3; ++c) {
            if (!(fabs(J[3 * r + c] - (r == c ? J[0] : 0.0)) <= 1e-12 * fabs(J[0]))) {
                return 0;
            }
        }
    }
    const double *n = frame;
    double nt[3]; /* n x t */
    nt[0] = n[1] * frame[5] - n[2] * frame[4];
    nt[1] = n[2] * frame[3] - n[0] * frame[5];
    nt[2] = n[0] * frame[4] - n[1] * frame[3];
    *l = ang[3] * nt[0] + ang[4] * nt[1] + ang[5] * nt[2];
    *j = J[0];
    for (int k = 0; k < 3; ++k) {
        const double *e = frame + 3 * k;
        double ne[3] = {n[1] * e[2] - n[2] * e[1], n[2] * e[0] - n[0] * e[2],
                        n[0] * e[1] - n[1] * e[0]};
        for (int i = 0; i < 3; ++i) {
            if (!(fabs(ang[3 * k + i] - *l * ne[i]) <= 1e-12 * size)) {
                return 0;
            }
        }
    }
    return 1;
}

/* A contact of centred spheres (or a sphere and a side that does not
 * move) in an orthonormal frame: the solver's diagonal fast path
 * (A = diag(a_n, a_t, a_t)), as in the world's step. */
static void detect_diagonal(const double *inv_inertia, const int32_t body[2], nscd__bgs_contact *c,
                            const nscd__bgs_contact_rows *r) {
    const double *A = r->A;
    double size = fmax(A[0], A[4]);
    for (int k = 0; k < 3; ++k) {
        for (int l = 0; l < 3; ++l) {
            const double *ek = c->frame + 3 * k, *el = c->frame + 3 * l;
            double ee = ek[0] * el[0] + ek[1] * el[1] + ek[2] * el[2];
            double want = k == l ? (k == 0 ? A[0] : A[4]) : 0.0;
            if (!(fabs(ee - (k == l)) <= 1e-12) || !(fabs(A[3 * k + l] - want) <= 1e-12 * size)) {
                return;
            }
        }
    }
    double lb = 0.0, jb = 0.0, la = 0.0, ja = 0.0;
    if (!sphere_side(c->frame, r->ang_b, inv_inertia + 9 * (size_t)body[0], &lb, &jb) ||
        (c->a_moves &&
         !sphere_side(c->frame, r->ang_a, inv_inertia + 9 * (size_t)body[1], &la, &ja))) {
        return;
    }
    c->diagonal = 1;
    c->lever_b = lb, c->inv_inertia_b = jb, c->lever_a = la, c->inv_inertia_a = ja;
    c->a_n = A[0], c->a_t = A[4];
}

/* A contact entry as a general block of the solver: block 0 is side b
 * (frame e_k its linear rows), block 1 side a (its linear rows must be
 * -e_k); 0 when its rows are not such. */
static int bgs_contact(const nscd__model *m, const nscd__rows *rows, const double *inv_mass,
                       const double *inv_inertia, nscd__bgs_contact *c, nscd__bgs_contact_rows *r) {
    int32_t body[2];
    if (rows->n_rows != 3 || !entry_bodies(m, rows, body)) {
        return 0;
    }
    memset(c, 0, sizeof *c);
    memset(r, 0, sizeof *r);
    int32_t w = rows->width_total;
    c->b = body[0], c->b_moves = 1, c->inv_mass_b = inv_mass[body[0]];
    c->a = body[1] >= 0 ? body[1] : body[0];
    c->a_moves = body[1] >= 0;
    c->inv_mass_a = body[1] >= 0 ? inv_mass[body[1]] : 0.0;
    for (int32_t k = 0; k < 3; ++k) {
        const double *row = rows->values + (size_t)k * (size_t)w;
        double size = 0.0;
        for (int i = 0; i < 3; ++i) {
            c->frame[3 * k + i] = row[i];
            r->ang_b[3 * k + i] = row[3 + i];
            size = fmax(size, fabs(row[i]));
        }
        apply3(inv_inertia + 9 * (size_t)body[0], row + 3, r->resp_b + 3 * k);
        if (c->a_moves) {
            for (int i = 0; i < 3; ++i) {
                if (!(fabs(row[6 + i] + row[i]) <= 1e-12 * size)) {
                    return 0; /* not the rows of one point on two bodies */
                }
                r->ang_a[3 * k + i] = -row[9 + i];
            }
            apply3(inv_inertia + 9 * (size_t)body[1], r->ang_a + 3 * k, r->resp_a + 3 * k);
        }
    }
    for (int32_t k = 0; k < 3; ++k) {
        for (int32_t l = 0; l < 3; ++l) {
            const double *ek = c->frame + 3 * k, *el = c->frame + 3 * l;
            double ee = ek[0] * el[0] + ek[1] * el[1] + ek[2] * el[2];
            double a = (c->inv_mass_b + c->inv_mass_a) * ee;
            for (int i = 0; i < 3; ++i) {
                a += r->ang_b[3 * k + i] * r->resp_b[3 * l + i] +
                     r->ang_a[3 * k + i] * r->resp_a[3 * l + i];
            }
            r->A[3 * k + l] = a;
        }
    }
    if (!nscd__bgs_contact_rows_factor(r)) {
        return 0;
    }
    detect_diagonal(inv_inertia, body, c, r);
    return 1;
}

/* An equality entry as a joint block (at most three independent rows); 0
 * when its rows are not such. */
static int bgs_joint(const nscd__model *m, const nscd__rows *rows, const double *inv_mass,
                     const double *inv_inertia, nscd__bgs_joint_block *b) {
    int32_t body[2];
    if (rows->n_rows < 1 || rows->n_rows > 3 || !entry_bodies(m, rows, body)) {
        return 0;
    }
    memset(b, 0, sizeof *b);
    b->n = rows->n_rows;
    b->body[0] = body[0], b->body[1] = body[1];
    for (int32_t s = 0; s < rows->n_blocks; ++s) {
        for (int32_t k = 0; k < b->n; ++k) {
            const double *h = rows->values + (size_t)k * (size_t)rows->width_total + 6 * s;
            memcpy(b->h[s][k], h, 6 * sizeof(double));
            for (int i = 0; i < 3; ++i) {
                b->y[s][k][i] = inv_mass[body[s]] * h[i];
            }
            apply3(inv_inertia + 9 * (size_t)body[s], h + 3, b->y[s][k] + 3);
        }
    }
    double A[9] = {0.0};
    for (int32_t k = 0; k < b->n; ++k) {
        for (int32_t l = 0; l < b->n; ++l) {
            for (int32_t s = 0; s < rows->n_blocks; ++s) {
                for (int i = 0; i < 6; ++i) {
                    A[3 * k + l] += b->h[s][k][i] * b->y[s][l][i];
                }
            }
        }
    }
    return cholesky3(A, b->n, b->L);
}

/* The block Gauss–Seidel's problem over the active entries: NSCD_OK, or
 * NSCD_ERR_UNSUPPORTED with *why set (nothing recorded) when it does not
 * take them, or NSCD_ERR_OUT_OF_MEMORY. Rows: three per contact, then an
 * equality's own; c is H v_free + bias (the report's), P the warm start. */
static nscd_status build_block_gs(nscd_time_stepping *ts, nscd__model *m, const nscd__rows *all,
                                  const double *q, const double *v_free, const double *v_k,
                                  nscd__ts_local *local, const char **why) {
    int32_t k = local->n_entries, nb = m->n_mass_blocks, n_c = 0, n_j = 0;
    local->m = 0;
    for (int32_t i = 0; i < k; ++i) {
        const nscd__contact_slot *slot = &m->contacts[local->entries[i]];
        const nscd__rows *rows = &all[local->entries[i]];
        int eq = slot->kind == NSCD__ENTRY_EQUALITY;
        local->m += eq ? rows->n_rows : 3;
        n_c += !eq;
        n_j += eq;
        if (!eq && nscd__slot_frictional(slot) && slot->n_tangent != 2) {
            *why = "a contact with one tangential row";
            return NSCD_ERR_UNSUPPORTED;
        }
        if (!eq && local->tangential_restitution && slot->tangential_restitution != 0.0) {
            *why = "a tangential restitution";
            return NSCD_ERR_UNSUPPORTED;
        }
        for (int32_t a = 0; eq && a < rows->n_rows; ++a) {
            if (row_bias(local, local->entries[i], slot, rows, -1, v_k) != 0.0 ||
                (v_k != NULL && nscd__slot_restitution(slot) > 0.0)) {
                *why = "an equality with a bias (energy form or linearised gap)";
                return NSCD_ERR_UNSUPPORTED;
            }
        }
    }
    nscd__arena *arena = &ts->arena;
    nscd__bgs_problem *p = nscd__arena_array(arena, 1, sizeof *p);
    double *inv_mass = nscd__arena_array(arena, (size_t)nb + 1, sizeof(double));
    double *inv_inertia = nscd__arena_array(arena, 9 * (size_t)nb + 1, sizeof(double));
    double *vel = nscd__arena_array(arena, 3 * (size_t)nb + 1, sizeof(double));
    double *om = nscd__arena_array(arena, 3 * (size_t)nb + 1, sizeof(double));
    nscd__bgs_contact *contacts = nscd__arena_array(arena, (size_t)n_c + 1, sizeof *contacts);
    nscd__bgs_contact_rows *crows = nscd__arena_array(arena, (size_t)n_c + 1, sizeof *crows);
    nscd__bgs_joint_block *joints = nscd__arena_array(arena, (size_t)n_j + 1, sizeof *joints);
    nscd__bgs_mechanism *mech = nscd__arena_array(arena, 1, sizeof *mech);
    local->dv = nscd__arena_array(arena, (size_t)m->n_v + 1, sizeof(double));
    if (p == NULL || inv_mass == NULL || inv_inertia == NULL || vel == NULL || om == NULL ||
        contacts == NULL || crows == NULL || joints == NULL || mech == NULL || local->dv == NULL ||
        allocate_local(arena, local, 0) != NSCD_OK) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    if (!rigid_bodies(m, q, inv_mass, inv_inertia)) {
        nscd__diag_clear(m->diag);
        *why = "the model's mass blocks are not rigid bodies";
        return NSCD_ERR_UNSUPPORTED;
    }
    for (int32_t b = 0; b < nb; ++b) {
        memcpy(vel + 3 * (size_t)b, v_free + 6 * (size_t)b, 3 * sizeof(double));
        memcpy(om + 3 * (size_t)b, v_free + 6 * (size_t)b + 3, 3 * sizeof(double));
    }
    int32_t r = 0, jc = 0, jj = 0;
    for (int32_t i = 0; i < k; ++i) {
        int32_t e = local->entries[i];
        const nscd__contact_slot *slot = &m->contacts[e];
        const nscd__rows *rows = &all[e];
        int eq = slot->kind == NSCD__ENTRY_EQUALITY;
        int32_t n = eq ? rows->n_rows : 3;
        local->mu[i] = nscd__slot_frictional(slot) ? slot->friction : 0.0;
        for (int32_t a = 0; a < n; ++a, ++r) {
            local->row_entry[r] = i;
            local->row_kind[r] = eq ? -1 : a;
            local->H[r] = nscd__rows_row(rows, a);
            local->c[r] = nscd__rows_dot(rows, a, v_free);
        }
        if (eq) {
            nscd__bgs_joint_block *b = &joints[jj++];
            if (!bgs_joint(m, rows, inv_mass, inv_inertia, b)) {
                *why =
                    "an equality whose rows are not at most three independent rows on two bodies";
                return NSCD_ERR_UNSUPPORTED;
            }
            b->joint = i;
            for (int32_t a = 0; a < n; ++a) {
                b->lambda[a] = a < 3 ? slot->state.impulse[a] : 0.0;
            }
            continue;
        }
        nscd__bgs_contact *c = &contacts[jc];
        if (!bgs_contact(m, rows, inv_mass, inv_inertia, c, &crows[jc])) {
            *why = "a contact whose rows are not those of a point on two rigid bodies";
            return NSCD_ERR_UNSUPPORTED;
        }
        c->source = i;
        c->mu = local->mu[i];
        c->bias = row_bias(local, e, slot, rows, 0, v_k);
        local->c[r - 3] += c->bias;
        memcpy(c->x, slot->state.impulse, sizeof c->x);
        if (c->mu == 0.0) {
            c->x[1] = c->x[2] = 0.0;
        }
        ++jc;
    }
    memset(p, 0, sizeof *p);
    p->bodies.n = nb;
    p->bodies.velocity = vel;
    p->bodies.omega = om;
    p->contacts = contacts;
    p->contact_rows = crows;
    p->contact_resist = NULL; /* no resistance in the assembled model */
    p->n_contacts = n_c;
    p->joint_blocks = joints;
    p->n_joint_blocks = n_j;
    mech->first = 0, mech->count = n_j, mech->factored = 0;
    for (int32_t j = 0; j < n_j; ++j) {
        mech->rows += joints[j].n;
    }
    p->mechanisms = mech;
    p->n_mechanisms = n_j > 0;
    local->bgs = p;
    local->bgs_v_free = v_free;
    local->n_v = m->n_v;
    local->block_gs = 1;
    return NSCD_OK;
}

/* Warm started from the entries' last impulses (the contacts' scaled so
 * that they add no energy, as in the world's step), swept to the
 * tolerance; P and dv = M^-1 H' P back in the stepper's rows. */
static nscd_status solve_block_gs(nscd_time_stepping *ts, nscd__ts_local *local) {
    nscd__bgs_problem *p = local->bgs;
    nscd__bgs_options o = {ts->options.max_iterations, ts->options.tolerance, NSCD_FC3D_COULOMB, 1,
                           1.0};
    nscd__bgs_joint_warm_start(p);
    nscd__bgs_warm_start(p);
    int32_t sweeps = 0;
    double merit = 0.0;
    nscd__bgs_solve(p, &o, &sweeps, &merit);
    for (int32_t r = 0, jc = 0, jj = 0; r < local->m;) {
        if (local->row_kind[r] == -1) {
            const nscd__bgs_joint_block *b = &p->joint_blocks[jj++];
            for (int32_t a = 0; a < b->n; ++a) {
                local->P[r++] = b->lambda[a];
            }
        } else {
            const nscd__bgs_contact *c = &p->contacts[jc++];
            for (int32_t a = 0; a < 3; ++a) {
                local->P[r++] = c->x[a];
            }
        }
    }
    for (int32_t b = 0; b < p->bodies.n; ++b) {
        for (int32_t i = 0; i < 3; ++i) {
            local->dv[6 * b + i] = p->bodies.velocity[3 * b + i] - local->bgs_v_free[6 * b + i];
            local->dv[6 * b + 3 + i] =
                p->bodies.omega[3 * b + i] - local->bgs_v_free[6 * b + 3 + i];
        }
    }
    ts->report.iterations = sweeps;
    ts->report.residual = merit;
    ts->report.converged = merit <= ts->options.tolerance;
    if (!ts->report.converged) {
        return nscd__fail(&ts->diag, NSCD_ERR_NOT_CONVERGED,
                          "block Gauss-Seidel on %d rows: %d sweeps, merit %.3g", (int)local->m,
                          (int)sweeps, merit);
    }
    return NSCD_OK;
}

/* Whether the fc3d solvers take the local form: every 3x3 diagonal block
 * symmetric (|A_ab - A_ba| <= 1e-10 max_a |A_aa|) and positive definite
 * (the pivots of LDL' > 1e-14 max_a |A_aa|), the test they apply before
 * solving (nscd__fc3d_check_diag_block, fc3d_options.c). W = H M^-1 H'
 * passes it up to rounding; ED-α's coupled stages (ed_alpha.c:
 * H_c (Γ ⊗ I) J^-1 H_c', J not symmetric with the stages' stiffness and
 * damping) do not. Off-diagonal blocks are not tested: block Gauss–Seidel
 * takes non-symmetric couplings, and so did every run before this test. */
static int fc3d_takes(const nscd__local_bsr *f) {
    for (int32_t i = 0; i < f->n_contacts; ++i) {
        if (nscd__fc3d_check_diag_block(f->blocks + 9 * (size_t)f->diag[i]) != NSCD_OK) {
            return 0;
        }
    }
    return 1;
}

/* Whether an active entry is a clearance joint's gap. */
static int clearance_gaps(const nscd__model *m, const nscd__ts_local *local) {
    for (int32_t i = 0; i < local->n_entries; ++i) {
        if (m->contacts[local->entries[i]].clearance) {
            return 1;
        }
    }
    return 0;
}

nscd_status nscd__ts_local_build(nscd_time_stepping *ts, nscd__model *solver, const nscd__rows *all,
                                 const double *q, const double *v_free, const double *v_k,
                                 nscd__ts_local *local) {
    local->model = solver;
    local->block_gs = 0;
    int32_t choice = ts->options.local_solver;
    if (choice == NSCD_TS_SOLVER_BLOCK_GS && !local->block_gs_allowed) {
        return nscd__fail(&ts->diag, NSCD_ERR_UNSUPPORTED,
                          "the block Gauss-Seidel solver is for Moreau-Jean with explicit forces");
    }
    if (choice == NSCD_TS_SOLVER_BLOCK_GS ||
        (choice == NSCD_TS_SOLVER_AUTO && local->block_gs_allowed && solver->rigid_bodies &&
         !clearance_gaps(solver, local))) {
        const char *why = "";
        nscd_status built = build_block_gs(ts, solver, all, q, v_free, v_k, local, &why);
        if (built == NSCD_ERR_OUT_OF_MEMORY) {
            return nscd__fail(&ts->diag, built, "block Gauss-Seidel problem of %d entries",
                              (int)local->n_entries);
        }
        if (built == NSCD_OK || choice == NSCD_TS_SOLVER_BLOCK_GS) {
            return built == NSCD_OK ? NSCD_OK
                                    : nscd__fail(&ts->diag, built, "block Gauss-Seidel: %s", why);
        }
        local->block_gs = 0; /* AUTO: the choice below */
    }
    nscd_status rc = choose_solver(ts, local);
    if (rc != NSCD_OK) {
        return rc;
    }
    if (!local->fc3d) {
        return build_dense(ts, solver, all, q, v_free, v_k, local);
    }
    rc = build_fc3d(ts, solver, all, q, v_free, v_k, local);
    /* AUTO: the fc3d solvers refuse a non-symmetric (or not positive
     * definite) diagonal block with NSCD_ERR_NOT_SPD; the prox solver's
     * Gauss–Newton (dgelsd) takes any W, so such a problem goes to it,
     * rebuilt dense over the same entries. Only problems fc3d would have
     * refused change solver. An explicit fc3d choice is kept and fails in
     * solve_fc3d with that status. */
    if (rc == NSCD_OK && ts->options.local_solver == NSCD_TS_SOLVER_AUTO &&
        !fc3d_takes(&local->form)) {
        local->fc3d = 0;
        local->prox = 1;
        memset(&local->form, 0, sizeof local->form);
        rc = build_dense(ts, solver, all, q, v_free, v_k, local);
    }
    return rc;
}

void nscd__ts_local_velocity(const nscd__ts_local *local, int32_t n_v, double *dv) {
    if (local->m == 0) {
        memset(dv, 0, (size_t)n_v * sizeof(double));
    } else if (local->block_gs) {
        memcpy(dv, local->dv, (size_t)n_v * sizeof(double));
    } else if (local->fc3d) {
        nscd__response_gemv(&local->form.response, local->P, dv);
    } else {
        nscd__response_gemv(&local->response, local->P, dv);
    }
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
    nscd__model *m = local->model;
    int32_t unilateral = 0;
    for (int32_t a = 0; a < local->m; ++a) {
        unilateral += local->row_kind[a] == 0;
    }
    if (unilateral > NSCD_LCP_MAX_SIZE) {
        return nscd__fail(&ts->diag, NSCD_ERR_UNSUPPORTED,
                          "%d active contacts exceed the LCP solver's %d (use fc3d)",
                          (int)unilateral, NSCD_LCP_MAX_SIZE);
    }
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

static nscd_status solve_fc3d(nscd_time_stepping *ts, nscd__ts_local *local) {
    int32_t n = local->m / 3;
    const nscd__local_bsr *f = &local->form;
    nscd__fc3d_matrix bsr = {n, f->row_ptr, f->col_idx, f->blocks, f->diag, NULL};
    nscd_fc3d_options opts;
    nscd_fc3d_options_init(&opts, sizeof opts);
    opts.friction_law = local->law;
    /* Newton and AUTO are Coulomb only (nscd_time_stepping_options.fc3d_method) */
    opts.method =
        local->law == NSCD_FC3D_COULOMB || ts->options.fc3d_method == NSCD_FC3D_JACOBI_BLEND
            ? ts->options.fc3d_method
            : NSCD_FC3D_GAUSS_SEIDEL;
    opts.tolerance = ts->options.tolerance;
    opts.max_iterations = ts->options.max_iterations;
    opts.warm_start = 1;
    nscd_fc3d_options resolved;
    double *u = nscd__arena_array(&ts->arena, (size_t)local->m, sizeof(double));
    double *work = nscd__arena_array(&ts->arena, NSCD__FC3D_RUN_WORK((size_t)n), sizeof(double));
    if (u == NULL || work == NULL) {
        return nscd__fail(&ts->diag, NSCD_ERR_OUT_OF_MEMORY, "fc3d problem of %d contacts", (int)n);
    }
    nscd_fc3d_info info = {.struct_size = sizeof info};
    nscd_status rc = nscd__fc3d_check_args(n, NSCD__FC3D_MAX_CONTACTS, local->c, local->mu, &opts,
                                           local->P, u, &info, &resolved);
    for (int32_t i = 0; rc == NSCD_OK && i < n; ++i) {
        rc = nscd__fc3d_check_diag_block(bsr.blocks + 9 * (size_t)bsr.diag[i]);
        if (rc == NSCD_ERR_NOT_SPD) {
            return nscd__fail(&ts->diag, rc,
                              "fc3d: the 3x3 diagonal block of contact %d is not symmetric "
                              "positive definite (a non-symmetric local matrix, e.g. ED-α's "
                              "coupled stages, needs the prox solver or AUTO)",
                              (int)i);
        }
    }
    if (rc == NSCD_OK &&
        (resolved.method == NSCD_FC3D_NEWTON || resolved.method == NSCD_FC3D_AUTO)) {
        /* Newton's linear algebra allocates its own (fc3d_newton.c) */
        rc = nscd__fc3d_run(&bsr, local->c, local->mu, &resolved, local->P, u, &info);
    } else if (rc == NSCD_OK) {
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

/* ------------------------------------------------------------ prox */

/* r of each row: the scheme's constant (NSCD_TS_PROX_R_PAPER), or
 * prox_r / W_aa (NSCD_TS_PROX_R_SCALED) with a contact's normal diagonal for
 * all its rows (the disk projection needs one r per contact); a zero
 * diagonal (a row that moves nothing) takes the largest one. */
static void prox_parameters(const nscd_time_stepping *ts, const nscd__ts_local *local, double *r) {
    int32_t m = local->m;
    double largest = 0.0;
    for (int32_t a = 0; a < m; ++a) {
        largest = fmax(largest, local->W[(size_t)a * (size_t)m + (size_t)a]);
    }
    for (int32_t a = 0; a < m; ++a) {
        int32_t owner = local->row_kind[a] > 0 ? a - local->row_kind[a] : a;
        double w = local->W[(size_t)owner * (size_t)m + (size_t)owner];
        w = w > 1e-14 * largest ? w : (largest > 0.0 ? largest : 1.0);
        r[a] = ts->options.prox_r_mode == NSCD_TS_PROX_R_PAPER ? local->prox_r
                                                               : ts->options.prox_r / w;
    }
}

/* The dense problem handed to the prox Gauss–Newton kernel
 * (contact/solvers/prox_gn.h), warm started from local->P. */
static nscd_status solve_prox(nscd_time_stepping *ts, nscd__ts_local *local) {
    size_t m = (size_t)local->m;
    int32_t *kind = nscd__arena_array(&ts->arena, m, sizeof(int32_t));
    int32_t *n_tan = nscd__arena_array(&ts->arena, m, sizeof(int32_t));
    double *mu = nscd__arena_array(&ts->arena, m, sizeof(double));
    double *r = nscd__arena_array(&ts->arena, m, sizeof(double));
    if (kind == NULL || n_tan == NULL || mu == NULL || r == NULL) {
        return nscd__fail(&ts->diag, NSCD_ERR_OUT_OF_MEMORY, "prox problem of %d rows", (int)m);
    }
    if (ts->options.prox_r_mode == NSCD_TS_PROX_R_PAPER && !(local->prox_r > 0.0)) {
        return nscd__fail(&ts->diag, NSCD_ERR_INVALID_ARGUMENT, "the scheme gave no paper's r");
    }
    for (size_t a = 0; a < m; ++a) {
        int32_t k = local->row_kind[a];
        kind[a] = k < 0 ? NSCD__PROX_EQUALITY : (k == 0 ? NSCD__PROX_NORMAL : NSCD__PROX_TANGENT);
        mu[a] = local->mu[local->row_entry[a]];
        n_tan[a - (size_t)(k > 0 ? k : 0)] += k > 0; /* counts the rows after the normal */
    }
    prox_parameters(ts, local, r);
    nscd__prox_problem problem = {local->m,
                                  local->W,
                                  local->c,
                                  kind,
                                  n_tan,
                                  mu,
                                  r,
                                  ts->options.max_iterations,
                                  ts->options.tolerance};
    nscd__prox_info info;
    nscd_status rc = nscd__prox_gauss_newton(&problem, &ts->arena, local->P, &info);
    ts->report.iterations = info.iterations;
    ts->report.residual = info.residual;
    ts->report.converged = info.converged;
    if (rc != NSCD_OK) {
        return nscd__fail(&ts->diag, rc, "prox Gauss-Newton on %d rows: %d iterations, |f| %.3g",
                          (int)m, (int)info.iterations, info.residual);
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
    if (local->block_gs) {
        return solve_block_gs(ts, local);
    }
    if (local->prox) {
        return solve_prox(ts, local);
    }
    if (local->fc3d) {
        return solve_fc3d(ts, local);
    }
    nscd_status rc = solve_lcp(ts, local);
    /* AUTO: the pivoting LCP solves dependent rows (a redundant set: the
     * four corners of a slider held on two dofs, the joint rows of a
     * four-bar) by the proximal iterations of core/redundant.h; a set with
     * no solution there (NSCD_ERR_SINGULAR: inconsistent equality rows), or
     * a matrix that is no P-matrix (ED-α's non-symmetric stages: a singular
     * basis or the pivot budget), goes to the prox solver's least squares,
     * on the same dense problem (docs/time_stepping.md, "Redundant rows") */
    if ((rc == NSCD_ERR_SINGULAR || rc == NSCD_ERR_NOT_CONVERGED) &&
        ts->options.local_solver == NSCD_TS_SOLVER_AUTO) {
        nscd__diag_clear(&ts->diag);
        memset(local->P, 0, (size_t)local->m * sizeof(double));
        local->prox = 1;
        rc = solve_prox(ts, local);
    }
    return rc;
}
