/* The other forms of problem assembly: the local form in 3x3 block-CSR form
 * (the input of nscd_fc3d_solve_bsr) and the global form (M, H, q, b) of
 * time steppers. See assembly.h. */
#include "contact/assembly/assembly.h"

#include <stdlib.h>
#include <string.h>

#include "core/dense.h"

/* fc3d's limit on contacts (NSCD__FC3D_MAX_CONTACTS in fc3d_internal.h, which
 * this layer does not include) and on stored blocks (9 nnz fits int32). */
#define MAX_CONTACTS (1 << 26)
#define MAX_BLOCKS (INT32_MAX / 9)

/* ------------------------------------------------------------ shared checks */

/* The row pattern of entry `e`: blocks inside [0, n_v), widths adding up to
 * width_total, and (for the global form) no two blocks sharing a column. */
static nscd_status check_entry(const nscd__model *m, const nscd__rows *rows, int32_t e) {
    if (rows->values == NULL) {
        return nscd__fail(m->diag, NSCD_ERR_NULL_POINTER, "entry %d has no values", (int)e);
    }
    if (rows->n_rows < 1 || rows->n_rows > NSCD__MAX_ENTRY_ROWS || rows->n_blocks < 1 ||
        rows->n_blocks > NSCD__MAX_ROW_BLOCKS) {
        return nscd__fail(m->diag, NSCD_ERR_INVALID_ARGUMENT, "entry %d: %d rows, %d row blocks",
                          (int)e, (int)rows->n_rows, (int)rows->n_blocks);
    }
    int64_t total = 0;
    for (int32_t j = 0; j < rows->n_blocks; ++j) {
        int32_t c = rows->column[j], w = rows->width[j];
        if (c < 0 || w < 1 || w > m->n_v - c) {
            return nscd__fail(m->diag, NSCD_ERR_INVALID_ARGUMENT,
                              "entry %d: row block [%d, %d) outside [0, %d)", (int)e, (int)c,
                              (int)c + (int)w, (int)m->n_v);
        }
        for (int32_t i = 0; i < j; ++i) {
            if (c < rows->column[i] + rows->width[i] && rows->column[i] < c + w) {
                return nscd__fail(m->diag, NSCD_ERR_INVALID_ARGUMENT,
                                  "entry %d: row blocks %d and %d overlap", (int)e, (int)i, (int)j);
            }
        }
        total += w;
    }
    if (total != rows->width_total) {
        return nscd__fail(m->diag, NSCD_ERR_INVALID_ARGUMENT,
                          "entry %d: width_total %d, blocks add up to %lld", (int)e,
                          (int)rows->width_total, (long long)total);
    }
    return NSCD_OK;
}

static nscd_status check_entries(const nscd__model *m, int32_t n, const nscd__rows *entries) {
    for (int32_t e = 0; e < n; ++e) {
        nscd_status rc = check_entry(m, &entries[e], e);
        if (rc != NSCD_OK) {
            return rc;
        }
    }
    return NSCD_OK;
}

static nscd_status out_of_memory(const nscd__model *m, const char *what) {
    return nscd__fail(m->diag, NSCD_ERR_OUT_OF_MEMORY, "%s", what);
}

/* ------------------------------------------------------------ local form, BSR */

/* Which contacts touch each touched mass block: contacts of block t are
 * list[start[t] .. start[t + 1]), ascending. Columns of a block are handed
 * out in row order (assembly.c), so a contact's columns come together. */
typedef struct block_contacts {
    int32_t *start;
    int32_t *list;
} block_contacts;

static nscd_status list_block_contacts(const nscd__response *r, nscd__arena *arena,
                                       block_contacts *bc) {
    size_t total = 0;
    for (int32_t t = 0; t < r->n_blocks; ++t) {
        total += (size_t)r->blocks[t].cols;
    }
    bc->start = nscd__arena_array(arena, (size_t)r->n_blocks + 1, sizeof(int32_t));
    bc->list = nscd__arena_array(arena, total, sizeof(int32_t));
    if (bc->start == NULL || bc->list == NULL) {
        return out_of_memory(r->model, "local form: contacts of mass blocks");
    }
    int32_t n = 0;
    for (int32_t t = 0; t < r->n_blocks; ++t) {
        const nscd__response_block *blk = &r->blocks[t];
        bc->start[t] = n;
        for (int32_t col = r->n_extra; col < blk->cols; ++col) {
            int32_t contact = blk->row[col] / 3;
            if (n == bc->start[t] || bc->list[n - 1] != contact) {
                bc->list[n++] = contact;
            }
        }
    }
    bc->start[r->n_blocks] = n;
    return NSCD_OK;
}

/* Contacts sharing a mass block with contact i, each once, appended to
 * `out` (when not NULL); returns how many. mark[j] == stamp: already seen. */
static int32_t neighbours(const nscd__response *r, const block_contacts *bc, int32_t i,
                          int32_t *mark, int32_t stamp, int32_t *out) {
    const nscd__rows *row = &r->rows[3 * i];
    int32_t n = 0;
    for (int32_t j = 0; j < row->n_blocks; ++j) {
        int32_t t = r->at_block[(size_t)(3 * i) * NSCD__MAX_ROW_BLOCKS + (size_t)j];
        for (int32_t p = bc->start[t]; p < bc->start[t + 1]; ++p) {
            int32_t c = bc->list[p];
            if (mark[c] != stamp) {
                mark[c] = stamp;
                if (out != NULL) {
                    out[n] = c;
                }
                ++n;
            }
        }
    }
    return n;
}

static int compare_int32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* row_ptr: how many contacts share a mass block with each contact. */
static nscd_status bsr_count(nscd__local_bsr *form, const block_contacts *bc, int32_t *mark) {
    const nscd__response *r = &form->response;
    int64_t nnz = 0;
    for (int32_t i = 0; i < form->n_contacts; ++i) {
        form->row_ptr[i] = (int32_t)nnz;
        nnz += neighbours(r, bc, i, mark, i, NULL);
        if (nnz > MAX_BLOCKS) {
            return nscd__fail(r->model->diag, NSCD_ERR_INVALID_ARGUMENT,
                              "local form: more than %d blocks", (int)MAX_BLOCKS);
        }
    }
    form->nnz = form->row_ptr[form->n_contacts] = (int32_t)nnz;
    return NSCD_OK;
}

/* col_idx, ascending in each row, and the diagonal blocks. */
static void bsr_fill(nscd__local_bsr *form, const block_contacts *bc, int32_t *mark) {
    int32_t k = form->n_contacts;
    for (int32_t i = 0; i < k; ++i) {
        int32_t *cols = form->col_idx + form->row_ptr[i];
        int32_t n = neighbours(&form->response, bc, i, mark, k + i, cols);
        qsort(cols, (size_t)n, sizeof *cols, compare_int32);
        for (int32_t p = 0; p < n; ++p) {
            form->diag[i] = cols[p] == i ? form->row_ptr[i] + p : form->diag[i];
        }
    }
}

/* The block pattern in two passes, count then fill, with one marker per
 * contact (stamped i in the first pass, k + i in the second) instead of a
 * k x k mask. */
static nscd_status bsr_pattern(nscd__local_bsr *form, nscd__arena *arena) {
    const nscd__model *m = form->response.model;
    int32_t k = form->n_contacts;
    block_contacts bc;
    nscd_status rc = list_block_contacts(&form->response, arena, &bc);
    int32_t *mark = nscd__arena_array(arena, (size_t)k, sizeof(int32_t));
    form->row_ptr = nscd__arena_array(arena, (size_t)k + 1, sizeof(int32_t));
    form->diag = nscd__arena_array(arena, (size_t)k, sizeof(int32_t));
    if (rc != NSCD_OK || !mark || !form->row_ptr || !form->diag) {
        return rc != NSCD_OK ? rc : out_of_memory(m, "local form: pattern");
    }
    for (int32_t i = 0; i < k; ++i) {
        mark[i] = -1;
    }
    rc = bsr_count(form, &bc, mark);
    if (rc != NSCD_OK) {
        return rc;
    }
    form->col_idx = nscd__arena_array(arena, (size_t)form->nnz, sizeof(int32_t));
    if (form->col_idx == NULL) {
        return out_of_memory(m, "local form: block columns");
    }
    bsr_fill(form, &bc, mark);
    return NSCD_OK;
}

/* The 9 values of every stored block (i, j): rows 3i.. against columns 3j.. */
static void bsr_values(nscd__local_bsr *form) {
    const nscd__response *r = &form->response;
    for (int32_t i = 0; i < form->n_contacts; ++i) {
        for (int32_t p = form->row_ptr[i]; p < form->row_ptr[i + 1]; ++p) {
            double *B = form->blocks + 9 * (size_t)p;
            int32_t j = form->col_idx[p];
            for (int32_t a = 0; a < 3; ++a) {
                for (int32_t c = 0; c < 3; ++c) {
                    B[3 * a + c] = nscd__response_entry(r, &form->rows[3 * i + a], 3 * j + c);
                }
            }
        }
    }
}

static void bsr_free_velocity(nscd__local_bsr *form, const nscd__rows *entries,
                              const double *v_free, const double *bias) {
    for (int32_t i = 0; i < form->n_contacts; ++i) {
        for (int32_t a = 0; a < 3; ++a) {
            size_t row = 3 * (size_t)i + (size_t)a;
            double u = nscd__rows_dot(&entries[i], a, v_free);
            form->q[row] = bias != NULL ? u + bias[row] : u;
        }
    }
}

static nscd_status check_local_args(nscd__model *model, nscd__arena *arena, int32_t k,
                                    const nscd__rows *entries, const double *v_free,
                                    const nscd__local_bsr *form) {
    if (model == NULL || arena == NULL || form == NULL) {
        return NSCD_ERR_NULL_POINTER; /* no diag to write to without a model */
    }
    if (k < 0 || k > MAX_CONTACTS) {
        return nscd__fail(model->diag, NSCD_ERR_INVALID_ARGUMENT,
                          "local form: %d contacts (0 to %d)", (int)k, (int)MAX_CONTACTS);
    }
    if (v_free == NULL || (k > 0 && entries == NULL)) {
        return nscd__fail(model->diag, NSCD_ERR_NULL_POINTER, "local form: v_free or entries");
    }
    for (int32_t i = 0; i < k; ++i) {
        if (entries[i].n_rows != 3) {
            return nscd__fail(model->diag, NSCD_ERR_INVALID_ARGUMENT,
                              "local form: contact %d has %d rows, not 3", (int)i,
                              (int)entries[i].n_rows);
        }
    }
    return check_entries(model, k, entries);
}

nscd_status nscd__local_form_bsr(nscd__model *model, nscd__arena *arena, const double *q, int32_t k,
                                 const nscd__rows *entries, const double *v_free,
                                 const double *bias, nscd__local_bsr *form) {
    nscd_status rc = check_local_args(model, arena, k, entries, v_free, form);
    if (rc != NSCD_OK) {
        return rc;
    }
    memset(form, 0, sizeof *form);
    form->n_contacts = k;
    form->rows = nscd__arena_array(arena, 3 * (size_t)k, sizeof(nscd__rows));
    form->q = nscd__arena_array(arena, 3 * (size_t)k, sizeof(double));
    if (form->rows == NULL || form->q == NULL) {
        return out_of_memory(model, "local form: rows");
    }
    for (int32_t i = 0; i < 3 * k; ++i) {
        form->rows[i] = nscd__rows_row(&entries[i / 3], i % 3);
    }
    rc = nscd__response_build(model, arena, q, NULL, 3 * k, form->rows, &form->response);
    if (rc == NSCD_OK) {
        rc = bsr_pattern(form, arena);
    }
    if (rc != NSCD_OK) {
        return rc;
    }
    form->blocks = nscd__arena_array(arena, 9 * (size_t)form->nnz, sizeof(double));
    if (form->blocks == NULL) {
        return out_of_memory(model, "local form: blocks");
    }
    bsr_values(form);
    bsr_free_velocity(form, entries, v_free, bias);
    return NSCD_OK;
}

/* ------------------------------------------------------------ global form */

/* entry_row and H_row_ptr; rejects sizes that overflow int32. */
static nscd_status global_offsets(nscd__global_form *g, nscd__arena *arena,
                                  const nscd__rows *entries, const nscd__model *m) {
    int64_t rows = 0, nnz = 0;
    for (int32_t e = 0; e < g->n_entries; ++e) {
        rows += entries[e].n_rows;
        nnz += (int64_t)entries[e].n_rows * entries[e].width_total;
    }
    if (nnz > INT32_MAX) {
        return nscd__fail(m->diag, NSCD_ERR_INVALID_ARGUMENT, "global form: H has %lld values",
                          (long long)nnz);
    }
    g->m = (int32_t)rows;
    g->nnz = (int32_t)nnz;
    g->entry_row = nscd__arena_array(arena, (size_t)g->n_entries + 1, sizeof(int32_t));
    g->H_row_ptr = nscd__arena_array(arena, (size_t)g->m + 1, sizeof(int32_t));
    if (g->entry_row == NULL || g->H_row_ptr == NULL) {
        return out_of_memory(m, "global form: offsets");
    }
    int32_t row = 0, at = 0;
    for (int32_t e = 0; e < g->n_entries; ++e) {
        g->entry_row[e] = row;
        for (int32_t r = 0; r < entries[e].n_rows; ++r) {
            g->H_row_ptr[row++] = at;
            at += entries[e].width_total;
        }
    }
    g->entry_row[g->n_entries] = row;
    g->H_row_ptr[row] = at;
    return NSCD_OK;
}

/* The entry's blocks in ascending column order (at most 4: insertion sort). */
static void block_order(const nscd__rows *rows, int32_t *order, int32_t *offset) {
    int32_t at = 0;
    for (int32_t j = 0; j < rows->n_blocks; ++j) {
        offset[j] = at; /* where block j's values start within a row */
        at += rows->width[j];
        int32_t i = j;
        for (; i > 0 && rows->column[order[i - 1]] > rows->column[j]; --i) {
            order[i] = order[i - 1];
        }
        order[i] = j;
    }
}

/* H in CSR: every row of every entry, its blocks in column order. */
static void global_H(nscd__global_form *g, const nscd__rows *entries) {
    for (int32_t e = 0; e < g->n_entries; ++e) {
        const nscd__rows *rows = &entries[e];
        int32_t order[NSCD__MAX_ROW_BLOCKS], offset[NSCD__MAX_ROW_BLOCKS];
        block_order(rows, order, offset);
        for (int32_t r = 0; r < rows->n_rows; ++r) {
            const double *w = rows->values + (size_t)r * (size_t)rows->width_total;
            int32_t at = g->H_row_ptr[g->entry_row[e] + r];
            for (int32_t o = 0; o < rows->n_blocks; ++o) {
                int32_t j = order[o];
                for (int32_t c = 0; c < rows->width[j]; ++c, ++at) {
                    g->H_col[at] = rows->column[j] + c;
                    g->H_values[at] = w[offset[j] + c];
                }
            }
        }
    }
}

/* M block by block from the model, and q_b = -(M_bb v_ref_b + f_b). */
static nscd_status global_mass(nscd__global_form *g, nscd__model *m, const double *q,
                               const double *v_ref, const double *f) {
    for (int32_t b = 0; b < g->n_mass_blocks; ++b) {
        double *M_bb = g->M_values + g->M_offset[b];
        nscd_status rc = m->mass_block(m->self, q, b, M_bb);
        if (rc != NSCD_OK) {
            return rc;
        }
        int32_t start = g->mass_block_start[b], w = nscd__mass_block_width(m, b);
        double *q_b = g->q + start;
        if (v_ref != NULL) {
            nscd__gemv(w, w, M_bb, v_ref + start, q_b);
        }
        for (int32_t i = 0; i < w; ++i) {
            q_b[i] = -(f != NULL ? q_b[i] + f[start + i] : q_b[i]);
        }
    }
    return NSCD_OK;
}

/* The arrays sized by the mass blocks and the velocities. */
static nscd_status global_mass_arrays(nscd__global_form *g, nscd__arena *arena,
                                      const nscd__model *m) {
    g->M_offset = nscd__arena_array(arena, (size_t)g->n_mass_blocks + 1, sizeof(size_t));
    if (g->M_offset == NULL) {
        return out_of_memory(m, "global form: mass offsets");
    }
    for (int32_t b = 0; b < g->n_mass_blocks; ++b) {
        size_t w = (size_t)nscd__mass_block_width(m, b);
        g->M_offset[b + 1] = g->M_offset[b] + w * w;
    }
    g->M_values = nscd__arena_array(arena, g->M_offset[g->n_mass_blocks], sizeof(double));
    g->q = nscd__arena_array(arena, (size_t)g->n_v, sizeof(double));
    return g->M_values != NULL && g->q != NULL ? NSCD_OK : out_of_memory(m, "global form: mass");
}

static nscd_status check_global_args(nscd__model *model, nscd__arena *arena, int32_t n_entries,
                                     const nscd__rows *entries, const nscd__global_form *form) {
    if (model == NULL || arena == NULL || form == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    if (n_entries < 0) {
        return nscd__fail(model->diag, NSCD_ERR_INVALID_ARGUMENT, "global form: %d entries",
                          (int)n_entries);
    }
    if (n_entries > 0 && entries == NULL) {
        return nscd__fail(model->diag, NSCD_ERR_NULL_POINTER, "global form: entries is NULL");
    }
    if (model->mass_block == NULL) {
        return nscd__fail(model->diag, NSCD_ERR_UNSUPPORTED,
                          "global form: the model cannot give its mass matrix");
    }
    return check_entries(model, n_entries, entries);
}

nscd_status nscd__global_form_build(nscd__model *model, nscd__arena *arena, const double *q,
                                    int32_t n_entries, const nscd__rows *entries,
                                    const double *v_ref, const double *f, const double *bias,
                                    nscd__global_form *form) {
    nscd_status rc = check_global_args(model, arena, n_entries, entries, form);
    if (rc != NSCD_OK) {
        return rc;
    }
    nscd__global_form *g = form;
    memset(g, 0, sizeof *g);
    g->n_v = model->n_v;
    g->n_entries = n_entries;
    g->n_mass_blocks = model->n_mass_blocks;
    g->mass_block_start = model->mass_block_start;
    rc = global_offsets(g, arena, entries, model);
    if (rc != NSCD_OK) {
        return rc;
    }
    g->H_col = nscd__arena_array(arena, (size_t)g->nnz, sizeof(int32_t));
    g->H_values = nscd__arena_array(arena, (size_t)g->nnz, sizeof(double));
    g->b = nscd__arena_array(arena, (size_t)g->m, sizeof(double));
    if (g->H_col == NULL || g->H_values == NULL || g->b == NULL) {
        return out_of_memory(model, "global form: H");
    }
    global_H(g, entries);
    if (bias != NULL) {
        memcpy(g->b, bias, (size_t)g->m * sizeof(double));
    }
    rc = global_mass_arrays(g, arena, model);
    return rc == NSCD_OK ? global_mass(g, model, q, v_ref, f) : rc;
}
