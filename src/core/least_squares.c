/* Minimum-norm least squares (see least_squares.h): the own one-sided Jacobi
 * SVD up to NSCD__DENSE_SMALL, LAPACK's dgelsd above. */
#include "core/least_squares.h"

#include <lapacke.h>
#include <string.h>

#include "core/dense_small.h"
#include "core/memory.h"

_Static_assert(sizeof(lapack_int) == sizeof(int32_t), "LAPACKE with 32-bit integers");

nscd_status nscd__least_squares_create(const nscd_allocator *a, int32_t capacity,
                                       nscd__least_squares *ls) {
    memset(ls, 0, sizeof *ls);
    ls->allocator = a;
    return nscd__least_squares_reserve(ls, capacity > 0 ? capacity : 1);
}

nscd_status nscd__least_squares_reserve(nscd__least_squares *ls, int32_t n) {
    if (n <= ls->capacity) {
        return NSCD_OK;
    }
    double query = 0.0, scratch = 0.0;
    lapack_int iquery = 0, rank = 0;
    if (n > NSCD__DENSE_SMALL) { /* workspace query for the largest size */
        lapack_int info = LAPACKE_dgelsd_work(LAPACK_COL_MAJOR, n, n, 1, &scratch, n, &scratch, n,
                                              &scratch, -1.0, &rank, &query, -1, &iquery);
        if (info != 0) {
            return NSCD_ERR_INVALID_ARGUMENT;
        }
    }
    size_t own = NSCD__SMALL_LSTSQ_SCRATCH(n < NSCD__DENSE_SMALL ? n : NSCD__DENSE_SMALL);
    nscd__least_squares grown = {.allocator = ls->allocator, .capacity = n};
    grown.lwork = (int32_t)(query > (double)own ? query : (double)own) + 1;
    grown.liwork = (int32_t)iquery + 1;
    grown.singular = nscd__alloc_array(ls->allocator, (size_t)n, sizeof(double));
    grown.work = nscd__alloc_array(ls->allocator, (size_t)grown.lwork, sizeof(double));
    grown.iwork = nscd__alloc_array(ls->allocator, (size_t)grown.liwork, sizeof(int32_t));
    if (grown.singular == NULL || grown.work == NULL || grown.iwork == NULL) {
        nscd__least_squares_destroy(&grown);
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    nscd__least_squares_destroy(ls);
    *ls = grown;
    return NSCD_OK;
}

void nscd__least_squares_destroy(nscd__least_squares *ls) {
    const nscd_allocator *a = ls->allocator;
    nscd__free(a, ls->singular, (size_t)ls->capacity * sizeof(double));
    nscd__free(a, ls->work, (size_t)ls->lwork * sizeof(double));
    nscd__free(a, ls->iwork, (size_t)ls->liwork * sizeof(int32_t));
    memset(ls, 0, sizeof *ls);
    ls->allocator = a;
}

nscd_status nscd__least_squares_solve(nscd__least_squares *ls, int32_t n, double *A, double *b,
                                      double rcond, int32_t *rank) {
    if (n < 1) {
        return NSCD_ERR_INVALID_ARGUMENT;
    }
    nscd_status rc = nscd__least_squares_reserve(ls, n);
    if (rc != NSCD_OK) {
        return rc;
    }
    if (n <= NSCD__DENSE_SMALL) {
        nscd_status own = nscd__small_lstsq_cm(n, A, b, rcond, rank, ls->work);
        return own == NSCD_ERR_NOT_FINITE ? NSCD_ERR_SINGULAR : own;
    }
    lapack_int r = 0;
    lapack_int info = LAPACKE_dgelsd_work(LAPACK_COL_MAJOR, n, n, 1, A, n, b, n, ls->singular,
                                          rcond, &r, ls->work, ls->lwork, (lapack_int *)ls->iwork);
    *rank = (int32_t)r;
    return info == 0 ? NSCD_OK : NSCD_ERR_SINGULAR;
}
