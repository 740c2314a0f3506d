/**
 * @file types.h
 * @brief Enumerations shared by several parts of the API: the state of a
 *        contact (::nscd_contact_mode, used by the generic system, the
 *        event-driven stepper and every internal model) and the kinds of
 *        shapes (::nscd_shape_type, used by the world and its collision
 *        detection).
 *
 * They live here, apart from system.h and world.h, so that a part of the
 * library (or a program) that needs one of them does not take in a whole
 * API it does not use. system.h and world.h include this header: programs
 * that include those see no change (since 0.2; before, the enumerations were
 * declared in system.h and world.h, with the same names and values).
 */
#ifndef NSCD_TYPES_H
#define NSCD_TYPES_H

#ifdef __cplusplus
extern "C" {
#endif

/** State of one contact. */
typedef enum nscd_contact_mode {
    NSCD_CONTACT_OPEN = 0,     /**< Free: watched for impacts. */
    NSCD_CONTACT_CLOSED = 1,   /**< Persistent contact: g = 0 held by a force lambda >= 0. */
    NSCD_CONTACT_COMPLIANT = 2 /**< Overlapping under a compliant force law. */
} nscd_contact_mode;

/** The friction law of a contact problem: the one enumeration of the
 *  library's friction laws (since 0.2), for the world's step
 *  (nscd_world_desc::friction_law), the fc3d solvers
 *  (nscd_fc3d_options::friction_law) and the global ones. fc3d's 0.1 names
 *  are kept as aliases with the same values. */
typedef enum nscd_friction_law {
    NSCD_FRICTION_COULOMB = 0,         /**< Coulomb's law, De Saxcé's modified velocity. */
    NSCD_FRICTION_MAX_DISSIPATION = 1, /**< Maximum dissipation, seed 002 eq. (5). */
    /** ::NSCD_FRICTION_COULOMB under its fc3d name (0.1). */
    NSCD_FC3D_COULOMB = NSCD_FRICTION_COULOMB,
    /** ::NSCD_FRICTION_MAX_DISSIPATION under its fc3d name (0.1). */
    NSCD_FC3D_MAX_DISSIPATION = NSCD_FRICTION_MAX_DISSIPATION
} nscd_friction_law;

/** fc3d's 0.1 name of ::nscd_friction_law. */
typedef nscd_friction_law nscd_fc3d_friction_law;

/** Kinds of shapes. */
typedef enum nscd_shape_type {
    NSCD_SHAPE_SPHERE = 0,     /**< Sphere of `radius` about the shape origin. */
    NSCD_SHAPE_HALF_SPACE = 1, /**< Solid half-space {z <= 0} of the shape frame: its
                                    boundary plane passes through the origin with
                                    outward normal +z. Static or kinematic bodies only. */
    NSCD_SHAPE_BOX = 2,        /**< Box of `half_extents` about the shape origin. */
    NSCD_SHAPE_CAPSULE = 3,    /**< Segment from -half_height to +half_height on z,
                                    swept by a sphere of `radius`. */
    NSCD_SHAPE_CYLINDER = 4,   /**< Solid cylinder of `radius`, axis z, from
                                    -half_height to +half_height. */
    NSCD_SHAPE_CONVEX = 5      /**< (since 0.2) Convex polyhedron: the convex hull of
                                    nscd_shape_desc::points, in the shape frame. */
} nscd_shape_type;

#ifdef __cplusplus
}
#endif

#endif /* NSCD_TYPES_H */
