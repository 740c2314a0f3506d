/* fc3d with a dense Delassus matrix: compressed to its non-zero 3x3 blocks
 * (ascending columns, diagonal always kept) and handed to the shared core. */
#include <stdbool.h>

#include "contact/fc3d_internal.h"
#include "core/check.h"
#include "core/memory.h"

/* Largest dense problem: W has (3n)^2 entries. */
#define DENSE_MAX_CONTACTS (1 << 14)

static bool block_is_zero(const double *W, size_t ld, int32_t j, int32_t k) {
    for (int i = 0; i < 3; ++i) {
        const double *row = W + (3 * (size_t)j + i) * ld + 3 * (size_t)k;
        if (row[0] != 0.0 || row[1] != 0.0 || row[2] != 0.0) {
            return false;
        }
    }
    return true;
}

static void copy_block(const double *W, size_t ld, int32_t j, int32_t k, double *B) {
    for (int i = 0; i < 3; ++i) {
        const double *row = W + (3 * (size_t)j + i) * ld + 3 * (size_t)k;
        B[3 * i] = row[0], B[3 * i + 1] = row[1], B[3 * i + 2] = row[2];
    }
}

nscd_status nscd_fc3d_solve_dense(int32_t n_contacts, const double *W, const double *q,
                                  const double *mu, const nscd_fc3d_options *opts, double *r,
                                  double *u, nscd_fc3d_info *info) {
    if (W == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd_fc3d_options o;
    nscd_status st =
        nscd__fc3d_check_args(n_contacts, DENSE_MAX_CONTACTS, q, mu, opts, r, u, info, &o);
    if (st != NSCD_OK) {
        return st;
    }
    int32_t n = n_contacts;
    size_t ld = 3 * (size_t)n;
    if (!nscd__all_finite(W, ld * ld)) {
        return NSCD_ERR_NOT_FINITE;
    }
    for (int32_t j = 0; j < n; ++j) {
        double A[9];
        copy_block(W, ld, j, j, A);
        if ((st = nscd__fc3d_check_diag_block(A)) != NSCD_OK) {
            return st;
        }
    }
    size_t nnz = 0;
    for (int32_t j = 0; j < n; ++j) {
        for (int32_t k = 0; k < n; ++k) {
            nnz += (k == j || !block_is_zero(W, ld, j, k)) ? 1u : 0u;
        }
    }
    nscd_allocator al = nscd__allocator_resolve(&o.allocator);
    int32_t *row_ptr = nscd__alloc_array(&al, (size_t)n + 1, sizeof *row_ptr);
    int32_t *col_idx = nscd__alloc_array(&al, nnz, sizeof *col_idx);
    int32_t *diag = nscd__alloc_array(&al, (size_t)n, sizeof *diag);
    double *blocks = nscd__alloc_array(&al, 9 * nnz, sizeof *blocks);
    st = NSCD_ERR_OUT_OF_MEMORY;
    if (row_ptr != NULL && col_idx != NULL && diag != NULL && blocks != NULL) {
        int32_t b = 0;
        for (int32_t j = 0; j < n; ++j) {
            row_ptr[j] = b;
            for (int32_t k = 0; k < n; ++k) {
                if (k == j || !block_is_zero(W, ld, j, k)) {
                    if (k == j) {
                        diag[j] = b;
                    }
                    col_idx[b] = k;
                    copy_block(W, ld, j, k, blocks + 9 * (size_t)b);
                    ++b;
                }
            }
        }
        row_ptr[n] = b;
        nscd__fc3d_matrix M = {n, row_ptr, col_idx, blocks, diag};
        st = nscd__fc3d_run(&M, q, mu, &o, r, u, info);
    }
    nscd__free(&al, blocks, 9 * nnz * sizeof *blocks);
    nscd__free(&al, diag, (size_t)n * sizeof *diag);
    nscd__free(&al, col_idx, nnz * sizeof *col_idx);
    nscd__free(&al, row_ptr, ((size_t)n + 1) * sizeof *row_ptr);
    return st;
}
