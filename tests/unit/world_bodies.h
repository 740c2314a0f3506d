/* Bodies of the world's unit tests: the floor and the sphere that most of
 * them add, made once (the tests that need a density, a mass or a shape of their own keep
 * their own maker). Fails the test when the world refuses the body. */
#ifndef NSCD_TEST_WORLD_BODIES_H
#define NSCD_TEST_WORLD_BODIES_H

#include <string.h>

#include "nscd/world.h"

/* A sphere of radius r and the default density, centred at x, with
 * velocity v and angular velocity om (NULL: zero). */
static inline nscd_body_id world_moving_sphere(nscd_world *w, double r, const double x[3],
                                               const double v[3], const double om[3]) {
    nscd_body_desc b;
    nscd_body_desc_init(&b, sizeof b);
    memcpy(b.position, x, sizeof b.position);
    if (v != NULL) {
        memcpy(b.velocity, v, sizeof b.velocity);
    }
    if (om != NULL) {
        memcpy(b.angular_velocity, om, sizeof b.angular_velocity);
    }
    nscd_shape_desc s;
    nscd_shape_desc_init(&s, sizeof s);
    s.type = NSCD_SHAPE_SPHERE;
    s.radius = r;
    nscd_body_id id = 0;
    assert_int_equal(nscd_world_add_body(w, &b, &s, 1, &id), NSCD_OK);
    return id;
}

/* A sphere of radius r at rest at (x, y, z). */
static inline nscd_body_id world_sphere(nscd_world *w, double x, double y, double z, double r) {
    const double at[3] = {x, y, z};
    return world_moving_sphere(w, r, at, NULL, NULL);
}

/* The floor: a static half-space z <= 0 (outward normal +z, through the
 * origin: nscd_world_add_half_space gives it the identity orientation); its
 * id. */
static inline nscd_body_id world_floor(nscd_world *w) {
    const double origin[3] = {0.0, 0.0, 0.0}, up[3] = {0.0, 0.0, 1.0};
    nscd_body_id id = 0;
    assert_int_equal(nscd_world_add_half_space(w, origin, up, NULL, NULL, &id), NSCD_OK);
    return id;
}

#endif
