/* The fc3d solver core shared by the dense and the block-CSR entry points:
 * both hand it the non-zero 3x3 blocks of W in block-CSR form. */
#ifndef NSCD_CONTACT_FC3D_INTERNAL_H
#define NSCD_CONTACT_FC3D_INTERNAL_H

#include <stdint.h>

#include "contact/solvers/fc3d_block.h"
#include "nscd/fc3d.h"
#include "nscd/host.h"

typedef struct nscd__fc3d_matrix {
    int32_t n;              /* number of contacts */
    const int32_t *row_ptr; /* n + 1 block offsets */
    const int32_t *col_idx; /* block columns */
    const double *blocks;   /* 9 doubles per block, row-major */
    const int32_t *diag;    /* index of the diagonal block of each row */
    /* nscd_fc3d_block_kind of each diagonal block (regular or semidefinite,
     * from nscd__fc3d_classify_rows), or NULL: every block regular and solved
     * by the law's block solver as before (callers that checked their blocks
     * with nscd__fc3d_check_diag_block). */
    const int8_t *kind;
} nscd__fc3d_matrix;

/* Largest accepted number of contacts (so that 9 n fits in int32). */
#define NSCD__FC3D_MAX_CONTACTS (1 << 26)

/* Checks the arguments both entry points share and resolves the options
 * (opts may be NULL). Does not look at the matrix. `max_contacts` is the
 * entry point's own limit on n (at most NSCD__FC3D_MAX_CONTACTS): n is checked
 * against it before q, mu or r is read, since their length 3n is only
 * meaningful once n is known to be valid. */
nscd_status nscd__fc3d_check_args(int32_t n, int32_t max_contacts, const double *q,
                                  const double *mu, const nscd_fc3d_options *opts, const double *r,
                                  const double *u, const nscd_fc3d_info *info,
                                  nscd_fc3d_options *resolved);

/* Runs the sweeps on validated input; writes r, u, info (see fc3d.h). */
nscd_status nscd__fc3d_run(const nscd__fc3d_matrix *W, const double *q, const double *mu,
                           const nscd_fc3d_options *opts, double *r, double *u,
                           nscd_fc3d_info *info);

/* Doubles of work memory nscd__fc3d_run_work() needs for n contacts. */
#define NSCD__FC3D_RUN_WORK(n) (10 * (n))

/* nscd__fc3d_run() on caller memory (NSCD__FC3D_RUN_WORK(n) doubles), with
 * optional lower bounds shift[j] >= 0 of the normal impulses (NULL: none).
 * With bounds every contact obeys Coulomb's law on the cut cone
 * K_mu ∩ {r_n >= shift_j} (nscd__fc3d_local_coulomb_shifted; the friction_law
 * option must be NSCD_FC3D_COULOMB) and the merit uses the natural map of
 * that set (nscd__coulomb_residual2_bounded), divided by
 * sqrt(||q||^2 + sum_j (s_j shift_j)^2) instead of ||q|| (the bounds move
 * the contacts even when q = 0). shift = NULL gives bitwise the
 * results of nscd__fc3d_run(). */
nscd_status nscd__fc3d_run_work(const nscd__fc3d_matrix *W, const double *q, const double *mu,
                                const double *shift, const nscd_fc3d_options *opts, double *r,
                                double *u, nscd_fc3d_info *info, double *work);

/* Memory of dense fc3d solves of up to `capacity` contacts, kept by a caller
 * that solves many small problems (the impact solver): the block-CSR copy of
 * W and the iterates, so that a solve allocates nothing. */
typedef struct nscd__fc3d_work {
    int32_t capacity;
    int32_t *row_ptr; /* capacity + 1 */
    int32_t *col_idx; /* capacity^2 */
    int32_t *diag;    /* capacity */
    double *blocks;   /* 9 capacity^2 */
    double *vectors;  /* NSCD__FC3D_RUN_WORK(capacity) */
    int8_t *kind;     /* capacity: the diagonal blocks' classes */
} nscd__fc3d_work;

nscd_status nscd__fc3d_work_create(const nscd_allocator *allocator, int32_t capacity,
                                   nscd__fc3d_work *work);
void nscd__fc3d_work_destroy(const nscd_allocator *allocator, nscd__fc3d_work *work);

/* nscd_fc3d_solve_dense() on `work` (n <= work->capacity) with the optional
 * lower bounds `shift` of nscd__fc3d_run_work(). Same checks, statuses and
 * results (bitwise, for shift = NULL) as the public function. */
nscd_status nscd__fc3d_solve_dense_work(nscd__fc3d_work *work, int32_t n_contacts, const double *W,
                                        const double *q, const double *mu, const double *shift,
                                        const nscd_fc3d_options *opts, double *r, double *u,
                                        nscd_fc3d_info *info);

#endif
