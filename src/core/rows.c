/* Block-sparse constraint rows (see rows.h). */
#include "core/rows.h"

#include <string.h>

#include "core/dense.h"

void nscd__rows_dense(nscd__rows *rows, int32_t n_rows, int32_t n_v, double *values) {
    memset(rows, 0, sizeof *rows);
    rows->n_rows = n_rows;
    rows->n_blocks = 1;
    rows->width_total = n_v;
    rows->column[0] = 0;
    rows->width[0] = n_v;
    rows->values = values;
}

nscd__rows nscd__rows_row(const nscd__rows *rows, int32_t r) {
    nscd__rows view = *rows;
    view.n_rows = 1;
    view.values = rows->values + (size_t)r * (size_t)rows->width_total;
    return view;
}

double nscd__rows_dot(const nscd__rows *rows, int32_t r, const double *v) {
    const double *w = rows->values + (size_t)r * (size_t)rows->width_total;
    if (rows->n_blocks == 1) { /* the generic system: one BLAS dot, as always */
        return nscd__dot(rows->width[0], w, v + rows->column[0]);
    }
    double sum = 0.0;
    for (int32_t b = 0; b < rows->n_blocks; ++b) {
        sum += nscd__dot(rows->width[b], w, v + rows->column[b]);
        w += rows->width[b];
    }
    return sum;
}

void nscd__rows_add_to(const nscd__rows *rows, int32_t r, double alpha, double *y) {
    const double *w = rows->values + (size_t)r * (size_t)rows->width_total;
    for (int32_t b = 0; b < rows->n_blocks; ++b) {
        double *yb = y + rows->column[b];
        for (int32_t j = 0; j < rows->width[b]; ++j) {
            yb[j] += w[j] * alpha;
        }
        w += rows->width[b];
    }
}

void nscd__rows_subtract(const nscd__rows *src, const double *c, nscd__rows *dst) {
    size_t n = (size_t)src->width_total;
    double *values = dst->values;
    *dst = nscd__rows_row(src, 0);
    dst->values = values;
    memcpy(values, src->values, n * sizeof(double));
    for (int32_t r = 1; r < src->n_rows; ++r) {
        if (c[r] == 0.0) {
            continue;
        }
        const double *w = src->values + (size_t)r * n;
        for (size_t j = 0; j < n; ++j) {
            values[j] -= c[r] * w[j];
        }
    }
}

void nscd__rows_copy_row(const nscd__rows *src, int32_t r, nscd__rows *dst) {
    double *values = dst->values;
    *dst = nscd__rows_row(src, r);
    memcpy(values, dst->values, (size_t)src->width_total * sizeof(double));
    dst->values = values;
}
