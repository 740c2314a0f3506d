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

/* W(a, c) = C_a M^-1 F_c' for the one-row view C_a and force row c. */
double nscd__response_entry(const nscd__response *response, const nscd__rows *C_a, int32_t c);

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

/* ======================================================================
 * The other forms of the assembled problem (contact/assembly/assembly_forms.c)
 * ====================================================================== */

/* Local form of k contacts, W = H M^-1 H' in 3x3 block-CSR form and
 * q = H v_free + bias: exactly the input of nscd_fc3d_solve_bsr() (row_ptr,
 * col_idx, blocks, q), so a world hands it to fc3d as it is.
 *
 * Contact i is entry i with exactly 3 rows (normal, then two tangents; a
 * planar or frictionless contact is padded with zero rows by the caller). The
 * block (i, j) is stored wherever contacts i and j touch a common mass block,
 * the diagonal always; each row's blocks come in ascending column order (the
 * order in which the dense and the BSR fc3d solvers agree bitwise). Every
 * stored value is bitwise the value nscd__response_delassus() gives for the
 * same rows. Memory O(nnz(H) + nnz(W)), all from the arena: no k x k or
 * n_v x k array unless a mass block is that large (the generic system). */
typedef struct nscd__local_bsr {
    int32_t n_contacts;
    int32_t nnz;      /* stored 3x3 blocks: row_ptr[n_contacts] */
    int32_t *row_ptr; /* n_contacts + 1 */
    int32_t *col_idx; /* nnz block columns, ascending in each row */
    int32_t *diag;    /* n_contacts: index of each row's diagonal block */
    double *blocks;   /* 9 nnz: block b row-major at blocks[9 b] */
    double *q;        /* 3 n_contacts: H v_free + bias */
    /* The 3 n_contacts one-row views of the entries and M^-1 H' built from
     * them: nscd__response_gemv(&form->response, r, dv) maps the impulses
     * back to velocities, dv = M^-1 H' r. */
    nscd__rows *rows;
    nscd__response response;
} nscd__local_bsr;

/* Builds the local form of the k entries `entries` (3 rows each) at
 * positions q, for the free velocity v_free (n_v) and an optional bias (3k
 * values, NULL for none). Status: NSCD_ERR_NULL_POINTER (model, arena,
 * form, v_free, or entries with k > 0), NSCD_ERR_INVALID_ARGUMENT (k < 0,
 * k > 2^26, an entry without 3 rows, a bad row pattern, more blocks than
 * fit in int32 9 nnz), NSCD_ERR_OUT_OF_MEMORY, or the model's mass solve
 * status. k = 0 gives an empty form (row_ptr = {0}). */
nscd_status nscd__local_form_bsr(nscd__model *model, nscd__arena *arena, const double *q, int32_t k,
                                 const nscd__rows *entries, const double *v_free,
                                 const double *bias, nscd__local_bsr *form);

/* Global form of a constraint set for time steppers (after Siconos numerics'
 * GlobalFrictionContactProblem, with our sign and orientation):
 *
 *     M v + q = H' r,      u = H v + b,
 *
 * v the n_v velocities at the end of the step, r the m multipliers
 * (impulses; contact rows normal first, then tangents), u the m constraint
 * velocities the laws act on. The right-hand side is
 *
 *     q = -(M v_ref + f),  so that  v = v_free + M^-1 H' r,  v_free = v_ref + M^-1 f;
 *
 * for Moreau-Jean v_ref = v_k and f = dt h(q, v_k, t) (the free velocity
 * without a solve), for an impact v_ref = v^- and f = 0. b is the caller's
 * bias (restitution e H v_k, a stabilisation term, ...). The local form is
 * W = H M^-1 H', q_local = b - H M^-1 q = H v_free + b. Siconos writes
 * M v = q_S + H_S r with H_S = H' and q_S = -q.
 *
 * Shapes and storage:
 * - H: m x n_v in CSR. Its rows are all rows of the entries in order (entry
 *   e owns rows [entry_row[e], entry_row[e + 1])); each row stores its row
 *   blocks' columns in ascending order, explicit zeros included, so the
 *   pattern is the block pattern and does not change with the values.
 * - M: block diagonal over the model's mass blocks; block b is dense
 *   width_b x width_b, row-major, at M_values + M_offset[b], covering
 *   velocities [mass_block_start[b], mass_block_start[b + 1]). */
typedef struct nscd__global_form {
    int32_t n_v;
    int32_t m; /* rows of H, multipliers, b */
    int32_t n_entries;
    int32_t *entry_row; /* n_entries + 1 */
    int32_t nnz;        /* stored values of H */
    int32_t *H_row_ptr; /* m + 1 */
    int32_t *H_col;     /* nnz */
    double *H_values;   /* nnz */
    int32_t n_mass_blocks;
    const int32_t *mass_block_start; /* the model's, n_mass_blocks + 1 */
    size_t *M_offset;                /* n_mass_blocks + 1 */
    double *M_values;                /* M_offset[n_mass_blocks] */
    double *q;                       /* n_v */
    double *b;                       /* m */
} nscd__global_form;

/* Builds the global form of n_entries entries (any kind, 1 to
 * NSCD__MAX_ENTRY_ROWS rows each) at positions q. v_ref and f (n_v each) and
 * bias (m) may be NULL for zero. Needs the model's mass_block op. Status:
 * NSCD_ERR_NULL_POINTER, NSCD_ERR_INVALID_ARGUMENT (n_entries < 0, a bad row
 * pattern, overlapping row blocks, sizes that overflow int32),
 * NSCD_ERR_UNSUPPORTED (no mass_block op), NSCD_ERR_OUT_OF_MEMORY, or the
 * model's mass_block status. Memory O(nnz(H) + sum width_b^2), from the
 * arena. */
nscd_status nscd__global_form_build(nscd__model *model, nscd__arena *arena, const double *q,
                                    int32_t n_entries, const nscd__rows *entries,
                                    const double *v_ref, const double *f, const double *bias,
                                    nscd__global_form *form);

#endif
