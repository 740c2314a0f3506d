/* Impact resolution for the contacts of a model (see impact.h). */
#include "contact/impact.h"
#include "contact/impact_rules.h"

#include <math.h>
#include <string.h>

#include "core/dense.h"
#include "core/memory.h"
#include "nscd/lcp.h"

/* Default options of the fc3d solves of frictional impacts. */
static void friction_defaults(nscd__impact_work *work) {
    nscd_fc3d_options_init(&work->fc3d_options, sizeof work->fc3d_options);
    work->fc3d_options.tolerance = 1e-10;
    work->fc3d_options.max_iterations = 10000;
    work->fc3d_options.warm_start = 0;
    work->energy_tolerance = 1e-9;
    work->fc3d_info.struct_size = sizeof work->fc3d_info;
}

nscd_status nscd__impact_work_create(const nscd__model *model, nscd__impact_work *work) {
    const nscd_allocator *a = model->allocator;
    int32_t cap = model->n_contacts < NSCD_LCP_MAX_SIZE ? model->n_contacts : NSCD_LCP_MAX_SIZE;
    size_t n = (size_t)model->n_v, c = (size_t)(cap > 0 ? cap : 1);
    memset(work, 0, sizeof *work);
    work->capacity = cap;
    work->n_v = model->n_v;
    work->rows_t = nscd__alloc_array(a, n * 3 * c, sizeof(double));
    work->minv_wt = nscd__alloc_array(a, n * 3 * c, sizeof(double));
    work->delassus = nscd__alloc_array(a, 9 * c * c, sizeof(double));
    work->rhs = nscd__alloc_array(a, c, sizeof(double));
    work->dv = nscd__alloc_array(a, n, sizeof(double));
    work->extra = nscd__alloc_array(a, c, sizeof(double));
    work->pair_rows = nscd__alloc_array(a, 2 * n, sizeof(double));
    work->pair_t = nscd__alloc_array(a, 2 * n, sizeof(double));
    work->pair_minv = nscd__alloc_array(a, 2 * n, sizeof(double));
    work->pivots = nscd__alloc_array(a, c, sizeof(int32_t));
    work->contact_rows = nscd__alloc_array(a, 3 * n, sizeof(double));
    work->local_v = nscd__alloc_array(a, 3 * c, sizeof(double));
    work->local_q = nscd__alloc_array(a, 3 * c, sizeof(double));
    work->local_r = nscd__alloc_array(a, 3 * c, sizeof(double));
    work->local_rc = nscd__alloc_array(a, 3 * c, sizeof(double));
    work->local_u = nscd__alloc_array(a, 3 * c, sizeof(double));
    work->mu = nscd__alloc_array(a, c, sizeof(double));
    work->shift = nscd__alloc_array(a, c, sizeof(double));
    work->impulse_tangent = nscd__alloc_array(a, NSCD__IMPACT_TANGENTS * c, sizeof(double));
    nscd_status fc3d = nscd__fc3d_work_create(a, cap, &work->fc3d);
    if (!work->rows_t || !work->minv_wt || !work->delassus || !work->rhs || !work->dv ||
        !work->extra || !work->pair_rows || !work->pair_t || !work->pair_minv || !work->pivots ||
        !work->contact_rows || !work->local_v || !work->local_q || !work->local_r ||
        !work->local_rc || !work->local_u || !work->mu || !work->shift || !work->impulse_tangent ||
        fc3d != NSCD_OK) {
        nscd__impact_work_destroy(model, work);
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    friction_defaults(work);
    return NSCD_OK;
}

void nscd__impact_work_destroy(const nscd__model *model, nscd__impact_work *work) {
    const nscd_allocator *a = model->allocator;
    size_t n = (size_t)work->n_v, c = (size_t)(work->capacity > 0 ? work->capacity : 1);
    nscd__free(a, work->rows_t, n * 3 * c * sizeof(double));
    nscd__free(a, work->minv_wt, n * 3 * c * sizeof(double));
    nscd__free(a, work->delassus, 9 * c * c * sizeof(double));
    nscd__free(a, work->rhs, c * sizeof(double));
    nscd__free(a, work->dv, n * sizeof(double));
    nscd__free(a, work->extra, c * sizeof(double));
    nscd__free(a, work->pair_rows, 2 * n * sizeof(double));
    nscd__free(a, work->pair_t, 2 * n * sizeof(double));
    nscd__free(a, work->pair_minv, 2 * n * sizeof(double));
    nscd__free(a, work->pivots, c * sizeof(int32_t));
    nscd__free(a, work->contact_rows, 3 * n * sizeof(double));
    nscd__free(a, work->local_v, 3 * c * sizeof(double));
    nscd__free(a, work->local_q, 3 * c * sizeof(double));
    nscd__free(a, work->local_r, 3 * c * sizeof(double));
    nscd__free(a, work->local_rc, 3 * c * sizeof(double));
    nscd__free(a, work->local_u, 3 * c * sizeof(double));
    nscd__free(a, work->mu, c * sizeof(double));
    nscd__free(a, work->shift, c * sizeof(double));
    nscd__free(a, work->impulse_tangent, NSCD__IMPACT_TANGENTS * c * sizeof(double));
    nscd__fc3d_work_destroy(a, &work->fc3d);
    memset(work, 0, sizeof *work);
}

/* Newton restitution coefficient of a contact taking part in an impact. A
 * persistent contact stays closed (e = 0); a slot without law is plastic. */
static double restitution(const nscd__contact_slot *slot, int plastic) {
    if (plastic || slot->state.mode == NSCD_CONTACT_CLOSED || slot->law.ops == NULL ||
        slot->law.ops->restitution == NULL) {
        return 0.0;
    }
    return slot->law.ops->restitution(&slot->law);
}

/* The impact rule of the contacts of the impact, or -1 if they differ.
 * Persistent (closed) contacts, contacts without law and plastic projections
 * act with e = 0, which every rule handles: they do not choose the rule. */
static int32_t common_rule(const nscd__model *model, const nscd__impact *impact) {
    int32_t rule = -1;
    for (int32_t i = 0; i < impact->count; ++i) {
        const nscd__contact_slot *slot = &model->contacts[impact->contacts[i]];
        if (impact->plastic || slot->law.ops == NULL || slot->state.mode == NSCD_CONTACT_CLOSED) {
            continue;
        }
        int32_t r = slot->law.ops->impact_rule;
        if (rule >= 0 && r != rule) {
            return -1;
        }
        rule = r;
    }
    return rule < 0 ? NSCD__IMPACT_NEWTON : rule;
}

nscd_status nscd__impact_delassus(nscd__model *model, nscd__impact_work *work, const double *q,
                                  int32_t count, const double *rows) {
    int32_t n = model->n_v, k = count;
    if (k > work->capacity) {
        return nscd__fail(model->diag, NSCD_ERR_UNSUPPORTED,
                          "%d simultaneous contacts exceed the impact solver's %d", (int)k,
                          (int)work->capacity);
    }
    for (int32_t r = 0; r < k; ++r) {
        for (int32_t i = 0; i < n; ++i) {
            work->rows_t[(size_t)i * (size_t)k + (size_t)r] =
                rows[(size_t)r * (size_t)n + (size_t)i];
        }
    }
    nscd_status rc = model->mass_solve(model->self, q, k, work->rows_t, work->minv_wt);
    if (rc != NSCD_OK) {
        return rc;
    }
    for (int32_t r = 0; r < k; ++r) {
        for (int32_t c = 0; c < k; ++c) {
            double sum = 0.0;
            for (int32_t i = 0; i < n; ++i) {
                sum += rows[(size_t)r * (size_t)n + (size_t)i] *
                       work->minv_wt[(size_t)i * (size_t)k + (size_t)c];
            }
            work->delassus[r * k + c] = sum;
        }
    }
    return NSCD_OK;
}

static nscd_status resolve_newton(nscd__model *model, nscd__impact_work *work, const double *q,
                                  const nscd__impact *impact, double *v) {
    int32_t n = model->n_v, k = impact->count;
    nscd_status rc = nscd__impact_delassus(model, work, q, impact->count, impact->rows);
    if (rc != NSCD_OK) {
        return rc;
    }
    for (int32_t r = 0; r < k; ++r) {
        double before = nscd__dot(n, impact->rows + (size_t)r * (size_t)n, v);
        double e = restitution(&model->contacts[impact->contacts[r]], impact->plastic);
        impact->velocity_before[r] = before;
        work->rhs[r] = before + e * fmin(before, 0.0);
    }
    if (impact->plastic) { /* bilateral: W v+ = 0, impulses of either sign */
        for (int32_t r = 0; r < k; ++r) {
            impact->impulse[r] = -work->rhs[r];
        }
        rc = nscd__lu_solve(k, work->delassus, work->pivots, 1, impact->impulse);
    } else {
        rc = nscd_lcp_solve_dense(k, work->delassus, work->rhs, impact->impulse, NULL);
    }
    if (rc != NSCD_OK) {
        return nscd__fail(model->diag, rc, "impact of %d contacts: %s", (int)k,
                          impact->plastic ? "dependent contact rows" : "LCP failed");
    }
    nscd__gemv(n, k, work->minv_wt, impact->impulse, work->dv);
    for (int32_t i = 0; i < n; ++i) {
        v[i] += work->dv[i];
    }
    for (int32_t r = 0; r < k; ++r) {
        impact->velocity_after[r] = nscd__dot(n, impact->rows + (size_t)r * (size_t)n, v);
    }
    return NSCD_OK;
}

nscd_status nscd__resolve_impact(nscd__model *model, nscd__impact_work *work, const double *q,
                                 const nscd__impact *impact, double *v) {
    int32_t rule = common_rule(model, impact);
    if ((rule == NSCD__IMPACT_NEWTON || rule == NSCD__IMPACT_POISSON) &&
        nscd__impact_has_friction(model, impact)) {
        return nscd__resolve_friction(model, work, q, impact, rule, v);
    }
    if (impact->count <= work->capacity) {
        memset(work->impulse_tangent, 0,
               (size_t)impact->count * NSCD__IMPACT_TANGENTS * sizeof(double));
    }
    switch (rule) {
    case NSCD__IMPACT_NEWTON: return resolve_newton(model, work, q, impact, v);
    case NSCD__IMPACT_POISSON: return nscd__resolve_poisson(model, work, q, impact, v);
    case NSCD__IMPACT_ROUTH: return nscd__resolve_routh(model, work, q, impact, v);
    default:
        return nscd__fail(model->diag, NSCD_ERR_UNSUPPORTED,
                          "impact rule %d is not available for this contact set", (int)rule);
    }
}
