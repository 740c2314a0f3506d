/* fc3d with a dense Delassus matrix: compressed to its non-zero 3x3 blocks
 * (ascending columns, diagonal always kept) and handed to the shared core. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "contact/solvers/fc3d_internal.h"
#include "core/check.h"
#include "core/memory.h"
#include "core/struct_sizes.h"

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

typedef struct dense_view {
    int32_t n;
    const double *W;
} dense_view;

static void dense_diag(const void *matrix, int32_t j, double A[9]) {
    const dense_view *m = matrix;
    copy_block(m->W, 3 * (size_t)m->n, j, j, A);
}

/* Checks W: its diagonal blocks classified (kind[j], or NULL) or, when
 * `strict`, each symmetric positive definite (nscd__fc3d_check_diag_block:
 * the cut-cone block solver of the impact solver needs that), then every
 * entry finite; counts the stored blocks. */
static nscd_status check_dense(int32_t n, const double *W, int strict, int8_t *kind,
                               nscd_fc3d_block_report *report, size_t *nnz) {
    size_t ld = 3 * (size_t)n;
    dense_view view = {n, W};
    nscd_status st = NSCD_OK;
    if (strict) {
        for (int32_t j = 0; st == NSCD_OK && j < n; ++j) {
            double A[9];
            copy_block(W, ld, j, j, A);
            st = nscd__all_finite(A, 9) ? nscd__fc3d_check_diag_block(A) : NSCD_ERR_NOT_FINITE;
        }
    } else {
        st = nscd__fc3d_classify_rows(n, dense_diag, &view, kind, report);
    }
    if (st == NSCD_OK && !nscd__all_finite(W, ld * ld)) {
        st = NSCD_ERR_NOT_FINITE;
        if (report != NULL) {
            snprintf(report->message, sizeof report->message,
                     "an off-diagonal block holds a NaN or infinite entry");
        }
    }
    if (st != NSCD_OK || nnz == NULL) {
        return st;
    }
    *nnz = 0;
    for (int32_t j = 0; j < n; ++j) {
        for (int32_t k = 0; k < n; ++k) {
            *nnz += (k == j || !block_is_zero(W, ld, j, k)) ? 1u : 0u;
        }
    }
    return NSCD_OK;
}

/* The non-zero blocks of W (ascending columns, the diagonal always kept). */
static nscd__fc3d_matrix compress(int32_t n, const double *W, int32_t *row_ptr, int32_t *col_idx,
                                  int32_t *diag, double *blocks, const int8_t *kind) {
    size_t ld = 3 * (size_t)n;
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
    nscd__fc3d_matrix M = {n, row_ptr, col_idx, blocks, diag, kind};
    return M;
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
    size_t nnz = 0;
    if (!nscd__all_finite(W, 9 * (size_t)n * (size_t)n)) {
        return NSCD_ERR_NOT_FINITE; /* before any allocation, as documented */
    }
    nscd_allocator al = nscd__allocator_resolve(&o.allocator);
    int8_t *kind = nscd__alloc_array(&al, (size_t)n, sizeof *kind);
    if (kind == NULL) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    if ((st = check_dense(n, W, 0, kind, NULL, &nnz)) != NSCD_OK) {
        nscd__free(&al, kind, (size_t)n * sizeof *kind);
        return st;
    }
    int32_t *row_ptr = nscd__alloc_array(&al, (size_t)n + 1, sizeof *row_ptr);
    int32_t *col_idx = nscd__alloc_array(&al, nnz, sizeof *col_idx);
    int32_t *diag = nscd__alloc_array(&al, (size_t)n, sizeof *diag);
    double *blocks = nscd__alloc_array(&al, 9 * nnz, sizeof *blocks);
    st = NSCD_ERR_OUT_OF_MEMORY;
    if (row_ptr != NULL && col_idx != NULL && diag != NULL && blocks != NULL) {
        nscd__fc3d_matrix M = compress(n, W, row_ptr, col_idx, diag, blocks, kind);
        st = nscd__fc3d_run(&M, q, mu, &o, r, u, info);
    }
    nscd__free(&al, kind, (size_t)n * sizeof *kind);
    nscd__free(&al, blocks, 9 * nnz * sizeof *blocks);
    nscd__free(&al, diag, (size_t)n * sizeof *diag);
    nscd__free(&al, col_idx, nnz * sizeof *col_idx);
    nscd__free(&al, row_ptr, ((size_t)n + 1) * sizeof *row_ptr);
    return st;
}

nscd_status nscd__fc3d_work_create(const nscd_allocator *allocator, int32_t capacity,
                                   nscd__fc3d_work *work) {
    size_t c = (size_t)(capacity > 0 ? capacity : 1);
    memset(work, 0, sizeof *work);
    work->capacity = capacity > 0 ? capacity : 0;
    work->row_ptr = nscd__alloc_array(allocator, c + 1, sizeof(int32_t));
    work->col_idx = nscd__alloc_array(allocator, c * c, sizeof(int32_t));
    work->diag = nscd__alloc_array(allocator, c, sizeof(int32_t));
    work->blocks = nscd__alloc_array(allocator, 9 * c * c, sizeof(double));
    work->vectors = nscd__alloc_array(allocator, NSCD__FC3D_RUN_WORK(c), sizeof(double));
    work->kind = nscd__alloc_array(allocator, c, sizeof(int8_t));
    if (work->row_ptr == NULL || work->col_idx == NULL || work->diag == NULL ||
        work->blocks == NULL || work->vectors == NULL || work->kind == NULL) {
        nscd__fc3d_work_destroy(allocator, work);
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    return NSCD_OK;
}

void nscd__fc3d_work_destroy(const nscd_allocator *allocator, nscd__fc3d_work *work) {
    size_t c = (size_t)(work->capacity > 0 ? work->capacity : 1);
    nscd__free(allocator, work->row_ptr, (c + 1) * sizeof(int32_t));
    nscd__free(allocator, work->col_idx, c * c * sizeof(int32_t));
    nscd__free(allocator, work->diag, c * sizeof(int32_t));
    nscd__free(allocator, work->blocks, 9 * c * c * sizeof(double));
    nscd__free(allocator, work->vectors, NSCD__FC3D_RUN_WORK(c) * sizeof(double));
    nscd__free(allocator, work->kind, c * sizeof(int8_t));
    memset(work, 0, sizeof *work);
}

nscd_status nscd__fc3d_solve_dense_work(nscd__fc3d_work *work, int32_t n_contacts, const double *W,
                                        const double *q, const double *mu, const double *shift,
                                        const nscd_fc3d_options *opts, double *r, double *u,
                                        nscd_fc3d_info *info) {
    if (W == NULL || work == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd_fc3d_options o;
    nscd_status st = nscd__fc3d_check_args(n_contacts, work->capacity, q, mu, opts, r, u, info, &o);
    if (st != NSCD_OK) {
        return st;
    }
    int32_t n = n_contacts;
    if (shift != NULL) {
        if (o.friction_law != NSCD_FC3D_COULOMB) {
            return NSCD_ERR_INVALID_ARGUMENT;
        }
        if (!nscd__all_finite(shift, (size_t)n)) {
            return NSCD_ERR_NOT_FINITE;
        }
        for (int32_t j = 0; j < n; ++j) {
            if (shift[j] < 0.0) {
                return NSCD_ERR_OUT_OF_RANGE;
            }
        }
    }
    size_t nnz = 0;
    int strict = shift != NULL; /* the cut-cone block solver needs symmetric blocks */
    if ((st = check_dense(n, W, strict, work->kind, NULL, &nnz)) != NSCD_OK) {
        return st;
    }
    nscd__fc3d_matrix M = compress(n, W, work->row_ptr, work->col_idx, work->diag, work->blocks,
                                   strict ? NULL : work->kind);
    return nscd__fc3d_run_work(&M, q, mu, shift, &o, r, u, info, work->vectors);
}

nscd_status nscd_fc3d_check_dense(int32_t n_contacts, const double *W,
                                  nscd_fc3d_block_report *report) {
    if (W == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    if (n_contacts <= 0 || n_contacts > DENSE_MAX_CONTACTS) {
        return NSCD_ERR_INVALID_ARGUMENT;
    }
    if (report != NULL && !nscd__struct_size_ok(report->struct_size,
                                                NSCD__FC3D_BLOCK_REPORT_SIZE_0_2, sizeof *report)) {
        return NSCD_ERR_STRUCT_SIZE;
    }
    nscd_fc3d_block_report full;
    nscd_status st = check_dense(n_contacts, W, 0, NULL, &full, NULL);
    if (report != NULL && (st == NSCD_OK || st == NSCD_ERR_NOT_FINITE || st == NSCD_ERR_NOT_SPD)) {
        full.struct_size = report->struct_size;
        nscd__struct_write(report, &full, sizeof full, NSCD__FC3D_BLOCK_REPORT_SIZE_0_2);
    }
    return st;
}
