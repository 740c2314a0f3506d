/* fc3d with a Delassus matrix in 3x3 block-CSR form: structure checks, then
 * the shared core. */
#include "contact/fc3d_internal.h"
#include "core/check.h"
#include "core/memory.h"

/* Checks row_ptr / col_idx and finds each row's single diagonal block. */
static nscd_status find_diagonal(int32_t n, const int32_t *row_ptr, const int32_t *col_idx,
                                 int32_t *diag) {
    if (row_ptr[0] != 0) {
        return NSCD_ERR_INVALID_ARGUMENT;
    }
    for (int32_t j = 0; j < n; ++j) {
        if (row_ptr[j + 1] < row_ptr[j]) {
            return NSCD_ERR_INVALID_ARGUMENT;
        }
        diag[j] = -1;
        for (int32_t b = row_ptr[j]; b < row_ptr[j + 1]; ++b) {
            if (col_idx[b] < 0 || col_idx[b] >= n) {
                return NSCD_ERR_INDEX;
            }
            if (col_idx[b] == j) {
                if (diag[j] >= 0) {
                    return NSCD_ERR_INVALID_ARGUMENT; /* two diagonal blocks */
                }
                diag[j] = b;
            }
        }
        if (diag[j] < 0) {
            return NSCD_ERR_INVALID_ARGUMENT;
        }
    }
    return NSCD_OK;
}

nscd_status nscd_fc3d_solve_bsr(int32_t n_contacts, const int32_t *row_ptr, const int32_t *col_idx,
                                const double *blocks, const double *q, const double *mu,
                                const nscd_fc3d_options *opts, double *r, double *u,
                                nscd_fc3d_info *info) {
    if (row_ptr == NULL || col_idx == NULL || blocks == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd_fc3d_options o;
    nscd_status st =
        nscd__fc3d_check_args(n_contacts, NSCD__FC3D_MAX_CONTACTS, q, mu, opts, r, u, info, &o);
    if (st != NSCD_OK) {
        return st;
    }
    int32_t n = n_contacts;
    nscd_allocator al = nscd__allocator_resolve(&o.allocator);
    int32_t *diag = nscd__alloc_array(&al, (size_t)n, sizeof *diag);
    if (diag == NULL) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    st = find_diagonal(n, row_ptr, col_idx, diag);
    if (st == NSCD_OK && row_ptr[n] > INT32_MAX / 9) {
        st = NSCD_ERR_INVALID_ARGUMENT;
    }
    if (st == NSCD_OK && !nscd__all_finite(blocks, 9 * (size_t)row_ptr[n])) {
        st = NSCD_ERR_NOT_FINITE;
    }
    for (int32_t j = 0; st == NSCD_OK && j < n; ++j) {
        st = nscd__fc3d_check_diag_block(blocks + 9 * (size_t)diag[j]);
    }
    if (st == NSCD_OK) {
        nscd__fc3d_matrix M = {n, row_ptr, col_idx, blocks, diag};
        st = nscd__fc3d_run(&M, q, mu, &o, r, u, info);
    }
    nscd__free(&al, diag, (size_t)n * sizeof *diag);
    return st;
}
