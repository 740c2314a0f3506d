/**
 * @file fclib.h
 * @brief FCLIB problem files (HDF5) in and out: the optional companion library
 *        `libnscd_fclib`.
 *
 * FCLIB is the exchange format of the Siconos / FCLIB friction-contact
 * benchmark collection. A *local* FCLIB problem is the fc3d problem of
 * nscd_fc3d_solve_bsr(): find r, u with u = W r + q, r_j in the friction cone
 * of contact j and Coulomb's law in De Saxce's form (FCLIB and nscd use the
 * same convention: 3 rows per contact, normal first, then the two tangents,
 * u_n > 0 separates). Files are read and written through libfclib, the
 * format's reference implementation; this library never writes HDF5 by hand.
 *
 * These functions live in `libnscd_fclib` (pkg-config `nscd_fclib`, CMake
 * `nscd::nscd_fclib` through `find_package(nscd COMPONENTS fclib)`), built only
 * when libfclib and HDF5 are found; `libnscd` itself never depends on them.
 *
 * A problem is an opaque handle holding W in canonical 3x3 block CSR form
 * (each block row's blocks in ascending column order, no block twice), q, mu
 * and optionally a solution (r, u). Read a file into it, or set it from dense
 * or block arrays, then get the arrays back, solve them with
 * nscd_fc3d_solve_bsr(), or write them to a file.
 *
 * What is read and written (see docs/fclib.md): the `/fclib_local` group with
 * `spacedim` (3), `W` (CSC, CSR or triplet; written as CSC), `vectors/q`,
 * `vectors/mu`, and the `/solution` group with `u` and `r`. Mixed problems
 * (V, R, s), two-dimensional problems and global problems are refused by
 * nscd_fclib_read() with ::NSCD_ERR_UNSUPPORTED; guesses and info strings are
 * not read. Global problems (M, H, f, w, mu: the problem of gfc3d.h) have
 * their own handle, ::nscd_fclib_global (see the end of this file and
 * docs/global_problems.md).
 *
 * libfclib ends the process (`exit(1)`) when an HDF5 call fails half-way
 * through a read, so every file is first checked with the HDF5 API (groups,
 * datasets, element types and sizes): a malformed file is refused with
 * ::NSCD_ERR_IO and a message before libfclib opens it. HDF5's automatic
 * error printing is switched off during each call and restored after it. Not
 * thread-safe: HDF5 serial builds are not, so use one thread for FCLIB files.
 *
 * Every function returns an ::nscd_status; on failure it changes nothing and
 * nscd_fclib_problem_last_error() says why.
 */
#ifndef NSCD_FCLIB_H
#define NSCD_FCLIB_H

#include <stdint.h>

#include "nscd/export.h"
#include "nscd/host.h"
#include "nscd/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** An fc3d problem (W, q, mu) with an optional solution (r, u); opaque. */
typedef struct nscd_fclib_problem nscd_fclib_problem;

/**
 * @brief Creates an empty problem (no contacts).
 * @param allocator Memory hooks for the handle and its arrays, or NULL for malloc/free.
 *                  Copied; either both hooks are set or neither.
 * @param problem   Receives the handle.
 * @return ::NSCD_OK, ::NSCD_ERR_NULL_POINTER, ::NSCD_ERR_INVALID_ARGUMENT (one hook
 *         without the other) or ::NSCD_ERR_OUT_OF_MEMORY.
 */
NSCD_API nscd_status nscd_fclib_problem_create(const nscd_allocator *allocator,
                                               nscd_fclib_problem **problem);

/**
 * @brief Frees a problem and its arrays.
 * @param problem The problem, or NULL (ignored).
 */
NSCD_API void nscd_fclib_problem_destroy(nscd_fclib_problem *problem);

/**
 * @brief The message of the latest failing call on the handle.
 * @param problem The problem, or NULL.
 * @return "" after a success; a string owned by the handle, valid until the next call on it.
 */
NSCD_API const char *nscd_fclib_problem_last_error(const nscd_fclib_problem *problem);

/**
 * @brief Reads the local problem of an FCLIB file, and its solution when the file has one.
 *
 * W may be stored as CSC, CSR or triplet (duplicate triplet entries are summed);
 * it must be square with 3 n rows. The arrays replace those of the handle.
 * @param problem The problem.
 * @param path    File name.
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_IO (missing or unreadable file,
 *         not HDF5, no `/fclib_local`, a missing dataset, a size or index that does not
 *         match, NaN or infinity, mu < 0, more than 2^26 contacts);
 *         ::NSCD_ERR_UNSUPPORTED (spacedim 2, a mixed problem with V and R);
 *         ::NSCD_ERR_OUT_OF_MEMORY.
 */
NSCD_API nscd_status nscd_fclib_read(nscd_fclib_problem *problem, const char *path);

/**
 * @brief Writes the problem (and its solution, if set) as an FCLIB local problem.
 *
 * W is written as a CSC matrix holding every entry of every stored 3x3 block,
 * spacedim = 3, no V, R, s or info. The file is written under a temporary name
 * in the same directory and then renamed to `path`, replacing a file of that name.
 * @param problem The problem, with at least one contact.
 * @param path    File name.
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_STATE (no contacts);
 *         ::NSCD_ERR_IO (the directory is not writable, libfclib failed);
 *         ::NSCD_ERR_OUT_OF_MEMORY.
 */
NSCD_API nscd_status nscd_fclib_write(nscd_fclib_problem *problem, const char *path);

/**
 * @brief Sets W from a dense matrix, with q and mu; drops any solution.
 *
 * W is stored as its 3x3 blocks that hold a bit pattern other than +0.0 (so a
 * -0.0 survives a round trip), and every diagonal block.
 * @param problem    The problem.
 * @param n_contacts Number of contacts, 1 <= n <= 16384.
 * @param W          3n x 3n, row-major.
 * @param q          3n values.
 * @param mu         n friction coefficients, >= 0.
 * @return ::NSCD_OK, ::NSCD_ERR_NULL_POINTER, ::NSCD_ERR_INVALID_ARGUMENT (n out of
 *         range), ::NSCD_ERR_NOT_FINITE, ::NSCD_ERR_OUT_OF_RANGE (mu < 0),
 *         ::NSCD_ERR_OUT_OF_MEMORY.
 */
NSCD_API nscd_status nscd_fclib_problem_set_dense(nscd_fclib_problem *problem, int32_t n_contacts,
                                                  const double *W, const double *q,
                                                  const double *mu);

/**
 * @brief Sets W from 3x3 block CSR arrays (the form of nscd_fc3d_solve_bsr()), with
 *        q and mu; drops any solution.
 *
 * Each row's blocks may come in any order; they are stored in ascending column order.
 * @param problem    The problem.
 * @param n_contacts Number of contacts, 1 <= n <= 2^26.
 * @param row_ptr    n + 1 offsets, row_ptr[0] = 0, non-decreasing.
 * @param col_idx    row_ptr[n] block columns in [0, n), no column twice in a row.
 * @param blocks     9 row_ptr[n] values, block b row-major at blocks[9 b].
 * @param q          3n values.
 * @param mu         n friction coefficients, >= 0.
 * @return As nscd_fclib_problem_set_dense() (n up to 2^26), and ::NSCD_ERR_INDEX for a
 *         column out of range, ::NSCD_ERR_INVALID_ARGUMENT for a bad row_ptr or a
 *         column twice in a row.
 */
NSCD_API nscd_status nscd_fclib_problem_set_bsr(nscd_fclib_problem *problem, int32_t n_contacts,
                                                const int32_t *row_ptr, const int32_t *col_idx,
                                                const double *blocks, const double *q,
                                                const double *mu);

/**
 * @brief Sets the solution written with the problem, or drops it (r = u = NULL).
 * @param problem The problem, with at least one contact.
 * @param r       3n impulses, or NULL together with u.
 * @param u       3n velocities (FCLIB stores u = W r + q), or NULL together with r.
 * @return ::NSCD_OK, ::NSCD_ERR_NULL_POINTER (only one of r, u), ::NSCD_ERR_STATE (no
 *         contacts), ::NSCD_ERR_NOT_FINITE, ::NSCD_ERR_OUT_OF_MEMORY.
 */
NSCD_API nscd_status nscd_fclib_problem_set_solution(nscd_fclib_problem *problem, const double *r,
                                                     const double *u);

/**
 * @brief Sizes of the problem, to size the arrays of the getters.
 * @param problem      The problem.
 * @param n_contacts   Receives n (0 for an empty problem), or NULL.
 * @param n_blocks     Receives the number of stored 3x3 blocks of W, or NULL.
 * @param has_solution Receives 1 when a solution is held, else 0, or NULL.
 * @return ::NSCD_OK or ::NSCD_ERR_NULL_POINTER (problem NULL).
 */
NSCD_API nscd_status nscd_fclib_problem_get_sizes(const nscd_fclib_problem *problem,
                                                  int32_t *n_contacts, int32_t *n_blocks,
                                                  int32_t *has_solution);

/**
 * @brief Copies W as a dense matrix, q and mu (each output may be NULL to skip it).
 * @param problem The problem, with 1 <= n <= 16384 contacts.
 * @param W       Receives 3n x 3n values, row-major (entries of unstored blocks are +0.0).
 * @param q       Receives 3n values.
 * @param mu      Receives n values.
 * @return ::NSCD_OK, ::NSCD_ERR_NULL_POINTER (problem NULL), ::NSCD_ERR_STATE (no
 *         contacts), ::NSCD_ERR_INVALID_ARGUMENT (more than 16384 contacts).
 */
NSCD_API nscd_status nscd_fclib_problem_get_dense(nscd_fclib_problem *problem, double *W, double *q,
                                                  double *mu);

/**
 * @brief Copies W in 3x3 block CSR form (ascending columns), q and mu (each output
 *        may be NULL to skip it).
 * @param problem The problem, with at least one contact.
 * @param row_ptr Receives n + 1 offsets.
 * @param col_idx Receives n_blocks block columns.
 * @param blocks  Receives 9 n_blocks values.
 * @param q       Receives 3n values.
 * @param mu      Receives n values.
 * @return ::NSCD_OK, ::NSCD_ERR_NULL_POINTER (problem NULL), ::NSCD_ERR_STATE (no contacts).
 */
NSCD_API nscd_status nscd_fclib_problem_get_bsr(nscd_fclib_problem *problem, int32_t *row_ptr,
                                                int32_t *col_idx, double *blocks, double *q,
                                                double *mu);

/**
 * @brief Copies the solution held by the problem (each output may be NULL to skip it).
 * @param problem The problem.
 * @param r       Receives 3n impulses.
 * @param u       Receives 3n velocities.
 * @return ::NSCD_OK, ::NSCD_ERR_NULL_POINTER (problem NULL), ::NSCD_ERR_STATE (no solution).
 */
NSCD_API nscd_status nscd_fclib_problem_get_solution(nscd_fclib_problem *problem, double *r,
                                                     double *u);

/**
 * @brief libfclib's own merit of impulses r for this problem: `fclib_merit_local`
 *        with MERIT_1, computed by libfclib, not by nscd.
 *
 * With û_j = u_j + mu_j ||u_j,t|| e_n and u = W r + q, MERIT_1 is
 * sqrt(sum_j ||r_j - P_K(r_j - û_j)||^2) / (1 + sqrt(||q||_2)), the natural map of
 * Coulomb's law in De Saxce's form (P_K: projection onto the friction cone).
 * Zero exactly at a Coulomb solution; it also measures a maximum-dissipation
 * result against Coulomb's law.
 * @param problem The problem, with at least one contact.
 * @param r       3n impulses.
 * @param merit   Receives the merit.
 * @return ::NSCD_OK, ::NSCD_ERR_NULL_POINTER, ::NSCD_ERR_STATE (no contacts),
 *         ::NSCD_ERR_NOT_FINITE (r), ::NSCD_ERR_OUT_OF_MEMORY.
 */
NSCD_API nscd_status nscd_fclib_problem_merit(nscd_fclib_problem *problem, const double *r,
                                              double *merit);

/** A global FCLIB problem (M, H, f, w, mu; the problem of nscd_gfc3d_solve()) with an
 *  optional solution (v, r, u); opaque. M and H are held in canonical CSC form
 *  (0-based, rows strictly ascending in each column). */
typedef struct nscd_fclib_global nscd_fclib_global;

/**
 * @brief Creates an empty global problem.
 * @param allocator Memory hooks, or NULL for malloc/free; both hooks or neither.
 * @param global    Receives the handle.
 * @return ::NSCD_OK, ::NSCD_ERR_NULL_POINTER, ::NSCD_ERR_INVALID_ARGUMENT (one hook
 *         without the other) or ::NSCD_ERR_OUT_OF_MEMORY.
 */
NSCD_API nscd_status nscd_fclib_global_create(const nscd_allocator *allocator,
                                              nscd_fclib_global **global);

/**
 * @brief Frees a global problem and its arrays.
 * @param global The problem, or NULL (ignored).
 */
NSCD_API void nscd_fclib_global_destroy(nscd_fclib_global *global);

/**
 * @brief The message of the latest failing call on the handle.
 * @param global The problem, or NULL.
 * @return "" after a success; a string owned by the handle, valid until the next call on it.
 */
NSCD_API const char *nscd_fclib_global_last_error(const nscd_fclib_global *global);

/**
 * @brief Reads the `/fclib_global` problem of an FCLIB file, and its `/solution`
 *        (v, u, r) when present.
 *
 * Read with the HDF5 API (not libfclib, which ends the process on a damaged
 * file) after the same checks as nscd_fclib_read(): every dataset must exist
 * with the right element class, a count that matches the sizes m, n, nz, nzmax
 * and fits in the file, and every element must read. M and H may be CSC, CSR or
 * triplet (duplicates summed); they are converted to canonical CSC. Nothing is
 * allocated from a size the file's length does not bound.
 * @param global The problem; its arrays are replaced only on success.
 * @param path   File name.
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_IO (missing, unreadable or
 *         damaged file, no `/fclib_global`, M not square, H without M's rows or with a
 *         column count that is not a multiple of 3, an index out of range, NaN or
 *         infinity, mu < 0, more than 2^26 dofs or 2^24 contacts, an incomplete
 *         solution); ::NSCD_ERR_UNSUPPORTED (spacedim 2, equality constraints G, b);
 *         ::NSCD_ERR_OUT_OF_MEMORY.
 */
NSCD_API nscd_status nscd_fclib_read_global(nscd_fclib_global *global, const char *path);

/**
 * @brief Writes the problem (and its solution, if set) as an FCLIB global problem,
 *        through libfclib: M and H as CSC, spacedim 3, no G, b or info.
 *
 * Written under a temporary name in the same directory, then renamed to `path`.
 * @param global The problem, not empty.
 * @param path   File name.
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_STATE (empty); ::NSCD_ERR_IO.
 */
NSCD_API nscd_status nscd_fclib_write_global(nscd_fclib_global *global, const char *path);

/**
 * @brief Sets the problem from CSC arrays (the arguments of nscd_gfc3d_solve());
 *        drops any solution.
 * @param global     The problem.
 * @param n_dofs     Size of M, 1 <= n_dofs <= 2^26.
 * @param n_contacts Contacts, 1 <= n_contacts <= 2^24; H has 3 n_contacts columns.
 * @param M_col_ptr  n_dofs + 1 offsets; M_row_idx, M_values: M_col_ptr[n_dofs] entries.
 * @param M_row_idx  Row indices in [0, n_dofs), strictly ascending in each column.
 * @param M_values   Values of M.
 * @param H_col_ptr  3 n_contacts + 1 offsets.
 * @param H_row_idx  Row indices in [0, n_dofs), strictly ascending in each column.
 * @param H_values   Values of H.
 * @param f          n_dofs values.
 * @param w          3 n_contacts values.
 * @param mu         n_contacts friction coefficients, >= 0.
 * @return ::NSCD_OK, ::NSCD_ERR_NULL_POINTER, ::NSCD_ERR_INVALID_ARGUMENT (sizes, a bad
 *         col_ptr, rows not ascending), ::NSCD_ERR_INDEX, ::NSCD_ERR_NOT_FINITE,
 *         ::NSCD_ERR_OUT_OF_RANGE (mu < 0), ::NSCD_ERR_OUT_OF_MEMORY.
 */
NSCD_API nscd_status nscd_fclib_global_set(nscd_fclib_global *global, int32_t n_dofs,
                                           int32_t n_contacts, const int32_t *M_col_ptr,
                                           const int32_t *M_row_idx, const double *M_values,
                                           const int32_t *H_col_ptr, const int32_t *H_row_idx,
                                           const double *H_values, const double *f, const double *w,
                                           const double *mu);

/**
 * @brief Sets the solution written with the problem (all three arrays), or drops it
 *        (all three NULL).
 * @param global The problem, not empty.
 * @param v      n_dofs velocities.
 * @param r      3 n_contacts impulses.
 * @param u      3 n_contacts local velocities (H' v + w).
 * @return ::NSCD_OK, ::NSCD_ERR_NULL_POINTER (some but not all NULL), ::NSCD_ERR_STATE
 *         (empty), ::NSCD_ERR_NOT_FINITE, ::NSCD_ERR_OUT_OF_MEMORY.
 */
NSCD_API nscd_status nscd_fclib_global_set_solution(nscd_fclib_global *global, const double *v,
                                                    const double *r, const double *u);

/**
 * @brief Sizes of the problem, to size the arrays of the getters (each output may be NULL).
 * @param global       The problem.
 * @param n_dofs       Receives n_dofs (0 when empty).
 * @param n_contacts   Receives n_contacts.
 * @param M_nnz        Receives the stored entries of M.
 * @param H_nnz        Receives the stored entries of H.
 * @param has_solution Receives 1 when a solution is held, else 0.
 * @return ::NSCD_OK or ::NSCD_ERR_NULL_POINTER (global NULL).
 */
NSCD_API nscd_status nscd_fclib_global_get_sizes(const nscd_fclib_global *global, int32_t *n_dofs,
                                                 int32_t *n_contacts, int32_t *M_nnz,
                                                 int32_t *H_nnz, int32_t *has_solution);

/**
 * @brief Copies M, H (canonical CSC), f, w and mu (each output may be NULL to skip it).
 * @param global    The problem, not empty.
 * @param M_col_ptr Receives n_dofs + 1 offsets.
 * @param M_row_idx Receives M_nnz row indices.
 * @param M_values  Receives M_nnz values.
 * @param H_col_ptr Receives 3 n_contacts + 1 offsets.
 * @param H_row_idx Receives H_nnz row indices.
 * @param H_values  Receives H_nnz values.
 * @param f         Receives n_dofs values.
 * @param w         Receives 3 n_contacts values.
 * @param mu        Receives n_contacts values.
 * @return ::NSCD_OK, ::NSCD_ERR_NULL_POINTER (global NULL), ::NSCD_ERR_STATE (empty).
 */
NSCD_API nscd_status nscd_fclib_global_get(nscd_fclib_global *global, int32_t *M_col_ptr,
                                           int32_t *M_row_idx, double *M_values, int32_t *H_col_ptr,
                                           int32_t *H_row_idx, double *H_values, double *f,
                                           double *w, double *mu);

/**
 * @brief Copies the solution held (each output may be NULL to skip it).
 * @param global The problem.
 * @param v      Receives n_dofs values.
 * @param r      Receives 3 n_contacts values.
 * @param u      Receives 3 n_contacts values.
 * @return ::NSCD_OK, ::NSCD_ERR_NULL_POINTER (global NULL), ::NSCD_ERR_STATE (no solution).
 */
NSCD_API nscd_status nscd_fclib_global_get_solution(nscd_fclib_global *global, double *v, double *r,
                                                    double *u);

#ifdef __cplusplus
}
#endif

#endif /* NSCD_FCLIB_H */
