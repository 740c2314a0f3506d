/* Block-sparse constraint rows: the rows of one constraint entry (a contact's
 * normal and tangential rows, a joint's equations) restricted to the
 * velocity indices they touch.
 *
 * The rows touch n_blocks ranges of consecutive velocity indices,
 * [column[b], column[b] + width[b]); a world contact touches two bodies (two
 * blocks of 6), a contact of the generic system one block of n_v. The values
 * are an n_rows x width_total matrix, row-major, whose columns are the blocks
 * one after another: row r is contiguous, so a view of one row is again an
 * nscd__rows (nscd__rows_row). */
#ifndef NSCD_CORE_ROWS_H
#define NSCD_CORE_ROWS_H

#include <stddef.h>
#include <stdint.h>

/* Bodies one entry may couple (a contact or joint: 2; beams may use more). */
#define NSCD__MAX_ROW_BLOCKS 4
/* Rows of one entry: a contact 1 + n_tangent <= 3, a fixed joint 6. */
#define NSCD__MAX_ENTRY_ROWS 6

typedef struct nscd__rows {
    int32_t n_rows;
    int32_t n_blocks;
    int32_t width_total; /* sum of width[] */
    int32_t column[NSCD__MAX_ROW_BLOCKS];
    int32_t width[NSCD__MAX_ROW_BLOCKS];
    double *values; /* n_rows x width_total, row-major */
} nscd__rows;

/* One dense block covering velocities [0, n_v): the rows of the generic
 * system, whose user callbacks write full rows. */
void nscd__rows_dense(nscd__rows *rows, int32_t n_rows, int32_t n_v, double *values);

/* Row r of `rows` as a one-row view (shares the values). */
nscd__rows nscd__rows_row(const nscd__rows *rows, int32_t r);

/* w_r . v for row r and a full velocity vector v. */
double nscd__rows_dot(const nscd__rows *rows, int32_t r, const double *v);

/* y += alpha w_r' for row r, into a full velocity vector y. */
void nscd__rows_add_to(const nscd__rows *rows, int32_t r, double alpha, double *y);

/* dst = one row with src's blocks, w_0 - sum_{r >= 1} c[r] w_r (c[0] is
 * unused, zero coefficients are skipped), into dst->values (width_total
 * doubles): a sliding contact's force row W_N - mu d' W_T. */
void nscd__rows_subtract(const nscd__rows *src, const double *c, nscd__rows *dst);

/* dst = a copy of row r of src into dst->values (width_total doubles). */
void nscd__rows_copy_row(const nscd__rows *src, int32_t r, nscd__rows *dst);

#endif
