/* Problem assembly (see assembly.h). */
#include "contact/assembly/assembly.h"

#include <string.h>

#include "core/dense.h"

nscd_status nscd__gather_rows(nscd__model *model, nscd__arena *arena, double t, const double *q,
                              int32_t count, const int32_t *entries, nscd__rows **rows,
                              double *gaps) {
    size_t capacity = NSCD__MAX_ENTRY_ROWS * (size_t)model->row_width;
    nscd__rows *out = nscd__arena_array(arena, (size_t)count, sizeof *out);
    for (int32_t r = 0; out != NULL && r < count; ++r) {
        out[r].values = nscd__arena_array(arena, capacity, sizeof(double));
        if (out[r].values == NULL) {
            out = NULL;
            break;
        }
        double gap = 0.0;
        nscd_status rc = model->entry(model->self, entries[r], t, q, &gap, &out[r]);
        if (rc != NSCD_OK) {
            return rc;
        }
        if (gaps != NULL) {
            gaps[r] = gap;
        }
    }
    if (out == NULL && count > 0) {
        return nscd__fail(model->diag, NSCD_ERR_OUT_OF_MEMORY, "rows of %d contacts", (int)count);
    }
    *rows = out;
    return NSCD_OK;
}

int32_t nscd__closed_entries(const nscd__model *model, int32_t *list, int32_t count) {
    for (int32_t i = 0; i < model->n_contacts; ++i) {
        if (model->contacts[i].state.mode == NSCD_CONTACT_CLOSED) {
            list[count++] = i;
        }
    }
    return count;
}

/* Index of mass block `b` among the touched ones, creating it when new;
 * `slot` maps model blocks to touched indices (-1: not yet). */
static int32_t touch(nscd__response *r, int32_t *slot, int32_t b) {
    if (slot[b] < 0) {
        nscd__response_block *blk = &r->blocks[r->n_blocks];
        blk->block = b;
        blk->start = r->model->mass_block_start[b];
        blk->width = nscd__mass_block_width(r->model, b);
        blk->cols = r->n_extra;
        slot[b] = r->n_blocks++;
    }
    return slot[b];
}

/* Which blocks the rows touch, and each row's column in them. */
static nscd_status map_rows(nscd__response *r, int32_t *slot) {
    const nscd__model *m = r->model;
    for (int32_t i = 0; i < r->k; ++i) {
        const nscd__rows *row = &r->rows[i];
        for (int32_t j = 0; j < row->n_blocks; ++j) {
            int32_t b = nscd__mass_block_of(m, row->column[j]);
            if (row->column[j] + row->width[j] > m->mass_block_start[b + 1]) {
                return nscd__fail(m->diag, NSCD_ERR_INVALID_ARGUMENT,
                                  "a row block [%d, %d) crosses a mass block", (int)row->column[j],
                                  (int)(row->column[j] + row->width[j]));
            }
            int32_t t = touch(r, slot, b);
            r->at_block[i * NSCD__MAX_ROW_BLOCKS + j] = t;
            r->at_col[i * NSCD__MAX_ROW_BLOCKS + j] = r->blocks[t].cols++;
        }
    }
    return NSCD_OK;
}

/* B_b = [h_b, F_b'] and X_b = M_bb^-1 B_b for every touched block. */
static nscd_status solve_blocks(nscd__response *r, nscd__arena *arena, const double *q,
                                const double *h) {
    nscd__model *m = r->model;
    size_t doubles = 0, ints = 0; /* per block: B, X, lambda; rows */
    for (int32_t t = 0; t < r->n_blocks; ++t) {
        size_t w = (size_t)r->blocks[t].width, cols = (size_t)r->blocks[t].cols;
        doubles += 2 * w * cols + cols;
        ints += cols;
    }
    double *d = nscd__arena_alloc(arena, doubles, sizeof(double));
    int32_t *n = nscd__arena_alloc(arena, ints, sizeof(int32_t));
    if (d == NULL || n == NULL) {
        return nscd__fail(m->diag, NSCD_ERR_OUT_OF_MEMORY, "problem assembly");
    }
    for (int32_t t = 0; t < r->n_blocks; ++t) {
        nscd__response_block *blk = &r->blocks[t];
        size_t w = (size_t)blk->width, cols = (size_t)blk->cols;
        blk->B = d;
        blk->X = d + w * cols;
        blk->lambda = blk->X + w * cols;
        blk->row = n;
        d = blk->lambda + cols;
        n += cols;
        memset(blk->B, 0, w * cols * sizeof(double)); /* rows may cover part of the block */
        for (size_t i = 0; h != NULL && i < w; ++i) {
            blk->B[i * cols] = h[(size_t)blk->start + i];
        }
    }
    for (int32_t i = 0; i < r->k; ++i) { /* scatter F' */
        const nscd__rows *row = &r->rows[i];
        const double *values = row->values;
        for (int32_t j = 0; j < row->n_blocks; ++j) {
            nscd__response_block *blk = &r->blocks[r->at_block[i * NSCD__MAX_ROW_BLOCKS + j]];
            int32_t col = r->at_col[i * NSCD__MAX_ROW_BLOCKS + j];
            size_t cols = (size_t)blk->cols, offset = (size_t)(row->column[j] - blk->start);
            blk->row[col] = i;
            for (int32_t c = 0; c < row->width[j]; ++c) {
                blk->B[(offset + (size_t)c) * cols + (size_t)col] = values[c];
            }
            values += row->width[j];
        }
    }
    for (int32_t t = 0; t < r->n_blocks; ++t) {
        nscd__response_block *blk = &r->blocks[t];
        nscd_status rc = m->mass_solve(m->self, q, blk->block, blk->cols, blk->B, blk->X);
        if (rc != NSCD_OK) {
            return rc;
        }
    }
    return NSCD_OK;
}

nscd_status nscd__response_build(nscd__model *model, nscd__arena *arena, const double *q,
                                 const double *h, int32_t k, const nscd__rows *rows,
                                 nscd__response *response) {
    nscd__response *r = response;
    memset(r, 0, sizeof *r);
    r->model = model;
    r->k = k;
    r->rows = rows;
    r->n_extra = h != NULL;
    size_t max_blocks = h != NULL ? (size_t)model->n_mass_blocks : (size_t)k * NSCD__MAX_ROW_BLOCKS;
    if (max_blocks > (size_t)model->n_mass_blocks) {
        max_blocks = (size_t)model->n_mass_blocks;
    }
    size_t n_at = (size_t)k * NSCD__MAX_ROW_BLOCKS;
    r->blocks = nscd__arena_alloc(arena, max_blocks, sizeof(nscd__response_block));
    int32_t *slot =
        nscd__arena_alloc(arena, (size_t)model->n_mass_blocks + 2 * n_at, sizeof(int32_t));
    if (!slot || !r->blocks) {
        return nscd__fail(model->diag, NSCD_ERR_OUT_OF_MEMORY, "problem assembly");
    }
    r->at_block = slot + model->n_mass_blocks;
    r->at_col = r->at_block + n_at;
    for (int32_t b = 0; b < model->n_mass_blocks; ++b) {
        slot[b] = -1;
    }
    for (int32_t b = 0; h != NULL && b < model->n_mass_blocks; ++b) {
        touch(r, slot, b); /* M^-1 h everywhere, in block order */
    }
    nscd_status rc = map_rows(r, slot);
    return rc == NSCD_OK ? solve_blocks(r, arena, q, h) : rc;
}

/* C_r . (column `col` of block blk), over the part of C_r inside blk. */
static double row_times_column(const nscd__rows *C_r, const nscd__response_block *blk,
                               int32_t col) {
    const double *values = C_r->values;
    size_t cols = (size_t)blk->cols;
    double sum = 0.0;
    for (int32_t j = 0; j < C_r->n_blocks; ++j) {
        int32_t begin = C_r->column[j] - blk->start;
        if (begin >= 0 && begin < blk->width) {
            const double *x = blk->X + (size_t)begin * cols + (size_t)col;
            for (int32_t i = 0; i < C_r->width[j]; ++i) {
                sum += values[i] * x[(size_t)i * cols];
            }
        }
        values += C_r->width[j];
    }
    return sum;
}

double nscd__response_entry(const nscd__response *response, const nscd__rows *C_a, int32_t c) {
    const nscd__response *r = response;
    const nscd__rows *F_c = &r->rows[c];
    double sum = 0.0;
    for (int32_t j = 0; j < F_c->n_blocks; ++j) {
        const nscd__response_block *blk = &r->blocks[r->at_block[c * NSCD__MAX_ROW_BLOCKS + j]];
        double part = row_times_column(C_a, blk, r->at_col[c * NSCD__MAX_ROW_BLOCKS + j]);
        sum = j == 0 ? part : sum + part;
    }
    return sum;
}

void nscd__response_delassus(const nscd__response *response, int32_t k_c, const nscd__rows *C,
                             double *W) {
    for (int32_t a = 0; a < k_c; ++a) {
        for (int32_t c = 0; c < response->k; ++c) {
            W[(size_t)a * (size_t)response->k + (size_t)c] =
                nscd__response_entry(response, &C[a], c);
        }
    }
}

double nscd__response_dot(const nscd__response *response, const nscd__rows *C_r) {
    const double *values = C_r->values;
    double sum = 0.0;
    for (int32_t j = 0; j < C_r->n_blocks; ++j) { /* X of one column is contiguous */
        for (int32_t t = 0; t < response->n_blocks; ++t) {
            const nscd__response_block *blk = &response->blocks[t];
            int32_t begin = C_r->column[j] - blk->start;
            if (begin >= 0 && begin < blk->width) {
                double part = nscd__dot(C_r->width[j], values, blk->X + begin);
                sum = j == 0 ? part : sum + part;
            }
        }
        values += C_r->width[j];
    }
    return sum;
}

double nscd__response_free(const nscd__response *response, const nscd__rows *C_r) {
    double sum = 0.0;
    for (int32_t t = 0; t < response->n_blocks; ++t) {
        double part = row_times_column(C_r, &response->blocks[t], 0);
        sum = t == 0 ? part : sum + part;
    }
    return sum;
}

/* The multipliers of each block's rows, in its column order. */
static void gather_lambda(const nscd__response *r, const double *lambda) {
    for (int32_t t = 0; t < r->n_blocks; ++t) {
        nscd__response_block *blk = &r->blocks[t];
        for (int32_t j = r->n_extra; j < blk->cols; ++j) {
            blk->lambda[j] = lambda[blk->row[j]];
        }
    }
}

void nscd__response_gemv(const nscd__response *response, const double *lambda, double *dv) {
    const nscd__response *r = response;
    gather_lambda(r, lambda);
    if (!(r->n_blocks == 1 && r->blocks[0].width == r->model->n_v)) {
        memset(dv, 0, (size_t)r->model->n_v * sizeof(double));
    }
    for (int32_t t = 0; t < r->n_blocks; ++t) {
        const nscd__response_block *blk = &r->blocks[t];
        int32_t k = blk->cols - r->n_extra;
        if (k > 0 && r->n_extra == 0) {
            nscd__gemv(blk->width, k, blk->X, blk->lambda, dv + blk->start);
        } else if (k > 0) { /* skip the h column */
            for (int32_t i = 0; i < blk->width; ++i) {
                dv[blk->start + i] =
                    nscd__dot(k, blk->X + (size_t)i * (size_t)blk->cols + 1, blk->lambda + 1);
            }
        }
    }
}

void nscd__response_add_dot(const nscd__response *response, const double *lambda, double *v) {
    const nscd__response *r = response;
    gather_lambda(r, lambda);
    for (int32_t t = 0; t < r->n_blocks; ++t) {
        const nscd__response_block *blk = &r->blocks[t];
        int32_t k = blk->cols - r->n_extra;
        for (int32_t i = 0; k > 0 && i < blk->width; ++i) {
            const double *x = blk->X + (size_t)i * (size_t)blk->cols + r->n_extra;
            v[blk->start + i] += nscd__dot(k, x, blk->lambda + r->n_extra);
        }
    }
}

/* out = [M^-1 h +] M^-1 F' lambda (add: out +=) by plain loops; the first
 * term starts the sum. */
static void apply_loop(const nscd__response *r, const double *lambda, double *out, int add) {
    gather_lambda(r, lambda);
    for (int32_t t = 0; t < r->n_blocks; ++t) {
        const nscd__response_block *blk = &r->blocks[t];
        for (int32_t i = 0; blk->cols > 0 && i < blk->width; ++i) {
            const double *x = blk->X + (size_t)i * (size_t)blk->cols;
            double sum = r->n_extra ? x[0] : x[0] * blk->lambda[0];
            for (int32_t j = 1; j < blk->cols; ++j) {
                sum += x[j] * blk->lambda[j];
            }
            out[blk->start + i] = add ? out[blk->start + i] + sum : sum;
        }
    }
}

void nscd__response_add_loop(const nscd__response *response, const double *lambda, double *v) {
    apply_loop(response, lambda, v, 1);
}

void nscd__response_acceleration(const nscd__response *response, const double *lambda, double *a) {
    apply_loop(response, lambda, a, 0);
}
