/**
 * @file world.h
 * @brief The 3D rigid-body world of seed 002: bodies with shapes, collision
 *        detection and impulse-velocity time stepping with a matrix-free
 *        nonlinear block Gauss–Seidel over the contacts.
 *
 * A world owns bodies. A body is static (never moves), kinematic (moves with
 * the velocity it is given, infinite mass: the inflow plane of the granular
 * channel) or dynamic. Each body carries one or more shapes (a compound):
 * sphere, half-space, box, capsule, cylinder, convex polyhedron, each with a pose relative to the
 * body frame, a material and collision filter bits. Bodies are addressed by
 * ::nscd_body_id values: generational ids, so that an id of a removed body is
 * recognised as stale (::NSCD_ERR_STALE_HANDLE) even when its slot was reused.
 *
 * One step of length dt (seed 002, Sect. 3, the scheme of its eq. (4)–(5)):
 * - collision detection at the current positions: every pair of shapes whose
 *   distance is below the contact margin gives contact points with a normal n
 *   (from body A to body B), two tangents and a gap ξ (negative: penetration);
 * - the velocity update without contacts, explicit, with the gyroscopic term:
 *   v* = v + dt g, ω* = ω + dt I(φ)^-1 (τ - ω × I(φ) ω);
 * - the contact impulses Λ of every contact j solve the single-contact
 *   problem given all others: ξ_j/dt (scaled by the error reduction ε when
 *   negative) + δv'_jn >= 0 ⟂ Λ_jn >= 0, ||Λ_j,to|| <= μ Λ_jn, with Coulomb's
 *   friction (De Saxcé's modified velocity) or maximum dissipation (eq. (5)),
 *   by nonlinear block Gauss–Seidel sweeps that update the body velocities in
 *   place, optionally blended with weighted block Jacobi across groups;
 * - positions from the new velocities, x' = x + dt v', and orientations by the
 *   exact rotation of the angular velocity over dt (see ::nscd_world_step).
 *
 * Units are SI. Quaternions are (w, x, y, z) and rotate body-frame vectors to
 * the world frame. Every function returns an ::nscd_status; on failure it
 * changes nothing and nscd_world_last_error() says why. A world is not
 * thread-safe; two worlds on two threads are. See docs/world.md.
 */
#ifndef NSCD_WORLD_H
#define NSCD_WORLD_H

#include <stddef.h>
#include <stdint.h>

#include "nscd/export.h"
#include "nscd/host.h"
#include "nscd/status.h"
#include "nscd/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque world handle. */
typedef struct nscd_world nscd_world;

/**
 * @brief Generational id of a body: the slot index in the low 32 bits, the
 *        slot's generation (from 1) in the high 32 bits. 0 is never a valid id.
 *
 * Ids carry no world tag: they are deterministic (the same scene gives the
 * same ids run after run, which a tag from the process — an address, a
 * global counter — would break), so an id of world A used on world B may
 * address the body in the same slot of B. Keep each id with its world; to
 * tell bodies apart across worlds, give them distinct
 * nscd_body_desc::user_id values and compare the user ids that
 * nscd_world_get_bodies() returns (docs/hostile_input.md).
 */
typedef uint64_t nscd_body_id;

/** The null body id (no body; also "the ground" where a function accepts it). */
#define NSCD_BODY_NULL ((nscd_body_id)0)

/** Kinds of bodies. */
typedef enum nscd_body_type {
    NSCD_BODY_STATIC = 0,    /**< Never moves; infinite mass. */
    NSCD_BODY_KINEMATIC = 1, /**< Moves with its given velocity; infinite mass. */
    NSCD_BODY_DYNAMIC = 2    /**< Moves under gravity and contact impulses. */
} nscd_body_type;

/** What nscd_world_step() does with a step whose sweeps did not reach the
 *  tolerance (since 0.2; nscd_world_desc::on_unconverged). */
typedef enum nscd_world_unconverged {
    /** Kept; the report's `converged` is 0, the world's last error names the
     *  step and the merit (the log gets it as a warning), and the status is
     *  ::NSCD_OK (the default). */
    NSCD_UNCONVERGED_KEEP = 0,
    /** Kept, and the status is ::NSCD_ERR_NOT_CONVERGED (the behaviour before on_unconverged with
     *  a tolerance). */
    NSCD_UNCONVERGED_FAIL = 1,
    /** Undone (bodies, time and contacts as before the call) and
     *  ::NSCD_ERR_NOT_CONVERGED: retry with more sweeps or a smaller dt. */
    NSCD_UNCONVERGED_REJECT = 2
} nscd_world_unconverged;

/** How the friction coefficient of a contact follows from its two materials. */
typedef enum nscd_friction_combine {
    NSCD_COMBINE_GEOMETRIC_MEAN = 0, /**< sqrt(μ_a μ_b) (Box2D's rule; the default). */
    NSCD_COMBINE_MIN = 1,            /**< min(μ_a, μ_b). */
    NSCD_COMBINE_MAX = 2,            /**< max(μ_a, μ_b). */
    NSCD_COMBINE_AVERAGE = 3         /**< (μ_a + μ_b) / 2. */
} nscd_friction_combine;

/**
 * @brief A task of a step (since 0.2): items [begin, end) of its work.
 *
 * nscd hands it to nscd_world_desc::enqueue_task; the host's scheduler
 * calls it on ranges that together cover [0, item_count) exactly once,
 * each of at least `min_range` items (but possibly the last), from any
 * thread, in any order, concurrently. `worker` is the index of the
 * calling worker in [0, nscd_world_desc::threads) (nscd does not rely on
 * it today; pass 0 if the scheduler has no such index). `task_ctx` is the
 * pointer given to enqueue_task.
 */
typedef void (*nscd_task_fn)(int32_t begin, int32_t end, int32_t worker, void *task_ctx);

/**
 * @brief The host's scheduler, part 1 (since 0.2; Box2D v3's enqueueTask):
 *        start `task` over [0, item_count) and return a handle that
 *        nscd_finish_task_fn waits for.
 *
 * Cut the items into ranges of at least `min_range` items and run them on
 * the host's workers (at most nscd_world_desc::threads of them at a time,
 * the caller's thread may be one). A host may also run the whole range
 * inline, `task(0, item_count, 0, task_ctx)`, and return NULL: nscd then
 * does not call finish_task. The task must not outlive finish_task.
 * Called only from inside nscd_world_step() (and the distributed world's
 * step), on the thread that called it; never concurrently for one world.
 * `user` is nscd_world_desc::task_user.
 */
typedef void *(*nscd_enqueue_task_fn)(nscd_task_fn task, int32_t item_count, int32_t min_range,
                                      void *task_ctx, void *user);

/**
 * @brief The host's scheduler, part 2 (since 0.2; Box2D v3's finishTask):
 *        return once every range of the task of `handle` (a non-NULL
 *        value of nscd_enqueue_task_fn) has run.
 */
typedef void (*nscd_finish_task_fn)(void *handle, void *user);

/** World settings, filled with defaults by nscd_world_desc_init(). */
typedef struct nscd_world_desc {
    uint32_t struct_size; /**< sizeof(nscd_world_desc). */
    double gravity[3];    /**< m/s². Default (0, 0, -9.81). */
    double dt;            /**< Time step, s, > 0. Default 1e-3. */
    int32_t friction_law; /**< ::nscd_friction_law. Default Coulomb. */
    int32_t max_sweeps;   /**< Sweeps of the block solver per step, >= 1. Default 10. */
    /** Stop sweeping when the merit (see ::nscd_world_step_report) falls below
     *  this, m/s; a step whose sweeps end above it is not converged: its
     *  report says so, and `on_unconverged` says whether it is kept and what
     *  the status is. 0 = no test: always max_sweeps sweeps, `converged` 0
     *  (nothing was checked). Default 1e-4 (since 0.2; 0 before): 1 % of
     *  the speed gravity adds in a step of 1 ms, 0.1 µm per step. */
    double tolerance;
    /** Weight ω in (0, 1] of the Jacobi blend across groups (seed 002, Sect. 3;
     *  preclik14). Ignored with one group. Default 1. */
    double relaxation;
    /** Number of contact groups: Gauss–Seidel inside a group, weighted block
     *  Jacobi across groups; 1 = pure Gauss–Seidel (the default). */
    int32_t jacobi_groups;
    int32_t warm_start; /**< Start from the last step's impulses (1, the default) or 0. */
    /** ε in [0, 1): a penetration ξ < 0 enters as ε ξ/dt (seed 002, Sect. 3.1).
     *  Default 0.2. */
    double error_reduction;
    /** Shapes closer than this (m, >= 0) give contacts, so that a contact that
     *  closes within the step is seen. Default 1e-3. */
    double contact_margin;
    double default_friction;  /**< μ of material 0 (the default material), >= 0. Default 0.5. */
    int32_t friction_combine; /**< ::nscd_friction_combine. Default geometric mean. */
    /** 1 = dynamic bodies whose centre leaves [domain_min, domain_max] are removed at
     *  the end of a step (the open outlet of a channel); 0 = no domain (default). */
    int32_t use_domain;
    double domain_min[3];     /**< Lower corner of the domain box, m. */
    double domain_max[3];     /**< Upper corner of the domain box, m. */
    nscd_allocator allocator; /**< Zero-filled: malloc/free. */
    nscd_log_fn log;          /**< NULL: silent. */
    void *log_user;           /**< Passed to `log`. */
    /** (since 0.2) Largest speed, m/s (> 0), at which a penetration is pushed
     *  apart: the correction ε ξ/dt of a contact with ξ < 0 is bounded by it.
     *  The correction moves the positions only (a relax pass of the sweeps
     *  without it follows, as in Box2D's soft step), so a body created
     *  overlapping another leaves at most at this speed and keeps no velocity
     *  from it (docs/world.md, "Overlap recovery"). Default 0.1. */
    double max_correction_speed;
    /** (since 0.2) ::nscd_world_unconverged: a step whose sweeps did not
     *  reach `tolerance` is kept with ::NSCD_OK (the default), kept with
     *  ::NSCD_ERR_NOT_CONVERGED, or undone with ::NSCD_ERR_NOT_CONVERGED. */
    int32_t on_unconverged;
    /** (since 0.2) Sweeps of the relax pass, >= 0: after the sweeps with the
     *  penetration correction, up to this many without it (stopping below
     *  `tolerance` too), so that the correction moves positions and not
     *  velocities. 0 = no relax pass: the (bounded) correction stays in the
     *  velocities, as in 0.2. Default 3 (docs/world.md, "Overlap recovery":
     *  its cost and what fewer sweeps leave). */
    int32_t relax_sweeps;
    /** (since 0.2) Threads of nscd_world_step(), 0 to 256 (docs/world.md,
     *  "Threads"). 0 (the default) = no threading: the step as before this
     *  field, the contacts swept in their order (bitwise unchanged). N >= 1 =
     *  the contacts swept in a colour order (contacts of one colour share no
     *  dynamic body, coloured greedily in contact order: a rule of the scene,
     *  never of N) and every costly stage (collision detection, contact
     *  rows, free velocities, the sweeps, positions) cut into fixed chunks
     *  run by N workers: the results are bitwise the same for every N >= 1
     *  (but differ from those of 0 by the order of the sweep). With N >= 2
     *  and no `enqueue_task`, the world owns a pool of N - 1 threads (made
     *  by nscd_world_create(), joined by nscd_world_destroy(); the thread
     *  calling the step is the N-th worker). With `enqueue_task`, N is the
     *  number of the host's workers and the world makes no thread. With
     *  N = 1 every task runs inline on the calling thread (no pool, no
     *  callback called). */
    int32_t threads;
    /** (since 0.2) The host's scheduler: NULL (the default) for the
     *  built-in pool, else both this and `finish_task` (one without the
     *  other is ::NSCD_ERR_INVALID_ARGUMENT), with `threads` >= 1. The
     *  results do not depend on how the scheduler cuts or orders the ranges. */
    nscd_enqueue_task_fn enqueue_task;
    /** (since 0.2) See `enqueue_task`. */
    nscd_finish_task_fn finish_task;
    /** (since 0.2) Passed to `enqueue_task` and `finish_task`. */
    void *task_user;
    /** (since 0.2) Depth, m (> 0), past which the sweeps must not leave a
     *  contact closing. Truncated Gauss–Seidel carries a heavy load slowly:
     *  under a pile, a light body at the bottom can be pressed into its
     *  support step after step while every step is merely "not converged".
     *  When the sweeps end with a contact deeper than this at the start of
     *  the step whose normal velocity still closes it (u_n < -max(tolerance,
     *  1e-3 deep_penetration / dt)), the step sweeps on, max_sweeps at a
     *  time, up to `deep_sweeps` more (docs/world.md, "Deep penetrations").
     *  Default 1e-4 (0.1 mm: 1 % of a 1 cm body, a tenth of the default
     *  contact margin). */
    double deep_penetration;
    /** (since 0.2) Most sweeps the deep-penetration guard adds to a step,
     *  >= 0; 0 = no guard (the step as before this field). A step that
     *  still leaves a deep contact closing is not converged (its report
     *  counts them, its last error names the deepest). Default 100. */
    int32_t deep_sweeps;
    /** (since 0.2) Sleeping (docs/world.md, "Sleeping"): the speed, m/s
     *  (>= 0), below which a dynamic body counts as at rest: its linear
     *  speed |v| and its angular speed times its bounding radius |ω| r must
     *  both stay below it (0: no body ever does). Ignored unless `sleep`
     *  is 1. Default 0.01. */
    double sleep_speed;
    /** (since 0.2) Time, s (>= 0), a body must stay below `sleep_speed`
     *  before it may sleep; an island (the awake dynamic bodies connected by
     *  contacts) falls asleep when every body of it has. Ignored unless
     *  `sleep` is 1. Default 0.5. */
    double sleep_time;
    /** (since 0.2) 1 = islands of bodies at rest fall asleep: their
     *  velocities are set to exactly zero and they are neither integrated
     *  nor solved until something wakes them (a moving body touching them,
     *  a change through the API, nscd_world_wake_body()); 0 (the default) =
     *  no sleeping: the step as before this field, bitwise. The time
     *  steppers (nscd_time_stepping_create_world()) and the distributed
     *  world refuse a world with sleeping on (::NSCD_ERR_UNSUPPORTED). */
    int32_t sleep;
    /** (since 0.2) Light bodies (docs/world.md, "A light body squeezed"): a
     *  dynamic body with 2 to 12 contacts that touches a dynamic body at
     *  least this many times heavier is light, and after every sweep of
     *  nscd_world_step() the normal impulses of its contacts are solved
     *  together (an exact block update of their normal rows, Lemke's method;
     *  the tangential impulses kept), so that a heavy body resting on a
     *  light one is held by the light one's support in one sweep instead of
     *  hundreds. 0 = no light bodies (the step as before this field,
     *  bitwise), else >= 1. Not used by the Jacobi blend (`jacobi_groups` >
     *  1), the distributed world or the time steppers. Default 10. */
    double light_body_ratio;
} nscd_world_desc;

/** A body, filled with defaults by nscd_body_desc_init(). */
typedef struct nscd_body_desc {
    uint32_t struct_size;       /**< sizeof(nscd_body_desc). */
    int32_t type;               /**< ::nscd_body_type. Default dynamic. */
    double position[3];         /**< Of the body frame's origin, m. Default 0. */
    double orientation[4];      /**< Unit quaternion (w, x, y, z). Default identity. */
    double velocity[3];         /**< Of the origin, m/s. Default 0. */
    double angular_velocity[3]; /**< World frame, rad/s. Default 0. */
    /** Density, kg/m³ (> 0), from which mass, centre of mass and inertia of a
     *  dynamic body follow when `mass` is 0. Default 1000. */
    double density;
    /** Explicit mass, kg; 0 (default) = from density and shapes. When > 0,
     *  `inertia` gives the body-frame inertia about the origin, which is then
     *  the centre of mass. */
    double mass;
    double inertia[3]; /**< Principal moments, kg m², with `mass` > 0. */
    /** Returned by nscd_world_get_bodies(): the caller's own id (e.g. a global
     *  particle number that survives MPI migration). Default 0. */
    uint64_t user_id;
} nscd_body_desc;

/** A shape of a body, filled with defaults by nscd_shape_desc_init(). */
typedef struct nscd_shape_desc {
    uint32_t struct_size;   /**< sizeof(nscd_shape_desc). */
    int32_t type;           /**< ::nscd_shape_type. Default sphere. */
    double radius;          /**< Sphere, capsule, cylinder, m, > 0. Default 0.5. */
    double half_height;     /**< Capsule, cylinder, m, > 0. Default 0.5. */
    double half_extents[3]; /**< Box, m, > 0. Default 0.5 each. */
    double position[3];     /**< Shape origin in the body frame, m. Default 0. */
    double orientation[4];  /**< Shape frame in the body frame (w, x, y, z). Default identity. */
    int32_t material;       /**< Material index (0 = the world's default). */
    /** Collision filter: shapes a and b collide when (a.category & b.mask) and
     *  (b.category & a.mask) are both non-zero. Default all bits. */
    uint32_t category;
    uint32_t mask; /**< See `category`. Default all bits. */
    /** (since 0.2) ::NSCD_SHAPE_CONVEX: `point_count` points, x, y, z each, in
     *  the shape frame, m; the shape is their convex hull (points inside it
     *  are allowed and ignored). The world copies them when the body is
     *  added: the array may be freed after the call. The shape origin stays
     *  where the points put it (it need not be inside the hull); a dynamic
     *  body's centre of mass follows from the hull's volume by the
     *  divergence theorem, as for the other shapes. Ignored by the other
     *  types. Default NULL. */
    const double *points;
    /** (since 0.2) Number of `points` of a ::NSCD_SHAPE_CONVEX shape: from 4
     *  to ::NSCD_SHAPE_CONVEX_MAX_POINTS, not all in one plane (a hull whose
     *  volume is below 1e-9 times the cube of the largest side of the
     *  points' bounding box is refused). Default 0. */
    int32_t point_count;
} nscd_shape_desc;

/** Largest nscd_shape_desc::point_count of a convex shape (since 0.2). */
#define NSCD_SHAPE_CONVEX_MAX_POINTS 4096

/** Per-step figures returned by nscd_world_step(). */
typedef struct nscd_world_step_report {
    uint32_t struct_size; /**< Set by the caller to sizeof(nscd_world_step_report); kept. */
    int32_t contacts;     /**< Contact points of the step. */
    int32_t sweeps;       /**< Sweeps done. */
    /** 1 when the merit fell below the tolerance; 0 when it did not, and
     *  with tolerance 0 (nothing checked; 0.2 said 1 there). */
    int32_t converged;
    /** Merit of the last sweep: the largest change of a relative contact
     *  velocity δv_j (m/s) caused by one block update of the sweep. */
    double merit;
    double max_penetration; /**< Largest -ξ over the step's contacts before the step, m (>= 0). */
    int32_t bodies_removed; /**< Bodies removed at the domain boundary in this step. */
    int32_t broad_pairs;    /**< Shape pairs the broad phase passed to the narrow phase. */
    /** (since 0.2) Sweeps of the relax pass (0 when no contact penetrated):
     *  after a step's sweeps with the penetration correction, the same sweeps
     *  without it, so that the correction moves positions only. `merit` and
     *  `converged` are those of both passes. */
    int32_t relax_sweeps;
    /** (since 0.2) Sweeps the deep-penetration guard added
     *  (nscd_world_desc::deep_penetration), included in `sweeps`. */
    int32_t deep_sweeps;
    /** (since 0.2) Contacts the guard left deeper than
     *  nscd_world_desc::deep_penetration and closing: a step with any is
     *  not converged, whatever its merit. */
    int32_t deep_contacts;
    /** (since 0.2) Dynamic bodies asleep at the end of the step
     *  (nscd_world_desc::sleep; 0 without sleeping). */
    int32_t sleeping_bodies;
} nscd_world_step_report;

/**
 * @brief Fills a world desc with the defaults above.
 * @param desc        The desc to fill.
 * @param struct_size sizeof(nscd_world_desc) of the caller.
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_STRUCT_SIZE on a
 *         size outside the range this library knows (nothing written).
 */
NSCD_API nscd_status nscd_world_desc_init(nscd_world_desc *desc, size_t struct_size);
/**
 * @brief Fills a body desc with the defaults above.
 * @param desc        The desc to fill.
 * @param struct_size sizeof(nscd_body_desc) of the caller.
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_STRUCT_SIZE.
 */
NSCD_API nscd_status nscd_body_desc_init(nscd_body_desc *desc, size_t struct_size);
/**
 * @brief Fills a shape desc with the defaults above.
 * @param desc        The desc to fill.
 * @param struct_size sizeof(nscd_shape_desc) of the caller.
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_STRUCT_SIZE.
 */
NSCD_API nscd_status nscd_shape_desc_init(nscd_shape_desc *desc, size_t struct_size);

/**
 * @brief Creates an empty world.
 * @param desc  Settings (read as far as its struct_size goes).
 * @param world Receives the new world (unchanged on failure).
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_STRUCT_SIZE;
 *         ::NSCD_ERR_OUT_OF_RANGE for dt <= 0 or a dt the world cannot
 *         step (|g| dt² overflows, with |g| taken as at least 1), ε outside [0, 1), relaxation
 *         outside (0, 1], a negative margin, friction or tolerance, groups or
 *         sweeps < 1, an empty domain, `threads` outside [0, 256], a
 *         `deep_penetration` <= 0, `deep_sweeps` < 0, a negative
 *         `sleep_speed` or `sleep_time`;
 *         ::NSCD_ERR_NOT_FINITE for a NaN or an infinite `sleep_speed` or
 *         `sleep_time`;
 *         ::NSCD_ERR_INVALID_ARGUMENT for a `sleep` other than 0 and 1, a bad enum or allocator,
 * one of `enqueue_task` and `finish_task` without the other, or with `threads` < 1;
 * ::NSCD_ERR_STATE when the system refuses a thread of the pool (none is left running);
 * ::NSCD_ERR_OUT_OF_MEMORY.
 */
NSCD_API nscd_status nscd_world_create(const nscd_world_desc *desc, nscd_world **world);
/**
 * @brief Destroys the world and every body in it.
 *
 * From a callback of a call that steps the world (the log hook during
 * nscd_world_step(), a time stepper's on_step), the destroy is deferred:
 * that call frees the world when it returns, with ::NSCD_ERR_STALE_HANDLE.
 * @param world The world; NULL is ignored.
 */
NSCD_API void nscd_world_destroy(nscd_world *world);
/**
 * @brief The message of the last failure on this world.
 * @param world The world (NULL gives a fixed message).
 * @return A NUL-terminated string owned by the world, "" when the last call
 *         succeeded; valid until the next call on the world.
 */
NSCD_API const char *nscd_world_last_error(const nscd_world *world);

/**
 * @brief Adds a material. Material 0 exists from the start (the world's
 *        default friction). A material costs 8 bytes (24 once a resistance
 *        length was set: nscd_world_set_material_resistance()); pair overrides are
 *        stored apart (nscd_world_set_pair_friction()).
 * @param world     The world.
 * @param friction  μ >= 0.
 * @param material  Receives its index.
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_NOT_FINITE;
 *         ::NSCD_ERR_OUT_OF_RANGE for μ < 0 or more than 65536 materials;
 *         ::NSCD_ERR_OUT_OF_MEMORY.
 */
NSCD_API nscd_status nscd_world_add_material(nscd_world *world, double friction, int32_t *material);
/**
 * @brief Overrides the combination rule for one pair of materials (both
 *        orders; a material with itself is a pair too). The overrides live
 *        in a hash table: memory proportional to the pairs set (at most 64
 *        bytes each), a lookup in constant time.
 * @param world      The world.
 * @param material_a A material index.
 * @param material_b A material index.
 * @param friction   μ >= 0 of every contact between materials a and b.
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_INDEX for an
 *         unknown material; ::NSCD_ERR_NOT_FINITE; ::NSCD_ERR_OUT_OF_RANGE;
 *         ::NSCD_ERR_OUT_OF_MEMORY (nothing changed).
 */
NSCD_API nscd_status nscd_world_set_pair_friction(nscd_world *world, int32_t material_a,
                                                  int32_t material_b, double friction);
/**
 * @brief Sets a material's rolling and spinning resistance (docs/world.md,
 *        "Rolling and spinning resistance"). Both are lengths, 0 by default
 *        (no resistance: the world steps bitwise as without them).
 *
 * At a contact with normal impulse x_n, an angular impulse m on the relative
 * angular velocity ω_b − ω_a resists rolling and spinning: its component
 * along the normal (spinning) |m_n| <= μ_s x_n and its tangential part
 * (rolling) |m_t| <= μ_r x_n, solved by nscd_world_step() as a block of the
 * Gauss–Seidel sweep right after the contact's own (the maximal-dissipation
 * projection: the impulse that stops the relative rotation if it fits the
 * bound, else the bound's closest admissible one; it only dissipates). A
 * ball of radius r rolling on a floor then decelerates as under a torque
 * μ_r N, a = −μ_r g / (r (1 + I/(m r²))); μ_r is the offset of the normal
 * force ahead of the contact point (the half width of a deformed contact
 * patch: 1e-5 to 1e-3 m for hard grains) and μ_s the radius of the patch's
 * torsional friction. A contact's lengths are the average of its two
 * materials' ((μ_a + μ_b) / 2: a material without resistance on a floor
 * that has some still rolls to rest, as it would on a soft floor).
 *
 * Costs: contacts of materials without resistance pay nothing; a contact
 * with resistance carries a 304-byte angular block and one more block update
 * per sweep. The time steppers driving a world
 * (nscd_time_stepping_create_world()) refuse a world with resistance
 * (::NSCD_ERR_UNSUPPORTED at their step); the distributed world
 * (nscd_world_mpi) has no resistance.
 *
 * @param world    The world.
 * @param material A material index.
 * @param rolling  Rolling-resistance length μ_r >= 0, m.
 * @param spinning Spinning-resistance length μ_s >= 0, m.
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_INDEX for an
 *         unknown material; ::NSCD_ERR_NOT_FINITE for a NaN or infinite
 *         length; ::NSCD_ERR_OUT_OF_RANGE for a negative one. Nothing
 *         changes on failure.
 */
NSCD_API nscd_status nscd_world_set_material_resistance(nscd_world *world, int32_t material,
                                                        double rolling, double spinning);
/**
 * @brief A material's rolling and spinning resistance lengths
 *        (nscd_world_set_material_resistance()).
 * @param world    The world.
 * @param material A material index.
 * @param rolling  Receives μ_r, m.
 * @param spinning Receives μ_s, m.
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_INDEX for an
 *         unknown material.
 */
NSCD_API nscd_status nscd_world_get_material_resistance(const nscd_world *world, int32_t material,
                                                        double *rolling, double *spinning);

/**
 * @brief Adds a body with `n_shapes` shapes (a compound when more than one).
 *
 * The mass, centre of mass and inertia tensor of a dynamic body follow from
 * `density` and its shapes unless `mass` is given. When the centre of mass
 * is not at the body origin, the world moves the body frame to it: the
 * shapes are shifted by -c in the body frame and the position by +R c, so
 * that positions read back (nscd_world_get_body(), copy-out, writers) are
 * those of the centre of mass. Shapes must not overlap (their masses add).
 *
 * @param world    The world.
 * @param body     The body desc.
 * @param shapes   `n_shapes` shape descs (NULL when n_shapes is 0).
 * @param n_shapes 0 to 256 shapes.
 * @param id       Receives the body's id.
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_STRUCT_SIZE;
 *         ::NSCD_ERR_NOT_FINITE for a NaN; ::NSCD_ERR_OUT_OF_RANGE for a
 *         non-positive size or density, a negative mass, a dynamic body
 *         without mass (no shape and mass 0), a half-space on a dynamic
 *         body, more than 256 shapes; ::NSCD_ERR_INVALID_ARGUMENT for a bad
 *         enum, a static body with a velocity, or a quaternion farther than
 *         1e-3 from unit length (it is normalised otherwise), and for a
 *         convex shape whose `points` are NULL, fewer than 4, more than
 *         ::NSCD_SHAPE_CONVEX_MAX_POINTS, coplanar, or whose hull round-off
 *         defeats (::NSCD_ERR_NOT_FINITE for a NaN or infinite point);
 *         ::NSCD_ERR_INDEX for an unknown material; ::NSCD_ERR_OUT_OF_MEMORY.
 *         The last error names the shape and the argument.
 */
NSCD_API nscd_status nscd_world_add_body(nscd_world *world, const nscd_body_desc *body,
                                         const nscd_shape_desc *shapes, int32_t n_shapes,
                                         nscd_body_id *id);
/**
 * @brief Removes a body; its contacts go with it (they are left out of
 *        nscd_world_get_contacts() from now on). Cheap: the storage is
 *        compacted once, at the start of the next step. With sleeping
 *        (nscd_world_desc::sleep), its island and every island it touched
 *        wake.
 * @param world The world.
 * @param id    The body.
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_STALE_HANDLE for a
 *         dead or null id.
 */
NSCD_API nscd_status nscd_world_remove_body(nscd_world *world, nscd_body_id id);
/**
 * @brief Whether an id names a live body.
 * @param world The world (NULL: 0).
 * @param id    Any value.
 * @return 1 when `id` names a live body of the world, else 0.
 */
NSCD_API int32_t nscd_world_body_valid(const nscd_world *world, nscd_body_id id);
/**
 * @brief Number of live bodies.
 * @param world The world (NULL: 0).
 * @return The number of live bodies (static, kinematic and dynamic).
 */
NSCD_API int32_t nscd_world_body_count(const nscd_world *world);

/**
 * @brief Reads a body's state; any output pointer may be NULL.
 * @param world     The world.
 * @param id        The body.
 * @param position  3 values: the body frame's origin (the centre of mass of
 *                  a dynamic body), m.
 * @param orientation 4 values (w, x, y, z).
 * @param velocity  3 values, m/s.
 * @param angular_velocity 3 values, world frame, rad/s.
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_STALE_HANDLE.
 */
NSCD_API nscd_status nscd_world_get_body(const nscd_world *world, nscd_body_id id, double *position,
                                         double *orientation, double *velocity,
                                         double *angular_velocity);
/**
 * @brief Sets a body's state; NULL pointers leave that part unchanged. Static
 *        bodies accept a pose only (position, orientation). The body's
 *        contacts keep their keys. With sleeping (nscd_world_desc::sleep):
 *        a dynamic body's island wakes, with the islands it touched; a pose
 *        set on a static or kinematic body wakes every sleeping body.
 * @param world     The world.
 * @param id        The body.
 * @param position  3 values or NULL.
 * @param orientation 4 values (normalised; within 1e-3 of unit length) or NULL.
 * @param velocity  3 values or NULL.
 * @param angular_velocity 3 values (world frame) or NULL.
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_STALE_HANDLE;
 *         ::NSCD_ERR_NOT_FINITE; ::NSCD_ERR_INVALID_ARGUMENT for a
 *         non-unit quaternion or a velocity of a static body (nothing
 *         changed on failure).
 */
NSCD_API nscd_status nscd_world_set_body(nscd_world *world, nscd_body_id id, const double *position,
                                         const double *orientation, const double *velocity,
                                         const double *angular_velocity);
/**
 * @brief Sets the load applied to a dynamic body at every step until it is
 *        set again: a force through the centre of mass and a torque, both in
 *        the world frame (a force F at a point p of the body is F with the
 *        torque (p − x) × F; update it when the body turns).
 *
 * nscd_world_step() adds dt F / m to the velocity and dt I⁻¹ τ (the world-
 * frame inverse inertia) to the angular velocity with gravity, before the
 * contacts are solved; the time steppers driving the world add F and τ to
 * its forces. A new body has none; zero vectors (or NULL) remove it. The
 * call wakes the body's island (nscd_world_desc::sleep); a sleeping body
 * gets no load until woken.
 * @param world  The world.
 * @param id     A dynamic body.
 * @param force  3 values, N, or NULL for zero.
 * @param torque 3 values, N m, or NULL for zero.
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_STALE_HANDLE;
 *         ::NSCD_ERR_NOT_FINITE; ::NSCD_ERR_INVALID_ARGUMENT for a static or
 *         kinematic body (nothing changed on failure).
 */
NSCD_API nscd_status nscd_world_set_applied_force(nscd_world *world, nscd_body_id id,
                                                  const double force[3], const double torque[3]);
/**
 * @brief Reads the load set by nscd_world_set_applied_force() (zero unless set).
 * @param world  The world.
 * @param id     The body.
 * @param force  Receives 3 values, N; may be NULL.
 * @param torque Receives 3 values, N m; may be NULL.
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_STALE_HANDLE.
 */
NSCD_API nscd_status nscd_world_get_applied_force(const nscd_world *world, nscd_body_id id,
                                                  double force[3], double torque[3]);
/**
 * @brief Mass and body-frame inertia of a body.
 * @param world   The world.
 * @param id      The body.
 * @param mass    Receives the mass, kg (0 for static and kinematic bodies); may be NULL.
 * @param inertia Receives the diagonal of the body-frame inertia tensor
 *                about the centre of mass (the principal moments when the
 *                shapes are aligned with the body frame), kg m²; may be NULL.
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_STALE_HANDLE.
 */
NSCD_API nscd_status nscd_world_get_body_mass(const nscd_world *world, nscd_body_id id,
                                              double *mass, double inertia[3]);

/**
 * @brief Whether a body sleeps (nscd_world_desc::sleep; docs/world.md,
 *        "Sleeping"): its velocities are zero and it neither moves nor has
 *        its contacts solved until it is woken.
 * @param world    The world.
 * @param id       Any live body (static and kinematic bodies never sleep).
 * @param sleeping Receives 1 when the body sleeps, else 0.
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_STALE_HANDLE
 *         (nothing written on failure).
 * @since 0.2
 */
NSCD_API nscd_status nscd_world_body_sleeping(const nscd_world *world, nscd_body_id id,
                                              int32_t *sleeping);
/**
 * @brief Wakes a body and every body of its sleeping island, and restarts
 *        their sleep timers (they stay awake at least
 *        nscd_world_desc::sleep_time). Of a static or kinematic body: wakes
 *        every island it touches. Of an awake body: restarts its timer.
 *        Without sleeping: does nothing.
 * @param world The world.
 * @param id    The body.
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_STALE_HANDLE.
 * @since 0.2
 */
NSCD_API nscd_status nscd_world_wake_body(nscd_world *world, nscd_body_id id);

/**
 * @brief Advances the world by one step of length dt (see the file comment
 *        and docs/world.md for its stages).
 *
 * Orientations follow the exact rotation by the angle dt |ω'| about ω'
 * (the exponential map) and are renormalised, instead of the paper's
 * first-order update (φ + dt Q(φ) ω') / ||·||, which shrinks large rotations.
 * Kinematic bodies move with their velocities; static bodies never move.
 * At the end, dynamic bodies whose centre left the domain box are removed.
 *
 * @param world   The world.
 * @param report  May be NULL; its struct_size is set by the caller.
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_STRUCT_SIZE for a
 *         report of a bad size (nothing done); ::NSCD_ERR_NOT_CONVERGED when
 *         a tolerance was set and not reached in max_sweeps sweeps (the step
 *         is still taken: the state is the result of the last sweep);
 *         ::NSCD_ERR_NOT_FINITE when a velocity became NaN or infinite, or a
 *         position or orientation would (x + dt v or the rotation angle
 *         dt |ω| overflows): the world is then left as before the step and
 *         the message names the step, the body id and its user id; ::NSCD_ERR_OUT_OF_MEMORY
 * (nothing moved);
 *         ::NSCD_ERR_UNSUPPORTED when the world has a clearance joint, or a
 *         mechanism whose joint projection exceeds its row limit (ideal
 *         joints are solved with the contacts since 0.2; joint.h: drive a
 *         world with clearance joints with nscd_time_stepping_create_world();
 *         nothing done);
 *         ::NSCD_ERR_STATE when called from a callback of a call that steps
 *         this world (its log hook, a time stepper's on_step; nothing done);
 *         ::NSCD_ERR_STALE_HANDLE when the log hook destroyed the world
 *         during the step (freed now).
 */
NSCD_API nscd_status nscd_world_step(nscd_world *world, nscd_world_step_report *report);
/**
 * @brief Simulated time.
 * @param world The world (NULL: 0).
 * @return Steps taken times dt, s.
 */
NSCD_API double nscd_world_time(const nscd_world *world);

/**
 * @brief Bulk copy-out of every live body, structure of arrays, in the
 *        world's storage order (deterministic: the order bodies were added,
 *        removed ones left out). Any array may be NULL.
 * @param world     The world.
 * @param capacity  Room in each array, in bodies.
 * @param count     Receives the number of bodies; ::NSCD_ERR_BUFFER_TOO_SMALL
 *                  (nothing written but the count) when it exceeds capacity.
 * @param ids       capacity ids.
 * @param user_ids  capacity user ids (nscd_body_desc::user_id).
 * @param positions 3 capacity values (x0 y0 z0 x1 ...).
 * @param orientations 4 capacity values.
 * @param velocities 3 capacity values.
 * @param angular_velocities 3 capacity values.
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_BUFFER_TOO_SMALL;
 *         ::NSCD_ERR_INVALID_ARGUMENT for a negative capacity (the world's
 *         last error names the capacity).
 */
NSCD_API nscd_status nscd_world_get_bodies(const nscd_world *world, int32_t capacity,
                                           int32_t *count, nscd_body_id *ids, uint64_t *user_ids,
                                           double *positions, double *orientations,
                                           double *velocities, double *angular_velocities);

/**
 * @brief Bulk copy-out of the last step's contacts, in the solver's order
 *        (deterministic). Any array may be NULL. The contacts of sleeping
 *        bodies (nscd_world_desc::sleep) are listed as they were when they
 *        fell asleep (not solved since; not counted in
 *        nscd_world_step_report::contacts).
 * @param world     The world.
 * @param capacity  Room in each array, in contacts.
 * @param count     Receives the number of contacts (::NSCD_ERR_BUFFER_TOO_SMALL
 *                  when it exceeds capacity; nothing else is written).
 * @param body_a    The first body of each contact.
 * @param body_b    The second body; the normal points from a to b.
 * @param points    3 values each: the contact point (midway between the two
 *                  surfaces), m.
 * @param normals   3 values each: unit normal from a to b.
 * @param gaps      Gap ξ at detection, m (negative: penetration).
 * @param impulses  3 values each: normal, then the two tangential impulses, N s.
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_BUFFER_TOO_SMALL;
 *         ::NSCD_ERR_INVALID_ARGUMENT for a negative capacity.
 */
NSCD_API nscd_status nscd_world_get_contacts(const nscd_world *world, int32_t capacity,
                                             int32_t *count, nscd_body_id *body_a,
                                             nscd_body_id *body_b, double *points, double *normals,
                                             double *gaps, double *impulses);

/**
 * @brief Kinetic energy of the dynamic bodies (translation and rotation).
 * @param world  The world.
 * @param energy Receives the energy, J.
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER.
 */
NSCD_API nscd_status nscd_world_kinetic_energy(const nscd_world *world, double *energy);

/** Formats of nscd_world_write(). */
typedef enum nscd_world_format {
    NSCD_WORLD_VTK = 0, /**< Legacy ASCII VTK polydata: one point per body with
                             radius, user id, velocity, angular velocity (ParaView). */
    NSCD_WORLD_CSV = 1  /**< One row per body: id, user_id, x, y, z, qw, qx, qy, qz,
                             vx, vy, vz, wx, wy, wz, radius. */
} nscd_world_format;

/**
 * @brief Writes every body to a file (the radius is that of the body's first
 *        shape when it is a sphere, else its bounding radius). Numbers carry
 *        17 significant digits.
 * @param world  The world.
 * @param path   File name (overwritten).
 * @param format A ::nscd_world_format.
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_INVALID_ARGUMENT for
 *         a bad format; ::NSCD_ERR_IO when the file cannot be written.
 */
NSCD_API nscd_status nscd_world_write(const nscd_world *world, const char *path, int32_t format);

/**
 * @brief Adds a half-space given by a point of its boundary plane and its
 *        outward normal: the solid {y : (y − point)·n <= 0} with n =
 *        normal / |normal| (the ground is point (0, 0, 0), normal (0, 0, 1)).
 *
 * The body's position is `point` and its orientation a rotation of +z onto
 * n: the shortest one when n_z >= 0; when n_z < 0 the shortest rotation of
 * +z onto (n_x, −n_y, −n_z) followed by a half turn about x (exactly that
 * half turn when n is −z), so that no component loses digits near −z. The
 * body has one ::NSCD_SHAPE_HALF_SPACE shape at its origin: the body desc
 * and the quaternion a caller of nscd_world_add_body() would otherwise
 * compute by hand.
 * @param world  The world.
 * @param point  3 values: a point of the boundary plane, m.
 * @param normal 3 values: the outward normal, any non-zero length (it is
 *               normalised).
 * @param body   NULL for a static body; else a body desc (read as far as
 *               its struct_size goes) whose type (static or kinematic),
 *               velocities and user_id are used; its position and
 *               orientation are replaced by `point` and the rotation above.
 * @param shape  NULL for material 0 and every collision bit; else a shape
 *               desc whose material, category and mask are used (its type,
 *               sizes and pose are ignored).
 * @param id     Receives the body's id.
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER for a NULL world, point,
 *         normal or id; ::NSCD_ERR_NOT_FINITE for a NaN or infinite point
 *         or normal; ::NSCD_ERR_OUT_OF_RANGE for a zero normal or a dynamic
 *         body; ::NSCD_ERR_STRUCT_SIZE; and the statuses of
 *         nscd_world_add_body() for the body and the material. Nothing is
 *         added on failure.
 * @since 0.2
 */
NSCD_API nscd_status nscd_world_add_half_space(nscd_world *world, const double point[3],
                                               const double normal[3], const nscd_body_desc *body,
                                               const nscd_shape_desc *shape, nscd_body_id *id);

/**
 * @brief Gravitational potential energy of the dynamic bodies:
 *        V = −Σ m_i g·x_i, with g the world's gravity and x_i the centre of
 *        mass of body i (zero at the origin; with g = (0, 0, −g) it is
 *        Σ m_i g z_i).
 *
 * Static and kinematic bodies (infinite mass) and applied forces
 * (nscd_world_set_applied_force(), not conservative in general) are left
 * out, as are joints and contacts (rigid: they store no energy).
 * @param world  The world.
 * @param energy Receives V, J.
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER.
 * @since 0.2
 */
NSCD_API nscd_status nscd_world_potential_energy(const nscd_world *world, double *energy);

/**
 * @brief Mechanical energy of the dynamic bodies: E = T + V, the kinetic
 *        energy of nscd_world_kinetic_energy() plus the potential energy of
 *        nscd_world_potential_energy().
 *
 * The exact motion conserves E in free flight, and contacts, impacts and
 * friction only dissipate it, so E(t) shows what a scheme adds or removes.
 * Moreau's midpoint rule (nscd_time_stepping_create_world() with
 * ::NSCD_TS_MOREAU_MIDPOINT) keeps it in free flight to round-off. The
 * world's own step, x' = x + dt v' after v' = v + dt g (symplectic Euler),
 * takes exactly ½ m |g|² dt² from each freely falling body at every step,
 * so that in free flight E decreases linearly, by ½ m |g|² dt t after a
 * time t: compare E with that line, not with a constant.
 * @param world  The world.
 * @param energy Receives E, J.
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER.
 * @since 0.2
 */
NSCD_API nscd_status nscd_world_total_energy(const nscd_world *world, double *energy);

/**
 * @brief The net contact impulse of the last step on one body, in the world
 *        frame: the sum over its contacts (those nscd_world_get_contacts()
 *        copies out) of the impulse the other body exerts on it, and its
 *        moment about a point.
 *
 * The contact impulses of nscd_world_get_contacts() are in each contact's
 * frame (normal, then two tangents the library chooses), so a caller cannot
 * sum them in the world frame; this does. Divided by the step's length it
 * is the mean contact force over the step: on the ground under a resting
 * pile, minus the pile's weight times dt. Joint reactions are not included
 * (nscd_world_joint_reaction()).
 * @param world           The world.
 * @param id              Any live body (static and kinematic bodies too).
 * @param about           3 values: the point of the moment, m; NULL for the
 *                        world origin. The contact points are those detected
 *                        at the start of the step, so the moment about the
 *                        centre of mass the solver used is the one about the
 *                        position at the start of the step: after
 *                        nscd_world_step(), x − dt v with the position x and
 *                        velocity v read now (x' = x + dt v'), not x.
 * @param impulse         Receives 3 values, N s; may be NULL.
 * @param angular_impulse Receives 3 values, N m s: Σ (p_j − about) × P_j over
 *                        the contact points p_j and impulses P_j; may be NULL.
 * @return ::NSCD_OK (zeros when the body had no contact);
 *         ::NSCD_ERR_NULL_POINTER for a NULL world; ::NSCD_ERR_STALE_HANDLE;
 *         ::NSCD_ERR_NOT_FINITE for a NaN or infinite `about` (nothing
 *         written on failure).
 * @since 0.2
 */
NSCD_API nscd_status nscd_world_get_body_contact_impulse(const nscd_world *world, nscd_body_id id,
                                                         const double about[3], double impulse[3],
                                                         double angular_impulse[3]);

/**
 * @brief What nscd_world_write_vtk_xml() and a ::nscd_world_vtk_series
 *        write: one part (a file each) and options, or-ed (since 0.2).
 *
 * The files are VTK XML PolyData (.vtp) with binary arrays in one raw
 * appended block, little-endian, each array preceded by its byte count as a
 * "UInt64" header (header_type="UInt64": no 4 GB limit), no compression;
 * ParaView and VTK's vtkXMLPolyDataReader read them (docs/paraview.md).
 *
 * The shapes part has one point (and one vertex cell) per shape of every
 * live body, in the world's storage order, shapes in their body's order: a
 * body of one shape is one point; the shapes of a compound share their
 * body's `body_id`. Half-spaces are included (`dimensions` 0; their
 * rotation's +z is the outward normal): threshold them away by
 * `shape_type`. Its point arrays:
 * - the points: the shape's origin in the world frame, m;
 * - `shape_type` (UInt8): ::nscd_shape_type;
 * - `dimensions` (3): sphere (r, r, r), box (half-extents), capsule and
 *   cylinder (r, r, half_height), half-space (0, 0, 0), convex polyhedron
 *   the half-sides of the box about the shape origin that holds its hull
 *   (its faces are in the hulls part; since 0.2), m; each shape's axis z is its
 *   capsule or cylinder axis;
 * - `orientation` (4): the shape frame's unit quaternion (w, x, y, z) in the
 *   world frame (the body's times the shape's own), the layout of
 *   ParaView's glyph orientation mode "Quaternion";
 * and, unless ::NSCD_WORLD_VTK_COMPACT: `user_id` (UInt64,
 * nscd_body_desc::user_id), `body_id` (UInt64, the ::nscd_body_id),
 * `body_type` (UInt8, ::nscd_body_type), `velocity` (3, m/s, of the body's
 * centre of mass), `angular_velocity` (3, rad/s, world frame) and `mass`
 * (kg, the body's; 0 for static and kinematic bodies). Reals are Float32
 * (rounded to nearest; beyond its range, ±inf) unless
 * ::NSCD_WORLD_VTK_FLOAT64; the cells are Int32.
 *
 * The hulls part (since 0.2) has the faces of every convex shape
 * (::NSCD_SHAPE_CONVEX) of every live body as polygons: the points are the
 * hulls' vertices in the world frame, one polygon cell per face
 * (counter-clockwise seen from outside), with cell arrays `body_id` and
 * `user_id` (UInt64); nothing of the other shapes (the shapes part draws
 * those). A world without convex shapes gives an empty piece.
 *
 * The contacts part has one point (and one vertex cell) per contact of the
 * last step, as nscd_world_get_contacts() gives them: the points, `normal`
 * (3, unit, from body a to body b), `gap` (m), `normal_impulse` (N s),
 * `tangential_impulse` (3, world frame, N s), `impulse` (3, the total,
 * world frame, N s), `body_a`, `body_b` (UInt64 ids).
 */
typedef enum nscd_world_vtk_flags {
    NSCD_WORLD_VTK_SHAPES = 1,   /**< The shapes part (prefix_NNNNNN.vtp in a series). */
    NSCD_WORLD_VTK_CONTACTS = 2, /**< The contacts part (prefix_contacts_NNNNNN.vtp). */
    /** (since 0.2) The hulls part: the faces of the convex shapes
     *  (prefix_hulls_NNNNNN.vtp in a series). */
    NSCD_WORLD_VTK_HULLS = 4,
    /** Real arrays as Float64 (the exact state) instead of Float32 (the
     *  default: what ParaView draws with, half the size). */
    NSCD_WORLD_VTK_FLOAT64 = 16,
    /** Shapes: only what draws them (points, shape_type, dimensions,
     *  orientation and the cells): 49 bytes a body in Float32, 4.4 times
     *  less than the legacy ASCII file of nscd_world_write() (about 94
     *  bytes a body without this flag; docs/paraview.md). */
    NSCD_WORLD_VTK_COMPACT = 32,
    /** Shapes: also `glyph_tensor` (9 components): R diag(e), R the shape's
     *  rotation and e its full extents along its axes (sphere 2r each, box
     *  twice the half-extents, cylinder (2r, 2r, 2 half_height), capsule
     *  (2r, 2r, 2 half_height + 2r)), stored column by column: the layout
     *  of VTK's tensor glyph (vtkTensorGlyph, ParaView's "Tensor Glyph"
     *  with "Extract Eigenvalues" off), so that a unit cube or a sphere of
     *  diameter 1 becomes the box or the sphere, oriented. */
    NSCD_WORLD_VTK_TENSOR = 64
} nscd_world_vtk_flags;

/**
 * @brief Writes one part of the world as a binary VTK XML PolyData file
 *        (see ::nscd_world_vtk_flags; since 0.2). The legacy ASCII writer
 *        nscd_world_write() is unchanged.
 *
 * The file carries the world's time as field data `TimeValue`.
 * @param world The world.
 * @param path  File name (overwritten); by convention ending in .vtp.
 * @param flags Exactly one of ::NSCD_WORLD_VTK_SHAPES,
 *              ::NSCD_WORLD_VTK_CONTACTS and ::NSCD_WORLD_VTK_HULLS (since
 *              0.2), or-ed with options.
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_INVALID_ARGUMENT
 *         for flags with no part, two parts or unknown bits;
 *         ::NSCD_ERR_IO when the file cannot be written (the world's last
 *         error names it).
 * @since 0.2
 */
NSCD_API nscd_status nscd_world_write_vtk_xml(const nscd_world *world, const char *path,
                                              int32_t flags);

/** A time series of VTK XML files with its ParaView collection (.pvd). */
typedef struct nscd_world_vtk_series nscd_world_vtk_series;

/**
 * @brief Starts a time series (since 0.2): each nscd_world_vtk_series_write()
 *        writes frame k as prefix_%06d.vtp (shapes) and
 *        prefix_contacts_%06d.vtp (contacts) and rewrites the collections
 *        prefix.pvd and prefix_contacts.pvd (through a temporary file
 *        renamed over the old one), so that they stay valid after every
 *        frame: a run that crashed still opens in ParaView.
 *
 * The collections name the frames relative to their own folder. Writes the
 * empty collections now (checks that the folder is writable). A series
 * belongs to no world: it allocates with malloc, and one series may take
 * frames of any world (one thread at a time).
 * @param prefix Path prefix, e.g. "out/pile" (the folder must exist); at
 *               most 4000 bytes.
 * @param flags  Any of ::NSCD_WORLD_VTK_SHAPES, ::NSCD_WORLD_VTK_CONTACTS and
 *               ::NSCD_WORLD_VTK_HULLS (prefix_hulls.pvd; since 0.2), at least one,
 *               or-ed with options.
 * @param series Receives the series (unchanged on failure).
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_INVALID_ARGUMENT
 *         for an empty or too long prefix, no part or unknown bits;
 *         ::NSCD_ERR_IO when a collection cannot be written;
 *         ::NSCD_ERR_OUT_OF_MEMORY.
 * @since 0.2
 */
NSCD_API nscd_status nscd_world_vtk_series_create(const char *prefix, int32_t flags,
                                                  nscd_world_vtk_series **series);
/**
 * @brief Writes the next frame of a series at the world's time and updates
 *        the collections (since 0.2).
 * @param series The series.
 * @param world  The world.
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_IO (the world's
 *         last error names the file; the collections keep the frames
 *         before); ::NSCD_ERR_OUT_OF_MEMORY.
 * @since 0.2
 */
NSCD_API nscd_status nscd_world_vtk_series_write(nscd_world_vtk_series *series,
                                                 const nscd_world *world);
/**
 * @brief Frames written so far.
 * @param series The series (NULL: 0).
 * @return The number of frames in the collections.
 * @since 0.2
 */
NSCD_API int32_t nscd_world_vtk_series_frames(const nscd_world_vtk_series *series);
/**
 * @brief Frees a series; its files stay.
 * @param series The series; NULL is ignored.
 * @since 0.2
 */
NSCD_API void nscd_world_vtk_series_destroy(nscd_world_vtk_series *series);

#ifdef __cplusplus
}
#endif

#endif /* NSCD_WORLD_H */
