/* fc3d with a Delassus matrix in 3x3 block-CSR form: structure checks, then
 * the shared core. */
#include <stdio.h>
#include <string.h>

#include "contact/solvers/fc3d_internal.h"
#include "core/check.h"
#include "core/memory.h"
#include "core/struct_sizes.h"

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

typedef struct bsr_view {
    const int32_t *diag;
    const double *blocks;
} bsr_view;

static void bsr_diag(const void *matrix, int32_t j, double A[9]) {
    const bsr_view *m = matrix;
    memcpy(A, m->blocks + 9 * (size_t)m->diag[j], 9 * sizeof *A);
}

/* The structure, finiteness and diagonal-block checks of a block-CSR matrix
 * shared by the solver and nscd_fc3d_check_bsr: fills diag and kind (n each). */
static nscd_status check_matrix(int32_t n, const int32_t *row_ptr, const int32_t *col_idx,
                                const double *blocks, int32_t *diag, int8_t *kind,
                                nscd_fc3d_block_report *report) {
    nscd_status st = find_diagonal(n, row_ptr, col_idx, diag);
    if (st == NSCD_OK && row_ptr[n] > INT32_MAX / 9) {
        st = NSCD_ERR_INVALID_ARGUMENT;
    }
    if (st != NSCD_OK) {
        return st;
    }
    /* the diagonal blocks first, so that a report names a non-finite diagonal block */
    bsr_view view = {diag, blocks};
    st = nscd__fc3d_classify_rows(n, bsr_diag, &view, kind, report);
    if (st == NSCD_OK && !nscd__all_finite(blocks, 9 * (size_t)row_ptr[n])) {
        st = NSCD_ERR_NOT_FINITE;
        if (report != NULL) {
            snprintf(report->message, sizeof report->message,
                     "an off-diagonal block holds a NaN or infinite entry");
        }
    }
    return st;
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
    int8_t *kind = nscd__alloc_array(&al, (size_t)n, sizeof *kind);
    st = NSCD_ERR_OUT_OF_MEMORY;
    if (diag != NULL && kind != NULL) {
        st = check_matrix(n, row_ptr, col_idx, blocks, diag, kind, NULL);
    }
    if (st == NSCD_OK) {
        nscd__fc3d_matrix M = {n, row_ptr, col_idx, blocks, diag, kind};
        st = nscd__fc3d_run(&M, q, mu, &o, r, u, info);
    }
    nscd__free(&al, kind, (size_t)n * sizeof *kind);
    nscd__free(&al, diag, (size_t)n * sizeof *diag);
    return st;
}

nscd_status nscd_fc3d_check_bsr(int32_t n_contacts, const int32_t *row_ptr, const int32_t *col_idx,
                                const double *blocks, nscd_fc3d_block_report *report) {
    if (row_ptr == NULL || col_idx == NULL || blocks == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    if (n_contacts <= 0 || n_contacts > NSCD__FC3D_MAX_CONTACTS) {
        return NSCD_ERR_INVALID_ARGUMENT;
    }
    if (report != NULL && !nscd__struct_size_ok(report->struct_size,
                                                NSCD__FC3D_BLOCK_REPORT_SIZE_0_2, sizeof *report)) {
        return NSCD_ERR_STRUCT_SIZE;
    }
    int32_t n = n_contacts;
    nscd_allocator al = nscd__allocator_resolve(NULL);
    int32_t *diag = nscd__alloc_array(&al, (size_t)n, sizeof *diag);
    nscd_fc3d_block_report full;
    nscd_status st = NSCD_ERR_OUT_OF_MEMORY;
    if (diag != NULL) {
        st = check_matrix(n, row_ptr, col_idx, blocks, diag, NULL, &full);
    }
    nscd__free(&al, diag, (size_t)n * sizeof *diag);
    if (report != NULL && (st == NSCD_OK || st == NSCD_ERR_NOT_FINITE || st == NSCD_ERR_NOT_SPD)) {
        full.struct_size = report->struct_size;
        nscd__struct_write(report, &full, sizeof full, NSCD__FC3D_BLOCK_REPORT_SIZE_0_2);
    }
    return st;
}
