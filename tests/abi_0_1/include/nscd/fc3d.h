/**
 * @file fc3d.h
 * @brief Multi-contact 3D frictional contact problems (FCLIB/Siconos "fc3d").
 *
 * For `n` contacts, find impulses `r` and relative velocities `u` with
 *
 *     u = W r + q,    r_j in K_mu_j = { r : sqrt(r_t^2 + r_o^2) <= mu_j r_n },
 *
 * 3 rows per contact in the local frame (normal first, then the two tangents;
 * u_n > 0 separates), W = H M^-1 H' the Delassus matrix, and one of two
 * friction laws per contact j:
 *
 * - ::NSCD_FC3D_COULOMB: Coulomb's law in De Saxce's form with the modified
 *   velocity  u~_j = u_j + mu_j ||u_j,t|| e_n:  K_mu_j  ∋ r_j  ⊥  u~_j ∈ K_mu_j^*
 *   (take-off r_j = 0 with u_j,n >= 0; sticking u_j = 0; sliding on the cone
 *   boundary with the friction impulse opposite to the slip).
 * - ::NSCD_FC3D_MAX_DISSIPATION: the maximum-dissipation law of eq. (5) of
 *   Preclik et al. (seed 002): given the other impulses, r_j minimises the
 *   kinetic energy  1/2 x' W_jj x + x' v_j  (v_j = q_j + sum_{k != j} W_jk r_k)
 *   over x in K_mu_j with u_j,n >= 0 ⊥ x_n >= 0 and (W_jj x)_n >= 0. Solved per
 *   contact by nscd_mdp_single_contact() with A = W_jj, b = -v_j.
 *
 * Method: the nonlinear block Gauss–Seidel of Sect. 3.1 (each 3x3 block is a
 * single-contact problem solved exactly), or the paper's blend of block
 * Gauss–Seidel inside contiguous groups of contacts with a weighted block
 * Jacobi between the groups (Sect. 5; the groups play the role of the
 * subdomains of the parallel solver).
 *
 * **Merit.** With the scale s_j = trace(W_jj)/3 (so that s_j r_j is a velocity)
 * and the residual vectors
 *
 * - Coulomb: e_j = s_j r_j - P_K(s_j r_j - u~_j), the natural map of De Saxce's
 *   complementarity function (P_K: Euclidean projection onto K_mu_j);
 * - maximum dissipation: e_j = s_j (r_j - S_j(r)), the fixed-point residual of
 *   the block map, S_j(r) the unique single-contact solution for v_j(r);
 *
 * the merit is  ||e||_2 / ||q||_2  (divided by 1 instead when q = 0). It is
 * invariant under a scaling of W (masses) and of q (velocities), and zero
 * exactly at a solution. The solver stops when the merit is <= tolerance.
 * Computing the merit costs about one sweep, so it is evaluated only when the
 * scaled size of the last sweep's update, ||s (r_new - r_old)|| / ||q||,
 * drops below the tolerance, and at the last allowed sweep.
 *
 * Determinism: results are bitwise reproducible; the dense and the BSR solver
 * give bitwise the same result when the BSR matrix holds exactly the non-zero
 * blocks of the dense one, each row's blocks in ascending column order.
 */
#ifndef NSCD_FC3D_H
#define NSCD_FC3D_H

#include <stddef.h>
#include <stdint.h>

#include "nscd/export.h"
#include "nscd/host.h"
#include "nscd/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Friction law of every contact of an fc3d problem. */
typedef enum nscd_fc3d_friction_law {
    NSCD_FC3D_COULOMB = 0,        /**< Coulomb with De Saxce's modified velocity. */
    NSCD_FC3D_MAX_DISSIPATION = 1 /**< Maximum dissipation, eq. (5) of seed 002. */
} nscd_fc3d_friction_law;

/** Sweep strategy over the contacts. */
typedef enum nscd_fc3d_method {
    NSCD_FC3D_GAUSS_SEIDEL = 0, /**< Nonlinear block Gauss–Seidel in contact order. */
    NSCD_FC3D_JACOBI_BLEND = 1 /**< Gauss–Seidel inside groups, weighted Jacobi between groups. */
} nscd_fc3d_method;

/** Solver options; fill with nscd_fc3d_options_init(), then change fields. */
typedef struct nscd_fc3d_options {
    /** sizeof(nscd_fc3d_options), set by nscd_fc3d_options_init(). */
    uint32_t struct_size;
    /** A ::nscd_fc3d_friction_law value. Default ::NSCD_FC3D_COULOMB. */
    int32_t friction_law;
    /** Stop when the merit (see the file description) is <= tolerance; > 0. Default 1e-10. */
    double tolerance;
    /** Largest number of sweeps, >= 1. Default 1000. */
    int32_t max_iterations;
    /** Under-relaxation of each block update, r_j += relaxation (S_j - r_j); in (0, 1]. Default 1.
     */
    double relaxation;
    /** A ::nscd_fc3d_method value. Default ::NSCD_FC3D_GAUSS_SEIDEL. */
    int32_t method;
    /** Jacobi blend: weight of the sweep's update, r += weight (r_sweep - r); in (0, 1]. Default
     * 0.5. */
    double jacobi_weight;
    /** Jacobi blend: number of contiguous contact groups (1 = Gauss–Seidel; values >= n_contacts
     *  give the pure weighted block Jacobi); >= 1. Default 8. */
    int32_t jacobi_groups;
    /** Non-zero: the r passed in is the initial guess; 0: start from r = 0. Default 1. */
    int32_t warm_start;
    /** Memory hooks for the solver's work arrays; zero-filled means malloc/free. */
    nscd_allocator allocator;
} nscd_fc3d_options;

/** What a solve did. Set struct_size = sizeof(nscd_fc3d_info) before the call. */
typedef struct nscd_fc3d_info {
    /** sizeof(nscd_fc3d_info), set by the caller. */
    uint32_t struct_size;
    /** Number of sweeps done. */
    int32_t iterations;
    /** Merit of the returned r (see the file description). */
    double merit;
    /** 1 when merit <= tolerance, else 0. */
    int32_t converged;
    /** How many times the merit was evaluated. */
    int32_t merit_evaluations;
    /** Scaled size of the last sweep's update, ||s (r_new - r_old)|| / ||q||. */
    double last_update;
    /** Block solves that failed (the block then kept its previous value). */
    int32_t local_failures;
} nscd_fc3d_info;

/**
 * @brief Fills options with the defaults (Coulomb, Gauss–Seidel, tolerance 1e-10,
 *        1000 sweeps, relaxation 1, warm start).
 * @param opts        Options to fill.
 * @param struct_size sizeof(nscd_fc3d_options) as the caller knows it.
 * @return ::NSCD_OK, ::NSCD_ERR_NULL_POINTER or ::NSCD_ERR_STRUCT_SIZE.
 */
NSCD_API nscd_status nscd_fc3d_options_init(nscd_fc3d_options *opts, size_t struct_size);

/**
 * @brief Solves an fc3d problem with a dense Delassus matrix.
 *
 * The dense matrix is compressed to its non-zero 3x3 blocks and solved by the
 * same sweeps as nscd_fc3d_solve_bsr().
 * @param n_contacts Number of contacts, 1 <= n <= 16384.
 * @param W    3n x 3n Delassus matrix, row-major; every diagonal block W_jj must be
 *             symmetric positive definite (non-symmetry up to 1e-10 relative is tolerated).
 * @param q    3n free velocities.
 * @param mu   n friction coefficients, >= 0.
 * @param opts Options, or NULL for the defaults of nscd_fc3d_options_init().
 * @param r    3n impulses; in: the initial guess (ignored when warm_start = 0),
 *             out: the solution, or the last iterate on ::NSCD_ERR_NOT_CONVERGED.
 * @param u    Receives W r + q for the returned r (3n values).
 * @param info Receives what happened, or NULL. Filled also on ::NSCD_ERR_NOT_CONVERGED.
 * @return ::NSCD_OK when the merit reached the tolerance; ::NSCD_ERR_NOT_CONVERGED
 *         when max_iterations sweeps did not reach it (r, u, info hold the last
 *         iterate); ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_INVALID_ARGUMENT (n <= 0,
 *         bad enum, n too large); ::NSCD_ERR_NOT_FINITE; ::NSCD_ERR_OUT_OF_RANGE
 *         (mu < 0, tolerance <= 0, max_iterations < 1, relaxation or jacobi_weight
 *         outside (0,1], jacobi_groups < 1); ::NSCD_ERR_NOT_SPD (a diagonal block
 *         is not symmetric positive definite); ::NSCD_ERR_STRUCT_SIZE;
 *         ::NSCD_ERR_OUT_OF_MEMORY. On these errors r, u and info are unchanged.
 */
NSCD_API nscd_status nscd_fc3d_solve_dense(int32_t n_contacts, const double *W, const double *q,
                                           const double *mu, const nscd_fc3d_options *opts,
                                           double *r, double *u, nscd_fc3d_info *info);

/**
 * @brief Solves an fc3d problem whose Delassus matrix is in 3x3 block CSR form.
 *
 * Row j of blocks holds the blocks W_jk for k = col_idx[row_ptr[j] .. row_ptr[j+1]-1],
 * block number b stored row-major at blocks[9 b .. 9 b + 8]. Every row must hold
 * its diagonal block exactly once; columns may come in any order (the sweeps use
 * the stored order) and W need not be stored symmetric-only: both W_jk and W_kj
 * are read. Cost per sweep: one block solve per contact plus one 3x3 product
 * per stored off-diagonal block.
 * @param n_contacts Number of contacts, 1 <= n <= 2^26.
 * @param row_ptr n + 1 offsets, row_ptr[0] = 0, non-decreasing.
 * @param col_idx row_ptr[n] block column indices in [0, n).
 * @param blocks  9 row_ptr[n] doubles.
 * @param q       3n free velocities.
 * @param mu      n friction coefficients, >= 0.
 * @param opts    Options, or NULL for the defaults.
 * @param r       3n impulses; in: initial guess (unless warm_start = 0), out: the solution
 *                or, on ::NSCD_ERR_NOT_CONVERGED, the last iterate.
 * @param u       Receives W r + q for the returned r.
 * @param info    Receives what happened, or NULL.
 * @return As nscd_fc3d_solve_dense(), and ::NSCD_ERR_INDEX for a column index out
 *         of range, ::NSCD_ERR_INVALID_ARGUMENT for a bad row_ptr or a row without
 *         (or with two) diagonal blocks.
 */
NSCD_API nscd_status nscd_fc3d_solve_bsr(int32_t n_contacts, const int32_t *row_ptr,
                                         const int32_t *col_idx, const double *blocks,
                                         const double *q, const double *mu,
                                         const nscd_fc3d_options *opts, double *r, double *u,
                                         nscd_fc3d_info *info);

#ifdef __cplusplus
}
#endif

#endif /* NSCD_FC3D_H */
