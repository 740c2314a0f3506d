/* The fc3d solver core shared by the dense and the block-CSR entry points:
 * both hand it the non-zero 3x3 blocks of W in block-CSR form. */
#ifndef NSCD_CONTACT_FC3D_INTERNAL_H
#define NSCD_CONTACT_FC3D_INTERNAL_H

#include <stdint.h>

#include "nscd/fc3d.h"

typedef struct nscd__fc3d_matrix {
    int32_t n;              /* number of contacts */
    const int32_t *row_ptr; /* n + 1 block offsets */
    const int32_t *col_idx; /* block columns */
    const double *blocks;   /* 9 doubles per block, row-major */
    const int32_t *diag;    /* index of the diagonal block of each row */
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

/* NSCD_OK when the 3x3 block is symmetric (to 1e-10 relative) and positive
 * definite, NSCD_ERR_NOT_SPD otherwise. */
nscd_status nscd__fc3d_check_diag_block(const double A[9]);

/* Runs the sweeps on validated input; writes r, u, info (see fc3d.h). */
nscd_status nscd__fc3d_run(const nscd__fc3d_matrix *W, const double *q, const double *mu,
                           const nscd_fc3d_options *opts, double *r, double *u,
                           nscd_fc3d_info *info);

#endif
