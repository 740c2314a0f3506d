/* The optional CHOLMOD factorisation of M for gfc3d.c (NSCD_HAVE_CHOLMOD,
 * cmake/cholmod.cmake): a simplicial LDL' with CHOLMOD's fill-reducing
 * ordering (AMD or its best of several), copied into the nscd__ldl form
 * that the condensation reads (perm, elimination tree, strictly lower L, D). */
#include "contact/solvers/gfc3d_cholmod.h"

#include <string.h>

#include "core/memory.h"

#ifdef NSCD_HAVE_CHOLMOD
#include <cholmod.h>

bool nscd__gfc3d_have_cholmod(void) { return true; }

nscd_status nscd__ldl_factor_cholmod(const nscd_allocator *a, int32_t n, const int32_t *Mp,
                                     const int32_t *Mi, const double *Mx, double pivot_tol,
                                     nscd__ldl *f) {
    memset(f, 0, sizeof *f);
    cholmod_common c;
    if (!cholmod_start(&c)) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    c.print = 0;
    c.error_handler = NULL;
    c.supernodal = CHOLMOD_SIMPLICIAL;
    c.final_ll = 0;
    c.final_pack = 1;
    c.final_monotonic = 1;
    c.quick_return_if_not_posdef = 1;
    cholmod_sparse A;
    memset(&A, 0, sizeof A);
    A.nrow = (size_t)n;
    A.ncol = (size_t)n;
    A.nzmax = (size_t)Mp[n];
    A.p = (void *)(uintptr_t)Mp; /* read only */
    A.i = (void *)(uintptr_t)Mi;
    A.x = (void *)(uintptr_t)Mx;
    A.stype = 1; /* the upper triangle of the symmetric M */
    A.itype = CHOLMOD_INT;
    A.xtype = CHOLMOD_REAL;
    A.dtype = CHOLMOD_DOUBLE;
    A.sorted = 1;
    A.packed = 1;
    nscd_status st = NSCD_ERR_OUT_OF_MEMORY;
    cholmod_factor *L = cholmod_analyze(&A, &c);
    if (L == NULL) {
        goto done;
    }
    cholmod_factorize(&A, L, &c);
    if (c.status == CHOLMOD_NOT_POSDEF || L->minor < (size_t)n) {
        st = NSCD_ERR_NOT_SPD;
        goto done;
    }
    if (c.status != CHOLMOD_OK || L->is_super || L->is_ll || L->xtype != CHOLMOD_REAL) {
        goto done;
    }
    const int *Lp = L->p, *Li = L->i, *Lnz = L->nz, *perm = L->Perm;
    const double *Lx = L->x;
    int64_t total = 0;
    for (int32_t j = 0; j < n; ++j) {
        total += Lnz[j] - 1;
    }
    if (total > INT32_MAX) {
        goto done;
    }
    size_t sn = (size_t)n, nnz = total > 0 ? (size_t)total : 1;
    f->n = n;
    f->nnz = (int64_t)nnz;
    f->perm = nscd__alloc_array(a, sn, sizeof(int32_t));
    f->iperm = nscd__alloc_array(a, sn, sizeof(int32_t));
    f->parent = nscd__alloc_array(a, sn, sizeof(int32_t));
    f->Lp = nscd__alloc_array(a, sn + 1, sizeof(int32_t));
    f->D = nscd__alloc_array(a, sn, sizeof(double));
    f->Li = nscd__alloc_array(a, nnz, sizeof(int32_t));
    f->Lx = nscd__alloc_array(a, nnz, sizeof(double));
    if (f->perm == NULL || f->iperm == NULL || f->parent == NULL || f->Lp == NULL || f->D == NULL ||
        f->Li == NULL || f->Lx == NULL) {
        goto done;
    }
    double dmax = 0.0;
    for (int32_t j = 0; j < n; ++j) {
        for (int32_t p = Mp[j]; p < Mp[j + 1]; ++p) {
            if (Mi[p] == j && Mx[p] > dmax) {
                dmax = Mx[p];
            }
        }
    }
    int32_t q = 0;
    st = NSCD_ERR_NOT_SPD;
    for (int32_t j = 0; j < n; ++j) {
        f->perm[j] = perm[j];
        f->iperm[perm[j]] = j;
        f->Lp[j] = q;
        f->parent[j] = -1;
        double d = Lx[Lp[j]]; /* the diagonal comes first */
        if (!(d > pivot_tol * dmax) || Li[Lp[j]] != j) {
            goto done;
        }
        f->D[j] = d;
        for (int p = Lp[j] + 1; p < Lp[j] + Lnz[j]; ++p) {
            f->Li[q] = Li[p];
            f->Lx[q] = Lx[p];
            if (f->parent[j] == -1 || Li[p] < f->parent[j]) {
                f->parent[j] = Li[p]; /* the etree: the first sub-diagonal row */
            }
            ++q;
        }
    }
    f->Lp[n] = q;
    st = dmax > 0.0 ? NSCD_OK : NSCD_ERR_NOT_SPD;
done:
    if (L != NULL) {
        cholmod_free_factor(&L, &c);
    }
    cholmod_finish(&c);
    if (st != NSCD_OK) {
        nscd__ldl_free(a, f);
    }
    return st;
}

#else

bool nscd__gfc3d_have_cholmod(void) { return false; }

nscd_status nscd__ldl_factor_cholmod(const nscd_allocator *a, int32_t n, const int32_t *Mp,
                                     const int32_t *Mi, const double *Mx, double pivot_tol,
                                     nscd__ldl *f) {
    (void)a, (void)n, (void)Mp, (void)Mi, (void)Mx, (void)pivot_tol;
    memset(f, 0, sizeof *f);
    return NSCD_ERR_UNSUPPORTED;
}

#endif
