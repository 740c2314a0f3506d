/* Impact resolution for the contacts of a model (see impact.h). */
#include "contact/impacts/impact.h"
#include "contact/impacts/impact_rules.h"

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

/* Every array of the work with its length, for allocation and release. */
/* clang-format off */
#define ARRAYS(X)                                                                                 \
    X(delassus, double, 9 * c * c) X(rhs, double, c) X(dv, double, n) X(extra, double, c)         \
    X(pivots, int32_t, c) X(local_v, double, 3 * c) X(local_q, double, 3 * c)                     \
    X(local_r, double, 3 * c) X(local_rc, double, 3 * c) X(local_u, double, 3 * c)               \
    X(mu, double, c) X(shift, double, c) X(impulse_tangent, double, NSCD__IMPACT_TANGENTS * c)
/* clang-format on */

nscd_status nscd__impact_work_create(const nscd__model *model, nscd__arena *arena,
                                     nscd__impact_work *work) {
    const nscd_allocator *a = model->allocator;
    int32_t cap = model->n_contacts < NSCD_LCP_MAX_SIZE ? model->n_contacts : NSCD_LCP_MAX_SIZE;
    size_t n = (size_t)model->n_v, c = (size_t)(cap > 0 ? cap : 1);
    memset(work, 0, sizeof *work);
    work->capacity = cap;
    work->n_v = model->n_v;
    work->arena = arena;
    int ok = 1;
#define ALLOC_ARRAY(name, type, count)                                                             \
    ok &= (work->name = nscd__alloc_array(a, (count), sizeof(type))) != NULL;
    ARRAYS(ALLOC_ARRAY)
#undef ALLOC_ARRAY
    if (!ok || nscd__fc3d_work_create(a, cap, &work->fc3d) != NSCD_OK) {
        nscd__impact_work_destroy(a, work);
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    friction_defaults(work);
    return NSCD_OK;
}

void nscd__impact_work_destroy(const nscd_allocator *a, nscd__impact_work *work) {
    size_t n = (size_t)work->n_v, c = (size_t)(work->capacity > 0 ? work->capacity : 1);
#define FREE_ARRAY(name, type, count) nscd__free(a, work->name, (count) * sizeof(type));
    ARRAYS(FREE_ARRAY)
#undef FREE_ARRAY
    nscd__fc3d_work_destroy(a, &work->fc3d);
    memset(work, 0, sizeof *work);
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

static nscd_status resolve_newton(nscd__model *model, nscd__impact_work *work, const double *q,
                                  const nscd__impact *impact, double *v) {
    int32_t n = model->n_v, k = impact->count;
    nscd_status rc = nscd__impact_delassus(model, work, q, impact->count, impact->rows);
    if (rc != NSCD_OK) {
        return rc;
    }
    for (int32_t r = 0; r < k; ++r) {
        double before = nscd__rows_dot(&impact->rows[r], 0, v);
        double e =
            nscd__slot_impact_restitution(&model->contacts[impact->contacts[r]], impact->plastic);
        impact->velocity_before[r] = before;
        work->rhs[r] = before + e * fmin(before, 0.0);
    }
    if (impact->plastic) { /* bilateral: W v+ = 0, impulses of either sign */
        for (int32_t r = 0; r < k; ++r) {
            impact->impulse[r] = -work->rhs[r];
        }
        rc = nscd__impact_equations(work, k, work->delassus, impact->impulse);
    } else {
        rc = nscd__impact_lcp(model, work, impact, work->delassus, work->rhs, impact->impulse);
    }
    if (rc != NSCD_OK) {
        return nscd__fail(model->diag, rc, "impact of %d contacts: %s", (int)k,
                          impact->plastic ? "dependent contact rows" : "LCP failed");
    }
    nscd__response_gemv(&work->response, impact->impulse, work->dv);
    for (int32_t i = 0; i < n; ++i) {
        v[i] += work->dv[i];
    }
    for (int32_t r = 0; r < k; ++r) {
        impact->velocity_after[r] = nscd__rows_dot(&impact->rows[r], 0, v);
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
