/**
 * @file event_driven.h
 * @brief Event-driven (piecewise smooth) integration of an ::nscd_system.
 *
 * Smooth phases are integrated with an adaptive embedded Runge–Kutta scheme
 * (Dormand–Prince 5(4)) with dense output; gap zero crossings and user events
 * are located by root finding on the dense output (to 1e-12 s by default).
 * At an impact the contacts' impact laws give the velocity jump. An
 * accumulation of impacts (Zeno behaviour) ends either in a persistent
 * contact or in a stop with ::NSCD_ERR_ZENO, never in a hang.
 *
 * A persistent contact holds g = 0 with a normal force lambda_N >= 0 and
 * opens when that force vanishes. A contact with friction mu > 0 and one or
 * two tangential rows (Coulomb friction, sliding velocity s = W_T v) also
 * sticks (s = 0, ||lambda_T|| <= mu lambda_N) or slides
 * (lambda_T = -mu lambda_N s / ||s||: against the sliding velocity, whose
 * direction in the tangent plane the friction follows as it turns); it
 * passes between the two when the sticking force reaches the friction cone
 * (it then slides the way that force could not hold) or the slip stops
 * (::NSCD_EVENT_CONTACT_SLIP, ::NSCD_EVENT_CONTACT_STICK; a slip that stops
 * and starts again in another direction is a new ::NSCD_EVENT_CONTACT_SLIP).
 * See docs/persistent_friction.md.
 *
 * For comparison, ::NSCD_ED_RK4_LINEAR reproduces the classical approach of a
 * fixed-step RK4 integrator with linear interpolation of the gap between two
 * steps (eqs. 9-11 of Mazur/Lipski-type double-pendulum studies, seed 000).
 */
#ifndef NSCD_EVENT_DRIVEN_H
#define NSCD_EVENT_DRIVEN_H

#include <stddef.h>
#include <stdint.h>

#include "nscd/export.h"
#include "nscd/host.h"
#include "nscd/status.h"
#include "nscd/system.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque event-driven stepper. */
typedef struct nscd_event_driven nscd_event_driven;

/** Smooth-phase integrator and event location method. */
typedef enum nscd_ed_method {
    NSCD_ED_DOPRI5 = 0, /**< Adaptive Dormand–Prince 5(4), dense output, root finding (default). */
    NSCD_ED_RK4_LINEAR =
        1 /**< Fixed-step RK4, events by linear interpolation (seed 000, eqs. 9-11). */
} nscd_ed_method;

/** What to do when an accumulation of impacts is detected. */
typedef enum nscd_zeno_policy {
    NSCD_ZENO_PERSISTENT_CONTACT =
        0,             /**< Close the contact: g = 0 held by lambda >= 0 (default). */
    NSCD_ZENO_STOP = 1 /**< Stop and return ::NSCD_ERR_ZENO. */
} nscd_zeno_policy;

/** Kinds of events reported to ::nscd_event_handler_fn. */
typedef enum nscd_event_type {
    NSCD_EVENT_IMPACT = 1,          /**< An impact: velocities jumped. */
    NSCD_EVENT_USER = 2,            /**< A user event function crossed zero. */
    NSCD_EVENT_CONTACT_CLOSED = 3,  /**< A contact became persistent (after Zeno detection). */
    NSCD_EVENT_CONTACT_OPENED = 4,  /**< A persistent contact released (its force reached zero). */
    NSCD_EVENT_ZENO_STOP = 5,       /**< Zeno detected with ::NSCD_ZENO_STOP; integration ends. */
    NSCD_EVENT_COMPLIANT_ONSET = 6, /**< A compliant contact started to overlap. */
    NSCD_EVENT_COMPLIANT_SEPARATION = 7, /**< A compliant contact separated (force reached zero). */
    NSCD_EVENT_CONTACT_STICK = 8, /**< A persistent contact with friction started to stick. */
    NSCD_EVENT_CONTACT_SLIP = 9   /**< A persistent contact with friction started to slide. */
} nscd_event_type;

/** Return values of ::nscd_event_handler_fn. */
typedef enum nscd_event_action {
    NSCD_EVENT_CONTINUE = 0, /**< Go on integrating. */
    NSCD_EVENT_STOP = 1      /**< Stop: nscd_event_driven_advance() returns ::NSCD_OK early. */
} nscd_event_action;

/**
 * @brief What happened at an event. Arrays are valid only during the callback.
 *
 * For impacts, `contacts` lists the contacts that took part (every touching
 * contact, approaching or not), `index` is the first of them that approached,
 * and the arrays `gap_velocity_before`, `gap_velocity_after` and `impulse` are
 * parallel to `contacts`. A system's equality constraints
 * (::nscd_system_desc::n_equalities) take part in every impact: they appear
 * in `contacts` (and may name the impact in `index`) as n_contacts + k for
 * equality k, after the contacts.
 *
 * The library fills this struct with its own sizeof in `struct_size`. Fields
 * are only ever appended: a handler that reads a field added after 0.1 must
 * first check that `struct_size` reaches past it (a newer program may run
 * with an older library), e.g.
 * `info->struct_size >= offsetof(nscd_event_info, field) + sizeof info->field`.
 */
typedef struct nscd_event_info {
    uint32_t struct_size;              /**< sizeof(nscd_event_info) of the library. */
    int32_t type;                      /**< A ::nscd_event_type value. */
    double t;                          /**< Time of the event. */
    int32_t index;                     /**< Contact index or user event index. */
    int32_t n_contacts;                /**< Number of entries of the contact arrays. */
    const int32_t *contacts;           /**< Contacts taking part. */
    const double *gap_velocity_before; /**< Normal gap velocities before the event. */
    const double *gap_velocity_after;  /**< Normal gap velocities after the event. */
    const double *impulse;             /**< Normal impulses (impacts only). */
    int32_t n_dof;                     /**< Length of q and the velocity arrays. */
    const double *q;                   /**< Positions at the event. */
    const double *v_before;            /**< Velocities before the event. */
    const double *v_after;             /**< Velocities after the event. */
} nscd_event_info;

/**
 * @brief Event observer. Returns a ::nscd_event_action value, or a negative
 *        value to fail (nscd_event_driven_advance() then returns ::NSCD_ERR_CALLBACK).
 *        Any other value is an error too (::NSCD_ERR_CALLBACK), not "continue".
 *
 * Re-entrancy (docs/hostile_input.md): the observer may destroy the stepper
 * or its system; the destroy is deferred, the advance stops at this event,
 * frees them when it returns and returns ::NSCD_ERR_STALE_HANDLE. A nested
 * advance of the same stepper or system fails with ::NSCD_ERR_STATE. The
 * same holds in the system's callbacks and the log hook during the advance.
 */
typedef int32_t (*nscd_event_handler_fn)(void *user, const nscd_event_info *info);

/**
 * @brief User event functions: writes `n_user_events` values; an event fires
 *        when one of them changes sign. The values must be finite (NaN or
 *        infinity: nscd_event_driven_advance() returns ::NSCD_ERR_NOT_FINITE).
 */
typedef nscd_status (*nscd_user_event_fn)(void *user, double t, const double *q, const double *v,
                                          double *values);

/** Options of the event-driven stepper, filled by nscd_event_driven_options_init(). */
typedef struct nscd_event_driven_options {
    uint32_t struct_size;      /**< sizeof(nscd_event_driven_options). */
    int32_t method;            /**< ::nscd_ed_method (default ::NSCD_ED_DOPRI5). */
    double relative_tolerance; /**< Local error tolerance, relative (default 1e-10). */
    double absolute_tolerance; /**< Local error tolerance, absolute (default 1e-12). */
    double initial_step;       /**< First trial step, >= min_step; 0 = automatic (default 0). */
    double max_step;           /**< Largest step; 0 = unlimited (default 0). */
    double
        min_step; /**< Smallest adaptive step before ::NSCD_ERR_STEP_TOO_SMALL (default 1e-14). */
    double fixed_step;           /**< Step of ::NSCD_ED_RK4_LINEAR (default 1e-4). */
    double event_time_tolerance; /**< Width of the bracket of a located event, s (default 1e-12). */
    int32_t zeno_policy;      /**< ::nscd_zeno_policy (default ::NSCD_ZENO_PERSISTENT_CONTACT). */
    double zeno_velocity;     /**< A contact whose gap velocity after impact is below this is
                                   considered at rest: Zeno, m/s (default 1e-8). */
    double zeno_min_interval; /**< Impacts on one contact closer than this in time count as
                                   accumulating, s (default 1e-9). */
    int32_t zeno_max_close_impacts;  /**< That many accumulating impacts in a row mean Zeno (default
                                        8). */
    double persistent_gap_tolerance; /**< Gap drift tolerated in a persistent contact before its
                                          position is projected back, m (default 1e-10). */
    int64_t max_steps; /**< Steps per advance call before ::NSCD_ERR_MAX_STEPS (default 10^8). */
    int32_t n_user_events;          /**< Number of user event functions, 0 to 2^20 = 1048576
                                         (default 0). */
    nscd_user_event_fn user_events; /**< Required when n_user_events > 0. */
    void *user_events_user;         /**< Passed to `user_events`. */
    nscd_event_handler_fn on_event; /**< Observer of every event, or NULL. */
    void *on_event_user;            /**< Passed to `on_event`. */
} nscd_event_driven_options;

/**
 * @brief Fills options with their documented defaults.
 * @param options     The options.
 * @param struct_size sizeof(nscd_event_driven_options) as the caller sees it: any
 *                    size from the struct of release 0.1 to today's sizeof;
 *                    exactly that many bytes are written.
 * @return ::NSCD_OK, ::NSCD_ERR_NULL_POINTER or ::NSCD_ERR_STRUCT_SIZE.
 */
NSCD_API nscd_status nscd_event_driven_options_init(nscd_event_driven_options *options,
                                                    size_t struct_size);

/**
 * @brief Creates a stepper for a system; the stepper advances the system's state.
 *
 * Lifetime: the stepper refers to the system and should be destroyed first.
 * If the system is destroyed while a stepper still exists, the stepper's
 * calls (nscd_event_driven_advance(), nscd_event_driven_get_contact_force())
 * return ::NSCD_ERR_STALE_HANDLE without touching the freed system, and
 * nscd_event_driven_destroy() still releases it. Several steppers may share
 * one system (they advance the same state); calls on one system and its
 * steppers must not run concurrently.
 * @param system  The system.
 * @param options Options, or NULL for the defaults; copied.
 * @param stepper Receives the stepper; unchanged on failure.
 * @return ::NSCD_OK, ::NSCD_ERR_NULL_POINTER, ::NSCD_ERR_STRUCT_SIZE,
 *         ::NSCD_ERR_INVALID_ARGUMENT (unknown method or zeno_policy, n_user_events
 *         outside [0, 2^20], n_user_events > 0 without user_events),
 *         ::NSCD_ERR_NOT_FINITE (NaN or infinity in a real option),
 *         ::NSCD_ERR_OUT_OF_RANGE (a finite option outside its range, e.g. a tolerance
 *         <= 0, min_step <= 0, 0 < initial_step < min_step) or ::NSCD_ERR_OUT_OF_MEMORY.
 */
NSCD_API nscd_status nscd_event_driven_create(nscd_system *system,
                                              const nscd_event_driven_options *options,
                                              nscd_event_driven **stepper);

/**
 * @brief Destroys a stepper, also after its system was destroyed. NULL is
 *        accepted and ignored. From a callback of its own advance the
 *        destroy is deferred to the advance's return (::NSCD_ERR_STALE_HANDLE).
 * @param stepper The stepper.
 */
NSCD_API void nscd_event_driven_destroy(nscd_event_driven *stepper);

/**
 * @brief Counters of one nscd_event_driven_advance() call.
 *
 * The struct grows at its end between releases: the library writes only the
 * first `struct_size` bytes, so a caller built against an older release
 * (a smaller sizeof) receives the fields it knows and nothing beyond.
 */
typedef struct nscd_event_driven_stats {
    uint32_t struct_size;    /**< Set by the caller to sizeof(nscd_event_driven_stats); kept. */
    int64_t steps_accepted;  /**< Accepted smooth steps. */
    int64_t steps_rejected;  /**< Rejected trial steps (adaptive error control). */
    int64_t rhs_evaluations; /**< Evaluations of the accelerations. */
    int64_t impacts;         /**< Impacts resolved. */
    int64_t events;          /**< All events (impacts, user events, mode changes). */
    double t;                /**< Time reached. */
    int32_t stopped;         /**< 1 when an event handler stopped the integration early. */
    /** Largest per-step workspace the stepper has used since its creation, in
     *  bytes: the memory sized by the active contacts (rows, Delassus
     *  matrices, forces), beyond its fixed O(n_dof + n_contacts) arrays
     *  (since 0.2). */
    int64_t workspace_peak_bytes;
} nscd_event_driven_stats;

/**
 * @brief Integrates from the system's current time to `t_end`.
 *
 * On success the system's state is at `t_end` (or at the event where a handler
 * asked to stop). On a failure during integration the state is the last
 * consistent one reached (after the last accepted step or event), and the
 * handle's last error says what went wrong.
 * @param stepper The stepper.
 * @param t_end   Final time, >= the current time.
 * @param stats   Receives counters; may be NULL. Its `struct_size`, set by the
 *                caller, may be any size from the struct of release 0.1 to
 *                today's sizeof; only that many bytes are written.
 * @return ::NSCD_OK, ::NSCD_ERR_NULL_POINTER, ::NSCD_ERR_NOT_FINITE (also a
 *         callback's NaN or infinity), ::NSCD_ERR_INVALID_ARGUMENT (t_end before
 *         the current time), ::NSCD_ERR_CALLBACK, ::NSCD_ERR_ZENO,
 *         ::NSCD_ERR_STEP_TOO_SMALL (the error control needs a step below min_step,
 *         e.g. when a step overflows, or a step is below the resolution of t, so
 *         that t + h == t), ::NSCD_ERR_MAX_STEPS, ::NSCD_ERR_SINGULAR (no
 *         forces hold the persistent contacts), ::NSCD_ERR_NOT_CONVERGED (no
 *         consistent set of contact modes, or a frictional impact's solver did
 *         not converge), ::NSCD_ERR_UNSUPPORTED (an impact law that would create
 *         energy at this impact, or several Routh contacts impacting
 *         together; since 0.2 a frictional impact together with equality
 *         constraints is solved), ::NSCD_ERR_SINGULAR also when the equality
 *         constraints hold the normal of a contact in a frictional impact,
 *         ::NSCD_ERR_STALE_HANDLE (the system was destroyed, or a callback
 *         destroyed the stepper or its system during this call: freed now),
 *         ::NSCD_ERR_STATE (called from a callback of the same stepper or system),
 *         ::NSCD_ERR_OUT_OF_MEMORY (the per-step workspace could not grow).
 */
NSCD_API nscd_status nscd_event_driven_advance(nscd_event_driven *stepper, double t_end,
                                               nscd_event_driven_stats *stats);

/**
 * @brief Force of one contact at the system's current state (after the last
 *        nscd_event_driven_advance(), or as set since).
 *
 * A persistent (closed) contact carries the normal force lambda_N >= 0 that
 * holds g = 0 and, with friction, the friction force along its tangential
 * rows (sticking: inside Coulomb's cone; sliding: mu lambda_N against the
 * slip); a compliant contact carries its law's force; an open contact none.
 * The generalised force of the contact is W_N' lambda_N + W_T' lambda_T.
 * Persistent contacts whose rows are dependent (a block resting on two
 * sticking corners, a point in a V-groove) share their load by the smallest
 * sum lambda_N^2 + w^2 ||lambda_T||^2 (w = 1000: friction only as far as the
 * motion needs it); the motion does not decide the split.
 * @param stepper The stepper.
 * @param index   Contact index in [0, n_contacts) (equality constraints are
 *                not contacts: see nscd_event_driven_get_equality_force()).
 * @param normal  Receives lambda_N (may be NULL).
 * @param tangent Receives the contact's n_tangent friction force components,
 *                along the rows its contact callback gives (may be NULL).
 * @return ::NSCD_OK, ::NSCD_ERR_NULL_POINTER, ::NSCD_ERR_INDEX,
 *         ::NSCD_ERR_CALLBACK, ::NSCD_ERR_NOT_FINITE, ::NSCD_ERR_SINGULAR,
 *         ::NSCD_ERR_STALE_HANDLE (the system was destroyed),
 *         ::NSCD_ERR_OUT_OF_MEMORY.
 */
NSCD_API nscd_status nscd_event_driven_get_contact_force(nscd_event_driven *stepper, int32_t index,
                                                         double *normal, double *tangent);

/**
 * @brief Multiplier of one equality constraint at the system's current state
 *        (since 0.2).
 *
 * The force lambda_B (of either sign) that keeps g_B,index(q) = 0 in the
 * dynamics, as nscd_event_driven_get_contact_force() gives it for a closed
 * contact: its generalised force is w' lambda_B with the row w of the
 * equality callback (::nscd_equality_fn). Dependent rows share their load by
 * the smallest sum of squared multipliers.
 * @param stepper The stepper.
 * @param index   Equality index in [0, n_equalities).
 * @param lambda  Receives lambda_B (may be NULL).
 * @return ::NSCD_OK, ::NSCD_ERR_NULL_POINTER, ::NSCD_ERR_INDEX,
 *         ::NSCD_ERR_CALLBACK, ::NSCD_ERR_NOT_FINITE, ::NSCD_ERR_SINGULAR,
 *         ::NSCD_ERR_STALE_HANDLE (the system was destroyed),
 *         ::NSCD_ERR_OUT_OF_MEMORY.
 */
NSCD_API nscd_status nscd_event_driven_get_equality_force(nscd_event_driven *stepper, int32_t index,
                                                          double *lambda);

/**
 * @brief What went wrong in the latest nscd_event_driven_advance() on this
 *        stepper, if it failed.
 *
 * Each nscd_event_driven_advance() starts by emptying the message; a failure
 * then writes it (and, for a failure during integration, also the system's
 * message, see nscd_system_last_error()). So after a success it is "". The
 * message does not repeat the status name: print nscd_status_string() of the
 * returned code next to it.
 * @param stepper The stepper, or NULL.
 * @return A string owned by the handle; "" when the latest call succeeded.
 */
NSCD_API const char *nscd_event_driven_last_error(const nscd_event_driven *stepper);

#ifdef __cplusplus
}
#endif

#endif /* NSCD_EVENT_DRIVEN_H */
