/* Global fc3d problems (gfc3d.h): M v = H r + f, u = H' v + w, Coulomb.
 * Condensed to the local problem W = H' M^-1 H, q = H' M^-1 f + w through a
 * sparse LDL' of M, solved by nscd_fc3d_solve_bsr(), then v = M^-1 (H r + f). */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "contact/solvers/gfc3d_cholmod.h"
#include "core/check.h"
#include "core/memory.h"
#include "core/sparse_ldl.h"
#include "core/struct_sizes.h"
#include "nscd/gfc3d.h"

#define GFC3D_MAX_DOFS (1 << 26)
#define GFC3D_MAX_CONTACTS (1 << 24)
/* The dense condensation holds 9 nc^2 doubles (2048 contacts: 302 MB). */
#define GFC3D_MAX_DENSE_CONTACTS 2048
/* The automatic factorisation takes CHOLMOD (when built) from this size on. */
#define GFC3D_CHOLMOD_MIN_DOFS 10000

static void option_defaults(nscd_gfc3d_options *opts) {
    memset(opts, 0, sizeof *opts);
    opts->factorization = NSCD_GFC3D_FACTOR_AUTO;
    opts->pivot_tolerance = 1e-14;
    opts->symmetry_tolerance = 1e-12;
}

nscd_status nscd_gfc3d_options_init(nscd_gfc3d_options *opts, size_t struct_size) {
    nscd_gfc3d_options defaults;
    option_defaults(&defaults);
    return nscd__struct_init(opts, struct_size, &defaults, sizeof defaults,
                             NSCD__GFC3D_OPTIONS_SIZE_0_2);
}

/* Checks a canonical CSC matrix with `rows` rows and `cols` columns. */
static nscd_status check_csc(int32_t rows, int32_t cols, const int32_t *cp, const int32_t *ri,
                             const double *x) {
    if (cp[0] != 0) {
        return NSCD_ERR_INVALID_ARGUMENT;
    }
    for (int32_t c = 0; c < cols; ++c) {
        if (cp[c + 1] < cp[c]) {
            return NSCD_ERR_INVALID_ARGUMENT;
        }
    }
    for (int32_t c = 0; c < cols; ++c) {
        for (int32_t p = cp[c]; p < cp[c + 1]; ++p) {
            if (ri[p] < 0 || ri[p] >= rows) {
                return NSCD_ERR_INDEX;
            }
            if (p > cp[c] && ri[p] <= ri[p - 1]) {
                return NSCD_ERR_INVALID_ARGUMENT;
            }
        }
    }
    return nscd__all_finite(x, (size_t)cp[cols]) ? NSCD_OK : NSCD_ERR_NOT_FINITE;
}

/* |M_ij - M_ji| <= tol max|M| for all entries (a missing entry is 0). M is
 * canonical; its transpose is built by a counting pass (columns ascending, so
 * each transposed column is sorted too) and merged column by column. */
static nscd_status check_symmetric(const nscd_allocator *a, int32_t n, const int32_t *cp,
                                   const int32_t *ri, const double *x, double tol) {
    size_t nnz = (size_t)cp[n];
    int32_t *tp = nscd__alloc_array(a, (size_t)n + 1, sizeof(int32_t));
    int32_t *ti = nscd__alloc_array(a, nnz > 0 ? nnz : 1, sizeof(int32_t));
    double *tx = nscd__alloc_array(a, nnz > 0 ? nnz : 1, sizeof(double));
    int32_t *next = nscd__alloc_array(a, (size_t)n, sizeof(int32_t));
    nscd_status st = NSCD_ERR_OUT_OF_MEMORY;
    if (tp == NULL || ti == NULL || tx == NULL || next == NULL) {
        goto done;
    }
    double amax = 0.0;
    for (size_t p = 0; p < nnz; ++p) {
        tp[ri[p] + 1]++;
        amax = fmax(amax, fabs(x[p]));
    }
    for (int32_t i = 0; i < n; ++i) {
        tp[i + 1] += tp[i];
        next[i] = tp[i];
    }
    for (int32_t c = 0; c < n; ++c) {
        for (int32_t p = cp[c]; p < cp[c + 1]; ++p) {
            int32_t q = next[ri[p]]++;
            ti[q] = c;
            tx[q] = x[p];
        }
    }
    double bound = tol * amax;
    st = NSCD_OK;
    for (int32_t c = 0; c < n && st == NSCD_OK; ++c) {
        int32_t p = cp[c], q = tp[c];
        while (p < cp[c + 1] || q < tp[c + 1]) {
            double d;
            if (q >= tp[c + 1] || (p < cp[c + 1] && ri[p] < ti[q])) {
                d = x[p++];
            } else if (p >= cp[c + 1] || ti[q] < ri[p]) {
                d = tx[q++];
            } else {
                d = x[p++] - tx[q++];
            }
            if (fabs(d) > bound) {
                st = NSCD_ERR_NOT_SPD;
                break;
            }
        }
    }
done:
    nscd__free(a, tp, ((size_t)n + 1) * sizeof(int32_t));
    nscd__free(a, ti, (nnz > 0 ? nnz : 1) * sizeof(int32_t));
    nscd__free(a, tx, (nnz > 0 ? nnz : 1) * sizeof(double));
    nscd__free(a, next, (size_t)n * sizeof(int32_t));
    return st;
}

/* Z = L^-1 P' H in CSC (m columns, rows in elimination order, ascending), and
 * its row-wise copy (CSR: for each row k the columns holding it, ascending). */
typedef struct zmat {
    int32_t m;
    int64_t nnz;
    int32_t *cp, *ri; /* CSC */
    double *cx;
    int32_t *rp, *ci; /* CSR */
    double *rx;
} zmat;

static void zmat_free(const nscd_allocator *a, zmat *z, int32_t n) {
    size_t nnz = z->nnz > 0 ? (size_t)z->nnz : 1;
    nscd__free(a, z->cp, ((size_t)z->m + 1) * sizeof(int32_t));
    nscd__free(a, z->ri, nnz * sizeof(int32_t));
    nscd__free(a, z->cx, nnz * sizeof(double));
    nscd__free(a, z->rp, ((size_t)n + 1) * sizeof(int32_t));
    nscd__free(a, z->ci, nnz * sizeof(int32_t));
    nscd__free(a, z->rx, nnz * sizeof(double));
    memset(z, 0, sizeof *z);
}

static int compare_int32(const void *pa, const void *pb) {
    int32_t a = *(const int32_t *)pa, b = *(const int32_t *)pb;
    return (a > b) - (a < b);
}

/* The nodes of L y = b's non-zero pattern for column c of H: the union of the
 * elimination-tree paths from b's rows to their roots, sorted ascending (a
 * topological order of the column solve). Returns their count in `reach`. */
static int32_t column_reach(const nscd__ldl *f, const int32_t *Hp, const int32_t *Hi, int32_t c,
                            int32_t *mark, int32_t *reach) {
    int32_t len = 0;
    for (int32_t p = Hp[c]; p < Hp[c + 1]; ++p) {
        for (int32_t i = f->iperm[Hi[p]]; i != -1 && mark[i] != c; i = f->parent[i]) {
            mark[i] = c;
            reach[len++] = i;
        }
    }
    qsort(reach, (size_t)len, sizeof *reach, compare_int32);
    return len;
}

static nscd_status build_z(const nscd_allocator *a, const nscd__ldl *f, int32_t m,
                           const int32_t *Hp, const int32_t *Hi, const double *Hx, zmat *z) {
    int32_t n = f->n;
    memset(z, 0, sizeof *z);
    z->m = m;
    int32_t *mark = nscd__alloc_array(a, (size_t)n, sizeof(int32_t));
    int32_t *reach = nscd__alloc_array(a, (size_t)n, sizeof(int32_t));
    double *y = nscd__alloc_array(a, (size_t)n, sizeof(double));
    z->cp = nscd__alloc_array(a, (size_t)m + 1, sizeof(int32_t));
    z->rp = nscd__alloc_array(a, (size_t)n + 1, sizeof(int32_t));
    nscd_status st = NSCD_ERR_OUT_OF_MEMORY;
    if (mark == NULL || reach == NULL || y == NULL || z->cp == NULL || z->rp == NULL) {
        goto done;
    }
    for (int32_t i = 0; i < n; ++i) {
        mark[i] = -1;
    }
    int64_t total = 0;
    for (int32_t c = 0; c < m; ++c) {
        total += column_reach(f, Hp, Hi, c, mark, reach);
        if (total > INT32_MAX) {
            goto done;
        }
        z->cp[c + 1] = (int32_t)total;
    }
    z->nnz = total;
    size_t nnz = total > 0 ? (size_t)total : 1;
    z->ri = nscd__alloc_array(a, nnz, sizeof(int32_t));
    z->cx = nscd__alloc_array(a, nnz, sizeof(double));
    z->ci = nscd__alloc_array(a, nnz, sizeof(int32_t));
    z->rx = nscd__alloc_array(a, nnz, sizeof(double));
    if (z->ri == NULL || z->cx == NULL || z->ci == NULL || z->rx == NULL) {
        goto done;
    }
    for (int32_t i = 0; i < n; ++i) {
        mark[i] = -1;
    }
    for (int32_t c = 0; c < m; ++c) {
        int32_t len = column_reach(f, Hp, Hi, c, mark, reach);
        for (int32_t p = Hp[c]; p < Hp[c + 1]; ++p) {
            y[f->iperm[Hi[p]]] = Hx[p];
        }
        for (int32_t t = 0; t < len; ++t) {
            int32_t j = reach[t];
            double yj = y[j];
            for (int32_t p = f->Lp[j]; p < f->Lp[j + 1]; ++p) {
                y[f->Li[p]] -= f->Lx[p] * yj;
            }
        }
        int32_t base = z->cp[c];
        for (int32_t t = 0; t < len; ++t) {
            z->ri[base + t] = reach[t];
            z->cx[base + t] = y[reach[t]];
            y[reach[t]] = 0.0;
        }
    }
    /* Row-wise copy: columns ascending in each row. */
    for (int64_t p = 0; p < total; ++p) {
        z->rp[z->ri[p] + 1]++;
    }
    for (int32_t i = 0; i < n; ++i) {
        z->rp[i + 1] += z->rp[i];
        mark[i] = z->rp[i];
    }
    for (int32_t c = 0; c < m; ++c) {
        for (int32_t p = z->cp[c]; p < z->cp[c + 1]; ++p) {
            int32_t q = mark[z->ri[p]]++;
            z->ci[q] = c;
            z->rx[q] = z->cx[p];
        }
    }
    st = NSCD_OK;
done:
    nscd__free(a, mark, (size_t)n * sizeof(int32_t));
    nscd__free(a, reach, (size_t)n * sizeof(int32_t));
    nscd__free(a, y, (size_t)n * sizeof(double));
    if (st != NSCD_OK) {
        zmat_free(a, z, n);
    }
    return st;
}

/* W = Z' D^-1 Z as 3x3 block CSR (ascending block columns, the diagonal block
 * always stored). Entry (b, a) is sum_k (Z_ka Z_kb) / D_k over k ascending,
 * the same floating-point sum as entry (a, b): W is exactly symmetric. */
typedef struct bsr {
    int32_t n;
    int64_t n_blocks;
    int32_t *row_ptr, *col_idx;
    double *blocks;
} bsr;

static void bsr_free(const nscd_allocator *a, bsr *w) {
    size_t nb = w->n_blocks > 0 ? (size_t)w->n_blocks : 1;
    nscd__free(a, w->row_ptr, ((size_t)w->n + 1) * sizeof(int32_t));
    nscd__free(a, w->col_idx, nb * sizeof(int32_t));
    nscd__free(a, w->blocks, 9 * nb * sizeof(double));
    memset(w, 0, sizeof *w);
}

/* The block columns K of block row J (ascending, J included); returns the count. */
static int32_t block_row_pattern(const zmat *z, int32_t J, int32_t *mark, int32_t *list) {
    int32_t len = 0;
    mark[J] = J;
    list[len++] = J;
    for (int32_t a = 3 * J; a < 3 * J + 3; ++a) {
        for (int32_t p = z->cp[a]; p < z->cp[a + 1]; ++p) {
            int32_t k = z->ri[p];
            for (int32_t q = z->rp[k]; q < z->rp[k + 1]; ++q) {
                int32_t K = z->ci[q] / 3;
                if (mark[K] != J) {
                    mark[K] = J;
                    list[len++] = K;
                }
            }
        }
    }
    qsort(list, (size_t)len, sizeof *list, compare_int32);
    return len;
}

static nscd_status build_w(const nscd_allocator *a, const zmat *z, const double *D, int32_t nc,
                           bsr *w) {
    memset(w, 0, sizeof *w);
    w->n = nc;
    int32_t *mark = nscd__alloc_array(a, (size_t)nc, sizeof(int32_t));
    int32_t *list = nscd__alloc_array(a, (size_t)nc, sizeof(int32_t));
    int32_t *slot = nscd__alloc_array(a, (size_t)nc, sizeof(int32_t));
    w->row_ptr = nscd__alloc_array(a, (size_t)nc + 1, sizeof(int32_t));
    nscd_status st = NSCD_ERR_OUT_OF_MEMORY;
    if (mark == NULL || list == NULL || slot == NULL || w->row_ptr == NULL) {
        goto done;
    }
    for (int32_t J = 0; J < nc; ++J) {
        mark[J] = -1;
    }
    int64_t total = 0;
    for (int32_t J = 0; J < nc; ++J) {
        total += block_row_pattern(z, J, mark, list);
        if (total > INT32_MAX / 9) {
            goto done;
        }
        w->row_ptr[J + 1] = (int32_t)total;
    }
    w->n_blocks = total;
    w->col_idx = nscd__alloc_array(a, (size_t)total, sizeof(int32_t));
    w->blocks = nscd__alloc_array(a, 9 * (size_t)total, sizeof(double));
    if (w->col_idx == NULL || w->blocks == NULL) {
        goto done;
    }
    for (int32_t J = 0; J < nc; ++J) {
        mark[J] = -1;
    }
    for (int32_t J = 0; J < nc; ++J) {
        int32_t len = block_row_pattern(z, J, mark, list);
        int32_t base = w->row_ptr[J];
        for (int32_t t = 0; t < len; ++t) {
            w->col_idx[base + t] = list[t];
            slot[list[t]] = base + t;
        }
        /* Column a = 3J + ii of W is row a: its entry at row b goes to block
         * (J, b / 3), position (ii, b % 3). */
        for (int32_t ii = 0; ii < 3; ++ii) {
            int32_t col = 3 * J + ii;
            for (int32_t p = z->cp[col]; p < z->cp[col + 1]; ++p) {
                int32_t k = z->ri[p];
                double zka = z->cx[p];
                for (int32_t q = z->rp[k]; q < z->rp[k + 1]; ++q) {
                    int32_t b = z->ci[q];
                    w->blocks[9 * (size_t)slot[b / 3] + 3 * (size_t)ii + (size_t)(b % 3)] +=
                        (zka * z->rx[q]) / D[k];
                }
            }
        }
    }
    st = NSCD_OK;
done:
    nscd__free(a, mark, (size_t)nc * sizeof(int32_t));
    nscd__free(a, list, (size_t)nc * sizeof(int32_t));
    nscd__free(a, slot, (size_t)nc * sizeof(int32_t));
    if (st != NSCD_OK) {
        bsr_free(a, w);
    }
    return st;
}

/* The costs of the two ways to W, in multiply-adds, from the symbolic
 * structure only (integer counts: the choice never depends on round-off).
 * Sparse: the pattern and numeric passes of build_w, 2 sum_k c_k^2 with c_k
 * the non-zeros of row k of Z = L^-1 P'H, plus building Z (its non-zeros
 * times the average column of L). Dense: one full solve with L per column of
 * H and the product H'x, m (2 nnz(L) + 2 n + nnz(H)), plus 9 nc^2 for the
 * blocks. */
static nscd_status condensation_costs(const nscd_allocator *a, const nscd__ldl *f, int32_t m,
                                      const int32_t *Hp, const int32_t *Hi, double *sparse,
                                      double *dense) {
    int32_t n = f->n;
    int32_t *mark = nscd__alloc_array(a, (size_t)n, sizeof(int32_t));
    int32_t *reach = nscd__alloc_array(a, (size_t)n, sizeof(int32_t));
    int64_t *rows = nscd__alloc_array(a, (size_t)n, sizeof(int64_t));
    nscd_status st = NSCD_ERR_OUT_OF_MEMORY;
    if (mark != NULL && reach != NULL && rows != NULL) {
        for (int32_t i = 0; i < n; ++i) {
            mark[i] = -1;
        }
        double znnz = 0.0;
        for (int32_t c = 0; c < m; ++c) {
            int32_t len = 0;
            for (int32_t p = Hp[c]; p < Hp[c + 1]; ++p) { /* the reach, unsorted */
                for (int32_t i = f->iperm[Hi[p]]; i != -1 && mark[i] != c; i = f->parent[i]) {
                    mark[i] = c;
                    reach[len++] = i;
                    rows[i]++;
                }
            }
            znnz += len;
        }
        double sum2 = 0.0;
        for (int32_t i = 0; i < n; ++i) {
            sum2 += (double)rows[i] * (double)rows[i];
        }
        double nc = m / 3.0, lnnz = (double)f->Lp[n];
        *sparse = 2.0 * sum2 + znnz * (1.0 + lnnz / n);
        *dense = m * (2.0 * lnnz + 2.0 * n + Hp[m]) + 9.0 * nc * nc;
        st = NSCD_OK;
    }
    nscd__free(a, mark, (size_t)n * sizeof(int32_t));
    nscd__free(a, reach, (size_t)n * sizeof(int32_t));
    nscd__free(a, rows, (size_t)n * sizeof(int64_t));
    return st;
}

/* W column by column: x = M^-1 h_c by full solves, W(:, c) = H' x, into a
 * dense 3nc x 3nc array, symmetrised (W + W')/2 so that it is exactly
 * symmetric, then stored as its non-zero 3x3 blocks and every diagonal block. */
static nscd_status build_w_dense(const nscd_allocator *a, const nscd__ldl *f, int32_t nc,
                                 const int32_t *Hp, const int32_t *Hi, const double *Hx, bsr *w) {
    int32_t n = f->n, m = 3 * nc;
    memset(w, 0, sizeof *w);
    w->n = nc;
    size_t mm = (size_t)m * (size_t)m;
    double *D = nscd__alloc_array(a, mm, sizeof(double));
    double *x = nscd__alloc_array(a, (size_t)n, sizeof(double));
    double *work = nscd__alloc_array(a, (size_t)n, sizeof(double));
    w->row_ptr = nscd__alloc_array(a, (size_t)nc + 1, sizeof(int32_t));
    nscd_status st = NSCD_ERR_OUT_OF_MEMORY;
    if (D == NULL || x == NULL || work == NULL || w->row_ptr == NULL) {
        goto done;
    }
    for (int32_t c = 0; c < m; ++c) {
        memset(x, 0, (size_t)n * sizeof *x);
        for (int32_t p = Hp[c]; p < Hp[c + 1]; ++p) {
            x[Hi[p]] = Hx[p];
        }
        nscd__ldl_solve(f, x, work);
        for (int32_t b = 0; b < m; ++b) {
            double s = 0.0;
            for (int32_t p = Hp[b]; p < Hp[b + 1]; ++p) {
                s += Hx[p] * x[Hi[p]];
            }
            D[(size_t)b * (size_t)m + (size_t)c] = s;
        }
    }
    for (int32_t i = 0; i < m; ++i) {
        for (int32_t j = i + 1; j < m; ++j) {
            double s = 0.5 * (D[(size_t)i * m + j] + D[(size_t)j * m + i]);
            D[(size_t)i * m + j] = D[(size_t)j * m + i] = s;
        }
    }
    int64_t total = 0;
    for (int32_t J = 0; J < nc; ++J) {
        for (int32_t K = 0; K < nc; ++K) {
            bool keep = J == K;
            for (int e = 0; e < 9 && !keep; ++e) {
                keep = D[(size_t)(3 * J + e / 3) * m + (size_t)(3 * K + e % 3)] != 0.0;
            }
            total += keep;
        }
        w->row_ptr[J + 1] = (int32_t)total;
    }
    w->n_blocks = total;
    w->col_idx = nscd__alloc_array(a, (size_t)total, sizeof(int32_t));
    w->blocks = nscd__alloc_array(a, 9 * (size_t)total, sizeof(double));
    if (w->col_idx == NULL || w->blocks == NULL) {
        goto done;
    }
    int64_t b = 0;
    for (int32_t J = 0; J < nc; ++J) {
        for (int32_t K = 0; K < nc; ++K) {
            bool keep = J == K;
            for (int e = 0; e < 9 && !keep; ++e) {
                keep = D[(size_t)(3 * J + e / 3) * m + (size_t)(3 * K + e % 3)] != 0.0;
            }
            if (keep) {
                w->col_idx[b] = K;
                for (int e = 0; e < 9; ++e) {
                    w->blocks[9 * b + e] = D[(size_t)(3 * J + e / 3) * m + (size_t)(3 * K + e % 3)];
                }
                ++b;
            }
        }
    }
    st = NSCD_OK;
done:
    nscd__free(a, D, mm * sizeof(double));
    nscd__free(a, x, (size_t)n * sizeof(double));
    nscd__free(a, work, (size_t)n * sizeof(double));
    if (st != NSCD_OK) {
        bsr_free(a, w);
    }
    return st;
}

static nscd_status check_args(int32_t n, int32_t nc, const int32_t *Mp, const int32_t *Mi,
                              const double *Mx, const int32_t *Hp, const int32_t *Hi,
                              const double *Hx, const double *f, const double *w, const double *mu,
                              const nscd_gfc3d_options *opts, nscd_gfc3d_options *resolved) {
    option_defaults(resolved);
    if (opts != NULL) {
        nscd_status st =
            nscd__struct_read(resolved, sizeof *resolved, opts, NSCD__GFC3D_OPTIONS_SIZE_0_2);
        if (st != NSCD_OK) {
            return st;
        }
        if (resolved->factorization < NSCD_GFC3D_FACTOR_LDL ||
            resolved->factorization > NSCD_GFC3D_FACTOR_AUTO ||
            resolved->condensation < NSCD_GFC3D_CONDENSE_AUTO ||
            resolved->condensation > NSCD_GFC3D_CONDENSE_DENSE ||
            !nscd__allocator_valid(&resolved->allocator)) {
            return NSCD_ERR_INVALID_ARGUMENT;
        }
        if (!isfinite(resolved->pivot_tolerance) || !isfinite(resolved->symmetry_tolerance)) {
            return NSCD_ERR_NOT_FINITE;
        }
        if (!(resolved->pivot_tolerance >= 0.0) || !(resolved->pivot_tolerance < 1.0) ||
            !(resolved->symmetry_tolerance >= 0.0) ||
            (resolved->condensation == NSCD_GFC3D_CONDENSE_DENSE &&
             nc > GFC3D_MAX_DENSE_CONTACTS)) {
            return NSCD_ERR_OUT_OF_RANGE;
        }
    }
    int32_t m = 3 * nc;
    nscd_status st = check_csc(n, n, Mp, Mi, Mx);
    if (st == NSCD_OK) {
        st = check_csc(n, m, Hp, Hi, Hx);
    }
    if (st != NSCD_OK) {
        return st;
    }
    if (!nscd__all_finite(f, (size_t)n) || !nscd__all_finite(w, (size_t)m) ||
        !nscd__all_finite(mu, (size_t)nc)) {
        return NSCD_ERR_NOT_FINITE;
    }
    for (int32_t j = 0; j < nc; ++j) {
        if (mu[j] < 0.0) {
            return NSCD_ERR_OUT_OF_RANGE;
        }
    }
    return NSCD_OK;
}

nscd_status nscd_gfc3d_solve(int32_t n_dofs, int32_t n_contacts, const int32_t *M_col_ptr,
                             const int32_t *M_row_idx, const double *M_values,
                             const int32_t *H_col_ptr, const int32_t *H_row_idx,
                             const double *H_values, const double *f, const double *w,
                             const double *mu, const nscd_gfc3d_options *opts,
                             const nscd_fc3d_options *local_opts, double *v, double *r, double *u,
                             nscd_gfc3d_info *info) {
    if (M_col_ptr == NULL || M_row_idx == NULL || M_values == NULL || H_col_ptr == NULL ||
        H_row_idx == NULL || H_values == NULL || f == NULL || w == NULL || mu == NULL ||
        v == NULL || r == NULL || u == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    if (n_dofs <= 0 || n_dofs > GFC3D_MAX_DOFS || n_contacts <= 0 ||
        n_contacts > GFC3D_MAX_CONTACTS) {
        return NSCD_ERR_INVALID_ARGUMENT;
    }
    if (info != NULL &&
        !nscd__struct_size_ok(info->struct_size, NSCD__GFC3D_INFO_SIZE_0_2, sizeof *info)) {
        return NSCD_ERR_STRUCT_SIZE;
    }
    nscd_gfc3d_options o;
    nscd_status st = check_args(n_dofs, n_contacts, M_col_ptr, M_row_idx, M_values, H_col_ptr,
                                H_row_idx, H_values, f, w, mu, opts, &o);
    if (st != NSCD_OK) {
        return st;
    }
    nscd_allocator resolved_allocator = nscd__allocator_resolve(&o.allocator);
    const nscd_allocator *a = &resolved_allocator;
    st = check_symmetric(a, n_dofs, M_col_ptr, M_row_idx, M_values, o.symmetry_tolerance);
    if (st != NSCD_OK) {
        return st;
    }
    int32_t n = n_dofs, nc = n_contacts, m = 3 * n_contacts;
    int32_t factorization = o.factorization;
    if (factorization == NSCD_GFC3D_FACTOR_AUTO) {
        factorization = nscd__gfc3d_have_cholmod() && n >= GFC3D_CHOLMOD_MIN_DOFS
                            ? NSCD_GFC3D_FACTOR_CHOLMOD
                            : NSCD_GFC3D_FACTOR_LDL;
    }
    nscd__ldl fac;
    st = factorization == NSCD_GFC3D_FACTOR_CHOLMOD
             ? nscd__ldl_factor_cholmod(a, n, M_col_ptr, M_row_idx, M_values, o.pivot_tolerance,
                                        &fac)
             : nscd__ldl_factor(a, n, M_col_ptr, M_row_idx, M_values, o.pivot_tolerance, &fac);
    if (st != NSCD_OK) {
        return st;
    }
    zmat z;
    bsr W = {0};
    double *q = nscd__alloc_array(a, (size_t)m, sizeof(double));
    double *rr = nscd__alloc_array(a, (size_t)m, sizeof(double));
    double *uu = nscd__alloc_array(a, (size_t)m, sizeof(double));
    double *y = nscd__alloc_array(a, (size_t)n, sizeof(double));
    double *hr = nscd__alloc_array(a, (size_t)n, sizeof(double));
    double *work = nscd__alloc_array(a, (size_t)n, sizeof(double));
    memset(&z, 0, sizeof z);
    double sparse_cost = 0.0, dense_cost = 0.0;
    st = condensation_costs(a, &fac, m, H_col_ptr, H_row_idx, &sparse_cost, &dense_cost);
    if (st != NSCD_OK) {
        goto free_rest;
    }
    int32_t dense = o.condensation == NSCD_GFC3D_CONDENSE_DENSE ||
                    (o.condensation == NSCD_GFC3D_CONDENSE_AUTO && nc <= GFC3D_MAX_DENSE_CONTACTS &&
                     dense_cost < sparse_cost);
    st = NSCD_ERR_OUT_OF_MEMORY;
    if (q == NULL || rr == NULL || uu == NULL || y == NULL || hr == NULL || work == NULL) {
        goto free_rest;
    }
    if (dense) {
        st = build_w_dense(a, &fac, nc, H_col_ptr, H_row_idx, H_values, &W);
    } else {
        st = build_z(a, &fac, m, H_col_ptr, H_row_idx, H_values, &z);
        st = st != NSCD_OK ? st : build_w(a, &z, fac.D, nc, &W);
    }
    if (st != NSCD_OK) {
        goto free_all;
    }
    /* q = H' M^-1 f + w */
    memcpy(y, f, (size_t)n * sizeof *y);
    nscd__ldl_solve(&fac, y, work);
    for (int32_t c = 0; c < m; ++c) {
        double s = w[c];
        for (int32_t p = H_col_ptr[c]; p < H_col_ptr[c + 1]; ++p) {
            s += H_values[p] * y[H_row_idx[p]];
        }
        q[c] = s;
    }
    memcpy(rr, r, (size_t)m * sizeof *rr);
    nscd_fc3d_info linfo = {.struct_size = sizeof linfo};
    st = nscd_fc3d_solve_bsr(nc, W.row_ptr, W.col_idx, W.blocks, q, mu, local_opts, rr, uu, &linfo);
    if (st != NSCD_OK && st != NSCD_ERR_NOT_CONVERGED) {
        goto free_all;
    }
    /* v = M^-1 (H r + f), u = H' v + w */
    for (int32_t i = 0; i < n; ++i) {
        hr[i] = 0.0;
    }
    for (int32_t c = 0; c < m; ++c) {
        for (int32_t p = H_col_ptr[c]; p < H_col_ptr[c + 1]; ++p) {
            hr[H_row_idx[p]] += H_values[p] * rr[c];
        }
    }
    for (int32_t i = 0; i < n; ++i) {
        y[i] = hr[i] + f[i];
    }
    nscd__ldl_solve(&fac, y, work);
    double res = 0.0, fmax_ = 0.0, hmax = 0.0;
    for (int32_t c = 0; c < n; ++c) { /* (M v)_i accumulated into work */
        work[c] = 0.0;
    }
    for (int32_t c = 0; c < n; ++c) {
        for (int32_t p = M_col_ptr[c]; p < M_col_ptr[c + 1]; ++p) {
            work[M_row_idx[p]] += M_values[p] * y[c];
        }
    }
    for (int32_t i = 0; i < n; ++i) {
        res = fmax(res, fabs(work[i] - hr[i] - f[i]));
        fmax_ = fmax(fmax_, fabs(f[i]));
        hmax = fmax(hmax, fabs(hr[i]));
    }
    for (int32_t c = 0; c < m; ++c) { /* u = H'v + w */
        double s = w[c];
        for (int32_t p = H_col_ptr[c]; p < H_col_ptr[c + 1]; ++p) {
            s += H_values[p] * y[H_row_idx[p]];
        }
        uu[c] = s;
    }
    /* Finite data so large that the result overflows: refused, nothing written. */
    if (!nscd__all_finite(y, (size_t)n) || !nscd__all_finite(rr, (size_t)m) ||
        !nscd__all_finite(uu, (size_t)m) || !isfinite(res)) {
        st = NSCD_ERR_NOT_FINITE;
        goto free_all;
    }
    memcpy(v, y, (size_t)n * sizeof *v);
    memcpy(r, rr, (size_t)m * sizeof *r);
    memcpy(u, uu, (size_t)m * sizeof *u);
    if (info != NULL) {
        nscd_gfc3d_info full = {.struct_size = sizeof full,
                                .factorization = factorization,
                                .factor_nnz = fac.Lp[n],
                                .w_blocks = W.n_blocks,
                                .iterations = linfo.iterations,
                                .converged = linfo.converged,
                                .merit = linfo.merit,
                                .equilibrium_residual = res / (1.0 + fmax_ + hmax),
                                .local_failures = linfo.local_failures,
                                .dense_condensation = dense};
        nscd__struct_write(info, &full, sizeof full, NSCD__GFC3D_INFO_SIZE_0_2);
    }
free_all:
    zmat_free(a, &z, n);
free_rest:
    bsr_free(a, &W);
    nscd__free(a, q, (size_t)m * sizeof(double));
    nscd__free(a, rr, (size_t)m * sizeof(double));
    nscd__free(a, uu, (size_t)m * sizeof(double));
    nscd__free(a, y, (size_t)n * sizeof(double));
    nscd__free(a, hr, (size_t)n * sizeof(double));
    nscd__free(a, work, (size_t)n * sizeof(double));
    nscd__ldl_free(a, &fac);
    return st;
}
