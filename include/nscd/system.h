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
#include "nscd/types.h"

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

/**
 * @brief Equality (bilateral) constraint callback for constraint `index`
 *        (since 0.2).
 *
 * Writes the constraint value `*g` = g_B,index(q), zero when the constraint
 * holds, and its row `w` = dg_B,index/dq (length n_dof). The system keeps
 * g_B = 0 with a multiplier of either sign: M dv/dt = h + W_N' lambda_N +
 * sum_k w_k' lambda_B,k. At impacts the constraint takes part with e = 0
 * (w v = 0 afterwards). Scale g like a distance (e.g. (|r|^2 - L^2) / (2L)
 * rather than |r|^2 - L^2): the steppers' position projections and
 * tolerances treat it as one.
 */
typedef nscd_status (*nscd_equality_fn)(void *user, int32_t index, double t, const double *q,
                                        double *g, double *w);

/**
 * @brief Force Jacobian callback (since 0.2): writes an n_dof x n_dof matrix,
 *        row-major, at (t, q, v).
 *
 * Used for the stiffness K = -dh/dq and the damping C = -dh/dv of the forces
 * h(q, v, t) of ::nscd_forces_fn, with the minus sign: a linear spring and
 * damper h = -K q - C v give back K and C themselves (symmetric positive
 * semi-definite for passive elements), and h(q + dq, v + dv) is about
 * h(q, v) - K dq - C dv. Entry (i, j) is -dh_i/dq_j (or -dh_i/dv_j).
 * Implicit time-stepping schemes use them; the event-driven stepper does not.
 */
typedef nscd_status (*nscd_matrix_fn)(void *user, double t, const double *q, const double *v,
                                      double *matrix);

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
    /** Number of equality (bilateral) constraints g_B(q) = 0 (>= 0, default 0;
     *  since 0.2). They are not contacts: nscd_system_get_sizes() and the
     *  contact functions do not count them; read them with
     *  nscd_system_get_equality() and their forces with
     *  nscd_event_driven_get_equality_force(). */
    int32_t n_equalities;
    /** g_B(q) and its rows; required when n_equalities > 0 (since 0.2). */
    nscd_equality_fn equality;
    /** Stiffness K = -dh/dq (see ::nscd_matrix_fn for the sign); NULL: not
     *  given (since 0.2). */
    nscd_matrix_fn stiffness;
    /** Damping C = -dh/dv (see ::nscd_matrix_fn for the sign); NULL: not
     *  given (since 0.2). */
    nscd_matrix_fn damping;
} nscd_system_desc;

/**
 * @brief Fills a desc with defaults (everything zero or NULL).
 * @param desc        The desc to fill.
 * @param struct_size sizeof(nscd_system_desc) as the caller sees it (any size from
 *                    release 0.1 on; exactly that many bytes are written).
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
 * @brief Destroys a system. NULL is accepted and ignored. From a callback
 *        of a stepper advancing the system (its own callbacks, on_step,
 *        on_event, the log hook) the destroy is deferred: the advance stops
 *        and frees the system when it returns (::NSCD_ERR_STALE_HANDLE).
 * @param system The system.
 */
NSCD_API void nscd_system_destroy(nscd_system *system);

/**
 * @brief What went wrong in the latest call on this handle, if it failed.
 *
 * Every call on the system that can fail (nscd_system_set_contact(),
 * nscd_system_set_state(), nscd_system_get_contact(), nscd_system_get_equality(),
 * nscd_system_kinetic_energy()) starts by emptying the message, and so does
 * nscd_event_driven_advance() of a stepper of this system once its arguments
 * are checked; a failure then writes it. So after a success it is "", after
 * a failure it describes that failure. The message does not repeat the status
 * name: print nscd_status_string() of the returned code next to it.
 * @param system The system, or NULL.
 * @return A string owned by the handle, "" when the latest call succeeded;
 *         valid until the next call on the handle.
 */
NSCD_API const char *nscd_system_last_error(const nscd_system *system);

/** Per-contact settings, filled with defaults by nscd_contact_desc_init(). */
typedef struct nscd_contact_desc {
    uint32_t struct_size;        /**< sizeof(nscd_contact_desc). */
    const nscd_contact_law *law; /**< Impact or force law; copied. NULL: Newton with e = 0. */
    double friction;             /**< Coulomb coefficient mu >= 0 (default 0). */
    int32_t n_tangent;           /**< Tangential rows the callback fills: 0, 1 or 2 (default 0). */
    /** Tangential restitution e_T in [0, 1] (default 0; since 0.2). Newton's law
     *  with friction (Moreau's form; seed 003 eqs. 11-15) applies Coulomb's law
     *  to u+_T + e_T u-_T as it does to u+_N + e min(u-_N, 0): a sticking
     *  impact gives u+_T = -e_T u-_T (e_T = 1 reverses the slip, e_T = 0 stops
     *  it). Used only by frictional impacts (friction > 0, n_tangent >= 1) of
     *  an open contact under a Newton law; Poisson's and Routh's laws ignore
     *  it. An impact that would create kinetic energy is refused
     *  (::NSCD_ERR_UNSUPPORTED); e_T = e_N never does. */
    double tangential_restitution;
} nscd_contact_desc;

/**
 * @brief Fills a contact desc with defaults (Newton e = 0, frictionless).
 * @param desc        The desc to fill.
 * @param struct_size sizeof(nscd_contact_desc) as the caller sees it (any size from
 *                    release 0.1 on; exactly that many bytes are written).
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
 *         in 0..2, tangential restitution not in [0, 1]), ::NSCD_ERR_INVALID_ARGUMENT (a Routh law,
 *         nscd_contact_law_create_routh(), with n_tangent other than 1),
 *         ::NSCD_ERR_NOT_FINITE. On failure the contact is unchanged.
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
 *        (persistent contacts are released). Equality constraints stay held;
 *        q need not satisfy them (the steppers project onto them).
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
 * @brief Value and velocity of one equality constraint at the current state
 *        (since 0.2). An equality constraint is always held (there is no mode).
 * @param system   The system.
 * @param index    Equality index in [0, n_equalities).
 * @param g        Receives g_B,index(q), 0 when satisfied (may be NULL).
 * @param velocity Receives w v, its rate (may be NULL).
 * @return ::NSCD_OK, ::NSCD_ERR_NULL_POINTER, ::NSCD_ERR_INDEX,
 *         ::NSCD_ERR_CALLBACK or ::NSCD_ERR_NOT_FINITE (the callback gave NaN or
 *         infinity). Nothing is written on failure.
 */
NSCD_API nscd_status nscd_system_get_equality(nscd_system *system, int32_t index, double *g,
                                              double *velocity);

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
