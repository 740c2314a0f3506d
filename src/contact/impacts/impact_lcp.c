/* The local problem of an impact of several contacts: the Delassus matrix
 * of their normal rows and the (mixed) LCP of Newton's and Poisson's laws,
 * shared by contact/impacts/impact.c, impact_poisson.c and the position projection. */
#include <string.h>

#include "contact/assembly/assembly.h"
#include "contact/impacts/impact_rules.h"
#include "core/dense.h"
#include "core/redundant.h"
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

void nscd__impact_split_rows(const nscd__model *model, const nscd__impact *impact, int32_t *E,
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

/* The buffers of the condensed solve, taken from the arena once. */
typedef struct mixed_lcp {
    int32_t k, n_e, n_u;
    const int32_t *E, *U;
    double *Gee, *Y, *S, *c_u, *P_u;
    int32_t *pivots;
} mixed_lcp;

/* The mixed LCP on (G, c) by the Schur complement of G_EE into P:
 * NSCD_ERR_SINGULAR when G_EE is (exactly) singular. */
static nscd_status condensed_solve(void *user, const double *G, const double *c, double *P) {
    const mixed_lcp *x = user;
    int32_t k = x->k, n_e = x->n_e, n_u = x->n_u;
    size_t kk = (size_t)k, cols = (size_t)n_u + 1;
    const int32_t *E = x->E, *U = x->U;
    for (int32_t i = 0; i < n_e; ++i) { /* G_EE and [G_EU, c_E] */
        const double *g = G + (size_t)E[i] * kk;
        for (int32_t j = 0; j < n_e; ++j) {
            x->Gee[(size_t)i * (size_t)n_e + (size_t)j] = g[E[j]];
        }
        for (int32_t b = 0; b < n_u; ++b) {
            x->Y[(size_t)i * cols + (size_t)b] = g[U[b]];
        }
        x->Y[(size_t)i * cols + (size_t)n_u] = c[E[i]];
    }
    if (nscd__lu_solve(n_e, x->Gee, x->pivots, (int32_t)cols, x->Y) != NSCD_OK) {
        return NSCD_ERR_SINGULAR; /* dependent equality rows */
    }
    schur_complement(k, G, c, E, n_e, U, n_u, x->Y, x->S, x->c_u);
    nscd_status rc = n_u > 0 ? nscd_lcp_solve_dense(n_u, x->S, x->c_u, x->P_u, NULL) : NSCD_OK;
    for (int32_t j = 0; rc == NSCD_OK && j < n_e; ++j) { /* P_E = -(y_c + Y_U P_U) */
        double sum = x->Y[(size_t)j * cols + (size_t)n_u];
        for (int32_t b = 0; b < n_u; ++b) {
            sum += x->Y[(size_t)j * cols + (size_t)b] * x->P_u[b];
        }
        P[E[j]] = -sum;
    }
    for (int32_t b = 0; rc == NSCD_OK && b < n_u; ++b) {
        P[U[b]] = x->P_u[b];
    }
    return rc;
}

/* Dependent rows among equality ones (the 20 joint rows of a planar
 * four-bar on 18 dofs: rank 17) make G_EE singular, and its LU divides by
 * round-off. A G that core/redundant.h finds symmetric positive semidefinite
 * of lower rank is solved by proximal iterations on G + eps D, each a
 * regular condensed solve, the result checked against G; NSCD_ERR_SINGULAR
 * when the set has no solution (inconsistent equality rows). A regular G,
 * or one that is not symmetric, takes the condensed solve as before. */
nscd_status nscd__impact_lcp(nscd__model *model, nscd__impact_work *work,
                             const nscd__impact *impact, const double *G, const double *c,
                             double *P) {
    int32_t k = impact->count;
    nscd__arena *arena = work->arena;
    size_t kk = (size_t)k;
    mixed_lcp x = {.k = k};
    int32_t *E = nscd__arena_array(arena, kk, sizeof(int32_t));
    int32_t *U = nscd__arena_array(arena, kk, sizeof(int32_t));
    if (E == NULL || U == NULL) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    nscd__impact_split_rows(model, impact, E, &x.n_e, U, &x.n_u);
    x.E = E;
    x.U = U;
    if (x.n_e == 0) {
        return nscd_lcp_solve_dense(k, G, c, P, NULL);
    }
    size_t n_e = (size_t)x.n_e, n_u = (size_t)x.n_u, cols = n_u + 1;
    x.Gee = nscd__arena_array(arena, n_e * n_e, sizeof(double));
    x.Y = nscd__arena_array(arena, n_e * cols, sizeof(double));
    x.S = nscd__arena_array(arena, n_u * n_u + 1, sizeof(double));
    x.c_u = nscd__arena_array(arena, cols, sizeof(double));
    x.P_u = nscd__arena_array(arena, cols, sizeof(double));
    x.pivots = nscd__arena_array(arena, n_e, sizeof(int32_t));
    double *redundant = nscd__arena_array(arena, NSCD__REDUNDANT_WORK(kk), sizeof(double));
    uint8_t *equality = nscd__arena_array(arena, kk, sizeof(uint8_t));
    if (!x.Gee || !x.Y || !x.S || !x.c_u || !x.P_u || !x.pivots || !redundant || !equality) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    int32_t rank = nscd__redundant_rank(k, G, redundant);
    if (rank < 0 || rank == k) {
        return condensed_solve(&x, G, c, P);
    }
    for (int32_t j = 0; j < x.n_e; ++j) {
        equality[E[j]] = 1; /* zero-filled by the arena */
    }
    return nscd__redundant_proximal(k, G, c, equality, condensed_solve, &x, P, redundant);
}

nscd_status nscd__impact_equations(nscd__impact_work *work, int32_t k, double *G, double *b) {
    double *redundant = nscd__arena_array(work->arena, NSCD__REDUNDANT_WORK(k), sizeof(double));
    if (redundant == NULL) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    int32_t rank = nscd__redundant_rank(k, G, redundant);
    if (rank < 0 || rank == k) {
        return nscd__lu_solve(k, G, work->pivots, 1, b);
    }
    return nscd__redundant_solve(k, G, b, redundant);
}
