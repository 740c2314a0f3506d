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
 * opposite to the slip), a frictionless one r_t = 0. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "contact/impacts/impact_rules.h"
#include "core/dense.h"

/* The impact's rule coefficient of a contact: closed contacts and contacts
 * without law restitute nothing. */
static double coefficient(const nscd__contact_slot *slot) {
    if (slot->state.mode == NSCD_CONTACT_CLOSED || slot->law.ops == NULL ||
        slot->law.ops->restitution == NULL) {
        return 0.0;
    }
    return slot->law.ops->restitution(&slot->law);
}

static int frictional(const nscd__contact_slot *slot) {
    return slot->friction > 0.0 && slot->n_tangent >= 1;
}

/* Tangential rows of a contact that are real (the others are dummies). */
static int32_t real_tangents(const nscd__contact_slot *slot) {
    return frictional(slot) ? (slot->n_tangent < 2 ? slot->n_tangent : 2) : 0;
}

/* The free velocity of Moreau's Newton law: xi = u+ + E u- with
 * xi_N = u+_N + e min(u-_N, 0) and xi_T = u+_T + e_T u-_T on the real
 * tangential rows (seed 003 eqs. 11-15); closed contacts restitute nothing.
 * e_T = 0 adds nothing, so those impacts stay bitwise what they were. */
static void newton_free_velocity(const nscd__model *model, const nscd__impact *impact,
                                 const double *u0, double *qf) {
    for (int32_t j = 0; j < impact->count; ++j) {
        const nscd__contact_slot *slot = &model->contacts[impact->contacts[j]];
        qf[3 * j] += coefficient(slot) * fmin(u0[3 * j], 0.0);
        double e_t = slot->state.mode == NSCD_CONTACT_CLOSED ? 0.0 : slot->tangential_restitution;
        for (int32_t a = 1; e_t != 0.0 && a <= real_tangents(slot); ++a) {
            qf[3 * j + a] += e_t * u0[3 * j + a];
        }
    }
}

int nscd__impact_has_friction(const nscd__model *model, const nscd__impact *impact) {
    if (impact->plastic) {
        return 0;
    }
    for (int32_t i = 0; i < impact->count; ++i) {
        if (frictional(&model->contacts[impact->contacts[i]])) {
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
 * rows for the dummies) as one-row views, in the arena. */
static nscd__rows *local_rows(nscd__model *model, nscd__impact_work *work,
                              const nscd__impact *impact) {
    int32_t k = impact->count;
    nscd__rows *H = nscd__arena_array(work->arena, 3 * (size_t)k, sizeof *H);
    for (int32_t r = 0; H != NULL && r < k; ++r) {
        const nscd__contact_slot *slot = &model->contacts[impact->contacts[r]];
        const nscd__rows *entry = &impact->rows[r];
        work->mu[r] = frictional(slot) ? slot->friction : 0.0;
        for (int32_t a = 0; a < 3; ++a) {
            H[3 * r + a] = nscd__rows_row(entry, 0);
            if (a == 0 || a <= real_tangents(slot)) {
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
    return H;
}

/* M^-1 H' in work->response, W = H M^-1 H' (3k x 3k, symmetrised, dummy
 * diagonals set) in work->delassus, u- = H v in work->local_v and the
 * friction coefficients in work->mu. */
static nscd_status assemble(nscd__model *model, nscd__impact_work *work, const double *q,
                            const nscd__impact *impact, const double *v) {
    int32_t k = impact->count, m = 3 * k;
    double *W = work->delassus;
    nscd__rows *H = local_rows(model, work, impact);
    if (H == NULL) {
        return nscd__fail(model->diag, NSCD_ERR_OUT_OF_MEMORY, "frictional impact rows");
    }
    nscd_status rc = nscd__response_build(model, work->arena, q, NULL, m, H, &work->response);
    if (rc != NSCD_OK) {
        return rc;
    }
    nscd__response_delassus(&work->response, m, H, W);
    for (int32_t a = 0; a < m; ++a) { /* symmetric up to rounding */
        for (int32_t b = a; b < m; ++b) {
            double ab = W[(size_t)a * (size_t)m + (size_t)b],
                   ba = W[(size_t)b * (size_t)m + (size_t)a];
            W[(size_t)a * (size_t)m + (size_t)b] = W[(size_t)b * (size_t)m + (size_t)a] =
                0.5 * (ab + ba);
        }
    }
    for (int32_t r = 0; r < k; ++r) { /* dummy tangents of planar and frictionless contacts */
        const nscd__contact_slot *slot = &model->contacts[impact->contacts[r]];
        double wnn = W[(size_t)(3 * r) * (size_t)m + (size_t)(3 * r)];
        for (int32_t a = 1 + real_tangents(slot); a < 3; ++a) {
            W[(size_t)(3 * r + a) * (size_t)m + (size_t)(3 * r + a)] = wnn;
        }
    }
    for (int32_t a = 0; a < m; ++a) {
        work->local_v[a] = loop_dot(&H[a], v);
    }
    for (int32_t r = 0; r < k; ++r) { /* the normal velocity exactly as the LCP paths see it */
        work->local_v[3 * r] = nscd__rows_dot(&impact->rows[r], 0, v);
    }
    return NSCD_OK;
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
    int32_t n = model->n_v, k = impact->count, m = 3 * k;
    if (k > work->capacity) {
        return nscd__fail(model->diag, NSCD_ERR_UNSUPPORTED,
                          "%d simultaneous contacts exceed the impact solver's %d", (int)k,
                          (int)work->capacity);
    }
    if (k <= 0) {
        return NSCD_OK;
    }
    nscd_status rc = assemble(model, work, q, impact, v);
    if (rc != NSCD_OK) {
        return rc;
    }
    const double *u0 = work->local_v, *W = work->delassus;
    double *r = work->local_r, *qf = work->local_q;
    memcpy(qf, u0, (size_t)m * sizeof(double));
    if (rule == NSCD__IMPACT_POISSON) {
        /* compression: Coulomb with e = 0; P_c in local_rc, u_c = u- + W P_c */
        double *rc_ = work->local_rc;
        if ((rc = solve(model, work, k, qf, NULL, 0, rc_, "Poisson compression")) != NSCD_OK) {
            return rc;
        }
        memcpy(qf, work->local_u, (size_t)m * sizeof(double));
        for (int32_t j = 0; j < k; ++j) {
            double e = coefficient(&model->contacts[impact->contacts[j]]);
            work->shift[j] = e * rc_[3 * j];
            for (int a = 0; a < 3; ++a) { /* start the expansion from e P_c */
                r[3 * j + a] = e * rc_[3 * j + a];
            }
        }
        /* expansion: normal impulses of at least e P_c,N, cone on the whole */
        if ((rc = solve(model, work, k, qf, work->shift, 1, r, "Poisson expansion")) != NSCD_OK) {
            return rc;
        }
        for (int32_t a = 0; a < m; ++a) {
            r[a] += rc_[a];
        }
    } else {
        newton_free_velocity(model, impact, u0, qf);
        if ((rc = solve(model, work, k, qf, NULL, 0, r, "Newton impact")) != NSCD_OK) {
            return rc;
        }
    }
    for (int32_t j = 0; j < k; ++j) { /* impulses of the dummy rows are zero (to rounding) */
        const nscd__contact_slot *slot = &model->contacts[impact->contacts[j]];
        for (int32_t a = 1 + real_tangents(slot); a < 3; ++a) {
            r[3 * j + a] = 0.0;
        }
    }
    /* kinetic energy change dT = r'(u- + W r / 2) against the contacts' energy */
    double work_pre = 0.0, quad = 0.0, reference = 0.0;
    for (int32_t a = 0; a < m; ++a) {
        work_pre += r[a] * u0[a];
        quad += r[a] * nscd__dot(m, W + (size_t)a * (size_t)m, r);
    }
    for (int32_t j = 0; j < k; ++j) {
        reference += block_energy(W, m, j, u0 + 3 * j);
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
                          poisson ? "Poisson" : "Newton", (int)k, change,
                          reference > 0.0 ? change / reference : INFINITY, reference,
                          poisson ? "one e for these contacts, or e = 0"
                                  : "e = 0 or the Poisson law");
    }
    for (int32_t j = 0; j < k; ++j) {
        impact->velocity_before[j] = u0[3 * j];
    }
    nscd__response_gemv(&work->response, r, work->dv);
    for (int32_t i = 0; i < n; ++i) {
        v[i] += work->dv[i];
    }
    for (int32_t j = 0; j < k; ++j) {
        impact->impulse[j] = r[3 * j];
        impact->velocity_after[j] = nscd__rows_dot(&impact->rows[j], 0, v);
        work->impulse_tangent[NSCD__IMPACT_TANGENTS * j] = r[3 * j + 1];
        work->impulse_tangent[NSCD__IMPACT_TANGENTS * j + 1] = r[3 * j + 2];
    }
    return NSCD_OK;
}
