/* The serial nscd_world behind the granular channel (see granular_world.h). */
#include "granular_world.h"

#include <stddef.h>

static nscd_status serial_create(const void *context, const nscd_world_desc *desc, void **world) {
    (void)context;
    nscd_world *w = NULL;
    nscd_status st = nscd_world_create(desc, &w);
    *world = w;
    return st;
}

static void serial_destroy(void *world) { nscd_world_destroy(world); }

static nscd_status serial_add_material(void *world, double mu, int32_t *material) {
    nscd_status st = nscd_world_add_material(world, mu, material);
    return st == NSCD_OK ? nscd_world_set_pair_friction(world, *material, 0, mu) : st;
}

static nscd_status serial_add_body(void *world, const nscd_body_desc *body,
                                   const nscd_shape_desc *shapes, int32_t n_shapes, uint64_t *id) {
    return nscd_world_add_body(world, body, shapes, n_shapes, id);
}

static nscd_status serial_set_body(void *world, uint64_t id, const double *position,
                                   const double *velocity) {
    return nscd_world_set_body(world, id, position, NULL, velocity, NULL);
}

static nscd_status serial_step(void *world, nscd_world_step_report *report) {
    return nscd_world_step(world, report);
}

static double serial_time(const void *world) { return nscd_world_time(world); }

static int32_t serial_body_count(const void *world) { return nscd_world_body_count(world); }

static nscd_status serial_get_bodies(const void *world, int32_t capacity, int32_t *count,
                                     uint64_t *user_ids, double *positions, double *velocities,
                                     double *angular_velocities) {
    return nscd_world_get_bodies(world, capacity, count, NULL, user_ids, positions, NULL,
                                 velocities, angular_velocities);
}

static nscd_status serial_get_contacts(const void *world, int32_t capacity, int32_t *count,
                                       uint64_t *body_a, uint64_t *body_b, double *gaps,
                                       double *impulses) {
    return nscd_world_get_contacts(world, capacity, count, body_a, body_b, NULL, NULL, gaps,
                                   impulses);
}

/* nscd_world_save() writes path.tmp and renames it to path when complete. */
static nscd_status serial_save(void *world, const char *path, const void *user, size_t bytes) {
    return nscd_world_save(world, path, user, bytes);
}

static nscd_status serial_load(void *world, const char *path, void *user, size_t capacity,
                               size_t *bytes) {
    return nscd_world_load(world, path, user, capacity, bytes);
}

static const char *serial_last_error(const void *world) { return nscd_world_last_error(world); }

const channel_world_ops channel_world_serial = {
    serial_create, serial_destroy, serial_add_material, serial_add_body,   serial_set_body,
    serial_step,   serial_time,    serial_body_count,   serial_get_bodies, serial_get_contacts,
    NULL,          serial_save,    serial_load,         serial_last_error,
};
