/**
 * @file system.h
 * @brief The generic Lagrangian system with unilateral contacts.
 *
 * The equations of motion between impacts are
 *
 *     M(q) dv/dt = h(q, v, t) + sum_i W_N,i(q)' lambda_N,i (+ friction),   dq/dt = v,
 *
 * with one gap g_i(q) per contact (g_i >= 0 is admissible, g_i < 0 is
 * penetration) and its normal row W_N,i = dg_i/dq, so that the normal gap
 * velocity is W_N,i v (positive when separating). Contacts with friction also
 * give tangential rows W_T,i (1 row in the plane, 2 in space).
 *
 * The user describes the system with callbacks that receive a `void *user`
 * pointer. Every callback returns ::NSCD_OK or any non-zero value to report a
 * failure; a failing callback makes the calling nscd function return
 * ::NSCD_ERR_CALLBACK and leave the system unchanged.
 */
#ifndef NSCD_SYSTEM_H
#define NSCD_SYSTEM_H

#include <stddef.h>
#include <stdint.h>

#include "nscd/contact_law.h"
#include "nscd/export.h"
#include "nscd/host.h"
#include "nscd/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque generic system handle. */
typedef struct nscd_system nscd_system;

/**
 * @brief Mass matrix callback: writes M(q), n_dof x n_dof, row-major, symmetric
 *        positive definite.
 */
typedef nscd_status (*nscd_mass_fn)(void *user, const double *q, double *mass);

/**
 * @brief Inverse-mass action callback: writes x = M(q)^-1 b (all length n_dof).
 *        An alternative to ::nscd_mass_fn for systems that know M^-1 cheaply.
 */
typedef nscd_status (*nscd_mass_solve_fn)(void *user, const double *q, const double *b, double *x);

/**
 * @brief Force callback: writes the generalised forces h(q, v, t) (length n_dof),
 *        with gravity, springs, dampers, gyroscopic and Coriolis terms.
 */
typedef nscd_status (*nscd_forces_fn)(void *user, double t, const double *q, const double *v,
                                      double *h);

/**
 * @brief Contact callback for contact `index`.
 *
 * Writes the gap `*gap` = g(q) and the normal row `w_normal` = dg/dq (length
 * n_dof). When the contact has tangential directions (see
 * ::nscd_contact_desc::n_tangent) `w_tangent` points to n_tangent * n_dof
 * doubles (row-major) to fill with the tangential rows; otherwise it is NULL.
 */
typedef nscd_status (*nscd_contact_fn)(void *user, int32_t index, double t, const double *q,
                                       double *gap, double *w_normal, double *w_tangent);

/** Description of a system, filled with defaults by nscd_system_desc_init(). */
typedef struct nscd_system_desc {
    uint32_t struct_size;          /**< sizeof(nscd_system_desc), set by nscd_system_desc_init(). */
    int32_t n_dof;                 /**< Number of generalised coordinates (> 0). */
    int32_t n_contacts;            /**< Number of unilateral contacts (>= 0). */
    void *user;                    /**< Passed to every callback. */
    nscd_mass_fn mass;             /**< M(q); one of `mass` and `mass_solve` is required. */
    nscd_mass_solve_fn mass_solve; /**< M(q)^-1 b; used instead of `mass` when set. */
    nscd_forces_fn forces;         /**< h(q, v, t); NULL means no forces. */
    nscd_contact_fn contact;       /**< Required when n_contacts > 0. */
    nscd_allocator allocator;      /**< Memory hooks; zero means malloc/free. */
    nscd_log_fn log;               /**< Log hook, or NULL. */
    void *log_user;                /**< Passed to `log`. */
} nscd_system_desc;

/**
 * @brief Fills a desc with defaults (everything zero or NULL).
 * @param desc        The desc to fill.
 * @param struct_size sizeof(nscd_system_desc) as the caller sees it.
 * @return ::NSCD_OK, ::NSCD_ERR_NULL_POINTER or ::NSCD_ERR_STRUCT_SIZE.
 */
NSCD_API nscd_status nscd_system_desc_init(nscd_system_desc *desc, size_t struct_size);

/**
 * @brief Creates a system. The state starts at t = 0, q = 0, v = 0 and every
 *        contact starts frictionless with Newton restitution e = 0.
 * @param desc   The description; copied.
 * @param system Receives the handle; unchanged on failure.
 * @return ::NSCD_OK, ::NSCD_ERR_NULL_POINTER, ::NSCD_ERR_STRUCT_SIZE,
 *         ::NSCD_ERR_INVALID_ARGUMENT or ::NSCD_ERR_OUT_OF_MEMORY.
 */
NSCD_API nscd_status nscd_system_create(const nscd_system_desc *desc, nscd_system **system);

/**
 * @brief Destroys a system. NULL is accepted and ignored.
 * @param system The system.
 */
NSCD_API void nscd_system_destroy(nscd_system *system);

/**
 * @brief The message of the last failure on this handle.
 * @param system The system, or NULL.
 * @return A string owned by the handle, "" when nothing failed yet; valid until
 *         the next call on the handle.
 */
NSCD_API const char *nscd_system_last_error(const nscd_system *system);

/** Per-contact settings, filled with defaults by nscd_contact_desc_init(). */
typedef struct nscd_contact_desc {
    uint32_t struct_size;        /**< sizeof(nscd_contact_desc). */
    const nscd_contact_law *law; /**< Impact or force law; copied. NULL: Newton with e = 0. */
    double friction;             /**< Coulomb coefficient mu >= 0 (default 0). */
    int32_t n_tangent;           /**< Tangential rows the callback fills: 0, 1 or 2 (default 0). */
} nscd_contact_desc;

/**
 * @brief Fills a contact desc with defaults (Newton e = 0, frictionless).
 * @param desc        The desc to fill.
 * @param struct_size sizeof(nscd_contact_desc).
 * @return ::NSCD_OK, ::NSCD_ERR_NULL_POINTER or ::NSCD_ERR_STRUCT_SIZE.
 */
NSCD_API nscd_status nscd_contact_desc_init(nscd_contact_desc *desc, size_t struct_size);

/**
 * @brief Sets the law and friction of one contact.
 * @param system The system.
 * @param index  Contact index in [0, n_contacts).
 * @param desc   The settings; the law is copied.
 * @return ::NSCD_OK, ::NSCD_ERR_NULL_POINTER, ::NSCD_ERR_INDEX,
 *         ::NSCD_ERR_STRUCT_SIZE, ::NSCD_ERR_OUT_OF_RANGE (mu < 0, n_tangent not
 *         in 0..2), ::NSCD_ERR_NOT_FINITE.
 */
NSCD_API nscd_status nscd_system_set_contact(nscd_system *system, int32_t index,
                                             const nscd_contact_desc *desc);

/**
 * @brief Sizes of a system.
 * @param system     The system.
 * @param n_dof      Receives the number of coordinates (may be NULL).
 * @param n_contacts Receives the number of contacts (may be NULL).
 * @return ::NSCD_OK or ::NSCD_ERR_NULL_POINTER.
 */
NSCD_API nscd_status nscd_system_get_sizes(const nscd_system *system, int32_t *n_dof,
                                           int32_t *n_contacts);

/**
 * @brief Sets time, positions and velocities; every contact is opened again
 *        (persistent contacts are released).
 * @param system The system.
 * @param t      Time.
 * @param q      Positions (n_dof).
 * @param v      Velocities (n_dof).
 * @return ::NSCD_OK, ::NSCD_ERR_NULL_POINTER or ::NSCD_ERR_NOT_FINITE.
 */
NSCD_API nscd_status nscd_system_set_state(nscd_system *system, double t, const double *q,
                                           const double *v);

/**
 * @brief Reads time, positions and velocities.
 * @param system The system.
 * @param t      Receives the time (may be NULL).
 * @param q      Receives n_dof positions (may be NULL).
 * @param v      Receives n_dof velocities (may be NULL).
 * @return ::NSCD_OK or ::NSCD_ERR_NULL_POINTER.
 */
NSCD_API nscd_status nscd_system_get_state(const nscd_system *system, double *t, double *q,
                                           double *v);

/** State of one contact. */
typedef enum nscd_contact_mode {
    NSCD_CONTACT_OPEN = 0,     /**< Free: watched for impacts. */
    NSCD_CONTACT_CLOSED = 1,   /**< Persistent contact: g = 0 held by a force lambda >= 0. */
    NSCD_CONTACT_COMPLIANT = 2 /**< Overlapping under a compliant force law. */
} nscd_contact_mode;

/**
 * @brief Gap, normal gap velocity and mode of one contact at the current state.
 * @param system   The system.
 * @param index    Contact index.
 * @param gap      Receives g(q) (may be NULL).
 * @param velocity Receives W_N v (may be NULL).
 * @param mode     Receives a ::nscd_contact_mode value (may be NULL).
 * @return ::NSCD_OK, ::NSCD_ERR_NULL_POINTER, ::NSCD_ERR_INDEX or ::NSCD_ERR_CALLBACK.
 */
NSCD_API nscd_status nscd_system_get_contact(nscd_system *system, int32_t index, double *gap,
                                             double *velocity, int32_t *mode);

/**
 * @brief Kinetic energy v' M(q) v / 2 at the current state (needs the `mass` callback).
 * @param system The system.
 * @param energy Receives the energy.
 * @return ::NSCD_OK, ::NSCD_ERR_NULL_POINTER, ::NSCD_ERR_UNSUPPORTED (only
 *         `mass_solve` was given) or ::NSCD_ERR_CALLBACK.
 */
NSCD_API nscd_status nscd_system_kinetic_energy(nscd_system *system, double *energy);

#ifdef __cplusplus
}
#endif

#endif /* NSCD_SYSTEM_H */
