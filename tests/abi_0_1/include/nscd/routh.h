/**
 * @file routh.h
 * @brief Routh's method for a planar frictional impact (Poisson restitution,
 *        Coulomb friction), solved exactly in impulse space.
 *
 * At a single contact point the velocity u = (s, c) (sliding velocity s,
 * normal closing velocity c; c < 0 approaches) and the contact impulse
 * P = (T, F) (tangential, normal) are related during the impact by
 *
 *     u(P) = u0 + G P,     G = [[alpha, eps], [eps, gamma]]  (SPD),
 *
 * the "inverse inertia seen at the contact" of seed 000, eqs. 34-36: for a
 * system with mass matrix M and contact rows W_T, W_N, G = W M^-1 W' with
 * W = [W_T; W_N]. The normal impulse F grows monotonically and serves as the
 * clock of the impact. Coulomb's law (eq. 30) gives dT = -mu sign(s) dF while
 * the contact slides, and dT = -(eps/alpha) dF (s stays 0) while it sticks,
 * which is possible only if |eps| <= mu alpha. Compression ends when c = 0 at
 * F = F_c; Poisson's hypothesis (eq. 28) ends the impact at F = (1 + e) F_c.
 * Along these straight pieces (the lines of friction, sticking and maximum
 * compression of Fig. 4) the solution is exact, not integrated.
 */
#ifndef NSCD_ROUTH_H
#define NSCD_ROUTH_H

#include <stdint.h>

#include "nscd/export.h"
#include "nscd/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Which of the arrangements of Fig. 4 (seed 000) an impact followed. */
typedef enum nscd_routh_case {
    /** The contact slides in one direction to the end (Fig. 4a; also every
     *  frictionless impact with s0 != 0). */
    NSCD_ROUTH_SLIP = 0,
    /** Slip stops during compression and the contact sticks to the end (Fig. 4b). */
    NSCD_ROUTH_STICK_IN_COMPRESSION = 1,
    /** Slip stops during compression and reverses: friction is too weak to
     *  hold the contact (Fig. 4c). */
    NSCD_ROUTH_REVERSAL_IN_COMPRESSION = 2,
    /** Slip stops during restitution and the contact sticks to the end (Fig. 4d). */
    NSCD_ROUTH_STICK_IN_RESTITUTION = 3,
    /** Slip stops during restitution and reverses (Fig. 4e). */
    NSCD_ROUTH_REVERSAL_IN_RESTITUTION = 4,
    /** s0 = 0 and |eps| <= mu alpha: the contact sticks throughout. */
    NSCD_ROUTH_STICK = 5,
    /** s0 = 0 and |eps| > mu alpha: the contact starts to slide, in the
     *  direction of sign(eps), and slides to the end. */
    NSCD_ROUTH_SLIP_FROM_REST = 6
} nscd_routh_case;

/** Detailed result of nscd_routh_impact_ex(). */
typedef struct nscd_routh_result {
    uint32_t struct_size;          /**< Set by the caller to sizeof(nscd_routh_result). */
    int32_t impact_case;           /**< A ::nscd_routh_case value. */
    double impulse[2];             /**< Total impulse P = (T, F) at the end of the impact. */
    double velocity[2];            /**< Velocity after impact u1 = u0 + G P = (s1, c1). */
    double compression_impulse[2]; /**< Impulse (T, F_c) at maximum compression (c = 0). */
    double transition_impulse[2];  /**< Impulse where slip stopped (stick or reversal);
                                        (0, 0) when slip never stopped. */
    double energy_change;          /**< Change of kinetic energy P'u0 + P'GP/2 (<= 0). */
    int32_t slip_before;           /**< Sign of the slip at the start: -1, 0 (stick) or +1. */
    int32_t slip_after;            /**< Sign of the slip at the end: -1, 0 (stick) or +1. */
} nscd_routh_result;

/**
 * @brief Solves a planar frictional impact by Routh's method (seed 000, Sects. 3.3-3.4).
 *
 * Every arrangement of Fig. 4 and its mirror image is handled: slip
 * throughout, stick after slip, slip reversal, stick or reversal during
 * restitution, and s0 = 0. The result never increases the kinetic energy.
 * @param G  The 2x2 inverse inertia at the contact, row-major, tangential
 *           first: [alpha, eps, eps, gamma]; must be symmetric positive definite.
 * @param u0 Velocity before impact (s0, c0); c0 < 0 (approaching).
 * @param mu Coulomb's coefficient, >= 0.
 * @param e  Poisson's coefficient of restitution in [0, 1]: the normal impulse
 *           of restitution is e times that of compression.
 * @param P  Receives the impulse (T, F).
 * @param u1 Receives the velocity after impact u0 + G P.
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_NOT_FINITE (NaN or
 *         infinity in any input); ::NSCD_ERR_OUT_OF_RANGE (mu < 0 or e outside
 *         [0, 1]); ::NSCD_ERR_NOT_SPD (G not symmetric positive definite);
 *         ::NSCD_ERR_NOT_COLLIDING (c0 >= 0). On failure P and u1 are unchanged.
 */
NSCD_API nscd_status nscd_routh_impact(const double G[4], const double u0[2], double mu, double e,
                                       double P[2], double u1[2]);

/**
 * @brief Like nscd_routh_impact() but also reports the case of Fig. 4, the
 *        impulse at maximum compression, where slip stopped and the energy change.
 * @param G      As in nscd_routh_impact().
 * @param u0     As in nscd_routh_impact().
 * @param mu     As in nscd_routh_impact().
 * @param e      As in nscd_routh_impact().
 * @param result Receives the result; its `struct_size` must be set by the caller.
 * @return As nscd_routh_impact(), and ::NSCD_ERR_STRUCT_SIZE for an unknown
 *         `result->struct_size`. On failure `result` is unchanged.
 */
NSCD_API nscd_status nscd_routh_impact_ex(const double G[4], const double u0[2], double mu,
                                          double e, nscd_routh_result *result);

/**
 * @brief Short name of a case ("slip", "stick_in_compression", ...).
 * @param impact_case A ::nscd_routh_case value.
 * @return A static string; "unknown" for other values.
 */
NSCD_API const char *nscd_routh_case_name(int32_t impact_case);

#ifdef __cplusplus
}
#endif

#endif /* NSCD_ROUTH_H */
