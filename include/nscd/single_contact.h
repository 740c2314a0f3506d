/**
 * @file single_contact.h
 * @brief Single frictional contact problems on a 3x3 Delassus block: the analytic
 *        maximum-dissipation solution (Preclik, Eibl, Rüde, Sect. 3.2) and the
 *        impulsive Coulomb law (one solution by Newton, or all of them).
 *
 * **Conventions** (those of the paper, Sect. 2 and 3.2). Everything is written in
 * the contact frame, normal first: a vector v is (v_n, v_t, v_o).
 * - `x` is the contact impulse (or the time-step integral of the contact force);
 * - `A` is the 3x3 Delassus block, symmetric positive definite, row-major;
 * - `u = A x - b` is the relative contact velocity after the impulse (paper eq. 4:
 *   the post-impact velocity is A Λ - b), so `-b` is the velocity the contact
 *   would have without any impulse. `u_n > 0` separates; `b_n > 0` means the
 *   contact is colliding, `b_n < 0` separating;
 * - the post-impact kinetic energy is, up to a constant, `1/2 x'A x - x'b`;
 * - the friction cone is `K_mu = { x : ||(x_t, x_o)|| <= mu x_n }`.
 *
 * In the FCLIB/Siconos notation `u = W r + q` of a multi-contact solver, the block
 * problem of contact j is A = W_jj and b = -(q_j + sum_{k != j} W_jk r_k).
 * The time-stepping variant of the paper (eq. 5) with a gap xi and step dt uses
 * b_n - xi/dt in place of b_n.
 *
 * All functions are pure: no handle, no allocation, no global state, thread safe.
 */
#ifndef NSCD_SINGLE_CONTACT_H
#define NSCD_SINGLE_CONTACT_H

#include <stddef.h>
#include <stdint.h>

#include "nscd/export.h"
#include "nscd/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Analytic maximum-dissipation impulse of one contact (paper Sect. 3.2, Fig. 5).
 *
 * Solves
 * \code
 *   minimise   1/2 x'A x - x'b
 *   subject to ||(x_t, x_o)|| <= mu x_n,
 *              a_n'x - b_n >= 0  complementary to  x_n >= 0,
 *              a_n'x >= 0                       (a_n = first row of A)
 * \endcode
 * which has a unique solution. Cases (structogram of Fig. 5): b_n < 0 gives x = 0;
 * mu = 0 gives (b_n/A_nn, 0, 0); the unconstrained minimum A^-1 b when it lies in the
 * cone (sticking); b_n = 0 with a degenerate ellipse (x = 0), parabola or hyperbola
 * (minimum on a ray, eq. 9); otherwise the minimum on the boundary of the conic
 * section (sliding): a stationary point of the objective along the boundary (eq. 8)
 * is found by Halley's method and accepted when a KKT certificate proves it global;
 * otherwise all roots of the quartic of eq. 8 are computed, filtered by feasibility
 * and objective value and polished by Newton's method. On a degenerate conic (a
 * hyperbola, or an ellipse with mu ||a|| > 0.9 A_nn) a candidate that is not
 * certified, or lies far out on the conic, is compared with a global search of the
 * objective along the boundary in a cancellation-free parametrisation (which resolves
 * the far parts of a hyperbola's branch, also for b_n as small as 1e-300). See
 * docs/mdp_single_contact.md.
 * The result satisfies u_n = 0 (to rounding) whenever x_n > 0.
 *
 * @param A  3x3 symmetric positive definite Delassus block, row-major, normal first.
 *           Symmetry is checked to a relative 1e-10; the symmetric part is used.
 * @param b  Right-hand side, see the file conventions (u = A x - b).
 * @param mu Friction coefficient, mu >= 0.
 * @param x  Receives the impulse (x_n, x_t, x_o).
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_NOT_FINITE (NaN or inf in
 *         A, b or mu); ::NSCD_ERR_OUT_OF_RANGE (mu < 0); ::NSCD_ERR_NOT_SPD (A not
 *         symmetric positive definite). On failure x is unchanged.
 */
NSCD_API nscd_status nscd_mdp_single_contact(const double A[9], const double b[3], double mu,
                                             double x[3]);

/** Options of nscd_coulomb_single_contact(); fill with nscd_coulomb_options_init(). */
typedef struct nscd_coulomb_options {
    uint32_t struct_size; /**< sizeof(nscd_coulomb_options), set by the init function. */
    double tolerance; /**< Relative residual to reach (see ::nscd_coulomb_info). Default 1e-12. */
    int32_t max_iterations;        /**< Newton iteration cap, >= 0. Default 50. */
    int32_t enumeration_safeguard; /**< Nonzero (default 1): when the damped Newton method stalls
                                        (line search fails, or 10 iterations without convergence),
                                        replace its iterate by the nearest solution listed by
                                        nscd_coulomb_single_contact_all(). */
} nscd_coulomb_options;

/** What nscd_coulomb_single_contact() did. */
typedef struct nscd_coulomb_info {
    int32_t iterations; /**< Newton iterations performed. */
    int32_t converged;  /**< 1 when the residual reached the tolerance, else 0. */
    double residual;    /**< Final relative residual: ||x - P_K(x - rho (u + mu ||u_to|| e_n))||
                             (De Saxcé natural map, rho = 1/A_nn) divided by
                             max(||b|| / A_nn, ||x||), or 0 when that scale is 0. Changed after 0.2
                             (issue 28); before, the scale was max(||A^-1 b||, ||x||), which can
                             exceed every solution by cond(A), so that a tolerance accepted
                             points far from a solution. The same tolerance is therefore
                             stricter now for ill-conditioned blocks. */
} nscd_coulomb_info;

/**
 * @brief Fills Coulomb solver options with their defaults.
 * @param opts        Options to fill.
 * @param struct_size sizeof(nscd_coulomb_options) as the caller sees it (any size from
 *                    release 0.1 on; exactly that many bytes are written).
 * @return ::NSCD_OK, ::NSCD_ERR_NULL_POINTER or ::NSCD_ERR_STRUCT_SIZE.
 */
NSCD_API nscd_status nscd_coulomb_options_init(nscd_coulomb_options *opts, size_t struct_size);

/**
 * @brief One solution of the impulsive Coulomb law of a single contact (paper Fig. 1).
 *
 * Finds x with u = A x - b such that
 * - x_n >= 0, u_n >= 0, x_n u_n = 0 (inelastic Signorini condition);
 * - ||x_to|| <= mu x_n, and ||u_to|| x_to = -mu x_n u_to (friction opposes slip),
 *
 * i.e. K_mu contains x, the dual cone contains u + mu ||u_to|| e_n, and they are
 * orthogonal (De Saxcé). Method: if b_n <= 0 the no-contact solution x = 0 is returned
 * (it is one); otherwise a damped nonsmooth Newton method on the Alart–Curnier
 * function (rho_n = 1/A_nn, rho_t = 2/(A_tt + A_oo), Armijo backtracking), started from
 * the maximum-dissipation impulse (which is the sticking solution whenever that
 * exists), with the enumeration as a safeguard when it stalls (see
 * ::nscd_coulomb_options). On a degenerate conic (mu ||(A_nt, A_no)|| > 0.9 A_nn, b_n > 0)
 * the residual is nearly flat along the conic, so with the safeguard on a converged
 * iterate whose residual is above 1e-14 is replaced by the nearest enumerated solution
 * when that one's residual is not larger. The iteration cap is honoured first: when it is reached
 * without convergence the function fails with ::NSCD_ERR_NOT_CONVERGED. The Coulomb problem may
 * have several solutions (see nscd_coulomb_single_contact_all()); this function returns one,
 * deterministically.
 *
 * @param A    3x3 symmetric positive definite Delassus block, row-major, normal first.
 * @param b    Right-hand side (u = A x - b).
 * @param mu   Friction coefficient, mu >= 0.
 * @param opts Options, or NULL for the defaults.
 * @param x    Receives the impulse; unchanged on any failure (also non-convergence).
 * @param info Receives iterations, residual and convergence flag; may be NULL. It is
 *             filled on success and on ::NSCD_ERR_NOT_CONVERGED.
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_NOT_FINITE;
 *         ::NSCD_ERR_OUT_OF_RANGE (mu < 0, tolerance < 0 or max_iterations < 0);
 *         ::NSCD_ERR_STRUCT_SIZE; ::NSCD_ERR_NOT_SPD; ::NSCD_ERR_NOT_CONVERGED.
 */
NSCD_API nscd_status nscd_coulomb_single_contact(const double A[9], const double b[3], double mu,
                                                 const nscd_coulomb_options *opts, double x[3],
                                                 nscd_coulomb_info *info);

/**
 * @brief All solutions of the impulsive Coulomb law of a single contact.
 *
 * Enumerates the no-contact solution (x = 0, valid when b_n <= 0), the sticking
 * solution (x = A^-1 b when it lies in the cone) and every sliding solution
 * (x_n > 0, u_n = 0, x_to = -mu x_n d with d = u_to/||u_to||). Sliding solutions are
 * found from the roots of a trigonometric polynomial of degree 2 in the angle of the
 * slip direction d (a quartic, as in Bonnefon and Daviet's polynomial approach); on a
 * degenerate conic (mu ||(A_nt, A_no)|| > 0.9 A_nn) also from the sign changes of that
 * polynomial on a grid of 256 slip angles. Each root is refined in the angle itself
 * and accepted when the sliding equations hold to rounding relative to the solution's
 * own terms; x_n is taken from the better conditioned of u_n = 0 and u_to parallel to d
 * (so solutions next to the cone's boundary, where x_n = b_n / D blows up, and at
 * b_n as small as 1e-300 are found). Solutions are listed in that order (no contact,
 * stick, sliding by increasing objective 1/2 x'Ax - x'b).
 *
 * @param A             3x3 symmetric positive definite Delassus block, row-major.
 * @param b             Right-hand side (u = A x - b).
 * @param mu            Friction coefficient, mu >= 0.
 * @param solutions     Receives 3 * n_solutions numbers (x of each solution).
 * @param max_solutions Capacity of `solutions` in solutions (at most 6 can occur).
 * @param n_solutions   Receives the number of solutions.
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_NOT_FINITE;
 *         ::NSCD_ERR_OUT_OF_RANGE (mu < 0 or max_solutions < 0); ::NSCD_ERR_NOT_SPD;
 *         ::NSCD_ERR_BUFFER_TOO_SMALL (more solutions than max_solutions: then only
 *         n_solutions is written); ::NSCD_ERR_UNSUPPORTED (a continuum of sliding
 *         solutions, e.g. Painlevé's rod exactly at mu = mu*; outputs unchanged).
 */
NSCD_API nscd_status nscd_coulomb_single_contact_all(const double A[9], const double b[3],
                                                     double mu, double *solutions,
                                                     int32_t max_solutions, int32_t *n_solutions);

#ifdef __cplusplus
}
#endif

#endif /* NSCD_SINGLE_CONTACT_H */
