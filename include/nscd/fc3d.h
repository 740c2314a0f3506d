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
 * subdomains of the parallel solver), or (Coulomb only, since 0.2) a
 * semismooth Newton method on the Alart–Curnier function with a line search,
 * alone (::NSCD_FC3D_NEWTON) or after Gauss–Seidel stalls (::NSCD_FC3D_AUTO).
 * Newton uses W as given (no symmetry needed) and stops on the same merit.
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
 * **Diagonal blocks** (since 0.2). W_jj need not be symmetric: with
 * S = (W_jj + W_jj')/2, s = trace(W_jj)/3 and lambda the smallest eigenvalue of
 * S, a block is solved as given when lambda > 1e-8 s (Coulomb: the regimes with
 * W_jj itself; maximum dissipation: the variational inequality of the block,
 * (z - y)'(W_jj y + v_j) >= 0 over the block's feasible set, which is eq. (5)
 * for a symmetric block), by proximal steps with rho = 1e-6 s when
 * -1e-10 s <= lambda <= 1e-8 s (their fixed points are the block's solutions),
 * and refused otherwise (::nscd_fc3d_block_kind, nscd_fc3d_check_bsr()). See
 * docs/fc3d.md, "Non-symmetric and semi-definite diagonal blocks".
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
#include "nscd/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The friction law of every contact of an fc3d problem: ::nscd_friction_law
 * (nscd/types.h), whose fc3d names NSCD_FC3D_COULOMB and
 * NSCD_FC3D_MAX_DISSIPATION are those of 0.1. */

/** Sweep strategy over the contacts. */
typedef enum nscd_fc3d_method {
    NSCD_FC3D_GAUSS_SEIDEL = 0, /**< Nonlinear block Gauss–Seidel in contact order. */
    NSCD_FC3D_JACOBI_BLEND = 1, /**< Gauss–Seidel inside groups, weighted Jacobi between groups. */
    /** Semismooth Newton on the Alart–Curnier function with an Armijo line search
     *  (Coulomb law only; docs/fc3d.md "Newton"). max_iterations bounds the Newton
     *  steps. Since 0.2. */
    NSCD_FC3D_NEWTON = 2,
    /** Gauss–Seidel in windows of ::NSCD_FC3D_AUTO_WINDOW sweeps; when a window drops the
     *  merit by less than ::NSCD_FC3D_AUTO_FACTOR, Newton from the current iterate; back
     *  to Gauss–Seidel if Newton fails, and at later stalls the proximal loop of
     *  ::NSCD_FC3D_PROX (at most 3 phases; Newton steps in all <= max_iterations;
     *  docs/fc3d.md "AUTO"). Since 0.2. */
    NSCD_FC3D_AUTO = 3,
    /** Proximal-point outer loop around Newton (Coulomb law only; docs/fc3d.md "PROX"):
     *  outer step k solves the regularised problem (W + rho S, q - rho S r_k), S =
     *  diag(trace(W_jj)/3), by the Newton method of ::NSCD_FC3D_NEWTON, rho adapted from
     *  the merit's progress; stops on the merit of the problem as given. For rank-deficient
     *  W, where plain Newton wanders. max_iterations bounds the Newton steps in all.
     *  Since 0.2. */
    NSCD_FC3D_PROX = 4
} nscd_fc3d_method;

/** ::NSCD_FC3D_AUTO: Gauss–Seidel sweeps between two merit evaluations. */
#define NSCD_FC3D_AUTO_WINDOW 10
/** ::NSCD_FC3D_AUTO: switch to Newton when a window divides the merit by less than this. */
#define NSCD_FC3D_AUTO_FACTOR 2.0
/** ::NSCD_FC3D_NEWTON / ::NSCD_FC3D_AUTO: largest number of contacts Newton solves with a
 *  dense LU (a 3n x 3n matrix); larger problems need the optional UMFPACK component
 *  (NSCD_WITH_UMFPACK), else Newton returns ::NSCD_ERR_UNSUPPORTED. */
#define NSCD_FC3D_NEWTON_DENSE_MAX_CONTACTS 1365

/** Extrapolation of the sweeps (nscd_fc3d_options.acceleration). Since 0.2. */
typedef enum nscd_fc3d_acceleration {
    NSCD_FC3D_ACCEL_NONE = 0, /**< Plain sweeps: the sweep's result is the next iterate. */
    /** Anderson acceleration of the sweep map r -> T(r) with a safeguard: the next iterate
     *  combines the last anderson_memory + 1 sweeps so as to minimise the scaled
     *  fixed-point residual; an extrapolated iterate whose residual ||s (T(r) - r)|| exceeds
     *  the one of the iterate it came from is rejected for the plain sweep's result, and the
     *  history restarts (docs/fc3d.md "Acceleration"). After each sweep, when a few
     *  contacts hold the residual, they and their neighbours get 20 Gauss–Seidel sweeps
     *  of their own (docs/fc3d.md "Local sweeps"; nscd_fc3d_info.iterations counts the
     *  full sweeps only). Needs 2 anderson_memory + 3 more vectors of 3n doubles and
     *  2n int32. */
    NSCD_FC3D_ACCEL_ANDERSON = 1
} nscd_fc3d_acceleration;

/** ::NSCD_FC3D_ACCEL_ANDERSON: largest accepted nscd_fc3d_options.anderson_memory. */
#define NSCD_FC3D_ANDERSON_MAX_MEMORY 16

/** Why the Newton phase stopped without reaching the tolerance (nscd_fc3d_info.newton_failure). */
typedef enum nscd_fc3d_newton_failure {
    NSCD_FC3D_NEWTON_NO_FAILURE = 0,     /**< Converged, or Newton did not run. */
    NSCD_FC3D_NEWTON_MAX_ITERATIONS = 1, /**< max_iterations Newton steps did not reach it. */
    /** No step decreased the merit 0.5 ||Phi||^2, even with the largest regularisation. */
    NSCD_FC3D_NEWTON_LINE_SEARCH = 2,
    /** The (regularised) generalized Jacobian stayed singular. */
    NSCD_FC3D_NEWTON_SINGULAR = 3,
    NSCD_FC3D_NEWTON_NOT_FINITE = 4, /**< The iterate or the direction became NaN or infinite. */
    /** More contacts than NSCD_FC3D_NEWTON_DENSE_MAX_CONTACTS without UMFPACK. */
    NSCD_FC3D_NEWTON_TOO_LARGE = 5,
    /** The friction law is not Coulomb (maximum dissipation has no Newton solver). */
    NSCD_FC3D_NEWTON_UNSUPPORTED_LAW = 6
} nscd_fc3d_newton_failure;

/** Solver options; fill with nscd_fc3d_options_init(), then change fields. */
typedef struct nscd_fc3d_options {
    /** sizeof(nscd_fc3d_options), set by nscd_fc3d_options_init(). */
    uint32_t struct_size;
    /** A ::nscd_fc3d_friction_law value. Default ::NSCD_FC3D_COULOMB. */
    int32_t friction_law;
    /** Stop when the merit (see the file description) is <= tolerance; finite and > 0
     *  (NaN or infinity: ::NSCD_ERR_NOT_FINITE). Default 1e-10. */
    double tolerance;
    /** Largest number of sweeps (::NSCD_FC3D_NEWTON: of Newton steps), >= 1. Default 1000. */
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
    /** A ::nscd_fc3d_acceleration value: extrapolation of the sweeps of
     *  ::NSCD_FC3D_GAUSS_SEIDEL and ::NSCD_FC3D_JACOBI_BLEND (docs/fc3d.md "Acceleration").
     *  Default ::NSCD_FC3D_ACCEL_NONE. Since 0.2. */
    int32_t acceleration;
    /** ::NSCD_FC3D_ACCEL_ANDERSON: number of previous sweeps combined, 1 to
     *  ::NSCD_FC3D_ANDERSON_MAX_MEMORY. Default 5. Since 0.2. */
    int32_t anderson_memory;
} nscd_fc3d_options;

/** What a solve did. Set struct_size = sizeof(nscd_fc3d_info) before the call; the
 *  solver writes only that many bytes. */
typedef struct nscd_fc3d_info {
    /** sizeof(nscd_fc3d_info), set by the caller. */
    uint32_t struct_size;
    /** Number of Gauss–Seidel / Jacobi sweeps done (0 for ::NSCD_FC3D_NEWTON). */
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
    /** Newton steps done (::NSCD_FC3D_NEWTON, ::NSCD_FC3D_AUTO; else 0). Since 0.2. */
    int32_t newton_iterations;
    /** A ::nscd_fc3d_newton_failure value: why the last Newton phase stopped short of the
     *  tolerance, ::NSCD_FC3D_NEWTON_NO_FAILURE when it converged or did not run. Since 0.2. */
    int32_t newton_failure;
} nscd_fc3d_info;

/**
 * @brief Fills options with the defaults (Coulomb, Gauss–Seidel, tolerance 1e-10,
 *        1000 sweeps, relaxation 1, warm start).
 * @param opts        Options to fill.
 * @param struct_size sizeof(nscd_fc3d_options) as the caller knows it (any size from
 *                    release 0.1 on; exactly that many bytes are written).
 * @return ::NSCD_OK, ::NSCD_ERR_NULL_POINTER or ::NSCD_ERR_STRUCT_SIZE.
 */
NSCD_API nscd_status nscd_fc3d_options_init(nscd_fc3d_options *opts, size_t struct_size);

/**
 * @brief Solves an fc3d problem with a dense Delassus matrix.
 *
 * The dense matrix is compressed to its non-zero 3x3 blocks and solved by the
 * same sweeps as nscd_fc3d_solve_bsr().
 * @param n_contacts Number of contacts, 1 <= n <= 16384.
 * @param W    3n x 3n Delassus matrix, row-major. Its diagonal blocks W_jj need not be
 *             symmetric: each is classified (::nscd_fc3d_block_kind) and solved as
 *             given when its symmetric part is positive definite relative to its scale,
 *             by proximal steps when it is positive semi-definite (since 0.2; before,
 *             symmetry to 1e-10 and definiteness were required).
 * @param q    3n free velocities.
 * @param mu   n friction coefficients, >= 0.
 * @param opts Options, or NULL for the defaults of nscd_fc3d_options_init().
 * @param r    3n impulses; in: the initial guess (ignored when warm_start = 0),
 *             out: the solution, or the last iterate on ::NSCD_ERR_NOT_CONVERGED.
 * @param u    Receives W r + q for the returned r (3n values).
 * @param info Receives what happened, or NULL. Filled also on ::NSCD_ERR_NOT_CONVERGED.
 * @return ::NSCD_OK when the merit reached the tolerance; ::NSCD_ERR_NOT_CONVERGED
 *         when max_iterations sweeps (Newton: steps) did not reach it, or when
 *         Newton stopped early (info.newton_failure says why; r, u, info hold the
 *         last iterate); ::NSCD_ERR_UNSUPPORTED (::NSCD_FC3D_NEWTON with the
 *         maximum-dissipation law, or with more than
 *         NSCD_FC3D_NEWTON_DENSE_MAX_CONTACTS contacts in a build without
 *         UMFPACK); ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_INVALID_ARGUMENT (n <= 0,
 *         n > 16384, bad enum, among them acceleration), checked before any array is read;
 *         ::NSCD_ERR_NOT_FINITE (NaN or infinity in W, q, mu, in r when warm
 *         starting, or in a real option: tolerance, relaxation, jacobi_weight);
 *         ::NSCD_ERR_OUT_OF_RANGE (finite values outside their range: mu < 0,
 *         tolerance <= 0, max_iterations < 1, relaxation or jacobi_weight
 *         outside (0,1], jacobi_groups < 1, anderson_memory outside
 *         [1, NSCD_FC3D_ANDERSON_MAX_MEMORY]); ::NSCD_ERR_NOT_SPD (a refused diagonal
 *         block: zero or negative trace, or an indefinite symmetric part;
 *         nscd_fc3d_check_dense() names it); ::NSCD_ERR_STRUCT_SIZE;
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
 * @return As nscd_fc3d_solve_dense() (with n > 2^26 for ::NSCD_ERR_INVALID_ARGUMENT),
 *         and ::NSCD_ERR_INDEX for a column index out of range,
 *         ::NSCD_ERR_INVALID_ARGUMENT for a bad row_ptr or a row without (or with two)
 *         diagonal blocks.
 */
NSCD_API nscd_status nscd_fc3d_solve_bsr(int32_t n_contacts, const int32_t *row_ptr,
                                         const int32_t *col_idx, const double *blocks,
                                         const double *q, const double *mu,
                                         const nscd_fc3d_options *opts, double *r, double *u,
                                         nscd_fc3d_info *info);

/** Class of a diagonal block W_jj (nscd_fc3d_check_bsr(), docs/fc3d.md "Non-symmetric and
 *  semi-definite diagonal blocks"). With S = (W_jj + W_jj')/2, s = trace(W_jj)/3 and
 *  lambda_min the smallest eigenvalue of S. Since 0.2. */
typedef enum nscd_fc3d_block_kind {
    /** lambda_min > 1e-8 s: solved as given, symmetric or not. */
    NSCD_FC3D_BLOCK_REGULAR = 0,
    /** -1e-10 s <= lambda_min <= 1e-8 s (e.g. redundant contacts): solved by proximal steps
     *  with rho = 1e-6 s, whose fixed points are the solutions of the block as given. */
    NSCD_FC3D_BLOCK_SEMIDEFINITE = 1,
    /** Refused: a NaN or infinite entry (::NSCD_ERR_NOT_FINITE). */
    NSCD_FC3D_BLOCK_NOT_FINITE = 2,
    /** Refused: s <= 0, a zero or negative block (::NSCD_ERR_NOT_SPD). */
    NSCD_FC3D_BLOCK_NOT_POSITIVE = 3,
    /** Refused: lambda_min < -1e-10 s, the symmetric part is indefinite (::NSCD_ERR_NOT_SPD). */
    NSCD_FC3D_BLOCK_INDEFINITE = 4
} nscd_fc3d_block_kind;

/** What nscd_fc3d_check_bsr() / nscd_fc3d_check_dense() found. Set struct_size =
 *  sizeof(nscd_fc3d_block_report) before the call. Since 0.2. */
typedef struct nscd_fc3d_block_report {
    /** sizeof(nscd_fc3d_block_report), set by the caller. */
    uint32_t struct_size;
    /** Diagonal blocks classified ::NSCD_FC3D_BLOCK_REGULAR. */
    int32_t n_regular;
    /** Diagonal blocks classified ::NSCD_FC3D_BLOCK_SEMIDEFINITE. */
    int32_t n_semidefinite;
    /** Index of the first refused diagonal block (the one a solve reports), or -1. */
    int32_t refused_block;
    /** Its ::nscd_fc3d_block_kind (::NSCD_FC3D_BLOCK_REGULAR when none is refused). */
    int32_t refused_kind;
    /** Largest relative asymmetry max_ab |W_jj,ab - W_jj,ba| / s_j over the finite blocks
     *  of positive trace (0 when there is none). */
    double max_asymmetry;
    /** Smallest lambda_min(S_j) / s_j over the same blocks (+infinity when there is none). */
    double min_eigenvalue;
    /** One line for a person: the first refused block, its index and the reason
     *  ("diagonal block 7 refused: its symmetric part is indefinite (...)"), or the counts. */
    char message[160];
} nscd_fc3d_block_report;

/**
 * @brief Classifies the diagonal blocks of a block-CSR Delassus matrix as the solvers do.
 *
 * The same classification nscd_fc3d_solve_bsr() applies before solving: it refuses the
 * problem with the status returned here. Off-diagonal blocks are checked for NaN or
 * infinity only.
 * @param n_contacts Number of contacts, 1 <= n <= 2^26.
 * @param row_ptr, col_idx, blocks The matrix, as for nscd_fc3d_solve_bsr().
 * @param report  Receives the classification, or NULL.
 * @return ::NSCD_OK (every diagonal block regular or semi-definite);
 *         ::NSCD_ERR_NOT_FINITE (NaN or infinity in a block); ::NSCD_ERR_NOT_SPD (a
 *         refused diagonal block: report names it); ::NSCD_ERR_NULL_POINTER;
 *         ::NSCD_ERR_INVALID_ARGUMENT, ::NSCD_ERR_INDEX (bad n or structure, as the solver);
 *         ::NSCD_ERR_STRUCT_SIZE; ::NSCD_ERR_OUT_OF_MEMORY. The report is written for
 *         ::NSCD_OK, ::NSCD_ERR_NOT_FINITE and ::NSCD_ERR_NOT_SPD only. Since 0.2.
 */
NSCD_API nscd_status nscd_fc3d_check_bsr(int32_t n_contacts, const int32_t *row_ptr,
                                         const int32_t *col_idx, const double *blocks,
                                         nscd_fc3d_block_report *report);

/**
 * @brief Classifies the diagonal blocks of a dense Delassus matrix as the solvers do.
 * @param n_contacts Number of contacts, 1 <= n <= 16384.
 * @param W    3n x 3n matrix, row-major.
 * @param report Receives the classification, or NULL.
 * @return As nscd_fc3d_check_bsr() (NaN or infinity anywhere in W: ::NSCD_ERR_NOT_FINITE).
 *         Since 0.2.
 */
NSCD_API nscd_status nscd_fc3d_check_dense(int32_t n_contacts, const double *W,
                                           nscd_fc3d_block_report *report);

#ifdef __cplusplus
}
#endif

#endif /* NSCD_FC3D_H */
