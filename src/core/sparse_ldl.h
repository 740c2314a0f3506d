/* A small sparse LDL' factorisation of a symmetric positive definite matrix
 * (up-looking, after T. A. Davis' LDL), with a reverse Cuthill–McKee fill
 * ordering, and the triangular solves the global fc3d condensation needs. */
#ifndef NSCD_CORE_SPARSE_LDL_H
#define NSCD_CORE_SPARSE_LDL_H

#include <stdint.h>

#include "nscd/host.h"
#include "nscd/status.h"

/* P' M P = L D L', L unit lower triangular stored by columns without its
 * diagonal (column j holds rows > j, in increasing order of elimination). */
typedef struct nscd__ldl {
    int32_t n;
    int32_t *perm;   /* n: row perm[k] of M is row k of P' M P */
    int32_t *iperm;  /* n: its inverse */
    int32_t *parent; /* n: elimination tree, -1 at roots */
    int32_t *Lp;     /* n + 1 */
    int32_t *Li;     /* Lp[n] */
    double *Lx;      /* Lp[n] */
    double *D;       /* n, all > 0 */
    int64_t nnz;     /* Lp[n] */
} nscd__ldl;

/* Factors the n x n matrix M given in canonical CSC with both triangles
 * (rows ascending in each column, no duplicates, indices checked by the
 * caller). NSCD_ERR_NOT_SPD when a pivot is <= pivot_tol times M's largest
 * diagonal entry (or M has a diagonal <= 0); NSCD_ERR_OUT_OF_MEMORY (also
 * when L would hold more than INT32_MAX entries). On failure *f holds nothing. */
nscd_status nscd__ldl_factor(const nscd_allocator *a, int32_t n, const int32_t *Mp,
                             const int32_t *Mi, const double *Mx, double pivot_tol, nscd__ldl *f);
void nscd__ldl_free(const nscd_allocator *a, nscd__ldl *f);

/* x = M^-1 b in place (x holds b on entry), work: n doubles. */
void nscd__ldl_solve(const nscd__ldl *f, double *x, double *work);

/* The reverse Cuthill–McKee ordering of the symmetric pattern (Mp, Mi):
 * perm[k] = original index of the k-th unknown. work: 2n + 1 int32. */
void nscd__rcm_order(int32_t n, const int32_t *Mp, const int32_t *Mi, int32_t *perm, int32_t *work);

#endif
