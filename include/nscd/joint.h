/**
 * @file joint.h
 * @brief Joints of the rigid-body world (seed 004): ideal joints (spherical,
 *        revolute, cylindrical, prismatic, fixed) as equality constraints
 *        and clearance joints (cylindrical, revolute, prismatic) as sets of
 *        unilateral gaps.
 *
 * A joint connects two bodies of a world, or a body and the ground, through
 * a local frame on each side: a position and an orientation in the body
 * frame (the centre of mass frame that nscd_world_get_body() reports), or in
 * the world frame for the ground. The joint axis is the local z axis.
 *
 * - An **ideal joint** adds the equations Φ(q) = 0 of its type in absolute
 *   coordinates (Haug's spherical, dot-1 and dot-2 conditions between the
 *   two frames) as equality entries of the world's model.
 * - A **clearance joint** adds its gaps g(q) >= 0 (seed 004, Sect. 3: 2 for
 *   a cylindrical, 4 for a revolute, 4M for a prismatic joint of an M-gon)
 *   as unilateral contacts of the world's model: frictionless and plastic
 *   by default (the paper's case), Coulomb friction when μ > 0.
 *
 * Joints are driven by the time steppers (nscd_time_stepping_create_world()).
 * nscd_world_step(), the world's own block Gauss–Seidel, refuses a world
 * with joints (::NSCD_ERR_UNSUPPORTED). Removing a body removes its joints:
 * their ids become stale. Joints are addressed by generational ids like
 * bodies. See docs/joints.md for the equations, the gap functions and the
 * corrections to the paper.
 */
#ifndef NSCD_JOINT_H
#define NSCD_JOINT_H

#include <stddef.h>
#include <stdint.h>

#include "nscd/export.h"
#include "nscd/status.h"
#include "nscd/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Generational id of a joint: the slot index in the low 32 bits, the
 *        slot's generation (from 1) in the high 32 bits. 0 is never valid.
 */
typedef uint64_t nscd_joint_id;

/** The null joint id. */
#define NSCD_JOINT_NULL ((nscd_joint_id)0)

/** Kinds of ideal joints (frames A on body a, B on body b; axis z). */
typedef enum nscd_joint_type {
    NSCD_JOINT_SPHERICAL = 0,   /**< Origins coincide: 3 equations. */
    NSCD_JOINT_REVOLUTE = 1,    /**< Origins coincide, z axes parallel: 5 equations. */
    NSCD_JOINT_CYLINDRICAL = 2, /**< B's origin on A's z axis, z axes parallel: 4. */
    NSCD_JOINT_PRISMATIC = 3,   /**< Cylindrical without rotation about z: 5. */
    NSCD_JOINT_FIXED = 4        /**< Frames coincide: 6 equations. */
} nscd_joint_type;

/** Kinds of clearance joints. */
typedef enum nscd_clearance_type {
    /** A hole (inner body) on a pin (outer body): 2 radial gaps at the hole's
     *  two end circles (seed 004, eq. (36)). */
    NSCD_CLEARANCE_CYLINDRICAL = 0,
    /** The cylindrical gaps plus 2 axial stops on the pin (eq. (42)): 4 gaps. */
    NSCD_CLEARANCE_REVOLUTE = 1,
    /** A slider (inner body) of polygonal section in a guide (outer body):
     *  each slider vertex, front and back, against the guide's two faces
     *  adjacent to its corner (eqs. (38)–(39)): 4M gaps for an M-gon. */
    NSCD_CLEARANCE_PRISMATIC = 2
} nscd_clearance_type;

/** Impact laws of the gaps of a clearance joint. */
typedef enum nscd_clearance_impact {
    NSCD_CLEARANCE_PLASTIC = 0 /**< e = 0: a closing gap stays closed (the paper's case). */
} nscd_clearance_impact;

/** Most vertices of a prismatic clearance joint's polygon. */
#define NSCD_CLEARANCE_MAX_VERTICES 8

/** An ideal joint, filled with defaults by nscd_joint_desc_init(). */
typedef struct nscd_joint_desc {
    uint32_t struct_size; /**< sizeof(nscd_joint_desc). */
    int32_t type;         /**< ::nscd_joint_type. Default revolute. */
    /** Body a; ::NSCD_BODY_NULL = the ground (frame A then in the world frame). */
    nscd_body_id body_a;
    nscd_body_id body_b;     /**< Body b; ::NSCD_BODY_NULL = the ground. */
    double position_a[3];    /**< Origin of frame A in body a's frame, m. Default 0. */
    double orientation_a[4]; /**< Frame A in body a's frame (w, x, y, z). Default identity. */
    double position_b[3];    /**< Origin of frame B in body b's frame, m. Default 0. */
    double orientation_b[4]; /**< Frame B in body b's frame (w, x, y, z). Default identity. */
    /** 1 (default): the time steppers hold the joint's rows on the mean of
     *  the step's velocities, H (v_k + v_{k+1}) = 0 (with the midpoint rule:
     *  H at q_M), which keeps the energy of a rigid pendulum and makes the
     *  period second-order accurate; 0: on the end velocity, H v_{k+1} = 0
     *  (first order, dissipative on curved constraints). docs/joints.md. */
    int32_t energy_form;
} nscd_joint_desc;

/** A clearance joint, filled with defaults by nscd_clearance_joint_desc_init(). */
typedef struct nscd_clearance_joint_desc {
    uint32_t struct_size; /**< sizeof(nscd_clearance_joint_desc). */
    int32_t type;         /**< ::nscd_clearance_type. Default revolute. */
    /** The body with the hole (cylindrical, revolute) or the slider (prismatic). */
    nscd_body_id inner_body;
    /** The body with the pin or the guide; ::NSCD_BODY_NULL = the ground. */
    nscd_body_id outer_body;
    double
        inner_position[3]; /**< Hole or slider frame origin (its centre) in its body's frame, m. */
    double inner_orientation[4]; /**< Hole or slider frame (z = axis). Default identity. */
    double outer_position[3];    /**< Pin or guide frame origin (its centre), m. Default 0. */
    double outer_orientation[4]; /**< Pin or guide frame (z = axis). Default identity. */
    double hole_radius;          /**< R_hole, m; cylindrical and revolute. Default 0.0101. */
    double pin_radius;           /**< R_pin < R_hole, m. Default 0.01 (c = 0.1 mm). */
    /** Length of the hole (of the slider), m, > 0: its two end circles (end
     *  faces) at ±inner_length/2 on its axis carry the gaps. Default 0.05. */
    double inner_length;
    /** Revolute: distance between the pin's two axial stops, m, > inner_length
     *  (the axial play is outer_length - inner_length). Default 0.0502. */
    double outer_length;
    /** Prismatic: number M of vertices of the guide's cavity, 3 to
     *  ::NSCD_CLEARANCE_MAX_VERTICES. Default 3. */
    int32_t n_vertices;
    /** Prismatic: the cavity's vertices (x, y) in the guide frame,
     *  counter-clockwise, convex. Default an equilateral triangle of
     *  circumradius 0.02 m. */
    double vertices[2 * NSCD_CLEARANCE_MAX_VERTICES];
    /** Prismatic: clearance c > 0, m: the slider's section is the cavity
     *  offset inwards by c (every gap is c when the frames coincide).
     *  Default 3e-4. */
    double clearance;
    double friction;    /**< μ >= 0 of every gap. Default 0 (frictionless, the paper's case). */
    int32_t impact_law; /**< ::nscd_clearance_impact. Default plastic. */
    /** (since 0.2, after the first 0.2 size) 1 (default): a gap closed at the
     *  start of a step (within the world's contact distance) is a persistent
     *  contact and the time steppers hold it on the mean of the step's
     *  normal velocities, Newton's law with e = 1 on the velocity at q_M of
     *  the midpoint rule (as ::nscd_joint_desc::energy_form for an ideal
     *  joint): a pin rolling in its hole keeps its energy. A gap open at the
     *  start of the step (an impact) stays plastic (impact_law). 0: every
     *  gap plastic at every step (first-order dissipation of the rolling
     *  contact). Only the midpoint rule is affected. docs/joints.md. */
    int32_t energy_form;
} nscd_clearance_joint_desc;

/**
 * @brief Fills an ideal joint desc with the defaults above.
 * @param desc        The desc.
 * @param struct_size sizeof(nscd_joint_desc) of the caller.
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_STRUCT_SIZE.
 */
NSCD_API nscd_status nscd_joint_desc_init(nscd_joint_desc *desc, size_t struct_size);
/**
 * @brief Fills a clearance joint desc with the defaults above.
 * @param desc        The desc.
 * @param struct_size sizeof(nscd_clearance_joint_desc) of the caller.
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_STRUCT_SIZE.
 */
NSCD_API nscd_status nscd_clearance_joint_desc_init(nscd_clearance_joint_desc *desc,
                                                    size_t struct_size);

/**
 * @brief Adds an ideal joint to a world.
 * @param world The world.
 * @param desc  The joint.
 * @param id    Receives its id.
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_STRUCT_SIZE;
 *         ::NSCD_ERR_STALE_HANDLE for a body id that names no live body;
 *         ::NSCD_ERR_INVALID_ARGUMENT for a bad type, a body joined to
 *         itself, no dynamic body among the two, or a quaternion farther
 *         than 1e-3 from unit length; ::NSCD_ERR_NOT_FINITE;
 *         ::NSCD_ERR_OUT_OF_MEMORY. Nothing is changed on failure.
 */
NSCD_API nscd_status nscd_world_add_joint(nscd_world *world, const nscd_joint_desc *desc,
                                          nscd_joint_id *id);
/**
 * @brief Adds a clearance joint to a world.
 * @param world The world.
 * @param desc  The joint.
 * @param id    Receives its id.
 * @return As nscd_world_add_joint(), and ::NSCD_ERR_OUT_OF_RANGE for a
 *         clearance c = hole_radius - pin_radius <= 0, a non-positive
 *         radius or length, outer_length <= inner_length (revolute),
 *         μ < 0, a polygon that is not convex and counter-clockwise or
 *         whose offset by c is empty, a vertex count outside [3, 8];
 *         ::NSCD_ERR_INVALID_ARGUMENT for a body joined to itself (its
 *         two frames would coincide), a quaternion farther than 1e-3 from
 *         unit length, a bad enum, an energy_form other than 0 or 1.
 */
NSCD_API nscd_status nscd_world_add_clearance_joint(nscd_world *world,
                                                    const nscd_clearance_joint_desc *desc,
                                                    nscd_joint_id *id);
/**
 * @brief Removes a joint.
 * @param world The world.
 * @param id    The joint.
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_STALE_HANDLE.
 */
NSCD_API nscd_status nscd_world_remove_joint(nscd_world *world, nscd_joint_id id);
/**
 * @brief Whether an id names a live joint.
 * @param world The world (NULL: 0).
 * @param id    Any value.
 * @return 1 when `id` names a live joint of the world, else 0.
 */
NSCD_API int32_t nscd_world_joint_valid(const nscd_world *world, nscd_joint_id id);
/**
 * @brief Number of live joints (ideal and clearance).
 * @param world The world (NULL: 0).
 * @return The count.
 */
NSCD_API int32_t nscd_world_joint_count(const nscd_world *world);

/**
 * @brief Sets the projection of the ideal joints after each step of a time
 *        stepper: the steppers hold joints on the velocity level, so their
 *        positions drift; the world then moves the positions back onto
 *        Φ = 0 by mass-weighted Gauss–Newton steps and projects the
 *        velocities onto Φ_q v = 0 (docs/joints.md, "Drift and projection").
 *        Closed clearance gaps are pushed back to -tolerance and their
 *        approaching velocities removed (a plastic contact). Default: 10
 *        iterations, tolerance 1e-12. At most 1024 joint rows
 *        (equations and gaps) are projected (a step with more fails with
 *        ::NSCD_ERR_UNSUPPORTED unless the projection is off).
 * @param world      The world.
 * @param iterations Gauss–Newton steps per projection, 0 (off) to 100.
 * @param tolerance  Stop when every |Φ| is below this (m, or the sine of an
 *                   angle), > 0.
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_NOT_FINITE;
 *         ::NSCD_ERR_OUT_OF_RANGE.
 */
NSCD_API nscd_status nscd_world_set_joint_projection(nscd_world *world, int32_t iterations,
                                                     double tolerance);

/**
 * @brief The constraint residual Φ(q) of a joint at the world's current state.
 *
 * Ideal joints: the values of their equations (m for positions, the sines
 * of angles for the dot products), in the order of docs/joints.md.
 * Clearance joints: their gaps (m, negative = penetration).
 * @param world    The world.
 * @param id       The joint.
 * @param capacity Room in `values`.
 * @param count    Receives the number of values (6 at most for an ideal
 *                 joint, 4M for a prismatic clearance joint);
 *                 ::NSCD_ERR_BUFFER_TOO_SMALL when it exceeds capacity.
 * @param values   The values (may be NULL with capacity 0).
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_STALE_HANDLE;
 *         ::NSCD_ERR_BUFFER_TOO_SMALL.
 */
NSCD_API nscd_status nscd_world_joint_residual(const nscd_world *world, nscd_joint_id id,
                                               int32_t capacity, int32_t *count, double *values);

/**
 * @brief The reaction of a joint over the last step of a time stepper: the
 *        mean force and torque the joint exerted on body b (on the inner
 *        body of a clearance joint), world frame, the torque about the
 *        origin of frame B (of the inner frame). Body a receives the
 *        opposite. Zero before the first step.
 * @param world  The world.
 * @param id     The joint.
 * @param force  3 values, N (may be NULL).
 * @param torque 3 values, N m (may be NULL).
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_STALE_HANDLE.
 */
NSCD_API nscd_status nscd_world_joint_reaction(const nscd_world *world, nscd_joint_id id,
                                               double force[3], double torque[3]);

/**
 * @brief The gaps of a clearance joint at the world's current state: each
 *        gap's value, unit normal (from the outer to the inner body: the
 *        direction of the force on the inner body), contact point (midway
 *        between the two surfaces) and the last step's normal impulse.
 *        Order: cylindrical: the hole's ends at -L/2, +L/2; revolute: those
 *        and the stops at -L_pin/2, +L_pin/2; prismatic: for each slider
 *        vertex k (front face at -L/2 first, then back), its gap to the
 *        face before corner k, then to the face after it. Any array may be
 *        NULL.
 * @param world    The world.
 * @param id       The joint (a clearance joint).
 * @param capacity Room in each array, in gaps.
 * @param count    Receives the number of gaps (::NSCD_ERR_BUFFER_TOO_SMALL
 *                 when it exceeds capacity; nothing else is written).
 * @param gaps     capacity gaps, m.
 * @param normals  3 capacity values.
 * @param points   3 capacity values, m.
 * @param impulses capacity normal impulses of the last step, N s.
 * @return ::NSCD_OK; ::NSCD_ERR_NULL_POINTER; ::NSCD_ERR_STALE_HANDLE;
 *         ::NSCD_ERR_INVALID_ARGUMENT for an ideal joint;
 *         ::NSCD_ERR_BUFFER_TOO_SMALL.
 */
NSCD_API nscd_status nscd_world_clearance_gaps(const nscd_world *world, nscd_joint_id id,
                                               int32_t capacity, int32_t *count, double *gaps,
                                               double *normals, double *points, double *impulses);

#ifdef __cplusplus
}
#endif

#endif /* NSCD_JOINT_H */
