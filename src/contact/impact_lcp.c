/* The local problem of an impact of several contacts: the Delassus matrix
 * of their normal rows and the (mixed) LCP of Newton's and Poisson's laws,
 * shared by contact/impact.c, impact_poisson.c and the position projection. */
#include <string.h>

#include "contact/assembly.h"
#include "contact/impact_rules.h"
#include "core/dense.h"
#include "nscd/lcp.h"

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
    nscd_status rc = nscd__response_build(model, work->arena, q, NULL, k, normal, &work->response);
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
                             int32_t n_e, const int32_t *U, int32_t n_u, const double *Y, double *S,
                             double *c_reduced) {
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
