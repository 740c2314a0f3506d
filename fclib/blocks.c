/* Conversions between FCLIB's scalar sparse matrices and nscd's 3x3 block CSR:
 * scalar entries (from CSC, CSR or triplet files) -> canonical block CSR, and
 * block CSR -> scalar CSC (what is written, and what fclib_merit_local takes). */
#include <stdlib.h>
#include <string.h>

#include "fclib_internal.h"

static int ascending(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Scratch of the conversion: entries grouped by block row (a stable counting
 * sort), a column marker per block column and a list of one row's columns. */
typedef struct scratch {
    size_t *start; /* n + 1: entries of block row j at by_row[start[j] .. start[j+1]) */
    size_t *by_row;
    int32_t *marker; /* n: block index in the current row, or -1 */
    int32_t *cols;   /* n: the current row's block columns */
    size_t bytes[4];
} scratch;

static void scratch_free(const nscd_allocator *a, scratch *s) {
    nscd__fclib_free(a, s->start, s->bytes[0]);
    nscd__fclib_free(a, s->by_row, s->bytes[1]);
    nscd__fclib_free(a, s->marker, s->bytes[2]);
    nscd__fclib_free(a, s->cols, s->bytes[3]);
}

static nscd_status scratch_alloc(const nscd_allocator *a, int32_t n, size_t count, scratch *s) {
    memset(s, 0, sizeof *s);
    s->bytes[0] = ((size_t)n + 1) * sizeof(size_t);
    s->bytes[1] = count * sizeof(size_t);
    s->bytes[2] = (size_t)n * sizeof(int32_t);
    s->bytes[3] = (size_t)n * sizeof(int32_t);
    s->start = nscd__fclib_alloc(a, s->bytes[0]);
    s->by_row = nscd__fclib_alloc(a, s->bytes[1]);
    s->marker = nscd__fclib_alloc(a, s->bytes[2]);
    s->cols = nscd__fclib_alloc(a, s->bytes[3]);
    if (!s->start || !s->by_row || !s->marker || !s->cols) {
        scratch_free(a, s);
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    return NSCD_OK;
}

/* Groups the entries by block row, keeping their order inside a row. */
static void group_by_block_row(int32_t n, const nscd__fclib_entries *e, scratch *s) {
    memset(s->start, 0, s->bytes[0]);
    for (size_t k = 0; k < e->count; ++k) {
        ++s->start[e->rows[k] / 3 + 1];
    }
    for (int32_t j = 0; j < n; ++j) {
        s->start[j + 1] += s->start[j];
    }
    for (size_t k = 0; k < e->count; ++k) {
        s->by_row[s->start[e->rows[k] / 3]++] = k;
    }
    for (int32_t j = n; j > 0; --j) {
        s->start[j] = s->start[j - 1];
    }
    s->start[0] = 0;
}

/* The distinct block columns of block row j into s->cols, ascending; returns their count. */
static int32_t row_columns(int32_t j, const nscd__fclib_entries *e, scratch *s) {
    int32_t count = 0;
    for (size_t t = s->start[j]; t < s->start[j + 1]; ++t) {
        int32_t k = e->cols[s->by_row[t]] / 3;
        if (s->marker[k] < 0) {
            s->marker[k] = 0;
            s->cols[count++] = k;
        }
    }
    qsort(s->cols, (size_t)count, sizeof *s->cols, ascending);
    for (int32_t c = 0; c < count; ++c) {
        s->marker[s->cols[c]] = -1;
    }
    return count;
}

/* Counts the blocks of every row (into out->row_ptr as offsets); fails beyond INT32_MAX. */
static nscd_status count_blocks(int32_t n, const nscd__fclib_entries *e, scratch *s,
                                int64_t *n_blocks) {
    int64_t total = 0;
    for (int32_t j = 0; j < n; ++j) {
        total += row_columns(j, e, s);
        if (total > INT32_MAX / 9) {
            return NSCD_ERR_INVALID_ARGUMENT;
        }
    }
    *n_blocks = total;
    return NSCD_OK;
}

/* Writes row j's columns and adds its entries into the blocks. */
static void fill_row(int32_t j, const nscd__fclib_entries *e, scratch *s, nscd__fclib_arrays *x,
                     unsigned char *touched) {
    int32_t first = x->row_ptr[j];
    int32_t count = row_columns(j, e, s);
    for (int32_t c = 0; c < count; ++c) {
        x->col_idx[first + c] = s->cols[c];
        s->marker[s->cols[c]] = first + c;
    }
    for (size_t t = s->start[j]; t < s->start[j + 1]; ++t) {
        size_t k = s->by_row[t];
        int32_t b = s->marker[e->cols[k] / 3];
        size_t slot = 9 * (size_t)b + 3 * (size_t)(e->rows[k] % 3) + (size_t)(e->cols[k] % 3);
        if (touched[slot]) {
            x->blocks[slot] += e->vals[k];
        } else {
            x->blocks[slot] = e->vals[k], touched[slot] = 1;
        }
    }
    for (int32_t c = 0; c < count; ++c) {
        s->marker[s->cols[c]] = -1;
    }
    x->row_ptr[j + 1] = first + count;
}

nscd_status nscd__fclib_bsr_from_entries(const nscd_allocator *a, int32_t n,
                                         const nscd__fclib_entries *e, nscd__fclib_arrays *out) {
    int64_t dim = 3 * (int64_t)n;
    for (size_t k = 0; k < e->count; ++k) {
        if (e->rows[k] < 0 || e->rows[k] >= dim || e->cols[k] < 0 || e->cols[k] >= dim) {
            return NSCD_ERR_INDEX;
        }
    }
    scratch s;
    if (scratch_alloc(a, n, e->count, &s) != NSCD_OK) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    for (int32_t k = 0; k < n; ++k) {
        s.marker[k] = -1;
    }
    group_by_block_row(n, e, &s);
    int64_t n_blocks = 0;
    nscd_status st = count_blocks(n, e, &s, &n_blocks);
    unsigned char *touched = NULL;
    size_t touched_bytes = 9 * (size_t)n_blocks;
    if (st == NSCD_OK) {
        st = nscd__fclib_arrays_alloc(a, n, (int32_t)n_blocks, false, out);
    }
    if (st == NSCD_OK) {
        touched = nscd__fclib_alloc(a, touched_bytes);
        if (touched == NULL) {
            nscd__fclib_arrays_free(a, out);
            st = NSCD_ERR_OUT_OF_MEMORY;
        }
    }
    if (st == NSCD_OK) {
        memset(touched, 0, touched_bytes);
        out->row_ptr[0] = 0;
        for (int32_t j = 0; j < n; ++j) {
            fill_row(j, e, &s, out, touched);
        }
    }
    nscd__fclib_free(a, touched, touched_bytes);
    scratch_free(a, &s);
    return st;
}

void nscd__fclib_csc_free(const nscd_allocator *a, nscd__fclib_csc *csc) {
    nscd__fclib_free(a, csc->colptr, ((size_t)csc->m + 1) * sizeof(int));
    nscd__fclib_free(a, csc->rowind, (size_t)csc->nnz * sizeof(int));
    nscd__fclib_free(a, csc->vals, (size_t)csc->nnz * sizeof(double));
    memset(csc, 0, sizeof *csc);
}

nscd_status nscd__fclib_to_csc(const nscd_allocator *a, const nscd__fclib_arrays *x,
                               nscd__fclib_csc *out) {
    if (x->n_blocks > INT32_MAX / 9) {
        return NSCD_ERR_INVALID_ARGUMENT;
    }
    nscd__fclib_csc c = {.m = 3 * x->n, .nnz = 9 * x->n_blocks};
    c.colptr = nscd__fclib_alloc(a, ((size_t)c.m + 1) * sizeof(int));
    c.rowind = nscd__fclib_alloc(a, (size_t)c.nnz * sizeof(int));
    c.vals = nscd__fclib_alloc(a, (size_t)c.nnz * sizeof(double));
    if (!c.colptr || !c.rowind || !c.vals) {
        nscd__fclib_csc_free(a, &c);
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    /* Every stored block gives 3 entries to each of its 3 scalar columns. */
    memset(c.colptr, 0, ((size_t)c.m + 1) * sizeof(int));
    for (int32_t b = 0; b < x->n_blocks; ++b) {
        for (int i = 0; i < 3; ++i) {
            c.colptr[3 * x->col_idx[b] + i + 1] += 3;
        }
    }
    for (int col = 0; col < c.m; ++col) {
        c.colptr[col + 1] += c.colptr[col];
    }
    /* Block rows in ascending order, so each column's rows come out ascending;
     * next[col] is where column col's next entry goes. */
    int *next = nscd__fclib_alloc(a, (size_t)c.m * sizeof(int) + 1);
    if (next == NULL) {
        nscd__fclib_csc_free(a, &c);
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    memcpy(next, c.colptr, (size_t)c.m * sizeof(int));
    for (int32_t j = 0; j < x->n; ++j) {
        for (int i = 0; i < 3; ++i) {
            for (int32_t b = x->row_ptr[j]; b < x->row_ptr[j + 1]; ++b) {
                for (int l = 0; l < 3; ++l) {
                    int col = 3 * x->col_idx[b] + l;
                    c.rowind[next[col]] = 3 * j + i;
                    c.vals[next[col]++] = x->blocks[9 * (size_t)b + 3 * (size_t)i + (size_t)l];
                }
            }
        }
    }
    nscd__fclib_free(a, next, (size_t)c.m * sizeof(int) + 1);
    *out = c;
    return NSCD_OK;
}
