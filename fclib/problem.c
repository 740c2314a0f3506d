/* The nscd_fclib_problem handle: its memory, its arrays and the setters and
 * getters between the user's arrays and the canonical block CSR it holds. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fclib_internal.h"

bool nscd__fclib_allocator(const nscd_allocator *in, nscd_allocator *out) {
    nscd_allocator none = {0};
    if (in != NULL && (in->allocate == NULL) != (in->release == NULL)) {
        return false;
    }
    *out = in != NULL ? *in : none;
    return true;
}

void *nscd__fclib_alloc(const nscd_allocator *a, size_t size) {
    if (size == 0) {
        size = 1; /* a valid, distinct pointer for empty arrays */
    }
    return a->allocate ? a->allocate(a->user, size) : malloc(size);
}

void nscd__fclib_free(const nscd_allocator *a, void *block, size_t size) {
    if (block == NULL) {
        return;
    }
    if (a->release) {
        a->release(a->user, block, size == 0 ? 1 : size);
    } else {
        free(block);
    }
}

void nscd__fclib_arrays_free(const nscd_allocator *a, nscd__fclib_arrays *x) {
    size_t n = (size_t)x->n, nb = (size_t)x->n_blocks;
    nscd__fclib_free(a, x->row_ptr, (n + 1) * sizeof(int32_t));
    nscd__fclib_free(a, x->col_idx, nb * sizeof(int32_t));
    nscd__fclib_free(a, x->blocks, 9 * nb * sizeof(double));
    nscd__fclib_free(a, x->q, 3 * n * sizeof(double));
    nscd__fclib_free(a, x->mu, n * sizeof(double));
    nscd__fclib_free(a, x->r, 3 * n * sizeof(double));
    nscd__fclib_free(a, x->u, 3 * n * sizeof(double));
    memset(x, 0, sizeof *x);
}

static void *zeroed(const nscd_allocator *a, size_t size) {
    void *block = nscd__fclib_alloc(a, size);
    if (block != NULL) {
        memset(block, 0, size);
    }
    return block;
}

nscd_status nscd__fclib_add_solution(const nscd_allocator *a, nscd__fclib_arrays *x) {
    size_t bytes = 3 * (size_t)x->n * sizeof(double);
    double *r = zeroed(a, bytes), *u = zeroed(a, bytes);
    if (r == NULL || u == NULL) {
        nscd__fclib_free(a, r, bytes);
        nscd__fclib_free(a, u, bytes);
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    x->r = r, x->u = u;
    return NSCD_OK;
}

nscd_status nscd__fclib_arrays_alloc(const nscd_allocator *a, int32_t n, int32_t n_blocks,
                                     bool with_solution, nscd__fclib_arrays *out) {
    nscd__fclib_arrays x = {.n = n, .n_blocks = n_blocks};
    size_t un = (size_t)n, nb = (size_t)n_blocks;
    x.row_ptr = zeroed(a, (un + 1) * sizeof(int32_t));
    x.col_idx = zeroed(a, nb * sizeof(int32_t));
    x.blocks = zeroed(a, 9 * nb * sizeof(double));
    x.q = zeroed(a, 3 * un * sizeof(double));
    x.mu = zeroed(a, un * sizeof(double));
    bool ok = x.row_ptr && x.col_idx && x.blocks && x.q && x.mu;
    if (ok && with_solution) {
        ok = nscd__fclib_add_solution(a, &x) == NSCD_OK;
    }
    if (!ok) {
        nscd__fclib_arrays_free(a, &x);
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    *out = x;
    return NSCD_OK;
}

nscd_status nscd__fclib_fail(nscd_fclib_problem *p, nscd_status status, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    vsnprintf(p->message, sizeof p->message, fmt, args);
    va_end(args);
    return status;
}

bool nscd__fclib_all_finite(const double *x, size_t count) {
    for (size_t i = 0; i < count; ++i) {
        if (!isfinite(x[i])) {
            return false;
        }
    }
    return true;
}

/* ------------------------------------------------------------------ handle */

nscd_status nscd_fclib_problem_create(const nscd_allocator *allocator,
                                      nscd_fclib_problem **problem) {
    if (problem == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd_allocator a;
    if (!nscd__fclib_allocator(allocator, &a)) {
        return NSCD_ERR_INVALID_ARGUMENT;
    }
    nscd_fclib_problem *p = nscd__fclib_alloc(&a, sizeof *p);
    if (p == NULL) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    memset(p, 0, sizeof *p);
    p->allocator = a;
    *problem = p;
    return NSCD_OK;
}

void nscd_fclib_problem_destroy(nscd_fclib_problem *problem) {
    if (problem == NULL) {
        return;
    }
    nscd_allocator a = problem->allocator;
    nscd__fclib_arrays_free(&a, &problem->data);
    nscd__fclib_free(&a, problem, sizeof *problem);
}

const char *nscd_fclib_problem_last_error(const nscd_fclib_problem *problem) {
    return problem == NULL ? "" : problem->message;
}

/* Replaces the handle's arrays with x (which it takes over). */
static void replace_arrays(nscd_fclib_problem *p, nscd__fclib_arrays *x) {
    nscd__fclib_arrays_free(&p->allocator, &p->data);
    p->data = *x;
    memset(x, 0, sizeof *x);
}

/* q finite, mu finite and >= 0. */
static nscd_status check_vectors(nscd_fclib_problem *p, int32_t n, const double *q,
                                 const double *mu) {
    if (!nscd__fclib_all_finite(q, 3 * (size_t)n) || !nscd__fclib_all_finite(mu, (size_t)n)) {
        return nscd__fclib_fail(p, NSCD_ERR_NOT_FINITE, "q or mu holds NaN or infinity");
    }
    for (int32_t j = 0; j < n; ++j) {
        if (mu[j] < 0.0) {
            return nscd__fclib_fail(p, NSCD_ERR_OUT_OF_RANGE, "mu[%d] = %g < 0", (int)j, mu[j]);
        }
    }
    return NSCD_OK;
}

/* A block is kept unless each of its 9 entries is exactly +0.0 (all bits zero). */
static bool block_is_plus_zero(const double *W, size_t ld, int32_t j, int32_t k) {
    static const double plus_zero = 0.0;
    for (int i = 0; i < 3; ++i) {
        const double *row = W + (3 * (size_t)j + (size_t)i) * ld + 3 * (size_t)k;
        if (memcmp(row, (const double[3]){plus_zero, plus_zero, plus_zero}, sizeof(double[3]))) {
            return false;
        }
    }
    return true;
}

static bool keep_block(const double *W, size_t ld, int32_t j, int32_t k) {
    return j == k || !block_is_plus_zero(W, ld, j, k);
}

nscd_status nscd_fclib_problem_set_dense(nscd_fclib_problem *problem, int32_t n_contacts,
                                         const double *W, const double *q, const double *mu) {
    if (problem == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    problem->message[0] = '\0';
    if (W == NULL || q == NULL || mu == NULL) {
        return nscd__fclib_fail(problem, NSCD_ERR_NULL_POINTER, "W, q or mu is NULL");
    }
    if (n_contacts < 1 || n_contacts > NSCD__FCLIB_MAX_DENSE_CONTACTS) {
        return nscd__fclib_fail(problem, NSCD_ERR_INVALID_ARGUMENT,
                                "n_contacts = %d outside [1, %d]", (int)n_contacts,
                                NSCD__FCLIB_MAX_DENSE_CONTACTS);
    }
    size_t ld = 3 * (size_t)n_contacts;
    if (!nscd__fclib_all_finite(W, ld * ld)) {
        return nscd__fclib_fail(problem, NSCD_ERR_NOT_FINITE, "W holds NaN or infinity");
    }
    nscd_status st = check_vectors(problem, n_contacts, q, mu);
    if (st != NSCD_OK) {
        return st;
    }
    int32_t n_blocks = 0;
    for (int32_t j = 0; j < n_contacts; ++j) {
        for (int32_t k = 0; k < n_contacts; ++k) {
            n_blocks += keep_block(W, ld, j, k) ? 1 : 0;
        }
    }
    nscd__fclib_arrays x;
    if (nscd__fclib_arrays_alloc(&problem->allocator, n_contacts, n_blocks, false, &x)) {
        return nscd__fclib_fail(problem, NSCD_ERR_OUT_OF_MEMORY, "out of memory");
    }
    int32_t b = 0;
    for (int32_t j = 0; j < n_contacts; ++j) {
        x.row_ptr[j] = b;
        for (int32_t k = 0; k < n_contacts; ++k) {
            if (!keep_block(W, ld, j, k)) {
                continue;
            }
            x.col_idx[b] = k;
            for (int i = 0; i < 3; ++i) {
                memcpy(x.blocks + 9 * (size_t)b + 3 * (size_t)i,
                       W + (3 * (size_t)j + (size_t)i) * ld + 3 * (size_t)k, sizeof(double[3]));
            }
            ++b;
        }
    }
    x.row_ptr[n_contacts] = b;
    memcpy(x.q, q, ld * sizeof(double));
    memcpy(x.mu, mu, (size_t)n_contacts * sizeof(double));
    replace_arrays(problem, &x);
    return NSCD_OK;
}

/* row_ptr well formed and columns in range (uniqueness: see sort_rows). */
static nscd_status check_bsr(nscd_fclib_problem *p, int32_t n, const int32_t *row_ptr,
                             const int32_t *col_idx) {
    if (row_ptr[0] != 0) {
        return nscd__fclib_fail(p, NSCD_ERR_INVALID_ARGUMENT, "row_ptr[0] = %d, not 0",
                                (int)row_ptr[0]);
    }
    for (int32_t j = 0; j < n; ++j) {
        if (row_ptr[j + 1] < row_ptr[j] || row_ptr[j + 1] - row_ptr[j] > n) {
            return nscd__fclib_fail(p, NSCD_ERR_INVALID_ARGUMENT, "row_ptr[%d] = %d is invalid",
                                    (int)(j + 1), (int)row_ptr[j + 1]);
        }
        for (int32_t b = row_ptr[j]; b < row_ptr[j + 1]; ++b) {
            if (col_idx[b] < 0 || col_idx[b] >= n) {
                return nscd__fclib_fail(p, NSCD_ERR_INDEX, "col_idx[%d] = %d outside [0, %d)",
                                        (int)b, (int)col_idx[b], (int)n);
            }
        }
    }
    return NSCD_OK;
}

/* A stored block: its column and where it came from. */
typedef struct column_source {
    int32_t col;
    int32_t src;
} column_source;

static int by_column(const void *a, const void *b) {
    const column_source *x = a, *y = b;
    return (x->col > y->col) - (x->col < y->col);
}

/* order[b] = the input block that goes to place b: each row sorted by column
 * (columns are unique, so the order is total and deterministic). */
static nscd_status sort_rows(nscd_fclib_problem *p, int32_t n, const int32_t *row_ptr,
                             const int32_t *col_idx, column_source *order) {
    for (int32_t b = 0; b < row_ptr[n]; ++b) {
        order[b] = (column_source){col_idx[b], b};
    }
    for (int32_t j = 0; j < n; ++j) {
        int32_t lo = row_ptr[j], hi = row_ptr[j + 1];
        qsort(order + lo, (size_t)(hi - lo), sizeof *order, by_column);
        for (int32_t b = lo + 1; b < hi; ++b) {
            if (order[b].col == order[b - 1].col) {
                return nscd__fclib_fail(p, NSCD_ERR_INVALID_ARGUMENT,
                                        "block column %d twice in block row %d", (int)order[b].col,
                                        (int)j);
            }
        }
    }
    return NSCD_OK;
}

nscd_status nscd_fclib_problem_set_bsr(nscd_fclib_problem *problem, int32_t n_contacts,
                                       const int32_t *row_ptr, const int32_t *col_idx,
                                       const double *blocks, const double *q, const double *mu) {
    if (problem == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    problem->message[0] = '\0';
    if (row_ptr == NULL || col_idx == NULL || blocks == NULL || q == NULL || mu == NULL) {
        return nscd__fclib_fail(problem, NSCD_ERR_NULL_POINTER,
                                "row_ptr, col_idx, blocks, q or mu is NULL");
    }
    if (n_contacts < 1 || n_contacts > NSCD__FCLIB_MAX_CONTACTS) {
        return nscd__fclib_fail(problem, NSCD_ERR_INVALID_ARGUMENT,
                                "n_contacts = %d outside [1, %d]", (int)n_contacts,
                                NSCD__FCLIB_MAX_CONTACTS);
    }
    nscd_status st = check_bsr(problem, n_contacts, row_ptr, col_idx);
    if (st != NSCD_OK) {
        return st;
    }
    int32_t n_blocks = row_ptr[n_contacts];
    if (!nscd__fclib_all_finite(blocks, 9 * (size_t)n_blocks)) {
        return nscd__fclib_fail(problem, NSCD_ERR_NOT_FINITE, "blocks hold NaN or infinity");
    }
    st = check_vectors(problem, n_contacts, q, mu);
    if (st != NSCD_OK) {
        return st;
    }
    size_t order_bytes = (size_t)n_blocks * sizeof(column_source);
    column_source *order = nscd__fclib_alloc(&problem->allocator, order_bytes);
    if (order == NULL) {
        return nscd__fclib_fail(problem, NSCD_ERR_OUT_OF_MEMORY, "out of memory");
    }
    st = sort_rows(problem, n_contacts, row_ptr, col_idx, order);
    nscd__fclib_arrays x;
    if (st == NSCD_OK &&
        nscd__fclib_arrays_alloc(&problem->allocator, n_contacts, n_blocks, false, &x)) {
        st = nscd__fclib_fail(problem, NSCD_ERR_OUT_OF_MEMORY, "out of memory");
    }
    if (st != NSCD_OK) {
        nscd__fclib_free(&problem->allocator, order, order_bytes);
        return st;
    }
    memcpy(x.row_ptr, row_ptr, (size_t)n_contacts * sizeof(int32_t));
    for (int32_t b = 0; b < n_blocks; ++b) {
        x.col_idx[b] = order[b].col;
        memcpy(x.blocks + 9 * (size_t)b, blocks + 9 * (size_t)order[b].src, sizeof(double[9]));
    }
    nscd__fclib_free(&problem->allocator, order, order_bytes);
    x.row_ptr[n_contacts] = n_blocks;
    memcpy(x.q, q, 3 * (size_t)n_contacts * sizeof(double));
    memcpy(x.mu, mu, (size_t)n_contacts * sizeof(double));
    replace_arrays(problem, &x);
    return NSCD_OK;
}

nscd_status nscd_fclib_problem_set_solution(nscd_fclib_problem *problem, const double *r,
                                            const double *u) {
    if (problem == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    problem->message[0] = '\0';
    nscd__fclib_arrays *x = &problem->data;
    size_t bytes = 3 * (size_t)x->n * sizeof(double);
    if (r == NULL && u == NULL) {
        nscd__fclib_free(&problem->allocator, x->r, bytes);
        nscd__fclib_free(&problem->allocator, x->u, bytes);
        x->r = x->u = NULL;
        return NSCD_OK;
    }
    if (r == NULL || u == NULL) {
        return nscd__fclib_fail(problem, NSCD_ERR_NULL_POINTER, "r and u must both be given");
    }
    if (x->n == 0) {
        return nscd__fclib_fail(problem, NSCD_ERR_STATE, "the problem has no contacts");
    }
    if (!nscd__fclib_all_finite(r, 3 * (size_t)x->n) ||
        !nscd__fclib_all_finite(u, 3 * (size_t)x->n)) {
        return nscd__fclib_fail(problem, NSCD_ERR_NOT_FINITE, "r or u holds NaN or infinity");
    }
    if (x->r == NULL && nscd__fclib_add_solution(&problem->allocator, x) != NSCD_OK) {
        return nscd__fclib_fail(problem, NSCD_ERR_OUT_OF_MEMORY, "out of memory");
    }
    memcpy(x->r, r, bytes);
    memcpy(x->u, u, bytes);
    return NSCD_OK;
}

nscd_status nscd_fclib_problem_get_sizes(const nscd_fclib_problem *problem, int32_t *n_contacts,
                                         int32_t *n_blocks, int32_t *has_solution) {
    if (problem == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    if (n_contacts != NULL) {
        *n_contacts = problem->data.n;
    }
    if (n_blocks != NULL) {
        *n_blocks = problem->data.n_blocks;
    }
    if (has_solution != NULL) {
        *has_solution = problem->data.r != NULL ? 1 : 0;
    }
    return NSCD_OK;
}

static void copy_vectors(const nscd__fclib_arrays *x, double *q, double *mu) {
    if (q != NULL) {
        memcpy(q, x->q, 3 * (size_t)x->n * sizeof(double));
    }
    if (mu != NULL) {
        memcpy(mu, x->mu, (size_t)x->n * sizeof(double));
    }
}

nscd_status nscd_fclib_problem_get_dense(nscd_fclib_problem *problem, double *W, double *q,
                                         double *mu) {
    if (problem == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    problem->message[0] = '\0';
    const nscd__fclib_arrays *x = &problem->data;
    if (x->n == 0) {
        return nscd__fclib_fail(problem, NSCD_ERR_STATE, "the problem has no contacts");
    }
    if (x->n > NSCD__FCLIB_MAX_DENSE_CONTACTS) {
        return nscd__fclib_fail(problem, NSCD_ERR_INVALID_ARGUMENT,
                                "%d contacts: too many for a dense W (at most %d)", (int)x->n,
                                NSCD__FCLIB_MAX_DENSE_CONTACTS);
    }
    if (W != NULL) {
        size_t ld = 3 * (size_t)x->n;
        memset(W, 0, ld * ld * sizeof(double));
        for (int32_t j = 0; j < x->n; ++j) {
            for (int32_t b = x->row_ptr[j]; b < x->row_ptr[j + 1]; ++b) {
                for (int i = 0; i < 3; ++i) {
                    memcpy(W + (3 * (size_t)j + (size_t)i) * ld + 3 * (size_t)x->col_idx[b],
                           x->blocks + 9 * (size_t)b + 3 * (size_t)i, sizeof(double[3]));
                }
            }
        }
    }
    copy_vectors(x, q, mu);
    return NSCD_OK;
}

nscd_status nscd_fclib_problem_get_bsr(nscd_fclib_problem *problem, int32_t *row_ptr,
                                       int32_t *col_idx, double *blocks, double *q, double *mu) {
    if (problem == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    problem->message[0] = '\0';
    const nscd__fclib_arrays *x = &problem->data;
    if (x->n == 0) {
        return nscd__fclib_fail(problem, NSCD_ERR_STATE, "the problem has no contacts");
    }
    if (row_ptr != NULL) {
        memcpy(row_ptr, x->row_ptr, ((size_t)x->n + 1) * sizeof(int32_t));
    }
    if (col_idx != NULL) {
        memcpy(col_idx, x->col_idx, (size_t)x->n_blocks * sizeof(int32_t));
    }
    if (blocks != NULL) {
        memcpy(blocks, x->blocks, 9 * (size_t)x->n_blocks * sizeof(double));
    }
    copy_vectors(x, q, mu);
    return NSCD_OK;
}

nscd_status nscd_fclib_problem_get_solution(nscd_fclib_problem *problem, double *r, double *u) {
    if (problem == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    problem->message[0] = '\0';
    const nscd__fclib_arrays *x = &problem->data;
    if (x->r == NULL) {
        return nscd__fclib_fail(problem, NSCD_ERR_STATE, "the problem holds no solution");
    }
    if (r != NULL) {
        memcpy(r, x->r, 3 * (size_t)x->n * sizeof(double));
    }
    if (u != NULL) {
        memcpy(u, x->u, 3 * (size_t)x->n * sizeof(double));
    }
    return NSCD_OK;
}
