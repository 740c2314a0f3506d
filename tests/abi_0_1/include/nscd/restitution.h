/**
 * @file restitution.h
 * @brief Impulsive laws with Poisson's (kinetic) restitution: frictionless
 *        Poisson and Routh's frictional planar impact.
 *
 * Poisson's hypothesis splits an impact into compression (until the normal
 * gap velocity reaches zero, normal impulse F_c) and restitution, whose
 * normal impulse is e F_c (seed 000, eq. 28). For a single frictionless
 * contact it gives the same result as Newton's law; the two differ with
 * friction and with several simultaneous contacts.
 */
#ifndef NSCD_RESTITUTION_H
#define NSCD_RESTITUTION_H

#include "nscd/contact_law.h"
#include "nscd/export.h"
#include "nscd/host.h"
#include "nscd/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Frictionless Poisson restitution: the normal impulse of restitution
 *        is `e` times that of compression.
 * @param e         Coefficient of restitution in [0, 1].
 * @param allocator Memory hooks, or NULL for malloc/free.
 * @param law       Receives the new law; unchanged on failure.
 * @return ::NSCD_OK, ::NSCD_ERR_NULL_POINTER, ::NSCD_ERR_NOT_FINITE,
 *         ::NSCD_ERR_OUT_OF_RANGE (e outside [0,1]), ::NSCD_ERR_INVALID_ARGUMENT
 *         (half-set allocator) or ::NSCD_ERR_OUT_OF_MEMORY.
 */
NSCD_API nscd_status nscd_contact_law_create_poisson(double e, const nscd_allocator *allocator,
                                                     nscd_contact_law **law);

/**
 * @brief Routh's planar frictional impact: Poisson restitution `e` with
 *        Coulomb friction solved exactly in impulse space (see nscd_routh_impact()).
 *
 * The friction coefficient is the contact's ::nscd_contact_desc::friction, and
 * the contact must give one tangential row (::nscd_contact_desc::n_tangent = 1):
 * the impact solver builds G = [W_T; W_N] M^-1 [W_T; W_N]' from it, so the
 * sliding velocity is s = W_T v and the tangential impulse acts along W_T'.
 * @param e         Coefficient of restitution in [0, 1].
 * @param allocator Memory hooks, or NULL for malloc/free.
 * @param law       Receives the new law; unchanged on failure.
 * @return ::NSCD_OK, ::NSCD_ERR_NULL_POINTER, ::NSCD_ERR_NOT_FINITE,
 *         ::NSCD_ERR_OUT_OF_RANGE (e outside [0,1]), ::NSCD_ERR_INVALID_ARGUMENT
 *         (half-set allocator) or ::NSCD_ERR_OUT_OF_MEMORY.
 */
NSCD_API nscd_status nscd_contact_law_create_routh(double e, const nscd_allocator *allocator,
                                                   nscd_contact_law **law);

#ifdef __cplusplus
}
#endif

#endif /* NSCD_RESTITUTION_H */
