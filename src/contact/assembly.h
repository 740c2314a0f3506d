/* Problem assembly: the one place where W = C M^-1 F' is built.
 *
 * A problem is a list of k constraint rows (one-row views, core/rows.h) of
 * entries of a model at positions q. The stage
 *   1. solves M^-1 F' block by block over the model's mass blocks
 *      (nscd__response_build: for the generic system one solve with k right
 *      hand sides, for a world one per touched body), optionally with a
 *      dense vector h solved alongside (the free acceleration M^-1 h);
 *   2. forms the local matrix W = C M^-1 F' for rows C with the pattern of F
 *      (nscd__response_delassus; C = F for impacts, C != F for sliding
 *      contacts, whose force rows lean on the friction cone);
 *   3. maps multipliers back to velocities, dv = M^-1 F' lambda.
 * Impacts (Newton, Poisson, frictional), Routh's planar impact, the forces of
 * closed contacts, the position and velocity projections, and the time
 * steppers all use it; nothing else multiplies by M^-1.
 *
 * Memory: everything is taken from the caller's per-step arena, O(nnz(F))
 * for block-diagonal masses (plus n_v with h), n_v k for a dense mass.
 *
 * Floating point: the three ways of applying M^-1 F' below differ only in
 * their summation order (BLAS gemv, BLAS dot per velocity, plain loop);
 * each keeps the order its caller had in 0.1, so that results stay bitwise
 * the same (docs/architecture.md). */
#ifndef NSCD_CONTACT_ASSEMBLY_H
#define NSCD_CONTACT_ASSEMBLY_H

#include <stdint.h>

#include "core/arena.h"
#include "core/model.h"
#include "core/rows.h"

/* The rows (normal first, then tangents; an equality's equations) and gaps
 * of `count` entries of the model at (t, q), copied into the arena: *rows
 * receives `count` nscd__rows, `gaps` (may be NULL) their gaps. Every
 * problem starts here. */
nscd_status nscd__gather_rows(nscd__model *model, nscd__arena *arena, double t, const double *q,
                              int32_t count, const int32_t *entries, nscd__rows **rows,
                              double *gaps);

/* The indices of the model's closed entries, in index order, appended to
 * list[count...]; returns the new count. */
int32_t nscd__closed_entries(const nscd__model *model, int32_t *list, int32_t count);

/* One mass block touched by the rows: X = M_bb^-1 [h_b, F_b'] (width x cols,
 * row-major), F_b the rows restricted to the block. */
typedef struct nscd__response_block {
    int32_t block; /* the model's mass block */
    int32_t start; /* its first velocity */
    int32_t width;
    int32_t cols;   /* n_extra + rows touching it */
    int32_t *row;   /* row[j]: force row of column n_extra + j */
    double *B;      /* [h_b, F_b'] (width x cols) */
    double *X;      /* M_bb^-1 B (width x cols) */
    double *lambda; /* scratch: the multipliers of its rows */
} nscd__response_block;

/* M^-1 [h, F'] of k force rows F. */
typedef struct nscd__response {
    nscd__model *model;
    int32_t k;
    int32_t n_extra; /* 1 when h was solved alongside (column 0 of every block) */
    const nscd__rows *rows;
    int32_t n_blocks;
    nscd__response_block *blocks;
    /* where row r meets each of its row blocks: blocks[at_block[..]] column
     * at_col[..]; k x NSCD__MAX_ROW_BLOCKS */
    int32_t *at_block, *at_col;
} nscd__response;

/* Builds M(q)^-1 [h, F'] for the k one-row views `rows` (h may be NULL: no
 * extra column; with h, every mass block is solved). Every row block must
 * lie inside one mass block (NSCD_ERR_INVALID_ARGUMENT otherwise). */
nscd_status nscd__response_build(nscd__model *model, nscd__arena *arena, const double *q,
                                 const double *h, int32_t k, const nscd__rows *rows,
                                 nscd__response *response);

/* W = C M^-1 F' (k_c x k, row-major) for k_c one-row views C. */
void nscd__response_delassus(const nscd__response *response, int32_t k_c, const nscd__rows *C,
                             double *W);

/* C_r M^-1 F_0' for a response of one force row (no h), by BLAS dots:
 * the inverse effective mass w M^-1 w' of a contact when C_r = F_0. */
double nscd__response_dot(const nscd__response *response, const nscd__rows *C_r);

/* C_r M^-1 h for the one-row view C_r (needs h). */
double nscd__response_free(const nscd__response *response, const nscd__rows *C_r);

/* dv = M^-1 F' lambda (full n_v vector; BLAS gemv per block). */
void nscd__response_gemv(const nscd__response *response, const double *lambda, double *dv);

/* v += M^-1 F' lambda (BLAS dot per velocity). */
void nscd__response_add_dot(const nscd__response *response, const double *lambda, double *v);

/* v += M^-1 F' lambda (plain loop per velocity, no h). */
void nscd__response_add_loop(const nscd__response *response, const double *lambda, double *v);

/* a = M^-1 h + M^-1 F' lambda (needs h; plain loop per velocity). */
void nscd__response_acceleration(const nscd__response *response, const double *lambda, double *a);

#endif
