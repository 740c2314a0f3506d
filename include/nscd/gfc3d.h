/**
 * @file gfc3d.h
 * @brief Global 3D frictional contact problems (FCLIB "global", Siconos "gfc3d").
 *
 * With n_dofs degrees of freedom and n_contacts contacts (m = 3 n_contacts
 * local rows, normal first then the two tangents, as in fc3d.h), find
 * velocities v, impulses r and local velocities u with
 *
 *     M v = H r + f,     u = H' v + w,     Coulomb's law (De Saxce) between u_j and r_j,
 *
 * the sign convention of FCLIB's `struct fclib_global` (fclib.h): M is the
 * n_dofs x n_dofs symmetric positive definite mass (or iteration) matrix, H the
 * n_dofs x m matrix whose columns map contact impulses to generalised forces,
 * f the n_dofs generalised forces (momentum) and w the m local velocity offsets.
 *
 * **Method** (docs/global_problems.md). M is factored once as P' M P = L D L'
 * by the library's own sparse LDL' with a reverse Cuthill–McKee ordering, or,
 * in a library built with the optional CHOLMOD (SuiteSparse), by CHOLMOD with
 * its AMD ordering when n_dofs >= 10000 (::NSCD_GFC3D_FACTOR_AUTO); the
 * problem is condensed to the local fc3d problem of fc3d.h,
 *
 *     W = H' M^-1 H,   q = H' M^-1 f + w,
 *
 * W is held as its non-zero 3x3 blocks (block CSR, exactly symmetric) and
 * solved by nscd_fc3d_solve_bsr() with the caller's fc3d options; then
 * v = M^-1 (H r + f) and u = H' v + w.
 *
 * **Size rule.** W is condensed one of two ways, whichever costs fewer
 * multiply-adds by a count made from the symbolic structure alone (integer
 * counts, so the choice never depends on round-off):
 * - sparse: W = Z' D^-1 Z with Z = L^-1 P' H, each column of Z by a sparse
 *   triangular solve along the elimination tree; cost about 2 sum_k c_k^2
 *   (c_k the non-zeros of row k of Z). This is the way for multibody problems
 *   (M block diagonal per body: no fill, W as sparse as the contact graph);
 * - dense: one full solve with L per column of H and W(:, c) = H' M^-1 h_c,
 *   symmetrised; cost about 3 nc (2 nnz(L) + 2 n_dofs + nnz(H)) + 9 nc^2 and
 *   9 nc^2 doubles of memory, so it is used only for nc <= 2048 contacts. This
 *   is the way when L fills in (finite-element M) and W is dense anyway.
 * The dense form nscd_fc3d_solve_dense() is never called: it would only
 * compress a dense copy to the same blocks (bitwise the same sweeps).
 *
 * **Convergence.** The result is that of the local solve: ::NSCD_OK only when
 * the fc3d merit of nscd_fc3d_solve_bsr() reached the tolerance.
 * The equilibrium residual ||M v - H r - f||_inf / (1 + ||f||_inf + ||H r||_inf)
 * of the returned v is reported in the info; it is round-off sized.
 */
#ifndef NSCD_GFC3D_H
#define NSCD_GFC3D_H

#include <stddef.h>
#include <stdint.h>

#include "nscd/export.h"
#include "nscd/fc3d.h"
#include "nscd/host.h"
#include "nscd/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Sparse factorisation of M. */
typedef enum nscd_gfc3d_factorization {
    /** The library's own sparse LDL' with reverse Cuthill–McKee ordering (always available). */
    NSCD_GFC3D_FACTOR_LDL = 0,
    /** CHOLMOD's simplicial LDL' with its fill-reducing ordering (AMD); only in a library
     *  built with CHOLMOD (SuiteSparse), else ::NSCD_ERR_UNSUPPORTED. Its work memory
     *  comes from malloc, not from the options' allocator. */
    NSCD_GFC3D_FACTOR_CHOLMOD = 1,
    /** CHOLMOD when the library has it and n_dofs >= 10000, else the own LDL'. */
    NSCD_GFC3D_FACTOR_AUTO = 2
} nscd_gfc3d_factorization;

/** How W = H' M^-1 H is formed (see the size rule in the file description). */
typedef enum nscd_gfc3d_condensation {
    NSCD_GFC3D_CONDENSE_AUTO = 0,   /**< The cheaper of the two by the size rule. */
    NSCD_GFC3D_CONDENSE_SPARSE = 1, /**< Z' D^-1 Z with Z = L^-1 P' H. */
    NSCD_GFC3D_CONDENSE_DENSE = 2   /**< Full solves per column of H (nc <= 2048). */
} nscd_gfc3d_condensation;

/** Options of nscd_gfc3d_solve(); fill with nscd_gfc3d_options_init(), then change fields. */
typedef struct nscd_gfc3d_options {
    /** sizeof(nscd_gfc3d_options), set by nscd_gfc3d_options_init(). */
    uint32_t struct_size;
    /** A ::nscd_gfc3d_factorization value. Default ::NSCD_GFC3D_FACTOR_AUTO. */
    int32_t factorization;
    /** M is refused as not positive definite (::NSCD_ERR_NOT_SPD) when a pivot of its
     *  LDL' factorisation is <= pivot_tolerance times M's largest diagonal entry;
     *  in [0, 1). Default 1e-14. */
    double pivot_tolerance;
    /** M must be symmetric: |M_ij - M_ji| <= symmetry_tolerance max|M| for all i, j,
     *  else ::NSCD_ERR_NOT_SPD; >= 0. Default 1e-12. */
    double symmetry_tolerance;
    /** Memory hooks for the factor and the work arrays; zero-filled means malloc/free. */
    nscd_allocator allocator;
    /** A ::nscd_gfc3d_condensation value. Default ::NSCD_GFC3D_CONDENSE_AUTO;
     *  ::NSCD_GFC3D_CONDENSE_DENSE with more than 2048 contacts: ::NSCD_ERR_OUT_OF_RANGE. */
    int32_t condensation;
} nscd_gfc3d_options;

/** What a global solve did. Set struct_size = sizeof(nscd_gfc3d_info) before the call;
 *  the solver writes only that many bytes. */
typedef struct nscd_gfc3d_info {
    /** sizeof(nscd_gfc3d_info), set by the caller. */
    uint32_t struct_size;
    /** The ::nscd_gfc3d_factorization used. */
    int32_t factorization;
    /** Entries of the factor L below its diagonal (the fill measure). */
    int64_t factor_nnz;
    /** Stored 3x3 blocks of the condensed W = H' M^-1 H. */
    int64_t w_blocks;
    /** Sweeps of the local fc3d solve (nscd_fc3d_info::iterations). */
    int32_t iterations;
    /** 1 when the local solve converged, else 0. */
    int32_t converged;
    /** Merit of the local fc3d solve (see fc3d.h). */
    double merit;
    /** ||M v - H r - f||_inf / (1 + ||f||_inf + ||H r||_inf) of the returned v and r. */
    double equilibrium_residual;
    /** Block solves of the local solve that failed (nscd_fc3d_info::local_failures). */
    int32_t local_failures;
    /** 1 when W was condensed by full solves per column of H (the dense way of the
     *  size rule), 0 by the sparse product Z' D^-1 Z. */
    int32_t dense_condensation;
} nscd_gfc3d_info;

/**
 * @brief Fills options with the defaults (automatic factorisation, pivot tolerance 1e-14,
 *        symmetry tolerance 1e-12, malloc/free).
 * @param opts        Options to fill.
 * @param struct_size sizeof(nscd_gfc3d_options) as the caller knows it.
 * @return ::NSCD_OK, ::NSCD_ERR_NULL_POINTER or ::NSCD_ERR_STRUCT_SIZE.
 */
NSCD_API nscd_status nscd_gfc3d_options_init(nscd_gfc3d_options *opts, size_t struct_size);

/**
 * @brief Solves a global friction-contact problem M v = H r + f, u = H' v + w, Coulomb.
 *
 * Matrices are in compressed sparse column (CSC) form, 0-based: column c holds
 * the entries row_idx[col_ptr[c] .. col_ptr[c+1]-1] with values
 * values[col_ptr[c] ..], row indices strictly ascending in each column (no
 * duplicates), col_ptr[0] = 0. M is stored with both triangles.
 * @param n_dofs     Size of M, 1 <= n_dofs <= 2^26.
 * @param n_contacts Number of contacts, 1 <= n_contacts <= 2^24; H has 3 n_contacts columns.
 * @param M_col_ptr  n_dofs + 1 column offsets of M.
 * @param M_row_idx  Row indices of M, in [0, n_dofs).
 * @param M_values   Values of M (symmetric positive definite).
 * @param H_col_ptr  3 n_contacts + 1 column offsets of H.
 * @param H_row_idx  Row indices of H, in [0, n_dofs).
 * @param H_values   Values of H.
 * @param f          n_dofs generalised forces.
 * @param w          3 n_contacts local velocity offsets.
 * @param mu         n_contacts friction coefficients, >= 0.
 * @param opts       Options, or NULL for the defaults of nscd_gfc3d_options_init().
 * @param local_opts Options of the local fc3d solve (friction law, tolerance, sweeps,
 *                   warm start, ...), or NULL for the defaults of nscd_fc3d_options_init().
 *                   Its allocator is used by the local solve.
 * @param v          Receives n_dofs velocities.
 * @param r          3 n_contacts impulses; in: the initial guess of the local solve
 *                   (ignored when its warm_start = 0), out: the solution or, on
 *                   ::NSCD_ERR_NOT_CONVERGED, the last iterate.
 * @param u          Receives H' v + w (3 n_contacts values).
 * @param info       Receives what happened, or NULL. Filled also on ::NSCD_ERR_NOT_CONVERGED.
 * @return ::NSCD_OK when the local solve converged; ::NSCD_ERR_NOT_CONVERGED (v, r, u and
 *         info hold the last iterate); ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_INVALID_ARGUMENT
 *         (sizes out of range, a bad col_ptr, row indices not strictly ascending, bad
 *         enum); ::NSCD_ERR_INDEX (a row index out of range); ::NSCD_ERR_NOT_FINITE (NaN
 *         or infinity in M, H, f, w, mu, r when warm starting, or an option; also finite
 *         data so large that W, q or the result v, r, u overflows);
 *         ::NSCD_ERR_OUT_OF_RANGE (mu < 0, an option outside its range);
 *         ::NSCD_ERR_NOT_SPD (M not symmetric or not positive definite, or a diagonal
 *         block of W not positive definite: a contact that H does not reach);
 *         ::NSCD_ERR_UNSUPPORTED (::NSCD_GFC3D_FACTOR_CHOLMOD in a library without it);
 *         ::NSCD_ERR_STRUCT_SIZE; ::NSCD_ERR_OUT_OF_MEMORY. On these errors v, r, u and
 *         info are unchanged.
 */
NSCD_API nscd_status nscd_gfc3d_solve(int32_t n_dofs, int32_t n_contacts, const int32_t *M_col_ptr,
                                      const int32_t *M_row_idx, const double *M_values,
                                      const int32_t *H_col_ptr, const int32_t *H_row_idx,
                                      const double *H_values, const double *f, const double *w,
                                      const double *mu, const nscd_gfc3d_options *opts,
                                      const nscd_fc3d_options *local_opts, double *v, double *r,
                                      double *u, nscd_gfc3d_info *info);

#ifdef __cplusplus
}
#endif

#endif /* NSCD_GFC3D_H */
