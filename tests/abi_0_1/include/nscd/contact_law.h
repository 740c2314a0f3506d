/**
 * @file contact_law.h
 * @brief Contact and impact laws: immutable parameter objects a contact uses.
 *
 * A law is created once and given to any number of contacts with
 * nscd_system_set_contact(); the system keeps its own copy, so the law may be
 * destroyed right after. Impulsive laws (Newton, Poisson, Routh) act at the
 * instant of impact; compliant laws (Hertz, Hunt–Crossley, Kelvin–Voigt)
 * produce a force while the bodies overlap.
 */
#ifndef NSCD_CONTACT_LAW_H
#define NSCD_CONTACT_LAW_H

#include <stdint.h>

#include "nscd/export.h"
#include "nscd/host.h"
#include "nscd/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque contact law. */
typedef struct nscd_contact_law nscd_contact_law;

/** How a law acts. */
typedef enum nscd_contact_law_kind {
    NSCD_LAW_IMPULSIVE = 1, /**< Instantaneous velocity jump at impact. */
    NSCD_LAW_COMPLIANT = 2  /**< Force as a function of penetration and its rate. */
} nscd_contact_law_kind;

/**
 * @brief Newton's kinematic restitution: after impact the normal gap velocity is
 *        `-e` times its value before (for every contact that was closing).
 *
 * Several simultaneous Newton contacts are solved together as the linear
 * complementarity problem they form (frictionless).
 * @param e         Coefficient of restitution in [0, 1].
 * @param allocator Memory hooks, or NULL for malloc/free.
 * @param law       Receives the new law; unchanged on failure.
 * @return ::NSCD_OK, ::NSCD_ERR_NULL_POINTER, ::NSCD_ERR_NOT_FINITE,
 *         ::NSCD_ERR_OUT_OF_RANGE (e outside [0,1]) or ::NSCD_ERR_OUT_OF_MEMORY.
 */
NSCD_API nscd_status nscd_contact_law_create_newton(double e, const nscd_allocator *allocator,
                                                    nscd_contact_law **law);

/**
 * @brief Destroys a law. NULL is accepted and ignored.
 * @param law The law to destroy.
 */
NSCD_API void nscd_contact_law_destroy(nscd_contact_law *law);

/**
 * @brief Kind of a law.
 * @param law  The law.
 * @param kind Receives a ::nscd_contact_law_kind value.
 * @return ::NSCD_OK or ::NSCD_ERR_NULL_POINTER.
 */
NSCD_API nscd_status nscd_contact_law_get_kind(const nscd_contact_law *law, int32_t *kind);

/**
 * @brief Short name of a law ("newton", "poisson", "hertz_damper", ...).
 * @param law The law, or NULL.
 * @return A static string; "(null)" for NULL.
 */
NSCD_API const char *nscd_contact_law_name(const nscd_contact_law *law);

#ifdef __cplusplus
}
#endif

#endif /* NSCD_CONTACT_LAW_H */
