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
                                  int32_t count, const nscd__rows *rows) {
    int32_t k = count;
    if (k > work->capacity) {
        return nscd__fail(model->diag, NSCD_ERR_UNSUPPORTED,
                          "%d simultaneous contacts exceed the impact solver's %d", (int)k,
                          (int)work->capacity);
    }
    nscd__rows *normal = nscd__arena_array(work->arena, (size_t)(k > 0 ? k : 1), sizeof *normal);
    if (normal == NULL) {
        return nscd__fail(model->diag, NSCD_ERR_OUT_OF_MEMORY, "impact rows");
    }
    for (int32_t r = 0; r < k; ++r) {
        normal[r] = nscd__rows_row(&rows[r], 0);
    }
    nscd_status rc =
        nscd__response_build(model, work->arena, q, NULL, k, normal, &work->response);
    if (rc == NSCD_OK) {
        nscd__response_delassus(&work->response, k, normal, work->delassus);
    }
    return rc;
}

/* Positions of the equality rows (*n_e of them) and of the others. */
static void split_rows(const nscd__model *model, const nscd__impact *impact, int32_t *E,
                       int32_t *n_e, int32_t *U, int32_t *n_u) {
    *n_e = *n_u = 0;
    for (int32_t r = 0; r < impact->count; ++r) {
        if (model->contacts[impact->contacts[r]].kind == NSCD__ENTRY_EQUALITY) {
            E[(*n_e)++] = r;
        } else {
            U[(*n_u)++] = r;
        }
    }
}

/* S = G_UU - G_UE Y_U and c~ = c_U - G_UE y_c for Y = G_EE^-1 [G_EU, c_E]
 * (Y: n_e x (n_u + 1), row-major, the last column y_c). */
static void schur_complement(int32_t k, const double *G, const double *c, const int32_t *E,
                             int32_t n_e, const int32_t *U, int32_t n_u, const double *Y,
                             double *S, double *c_reduced) {
    int32_t cols = n_u + 1;
    for (int32_t a = 0; a < n_u; ++a) {
        const double *g = G + (size_t)U[a] * (size_t)k;
        for (int32_t b = 0; b <= n_u; ++b) {
            double sum = b < n_u ? g[U[b]] : c[U[a]];
            for (int32_t j = 0; j < n_e; ++j) {
                sum -= g[E[j]] * Y[(size_t)j * (size_t)cols + (size_t)b];
            }
            if (b < n_u) {
                S[(size_t)a * (size_t)n_u + (size_t)b] = sum;
            } else {
                c_reduced[a] = sum;
            }
        }
    }
}

nscd_status nscd__impact_lcp(nscd__model *model, nscd__impact_work *work,
                             const nscd__impact *impact, const double *G, const double *c,
                             double *P) {
    int32_t k = impact->count, n_e = 0, n_u = 0;
    nscd__arena *arena = work->arena;
    size_t kk = (size_t)k;
    int32_t *E = nscd__arena_array(arena, kk, sizeof(int32_t));
    int32_t *U = nscd__arena_array(arena, kk, sizeof(int32_t));
    if (E == NULL || U == NULL) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    split_rows(model, impact, E, &n_e, U, &n_u);
    if (n_e == 0) {
        return nscd_lcp_solve_dense(k, G, c, P, NULL);
    }
    size_t cols = (size_t)n_u + 1;
    double *Gee = nscd__arena_array(arena, (size_t)n_e * (size_t)n_e, sizeof(double));
    double *Y = nscd__arena_array(arena, (size_t)n_e * cols, sizeof(double));
    double *S = nscd__arena_array(arena, (size_t)n_u * (size_t)n_u + 1, sizeof(double));
    double *c_u = nscd__arena_array(arena, cols, sizeof(double));
    double *P_u = nscd__arena_array(arena, cols, sizeof(double));
    int32_t *pivots = nscd__arena_array(arena, (size_t)n_e, sizeof(int32_t));
    if (!Gee || !Y || !S || !c_u || !P_u || !pivots) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    for (int32_t i = 0; i < n_e; ++i) { /* G_EE and [G_EU, c_E] */
        const double *g = G + (size_t)E[i] * kk;
        for (int32_t j = 0; j < n_e; ++j) {
            Gee[(size_t)i * (size_t)n_e + (size_t)j] = g[E[j]];
        }
        for (int32_t b = 0; b < n_u; ++b) {
            Y[(size_t)i * cols + (size_t)b] = g[U[b]];
        }
        Y[(size_t)i * cols + (size_t)n_u] = c[E[i]];
    }
    if (nscd__lu_solve(n_e, Gee, pivots, (int32_t)cols, Y) != NSCD_OK) {
        return NSCD_ERR_SINGULAR; /* dependent equality rows */
    }
    schur_complement(k, G, c, E, n_e, U, n_u, Y, S, c_u);
    nscd_status rc = n_u > 0 ? nscd_lcp_solve_dense(n_u, S, c_u, P_u, NULL) : NSCD_OK;
    for (int32_t j = 0; rc == NSCD_OK && j < n_e; ++j) { /* P_E = -(y_c + Y_U P_U) */
        double sum = Y[(size_t)j * cols + (size_t)n_u];
        for (int32_t b = 0; b < n_u; ++b) {
            sum += Y[(size_t)j * cols + (size_t)b] * P_u[b];
        }
        P[E[j]] = -sum;
    }
    for (int32_t b = 0; rc == NSCD_OK && b < n_u; ++b) {
        P[U[b]] = P_u[b];
    }
    return rc;
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
        for (int32_t r = 0; r < impact->count; ++r) {
            if (model->contacts[impact->contacts[r]].kind == NSCD__ENTRY_EQUALITY) {
                return nscd__fail(model->diag, NSCD_ERR_UNSUPPORTED,
                                  "a frictional impact with equality constraints (entry %d) is "
                                  "not available in the event-driven stepper",
                                  (int)impact->contacts[r]);
            }
        }
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
