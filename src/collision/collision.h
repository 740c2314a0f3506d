/* Collision detection of the rigid-body world (docs/world.md): the contract
 * between the world (src/world/world*.c) and the collision layer.
 *
 * The world hands over its shapes with their world poses; the collision layer
 * returns contact points: for every pair of shapes of different bodies whose
 * signed distance is below the margin, the points of their contact manifold,
 * each with a unit normal from shape a to shape b, the gap (signed distance
 * along the normal, negative when penetrating), the point midway between the
 * two surfaces, and a persistent key.
 *
 * Order and keys are deterministic: they depend on the shapes' stable keys
 * and the geometry only, never on hashing, threads or memory addresses. */
#ifndef NSCD_COLLISION_COLLISION_H
#define NSCD_COLLISION_COLLISION_H

#include <stdint.h>

#include "nscd/host.h"
#include "nscd/status.h"
#include "nscd/types.h" /* nscd_shape_type */

/* One shape in the world frame, as the world hands it over. */
typedef struct nscd__collision_shape {
    int32_t type; /* nscd_shape_type */
    int32_t body; /* index of the owning body in the world's storage */
    /* Stable key of the shape: the body's generational id in the high bits and
     * the shape's index within its body in the low 8 bits (see
     * nscd__shape_key). Contact keys are built from it. */
    uint64_t key;
    double position[3]; /* shape origin, world frame */
    double rotation[9]; /* shape frame -> world, row-major */
    double radius, half_height;
    double half_extents[3];
    uint32_t category, mask;
    /* 1 when the body never moves relative to the other non-moving ones
     * (static and kinematic bodies): two such shapes are never paired. */
    int32_t fixed;
    /* Speculative reach, m (>= 0; 0 = none): how much farther than half the
     * margin this shape may travel in the step. A pair is found, and its
     * contacts made, up to a gap of margin + reach_a + reach_b, so that a
     * fast body meets a thin one before it has passed it (the world sets it
     * from the approach speed times dt; docs/world.md, "Speculative reach"). */
    double reach;
    /* NSCD_SHAPE_CONVEX: its hull, shape frame (collision/hull.h; owned by
     * the world, never NULL for a convex shape); NULL for the others. */
    const struct nscd__hull *hull;
} nscd__collision_shape;

/* The largest distance of a point of a finite shape from its origin: a
 * sphere, box, capsule or cylinder of these sizes, or the convex hull
 * (its radius; the other types ignore it). The world's bounding radius of
 * a body and the pair cache's round-off room (collision.c) both use it. */
double nscd__shape_extent(int32_t type, double radius, double half_height,
                          const double half_extents[3], const struct nscd__hull *hull);

/* One contact point. */
typedef struct nscd__contact_point {
    int32_t shape_a, shape_b; /* indices into the input shape array */
    /* Persistent identity: the two shape keys and a feature number that tells
     * apart the points of one manifold (0 for a single point). The world
     * matches contacts across steps on (key_a, key_b, feature) for warm start. */
    uint64_t key_a, key_b;
    uint32_t feature;
    double point[3];  /* midway between the surfaces */
    double normal[3]; /* unit, from a to b */
    double gap;       /* signed distance along normal; < 0: penetration */
} nscd__contact_point;

static inline uint64_t nscd__shape_key(uint64_t body_id, int32_t shape_index) {
    return (body_id << 8) | (uint64_t)(shape_index & 0xff);
}

/* Reusable buffers of the broad and narrow phase (grid cells, pair list,
 * contact array); grown as needed through the allocator, kept across steps. */
struct nscd__parallel;

typedef struct nscd__collision {
    const nscd_allocator *allocator;
    /* Output of the last nscd__collide(): contacts[0 .. n_contacts). */
    nscd__contact_point *contacts;
    int32_t n_contacts, contacts_capacity;
    /* shape pairs passed to the narrow phase (for reports); two spheres are
     * already rejected by their exact distance in the broad phase */
    int32_t n_pairs;
    void *internal; /* broad-phase buffers (collision layer private) */
    /* Threads of the detection (NULL: none; the world's with threads >= 1):
     * the output is the same bits either way (docs/world.md, "Threads"). */
    const struct nscd__parallel *parallel;
} nscd__collision;

void nscd__collision_init(nscd__collision *collision, const nscd_allocator *allocator);
void nscd__collision_free(nscd__collision *collision);

/* Finds every contact point among `n` shapes with gap < margin. Contacts are
 * sorted by (key_a, key_b, feature), ascending; shape a is the shape with the
 * smaller key, except that a half-space is always shape a (then the order
 * uses its key as key_a all the same). NSCD_ERR_OUT_OF_MEMORY leaves the
 * previous output intact, and so does bad input: NSCD_ERR_NULL_POINTER,
 * NSCD_ERR_INVALID_ARGUMENT (unknown type, n < 0), NSCD_ERR_NOT_FINITE,
 * NSCD_ERR_OUT_OF_RANGE (negative size or margin, a bounding box that
 * overflows). No allocation when the sizes did not grow. See docs/collision.md. */
nscd_status nscd__collide(nscd__collision *collision, const nscd__collision_shape *shapes,
                          int32_t n, double margin);

#endif
