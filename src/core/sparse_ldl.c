/* Sparse LDL' of a symmetric positive definite matrix: reverse Cuthill–McKee
 * ordering, elimination tree and column counts (symbolic), up-looking numeric
 * factorisation (T. A. Davis, "Algorithm 849: a concise sparse Cholesky
 * factorization package", ACM TOMS 31(4), 2005), and the solves. */
#include "core/sparse_ldl.h"

#include <math.h>
#include <string.h>

#include "core/memory.h"

/* Degree of node i: off-diagonal entries of column i. Visited nodes hold
 * -(degree + 1) so that a BFS needs no other marker. */
static int32_t degree_of(const int32_t *deg, int32_t i) {
    return deg[i] < 0 ? -deg[i] - 1 : deg[i];
}

void nscd__rcm_order(int32_t n, const int32_t *Mp, const int32_t *Mi, int32_t *perm,
                     int32_t *work) {
    int32_t *deg = work;           /* n */
    int32_t *by_degree = work + n; /* n + 1 (counting-sort buckets, then the sorted nodes) */
    int32_t *count = perm;         /* perm is free until the BFS starts: bucket counts */
    for (int32_t i = 0; i < n; ++i) {
        int32_t d = 0;
        for (int32_t p = Mp[i]; p < Mp[i + 1]; ++p) {
            d += Mi[p] != i;
        }
        deg[i] = d;
    }
    /* Nodes sorted by degree, ties by index (stable counting sort; degrees < n). */
    memset(count, 0, (size_t)n * sizeof *count);
    for (int32_t i = 0; i < n; ++i) {
        count[deg[i]]++;
    }
    int32_t start = 0;
    for (int32_t d = 0; d < n; ++d) {
        int32_t c = count[d];
        count[d] = start;
        start += c;
    }
    for (int32_t i = 0; i < n; ++i) {
        by_degree[count[deg[i]]++] = i;
    }
    int32_t head = 0, tail = 0, next_root = 0;
    while (tail < n) {
        while (deg[by_degree[next_root]] < 0) {
            ++next_root;
        }
        int32_t root = by_degree[next_root];
        perm[tail++] = root; /* perm[0..tail) only ever holds visited nodes */
        deg[root] = -deg[root] - 1;
        while (head < tail) {
            int32_t i = perm[head++];
            int32_t first = tail;
            for (int32_t p = Mp[i]; p < Mp[i + 1]; ++p) {
                int32_t j = Mi[p];
                if (deg[j] >= 0) {
                    deg[j] = -deg[j] - 1;
                    perm[tail++] = j;
                }
            }
            /* The new neighbours by ascending degree (insertion sort, stable). */
            for (int32_t s = first + 1; s < tail; ++s) {
                int32_t node = perm[s], d = degree_of(deg, node), t = s;
                while (t > first && degree_of(deg, perm[t - 1]) > d) {
                    perm[t] = perm[t - 1];
                    --t;
                }
                perm[t] = node;
            }
        }
    }
    for (int32_t k = 0; k < n / 2; ++k) { /* reverse */
        int32_t t = perm[k];
        perm[k] = perm[n - 1 - k];
        perm[n - 1 - k] = t;
    }
}

void nscd__ldl_free(const nscd_allocator *a, nscd__ldl *f) {
    size_t n = (size_t)f->n;
    nscd__free(a, f->perm, n * sizeof(int32_t));
    nscd__free(a, f->iperm, n * sizeof(int32_t));
    nscd__free(a, f->parent, n * sizeof(int32_t));
    nscd__free(a, f->Lp, (n + 1) * sizeof(int32_t));
    nscd__free(a, f->Li, (size_t)f->nnz * sizeof(int32_t));
    nscd__free(a, f->Lx, (size_t)f->nnz * sizeof(double));
    nscd__free(a, f->D, n * sizeof(double));
    memset(f, 0, sizeof *f);
}

nscd_status nscd__ldl_factor(const nscd_allocator *a, int32_t n, const int32_t *Mp,
                             const int32_t *Mi, const double *Mx, double pivot_tol, nscd__ldl *f) {
    memset(f, 0, sizeof *f);
    size_t sn = (size_t)n;
    nscd_status st = NSCD_ERR_OUT_OF_MEMORY;
    int32_t *iwork = nscd__alloc_array(a, 3 * sn + 1, sizeof(int32_t));
    double *Y = nscd__alloc_array(a, sn, sizeof(double));
    f->n = n;
    f->perm = nscd__alloc_array(a, sn, sizeof(int32_t));
    f->iperm = nscd__alloc_array(a, sn, sizeof(int32_t));
    f->parent = nscd__alloc_array(a, sn, sizeof(int32_t));
    f->Lp = nscd__alloc_array(a, sn + 1, sizeof(int32_t));
    f->D = nscd__alloc_array(a, sn, sizeof(double));
    if (iwork == NULL || Y == NULL || f->perm == NULL || f->iperm == NULL || f->parent == NULL ||
        f->Lp == NULL || f->D == NULL) {
        goto fail;
    }
    nscd__rcm_order(n, Mp, Mi, f->perm, iwork);
    for (int32_t k = 0; k < n; ++k) {
        f->iperm[f->perm[k]] = k;
    }
    int32_t *flag = iwork, *lnz = iwork + n, *pattern = iwork + 2 * sn;
    /* Symbolic: elimination tree and column counts of L (upper part of P'MP). */
    double dmax = 0.0;
    for (int32_t k = 0; k < n; ++k) {
        f->parent[k] = -1;
        flag[k] = k;
        lnz[k] = 0;
        int32_t kk = f->perm[k];
        for (int32_t p = Mp[kk]; p < Mp[kk + 1]; ++p) {
            int32_t i = f->iperm[Mi[p]];
            if (i == k) {
                dmax = fmax(dmax, Mx[p]);
            }
            for (; i < k && flag[i] != k; i = f->parent[i]) {
                if (f->parent[i] == -1) {
                    f->parent[i] = k;
                }
                lnz[i]++;
                flag[i] = k;
            }
        }
    }
    int64_t total = 0;
    f->Lp[0] = 0;
    for (int32_t k = 0; k < n; ++k) {
        total += lnz[k];
        if (total > INT32_MAX) {
            goto fail;
        }
        f->Lp[k + 1] = (int32_t)total;
    }
    f->nnz = total;
    f->Li = nscd__alloc_array(a, total > 0 ? (size_t)total : 1, sizeof(int32_t));
    f->Lx = nscd__alloc_array(a, total > 0 ? (size_t)total : 1, sizeof(double));
    if (f->Li == NULL || f->Lx == NULL) {
        f->nnz = total > 0 ? total : 1;
        goto fail;
    }
    if (total == 0) {
        f->nnz = 1; /* the one-element arrays just allocated */
    }
    /* Numeric, row k of L at a time. */
    st = NSCD_ERR_NOT_SPD;
    double floor_pivot = pivot_tol * dmax;
    if (!(dmax > 0.0)) {
        goto fail;
    }
    for (int32_t k = 0; k < n; ++k) {
        Y[k] = 0.0;
        int32_t top = n;
        flag[k] = k;
        lnz[k] = 0;
        int32_t kk = f->perm[k];
        for (int32_t p = Mp[kk]; p < Mp[kk + 1]; ++p) {
            int32_t i = f->iperm[Mi[p]];
            if (i <= k) {
                Y[i] += Mx[p];
                int32_t len = 0;
                for (; flag[i] != k; i = f->parent[i]) {
                    pattern[len++] = i;
                    flag[i] = k;
                }
                while (len > 0) {
                    pattern[--top] = pattern[--len];
                }
            }
        }
        double d = Y[k];
        Y[k] = 0.0;
        for (; top < n; ++top) {
            int32_t i = pattern[top];
            double yi = Y[i];
            Y[i] = 0.0;
            int32_t p2 = f->Lp[i] + lnz[i];
            int32_t p = f->Lp[i];
            for (; p < p2; ++p) {
                Y[f->Li[p]] -= f->Lx[p] * yi;
            }
            double lki = yi / f->D[i];
            d -= lki * yi;
            f->Li[p] = k;
            f->Lx[p] = lki;
            lnz[i]++;
        }
        if (!(d > floor_pivot)) {
            goto fail;
        }
        f->D[k] = d;
    }
    nscd__free(a, iwork, (3 * sn + 1) * sizeof(int32_t));
    nscd__free(a, Y, sn * sizeof(double));
    return NSCD_OK;
fail:
    nscd__free(a, iwork, (3 * sn + 1) * sizeof(int32_t));
    nscd__free(a, Y, sn * sizeof(double));
    nscd__ldl_free(a, f);
    return st;
}

void nscd__ldl_solve(const nscd__ldl *f, double *x, double *work) {
    int32_t n = f->n;
    for (int32_t k = 0; k < n; ++k) {
        work[k] = x[f->perm[k]];
    }
    for (int32_t j = 0; j < n; ++j) { /* L y = b */
        double yj = work[j];
        for (int32_t p = f->Lp[j]; p < f->Lp[j + 1]; ++p) {
            work[f->Li[p]] -= f->Lx[p] * yj;
        }
    }
    for (int32_t j = 0; j < n; ++j) {
        work[j] /= f->D[j];
    }
    for (int32_t j = n - 1; j >= 0; --j) { /* L' x = y */
        double s = work[j];
        for (int32_t p = f->Lp[j]; p < f->Lp[j + 1]; ++p) {
            s -= f->Lx[p] * work[f->Li[p]];
        }
        work[j] = s;
    }
    for (int32_t k = 0; k < n; ++k) {
        x[f->perm[k]] = work[k];
    }
}
