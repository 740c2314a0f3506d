/* Routh's frictional impact of one planar contact of a model.
 *
 * With the contact's tangential row W_T (sliding velocity s = W_T v) and its
 * normal row W_N (c = W_N v), the velocity of the contact point changes with
 * the impulse P = (T, F) as u = u0 + G P, G = [W_T; W_N] M^-1 [W_T; W_N]'
 * (seed 000, eqs. 34-36); nscd_routh_impact() gives P, and the generalized
 * velocities jump by M^-1 (W_T' T + W_N' F). The sign of W_T is free: a
 * mirrored tangent gives the mirrored T and the same velocity jump. */

#include "contact/impacts/impact_rules.h"
#include "nscd/routh.h"

/* G for the contact's rows [W_T; W_N] (views into impact->rows) and M^-1 of
 * their transposes in work->response. */
static nscd_status contact_pair(nscd__model *model, nscd__impact_work *work, const double *q,
                                const nscd__rows pair[2], double G[4]) {
    nscd_status rc = nscd__response_build(model, work->arena, q, NULL, 2, pair, &work->response);
    if (rc != NSCD_OK) {
        return rc;
    }
    double g[4];
    nscd__response_delassus(&work->response, 2, pair, g);
    G[0] = g[0];
    G[1] = G[2] = 0.5 * (g[1] + g[2]); /* symmetric up to rounding */
    G[3] = g[3];
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
    int32_t index = impact->contacts[0];
    const nscd__contact_slot *slot = &model->contacts[index];
    if (slot->n_tangent != 1) {
        return nscd__fail(model->diag, NSCD_ERR_INVALID_ARGUMENT,
                          "contact %d: Routh's law needs one tangential row (n_tangent = 1)",
                          (int)index);
    }
    double G[4];
    const nscd__rows pair[2] = {nscd__rows_row(&impact->rows[0], 1),
                                nscd__rows_row(&impact->rows[0], 0)}; /* [W_T; W_N] */
    nscd_status rc = contact_pair(model, work, q, pair, G);
    if (rc != NSCD_OK) {
        return rc;
    }
    double u0[2] = {nscd__rows_dot(&pair[0], 0, v), nscd__rows_dot(&pair[1], 0, v)};
    double P[2] = {0.0, 0.0}, u1[2];
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
    nscd__response_add_loop(&work->response, P, v);
    impact->impulse[0] = P[1];
    work->impulse_tangent[0] = P[0];
    impact->velocity_after[0] = nscd__rows_dot(&pair[1], 0, v);
    return NSCD_OK;
}
