/* Poisson's kinetic restitution for simultaneous frictionless contacts.
 *
 * Compression: the normal impulses P_c >= 0 that stop every approaching
 * contact, as the LCP   P_c >= 0 _|_ W v- + G P_c >= 0   (G = W M^-1 W').
 * Restitution: each contact then receives at least e_i P_c,i (seed 000, eq. 28,
 * for one contact), and more only where needed to keep the contacts from
 * approaching again: with P_r = E P_c + x,
 *     x >= 0 _|_ W v- + G ((I + E) P_c + x) >= 0.
 * For a single contact x = 0 and the result is Newton's: c+ = -e c-. */
#include <string.h>

#include "contact/impacts/impact_rules.h"
#include "core/dense.h"

/* rhs = base + G z */
static void shifted_velocity(int32_t k, const double *G, const double *base, const double *z,
                             double *rhs) {
    for (int32_t r = 0; r < k; ++r) {
        rhs[r] = base[r] + nscd__dot(k, G + (size_t)r * (size_t)k, z);
    }
}

nscd_status nscd__resolve_poisson(nscd__model *model, nscd__impact_work *work, const double *q,
                                  const nscd__impact *impact, double *v) {
    int32_t n = model->n_v, k = impact->count;
    nscd_status rc = nscd__impact_delassus(model, work, q, k, impact->rows);
    if (rc != NSCD_OK) {
        return rc;
    }
    double *before = impact->velocity_before, *P = impact->impulse, *x = work->extra;
    for (int32_t r = 0; r < k; ++r) {
        before[r] = nscd__rows_dot(&impact->rows[r], 0, v);
    }
    rc = nscd__impact_lcp(model, work, impact, work->delassus, before, P); /* compression */
    if (rc == NSCD_OK) {
        for (int32_t r = 0; r < k; ++r) {
            P[r] *= 1.0 + nscd__slot_impact_restitution(&model->contacts[impact->contacts[r]],
                                                        impact->plastic);
        }
        shifted_velocity(k, work->delassus, before, P, work->rhs);
        rc = nscd__impact_lcp(model, work, impact, work->delassus, work->rhs, x); /* restitution */
    }
    if (rc != NSCD_OK) {
        return nscd__fail(model->diag, rc, "Poisson impact LCP of %d contacts failed", (int)k);
    }
    for (int32_t r = 0; r < k; ++r) {
        P[r] += x[r];
    }
    nscd__response_gemv(&work->response, P, work->dv);
    for (int32_t i = 0; i < n; ++i) {
        v[i] += work->dv[i];
    }
    for (int32_t r = 0; r < k; ++r) {
        impact->velocity_after[r] = nscd__rows_dot(&impact->rows[r], 0, v);
    }
    return NSCD_OK;
}
