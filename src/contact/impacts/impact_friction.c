/* Frictional impacts of several contacts: Newton's law in Moreau's form and
 * Poisson's law in Pfeiffer and Glocker's two phases, both with Coulomb
 * friction in De Saxce's form, solved by the fc3d block Gauss–Seidel
 * (see impact_rules.h and docs/frictional_impacts.md).
 *
 * Local rows. Contact r of the impact owns the rows 3r (normal: the row the
 * event was located with), 3r + 1 and 3r + 2 (tangents, from the model). A
 * planar contact (n_tangent = 1) has a zero row 3r + 2, a frictionless one
 * zero rows 3r + 1 and 3r + 2. Zero rows get the diagonal W_aa = W_nn of
 * their contact, which keeps the 3x3 block positive definite and decouples
 * the dummy impulse: its row of W r + q reads W_nn r_a = 0, so fc3d's
 * sticking solve returns r_a = 0 exactly and its sliding solutions are
 * x_t = -mu x_n (cos th, sin th) with th in {0, pi} (the other roots of the
 * slip-angle function have u_t . w = -mu x_n W_nn < 0 and are rejected), i.e.
 * r_a = -mu x_n sin(pi) ~ 1e-16 mu x_n, which is set to zero afterwards. So
 * a planar contact obeys planar Coulomb friction (|r_t| <= mu r_n, r_t
 * opposite to the slip), a frictionless one r_t = 0.
 *
 * Equality entries (joints) of the impact hold with impulses of either sign:
 * their rows are condensed out of W (a Schur complement; see condense()),
 * the contacts' problem is solved on the condensed W, and the equalities'
 * impulses follow from the contacts'. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "contact/impacts/impact_rules.h"
#include "core/dense.h"
#include "core/redundant.h"

/* Where the impact's entries go in the local problem: contact U[a] owns
 * the rows 3a, 3a + 1, 3a + 2 of H, equality entry E[b] the row 3 n_u + b.
 * Without equality entries U is the identity and m = 3 count, so the
 * arithmetic is the one of impacts without joints. */
typedef struct friction_layout {
    int32_t n_u, n_e, m;
    int32_t *U, *E;
    double *G;      /* H M^-1 H' (m x m): work->delassus when n_e = 0 */
    double *u;      /* u- = H v- (m): work->local_v when n_e = 0 */
    double *Y;      /* G_EE^-1 [G_EU, u-_E] (n_e x (3 n_u + 1)) */
    uint8_t *dummy; /* 3 n_u: rows whose impulse is zero */
} friction_layout;

static const nscd__contact_slot *contact_of(const nscd__model *model, const nscd__impact *impact,
                                            const friction_layout *L, int32_t a) {
    return &model->contacts[impact->contacts[L->U[a]]];
}

/* The free velocity of Moreau's Newton law: xi = u+ + E u- with
 * xi_N = u+_N + e min(u-_N, 0) and xi_T = u+_T + e_T u-_T on the real
 * tangential rows (seed 003 eqs. 11-15); closed contacts restitute nothing.
 * e_T = 0 adds nothing, so those impacts stay bitwise what they were. */
static void newton_free_velocity(const nscd__model *model, const nscd__impact *impact,
                                 const friction_layout *L, const double *u0, double *qf) {
    for (int32_t j = 0; j < L->n_u; ++j) {
        const nscd__contact_slot *slot = contact_of(model, impact, L, j);
        qf[3 * j] += nscd__slot_impact_restitution(slot, 0) * fmin(u0[3 * j], 0.0);
        double e_t = slot->state.mode == NSCD_CONTACT_CLOSED ? 0.0 : slot->tangential_restitution;
        for (int32_t a = 1; e_t != 0.0 && a <= nscd__slot_real_tangents(slot); ++a) {
            qf[3 * j + a] += e_t * u0[3 * j + a];
        }
    }
}

int nscd__impact_has_friction(const nscd__model *model, const nscd__impact *impact) {
    if (impact->plastic) {
        return 0;
    }
    for (int32_t i = 0; i < impact->count; ++i) {
        if (nscd__slot_frictional(&model->contacts[impact->contacts[i]])) {
            return 1;
        }
    }
    return 0;
}

/* w . v by a plain loop (the order the tangential velocities always had). */
static double loop_dot(const nscd__rows *w, const double *v) {
    const double *values = w->values;
    double sum = 0.0;
    for (int32_t b = 0; b < w->n_blocks; ++b) {
        for (int32_t i = 0; i < w->width[b]; ++i) {
            sum += values[i] * v[w->column[b] + i];
        }
        values += w->width[b];
    }
    return sum;
}

/* The local rows H (3 per contact: the normal, the real tangents, zero
 * rows for the dummies; then one per equality entry) as one-row views, in
 * the arena. */
static nscd__rows *local_rows(nscd__model *model, nscd__impact_work *work,
                              const nscd__impact *impact, const friction_layout *L) {
    nscd__rows *H = nscd__arena_array(work->arena, (size_t)L->m, sizeof *H);
    for (int32_t r = 0; H != NULL && r < L->n_u; ++r) {
        const nscd__contact_slot *slot = contact_of(model, impact, L, r);
        const nscd__rows *entry = &impact->rows[L->U[r]];
        work->mu[r] = nscd__slot_frictional(slot) ? slot->friction : 0.0;
        for (int32_t a = 0; a < 3; ++a) {
            H[3 * r + a] = nscd__rows_row(entry, 0);
            if (a == 0 || a <= nscd__slot_real_tangents(slot)) {
                H[3 * r + a] = nscd__rows_row(entry, a);
                continue;
            }
            H[3 * r + a].values =
                nscd__arena_array(work->arena, (size_t)entry->width_total, sizeof(double));
            if (H[3 * r + a].values == NULL) {
                return NULL;
            }
        }
    }
    for (int32_t e = 0; H != NULL && e < L->n_e; ++e) {
        H[3 * L->n_u + e] = nscd__rows_row(&impact->rows[L->E[e]], 0);
    }
    return H;
}

static void symmetrise(int32_t m, double *W) {
    for (int32_t a = 0; a < m; ++a) { /* symmetric up to rounding */
        for (int32_t b = a; b < m; ++b) {
            double ab = W[(size_t)a * (size_t)m + (size_t)b],
                   ba = W[(size_t)b * (size_t)m + (size_t)a];
            W[(size_t)a * (size_t)m + (size_t)b] = W[(size_t)b * (size_t)m + (size_t)a] =
                0.5 * (ab + ba);
        }
    }
}

/* The equality rows condensed out: with the equalities' impulses
 * lambda = -G_EE^-1 (u-_E + G_EU r) their velocities after the impact are
 * zero, and the contacts see
 *     u_U = W_c r + q_c,  W_c = G_UU - G_UE G_EE^-1 G_EU,
 *                         q_c = u-_U - G_UE G_EE^-1 u-_E,
 * i.e. W_c = H_U M~^-1 H_U' with M~^-1 the inverse mass restricted to the
 * motions the joints allow. Dependent equality rows (a four-bar's 20 joint
 * rows on 18 dofs) make G_EE singular: G_EE Y = [G_EU, u-_E] is then solved
 * column by column for its least-norm solution (core/redundant.h); the
 * columns lie in the range of G_EE = H_E M^-1 H_E', and G_UE maps its null
 * space to zero, so W_c and q_c do not depend on which solution is taken.
 * W_c in work->delassus (3 n_u square), q_c in work->local_v, Y in L->Y. */
static nscd_status condense(nscd__model *model, nscd__impact_work *work, friction_layout *L) {
    int32_t mc = 3 * L->n_u, n_e = L->n_e, m = L->m, cols = mc + 1;
    size_t mm = (size_t)m, nc = (size_t)cols;
    double *Gee = nscd__arena_array(work->arena, (size_t)n_e * (size_t)n_e, sizeof(double));
    double *Y = nscd__arena_array(work->arena, (size_t)n_e * nc, sizeof(double));
    double *column = nscd__arena_array(work->arena, (size_t)n_e, sizeof(double));
    double *redundant = nscd__arena_array(work->arena, NSCD__REDUNDANT_WORK(n_e), sizeof(double));
    if (!Gee || !Y || !column || !redundant) {
        return nscd__fail(model->diag, NSCD_ERR_OUT_OF_MEMORY, "frictional impact with joints");
    }
    const double *G = L->G;
    for (int32_t i = 0; i < n_e; ++i) {
        const double *g = G + (size_t)(mc + i) * mm;
        for (int32_t j = 0; j < n_e; ++j) {
            Gee[(size_t)i * (size_t)n_e + (size_t)j] = g[mc + j];
        }
        for (int32_t b = 0; b < mc; ++b) {
            Y[(size_t)i * nc + (size_t)b] = g[b];
        }
        Y[(size_t)i * nc + (size_t)mc] = L->u[mc + i];
    }
    int32_t rank = nscd__redundant_rank(n_e, Gee, redundant);
    nscd_status rc = NSCD_OK;
    if (rank < 0 || rank == n_e) {
        rc = nscd__lu_solve(n_e, Gee, work->pivots, cols, Y);
    } else {
        for (int32_t b = 0; rc == NSCD_OK && b < cols; ++b) {
            for (int32_t i = 0; i < n_e; ++i) {
                column[i] = Y[(size_t)i * nc + (size_t)b];
            }
            rc = nscd__redundant_solve(n_e, Gee, column, redundant);
            for (int32_t i = 0; rc == NSCD_OK && i < n_e; ++i) {
                Y[(size_t)i * nc + (size_t)b] = column[i];
            }
        }
    }
    if (rc != NSCD_OK) {
        return nscd__fail(model->diag, NSCD_ERR_SINGULAR,
                          "frictional impact: the %d equality rows are inconsistent", (int)n_e);
    }
    double *W = work->delassus, *q = work->local_v;
    for (int32_t a = 0; a < mc; ++a) {
        const double *g = G + (size_t)a * mm;
        for (int32_t b = 0; b <= mc; ++b) {
            double sum = b < mc ? g[b] : L->u[a];
            for (int32_t i = 0; i < n_e; ++i) {
                sum -= g[mc + i] * Y[(size_t)i * nc + (size_t)b];
            }
            if (b < mc) {
                W[(size_t)a * (size_t)mc + (size_t)b] = sum;
            } else {
                q[a] = sum;
            }
        }
    }
    symmetrise(mc, W);
    L->Y = Y;
    return NSCD_OK;
}

/* Rows whose impulse is zero: the dummy tangents of planar and frictionless
 * contacts, and (with joints) tangents the joints hold, whose condensed
 * diagonal is at most NSCD__REDUNDANT_PIVOT of their own (the joints
 * carry the force along them; friction acts in the directions left free).
 * Their rows and columns of W_c are zeroed, their diagonal set to W_nn and
 * their free velocity to 0, as for the dummies above. A contact whose
 * normal the joints hold cannot take part: NSCD_ERR_SINGULAR. */
static nscd_status mark_dummies(nscd__model *model, const nscd__impact *impact,
                                nscd__impact_work *work, friction_layout *L) {
    int32_t mc = 3 * L->n_u;
    double *W = work->delassus;
    for (int32_t r = 0; r < L->n_u; ++r) {
        const nscd__contact_slot *slot = contact_of(model, impact, L, r);
        for (int32_t a = 0; a < 3; ++a) {
            size_t row = (size_t)(3 * r + a);
            double own = L->G[row * (size_t)L->m + row];
            int held = L->n_e > 0 && W[row * (size_t)mc + row] <= NSCD__REDUNDANT_PIVOT * own;
            if (a == 0 && held) {
                return nscd__fail(model->diag, NSCD_ERR_SINGULAR,
                                  "frictional impact: the equality constraints hold the normal "
                                  "of contact %d",
                                  (int)impact->contacts[L->U[r]]);
            }
            L->dummy[row] = (uint8_t)(a > nscd__slot_real_tangents(slot) || held);
        }
        double wnn = W[(size_t)(3 * r) * (size_t)mc + (size_t)(3 * r)];
        for (int32_t a = 1; a < 3; ++a) {
            size_t row = (size_t)(3 * r + a);
            if (!L->dummy[row]) {
                continue;
            }
            if (L->n_e > 0) { /* a dummy without joints is a zero row already */
                for (int32_t b = 0; b < mc; ++b) {
                    W[row * (size_t)mc + (size_t)b] = W[(size_t)b * (size_t)mc + row] = 0.0;
                }
                work->local_v[row] = 0.0;
            }
            W[row * (size_t)mc + row] = wnn;
        }
    }
    return NSCD_OK;
}

/* M^-1 H' in work->response, the contacts' W (3 n_u square, symmetrised,
 * dummy diagonals set) in work->delassus, their free velocities in
 * work->local_v (u- = H v-, condensed with joints), the friction
 * coefficients in work->mu, and the layout L. */
static nscd_status assemble(nscd__model *model, nscd__impact_work *work, const double *q,
                            const nscd__impact *impact, const double *v, friction_layout *L) {
    int32_t k = impact->count;
    nscd__arena *arena = work->arena;
    L->U = nscd__arena_array(arena, (size_t)k, sizeof(int32_t));
    L->E = nscd__arena_array(arena, (size_t)k, sizeof(int32_t));
    L->dummy = nscd__arena_array(arena, 3 * (size_t)k, sizeof(uint8_t));
    if (!L->U || !L->E || !L->dummy) {
        return nscd__fail(model->diag, NSCD_ERR_OUT_OF_MEMORY, "frictional impact rows");
    }
    nscd__impact_split_rows(model, impact, L->E, &L->n_e, L->U, &L->n_u);
    int32_t m = L->m = 3 * L->n_u + L->n_e, mc = 3 * L->n_u;
    L->G = work->delassus;
    L->u = work->local_v;
    L->Y = NULL;
    if (L->n_e > 0) {
        L->G = nscd__arena_array(arena, (size_t)m * (size_t)m, sizeof(double));
        L->u = nscd__arena_array(arena, (size_t)m, sizeof(double));
    }
    nscd__rows *H = L->G != NULL && L->u != NULL ? local_rows(model, work, impact, L) : NULL;
    if (H == NULL) {
        return nscd__fail(model->diag, NSCD_ERR_OUT_OF_MEMORY, "frictional impact rows");
    }
    nscd_status rc = nscd__response_build(model, arena, q, NULL, m, H, &work->response);
    if (rc != NSCD_OK) {
        return rc;
    }
    nscd__response_delassus(&work->response, m, H, L->G);
    symmetrise(m, L->G);
    for (int32_t a = 0; a < m; ++a) {
        L->u[a] = loop_dot(&H[a], v);
    }
    for (int32_t r = 0; r < L->n_u; ++r) { /* the normal velocity exactly as the LCP paths see it */
        L->u[3 * r] = nscd__rows_dot(&impact->rows[L->U[r]], 0, v);
    }
    for (int32_t e = 0; e < L->n_e; ++e) {
        L->u[mc + e] = nscd__rows_dot(&impact->rows[L->E[e]], 0, v);
    }
    if (L->n_e > 0 && (rc = condense(model, work, L)) != NSCD_OK) {
        return rc;
    }
    return mark_dummies(model, impact, work, L);
}

/* u' A^-1 u / 2 for a 3x3 SPD block A (row-major) by its LDL' factors. */
static double block_energy(const double *W, int32_t m, int32_t j, const double *u) {
    const double *A0 = W + (size_t)(3 * j) * (size_t)m + (size_t)(3 * j);
    double a00 = A0[0], a10 = A0[m], a11 = A0[m + 1], a20 = A0[2 * m], a21 = A0[2 * m + 1],
           a22 = A0[2 * m + 2];
    double l10 = a10 / a00, l20 = a20 / a00, d1 = a11 - l10 * a10;
    double l21 = (a21 - l20 * a10) / d1, d2 = a22 - l20 * a20 - l21 * l21 * d1;
    double y0 = u[0], y1 = u[1] - l10 * y0, y2 = u[2] - l20 * y0 - l21 * y1;
    return 0.5 * (y0 * y0 / a00 + y1 * y1 / d1 + y2 * y2 / d2);
}

/* One fc3d solve on the impact's W; failures are recorded with their cause. */
static nscd_status solve(nscd__model *model, nscd__impact_work *work, int32_t k, const double *q,
                         const double *shift, int warm_start, double *r, const char *what) {
    nscd_fc3d_options o = work->fc3d_options;
    o.friction_law = NSCD_FC3D_COULOMB;
    o.warm_start = warm_start;
    work->fc3d_info.struct_size = sizeof work->fc3d_info;
    nscd_status rc = nscd__fc3d_solve_dense_work(&work->fc3d, k, work->delassus, q, work->mu, shift,
                                                 &o, r, work->local_u, &work->fc3d_info);
    if (rc == NSCD_ERR_NOT_CONVERGED) {
        return nscd__fail(model->diag, rc,
                          "%s of %d frictional contacts: fc3d merit %.3g > %.3g after %d sweeps "
                          "(%d local failures)",
                          what, (int)k, work->fc3d_info.merit, o.tolerance,
                          (int)work->fc3d_info.iterations, (int)work->fc3d_info.local_failures);
    }
    if (rc != NSCD_OK) {
        return nscd__fail(model->diag, rc,
                          "%s of %d frictional contacts: fc3d rejected the problem", what, (int)k);
    }
    return NSCD_OK;
}

nscd_status nscd__resolve_friction(nscd__model *model, nscd__impact_work *work, const double *q,
                                   const nscd__impact *impact, int32_t rule, double *v) {
    int32_t n = model->n_v, k = impact->count;
    if (k > work->capacity) {
        return nscd__fail(model->diag, NSCD_ERR_UNSUPPORTED,
                          "%d simultaneous contacts exceed the impact solver's %d", (int)k,
                          (int)work->capacity);
    }
    if (k <= 0) {
        return NSCD_OK;
    }
    friction_layout L;
    nscd_status rc = assemble(model, work, q, impact, v, &L);
    if (rc != NSCD_OK) {
        return rc;
    }
    int32_t n_u = L.n_u, mc = 3 * n_u, m = L.m;
    const double *u0 = work->local_v, *W = work->delassus;
    double *r = work->local_r, *qf = work->local_q;
    memcpy(qf, u0, (size_t)mc * sizeof(double));
    if (rule == NSCD__IMPACT_POISSON) {
        /* compression: Coulomb with e = 0; P_c in local_rc, u_c = u- + W P_c */
        double *rc_ = work->local_rc;
        if ((rc = solve(model, work, n_u, qf, NULL, 0, rc_, "Poisson compression")) != NSCD_OK) {
            return rc;
        }
        memcpy(qf, work->local_u, (size_t)mc * sizeof(double));
        for (int32_t j = 0; j < n_u; ++j) {
            double e = nscd__slot_impact_restitution(contact_of(model, impact, &L, j), 0);
            work->shift[j] = e * rc_[3 * j];
            for (int a = 0; a < 3; ++a) { /* start the expansion from e P_c */
                r[3 * j + a] = e * rc_[3 * j + a];
            }
        }
        /* expansion: normal impulses of at least e P_c,N, cone on the whole */
        if ((rc = solve(model, work, n_u, qf, work->shift, 1, r, "Poisson expansion")) != NSCD_OK) {
            return rc;
        }
        for (int32_t a = 0; a < mc; ++a) {
            r[a] += rc_[a];
        }
    } else {
        newton_free_velocity(model, impact, &L, L.u, qf); /* restitution of the true u- */
        if ((rc = solve(model, work, n_u, qf, NULL, 0, r, "Newton impact")) != NSCD_OK) {
            return rc;
        }
    }
    for (int32_t a = 0; a < mc; ++a) { /* impulses of the dummy rows are zero (to rounding) */
        if (L.dummy[a]) {
            r[a] = 0.0;
        }
    }
    for (int32_t e = 0; e < L.n_e; ++e) { /* lambda = -G_EE^-1 (u-_E + G_EU r) */
        const double *y = L.Y + (size_t)e * (size_t)(mc + 1);
        r[mc + e] = -(y[mc] + nscd__dot(mc, y, r));
    }
    /* kinetic energy change dT = R'(u- + G R / 2) of all the impulses R
     * against the contacts' energy */
    double work_pre = 0.0, quad = 0.0, reference = 0.0;
    for (int32_t a = 0; a < m; ++a) {
        work_pre += r[a] * L.u[a];
        quad += r[a] * nscd__dot(m, L.G + (size_t)a * (size_t)m, r);
    }
    for (int32_t j = 0; j < n_u; ++j) {
        reference += block_energy(W, mc, j, u0 + 3 * j);
    }
    double change = work_pre + 0.5 * quad;
    double allowed = work->energy_tolerance * reference +
                     64.0 * DBL_EPSILON * (fabs(work_pre) + 0.5 * fabs(quad));
    work->energy_change = change;
    work->energy_reference = reference;
    if (!(change <= allowed)) {
        int poisson = rule == NSCD__IMPACT_POISSON;
        return nscd__fail(model->diag, NSCD_ERR_UNSUPPORTED,
                          "%s impact of %d frictional contacts would create kinetic energy "
                          "(%.3g, %.3g of the contacts' %.3g); use %s",
                          poisson ? "Poisson" : "Newton", (int)n_u, change,
                          reference > 0.0 ? change / reference : INFINITY, reference,
                          poisson ? "one e for these contacts, or e = 0"
                                  : "e = 0 or the Poisson law");
    }
    for (int32_t j = 0; j < n_u; ++j) {
        impact->velocity_before[L.U[j]] = L.u[3 * j];
    }
    for (int32_t e = 0; e < L.n_e; ++e) {
        impact->velocity_before[L.E[e]] = L.u[mc + e];
    }
    nscd__response_gemv(&work->response, r, work->dv);
    for (int32_t i = 0; i < n; ++i) {
        v[i] += work->dv[i];
    }
    for (int32_t j = 0; j < n_u; ++j) {
        int32_t at = L.U[j];
        impact->impulse[at] = r[3 * j];
        impact->velocity_after[at] = nscd__rows_dot(&impact->rows[at], 0, v);
        work->impulse_tangent[NSCD__IMPACT_TANGENTS * at] = r[3 * j + 1];
        work->impulse_tangent[NSCD__IMPACT_TANGENTS * at + 1] = r[3 * j + 2];
    }
    for (int32_t e = 0; e < L.n_e; ++e) {
        int32_t at = L.E[e];
        impact->impulse[at] = r[mc + e];
        impact->velocity_after[at] = nscd__rows_dot(&impact->rows[at], 0, v);
        work->impulse_tangent[NSCD__IMPACT_TANGENTS * at] = 0.0;
        work->impulse_tangent[NSCD__IMPACT_TANGENTS * at + 1] = 0.0;
    }
    return NSCD_OK;
}
