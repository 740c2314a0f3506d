/* Routh's frictional impact of one planar contact of a model.
 *
 * With the contact's tangential row W_T (sliding velocity s = W_T v) and its
 * normal row W_N (c = W_N v), the velocity of the contact point changes with
 * the impulse P = (T, F) as u = u0 + G P, G = [W_T; W_N] M^-1 [W_T; W_N]'
 * (seed 000, eqs. 34-36); nscd_routh_impact() gives P, and the generalized
 * velocities jump by M^-1 (W_T' T + W_N' F). The sign of W_T is free: a
 * mirrored tangent gives the mirrored T and the same velocity jump. */
#include <string.h>

#include "contact/impact_rules.h"
#include "core/dense.h"
#include "nscd/routh.h"

/* work->pair_rows = [W_T; W_N] at q, and M^-1 of their transposes in
 * work->pair_minv; the normal row is the one the event was located with. */
static nscd_status contact_pair(nscd__model *model, nscd__impact_work *work, const double *q,
                                const nscd__impact *impact, double G[4]) {
    int32_t n = model->n_v, index = impact->contacts[0];
    double *wt = work->pair_rows, *wn = work->pair_rows + n, gap = 0.0;
    nscd_status rc = model->contact(model->self, index, impact->t, q, &gap, wn, wt);
    if (rc != NSCD_OK) {
        return rc;
    }
    memcpy(wn, impact->rows, (size_t)n * sizeof(double));
    for (int32_t i = 0; i < n; ++i) {
        work->pair_t[2 * i] = wt[i];
        work->pair_t[2 * i + 1] = wn[i];
    }
    rc = model->mass_solve(model->self, q, 2, work->pair_t, work->pair_minv);
    if (rc != NSCD_OK) {
        return rc;
    }
    double g[2][2];
    for (int a = 0; a < 2; ++a) {
        for (int b = 0; b < 2; ++b) {
            double sum = 0.0;
            for (int32_t i = 0; i < n; ++i) {
                sum +=
                    work->pair_rows[(size_t)a * (size_t)n + (size_t)i] * work->pair_minv[2 * i + b];
            }
            g[a][b] = sum;
        }
    }
    G[0] = g[0][0];
    G[1] = G[2] = 0.5 * (g[0][1] + g[1][0]); /* symmetric up to rounding */
    G[3] = g[1][1];
    return NSCD_OK;
}

nscd_status nscd__resolve_routh(nscd__model *model, nscd__impact_work *work, const double *q,
                                const nscd__impact *impact, double *v) {
    if (impact->count != 1) {
        return nscd__fail(model->diag, NSCD_ERR_UNSUPPORTED,
                          "Routh's method solves one contact, %d impact together; use the Poisson "
                          "(or Newton) law with friction for simultaneous frictional impacts",
                          (int)impact->count);
    }
    int32_t index = impact->contacts[0], n = model->n_v;
    const nscd__contact_slot *slot = &model->contacts[index];
    if (slot->n_tangent != 1) {
        return nscd__fail(model->diag, NSCD_ERR_INVALID_ARGUMENT,
                          "contact %d: Routh's law needs one tangential row (n_tangent = 1)",
                          (int)index);
    }
    double G[4];
    nscd_status rc = contact_pair(model, work, q, impact, G);
    if (rc != NSCD_OK) {
        return rc;
    }
    const double *wt = work->pair_rows, *wn = work->pair_rows + n;
    double u0[2] = {nscd__dot(n, wt, v), nscd__dot(n, wn, v)}, P[2] = {0.0, 0.0}, u1[2];
    impact->velocity_before[0] = u0[1];
    if (u0[1] < 0.0) { /* a grazing contact (c0 >= 0) receives no impulse */
        double e = slot->law.ops->restitution(&slot->law);
        rc = nscd_routh_impact(G, u0, slot->friction, e, P, u1);
        if (rc != NSCD_OK) {
            return nscd__fail(model->diag, rc,
                              "Routh impact of contact %d: G = [%g %g; %g %g], u0 = (%g, %g)",
                              (int)index, G[0], G[1], G[2], G[3], u0[0], u0[1]);
        }
    }
    for (int32_t i = 0; i < n; ++i) {
        v[i] += work->pair_minv[2 * i] * P[0] + work->pair_minv[2 * i + 1] * P[1];
    }
    impact->impulse[0] = P[1];
    work->impulse_tangent[0] = P[0];
    impact->velocity_after[0] = nscd__dot(n, wn, v);
    return NSCD_OK;
}
