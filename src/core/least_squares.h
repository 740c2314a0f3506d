/* Minimum-norm least squares for small square systems whose rows may be
 * dependent: the forces of redundant persistent contacts (a block resting
 * flat on two sticking corners, a box on four) are not unique, but the
 * accelerations they produce are; the minimum-norm forces are one well-defined
 * choice among them. The library's own one-sided Jacobi SVD for n <=
 * NSCD__DENSE_SMALL (the same bits on every CPU), LAPACK's dgelsd (SVD,
 * divide and conquer) above, with its
 * work arrays from the model's allocator, grown (never shrunk) to the
 * largest system solved so far: sized by the active contacts, not by all. */
#ifndef NSCD_CORE_LEAST_SQUARES_H
#define NSCD_CORE_LEAST_SQUARES_H

#include <stdint.h>

#include "nscd/host.h"
#include "nscd/status.h"

typedef struct nscd__least_squares {
    const nscd_allocator *allocator;
    int32_t capacity; /* largest system size so far */
    int32_t lwork, liwork;
    double *singular; /* capacity */
    double *work;     /* lwork */
    int32_t *iwork;   /* liwork */
} nscd__least_squares;

nscd_status nscd__least_squares_create(const nscd_allocator *a, int32_t capacity,
                                       nscd__least_squares *ls);
void nscd__least_squares_destroy(nscd__least_squares *ls);
/* Makes room for systems of size n (NSCD_ERR_OUT_OF_MEMORY: unchanged). */
nscd_status nscd__least_squares_reserve(nscd__least_squares *ls, int32_t n);

/* Solves A x = b in the least-squares sense with the smallest |x|; A is
 * n x n COLUMN-major and is destroyed, b (n) is replaced by x. Singular values
 * below rcond * (largest) count as zero; *rank receives the numerical rank.
 * Grows the work arrays first when n exceeds the capacity. */
nscd_status nscd__least_squares_solve(nscd__least_squares *ls, int32_t n, double *A, double *b,
                                      double rcond, int32_t *rank);

#endif
