/* Joints of the rigid-body world (include/nscd/joint.h, docs/joints.md):
 * descs, validation, generational ids, removal with their bodies, and the
 * read-outs (residual, reaction, gaps). The geometry is the joints layer's
 * (src/world/joints/); the model adapter (world_model.c) turns each part of a
 * joint into an entry. */
#include <math.h>
#include <string.h>

#include "core/check.h"
#include "core/memory.h"
#include "core/struct_sizes.h"
#include "core/vec3.h"
#include "world/world_impl.h"

/* ------------------------------------------------------------ descs */

nscd_status nscd_joint_desc_init(nscd_joint_desc *desc, size_t struct_size) {
    nscd_joint_desc d;
    memset(&d, 0, sizeof d);
    d.type = NSCD_JOINT_REVOLUTE;
    d.energy_form = 1;
    d.orientation_a[0] = 1.0;
    d.orientation_b[0] = 1.0;
    return nscd__struct_init(desc, struct_size, &d, sizeof d, NSCD__JOINT_DESC_SIZE_0_2);
}

nscd_status nscd_clearance_joint_desc_init(nscd_clearance_joint_desc *desc, size_t struct_size) {
    nscd_clearance_joint_desc d;
    memset(&d, 0, sizeof d);
    d.type = NSCD_CLEARANCE_REVOLUTE;
    d.inner_orientation[0] = 1.0;
    d.outer_orientation[0] = 1.0;
    d.hole_radius = 0.0101;
    d.pin_radius = 0.01;
    d.inner_length = 0.05;
    d.outer_length = 0.0502;
    d.n_vertices = 3;
    for (int k = 0; k < 3; ++k) { /* equilateral, circumradius 0.02 m, CCW */
        double angle = 1.5707963267948966 + 2.0943951023931957 * k;
        d.vertices[2 * k] = 0.02 * cos(angle);
        d.vertices[2 * k + 1] = 0.02 * sin(angle);
    }
    d.clearance = 3e-4;
    d.impact_law = NSCD_CLEARANCE_PLASTIC;
    d.energy_form = 1;
    return nscd__struct_init(desc, struct_size, &d, sizeof d, NSCD__CLEARANCE_JOINT_DESC_SIZE_0_2);
}

/* ------------------------------------------------------------ validation */

/* Frame of side s from a position and a quaternion (within 1e-3 of unit). */
static nscd_status set_frame(nscd__joint_def *def, int s, const double position[3],
                             const double orientation[4]) {
    double qn = sqrt(orientation[0] * orientation[0] + orientation[1] * orientation[1] +
                     orientation[2] * orientation[2] + orientation[3] * orientation[3]);
    if (fabs(qn - 1.0) > 1e-3) {
        return NSCD_ERR_INVALID_ARGUMENT;
    }
    double q[4] = {orientation[0] / qn, orientation[1] / qn, orientation[2] / qn,
                   orientation[3] / qn};
    memcpy(def->frame_position[s], position, 3 * sizeof(double));
    nscd__q_to_rows(q, def->frame_rotation[s]);
    return NSCD_OK;
}

/* The two bodies: live (or the ground), distinct, at least one dynamic. */
static nscd_status check_bodies(nscd_world *w, const nscd_body_id body[2]) {
    int dynamic = 0;
    for (int s = 0; s < 2; ++s) {
        if (body[s] == NSCD_BODY_NULL) {
            continue;
        }
        int32_t i = nscd__world_lookup(w, body[s]);
        if (i < 0) {
            return nscd__fail(&w->diag, NSCD_ERR_STALE_HANDLE, "joint body %llu is not alive",
                              (unsigned long long)body[s]);
        }
        dynamic |= w->type[i] == NSCD_BODY_DYNAMIC;
    }
    if (body[0] == body[1]) {
        return nscd__fail(&w->diag, NSCD_ERR_INVALID_ARGUMENT,
                          "a joint needs two different bodies (its frames would coincide)");
    }
    if (!dynamic) {
        return nscd__fail(&w->diag, NSCD_ERR_INVALID_ARGUMENT, "a joint needs a dynamic body");
    }
    return NSCD_OK;
}

/* ------------------------------------------------------------ storage */

/* A free slot (generation from 1; a slot whose generation is exhausted is
 * retired), or a new one. */
static int32_t find_slot(const nscd_world *w) {
    for (int32_t s = 0; s < w->n_joint_slots; ++s) {
        if (w->joint_dense[s] < 0 && w->joint_generation[s] != 0) {
            return s;
        }
    }
    return w->n_joint_slots;
}

/* Room for one more slot in both slot arrays, all or nothing. */
static nscd_status grow_slots(nscd_world *w) {
    int32_t n = w->n_joint_slots;
    nscd__array arrays[2] = {{(void **)&w->joint_generation, sizeof(uint32_t), n},
                             {(void **)&w->joint_dense, sizeof(int32_t), n}};
    return nscd__reserve_arrays(&w->allocator, arrays, 2, &w->joint_slots_capacity, n + 1);
}

static nscd_status insert(nscd_world *w, const nscd__joint_def *def, const nscd_body_id body[2],
                          nscd_joint_id *id) {
    const nscd_allocator *a = &w->allocator;
    int32_t slot = find_slot(w);
    if (nscd__reserve_array(a, (void **)&w->joints, w->n_joints, &w->joints_capacity,
                            w->n_joints + 1, sizeof(nscd__world_joint)) != NSCD_OK) {
        return nscd__fail(&w->diag, NSCD_ERR_OUT_OF_MEMORY, "joint storage");
    }
    if (slot == w->n_joint_slots) {
        if (grow_slots(w) != NSCD_OK) {
            return nscd__fail(&w->diag, NSCD_ERR_OUT_OF_MEMORY, "joint slots");
        }
        w->joint_generation[slot] = 1;
        w->n_joint_slots++;
    }
    nscd__world_joint *j = &w->joints[w->n_joints];
    memset(j, 0, sizeof *j);
    j->def = *def;
    j->body[0] = body[0];
    j->body[1] = body[1];
    j->serial = ++w->joint_serial;
    j->id = ((uint64_t)w->joint_generation[slot] << 32) | (uint32_t)slot;
    w->joint_dense[slot] = w->n_joints++;
    *id = j->id;
    for (int s = 0; s < 2; ++s) { /* a body with a joint never sleeps */
        int32_t i = nscd__world_lookup(w, body[s]);
        if (i >= 0) {
            nscd__world_wake_island(w, i);
        }
    }
    return NSCD_OK;
}

/* Dense index of a live joint id, or -1. */
static int32_t lookup(const nscd_world *w, nscd_joint_id id) {
    if (w == NULL || id == NSCD_JOINT_NULL) {
        return -1;
    }
    uint32_t slot = (uint32_t)(id & 0xffffffffu), generation = (uint32_t)(id >> 32);
    if (slot >= (uint32_t)w->n_joint_slots || w->joint_generation[slot] != generation) {
        return -1;
    }
    return w->joint_dense[slot];
}

/* Removes dense joint k, keeping the order of the others. */
static void erase(nscd_world *w, int32_t k) {
    uint32_t slot = (uint32_t)(w->joints[k].id & 0xffffffffu);
    w->joint_dense[slot] = -1;
    w->joint_generation[slot] =
        w->joint_generation[slot] < 0xffffffffu ? w->joint_generation[slot] + 1 : 0;
    memmove(&w->joints[k], &w->joints[k + 1],
            (size_t)(w->n_joints - k - 1) * sizeof(nscd__world_joint));
    w->n_joints--;
    for (int32_t i = k; i < w->n_joints; ++i) {
        w->joint_dense[(uint32_t)(w->joints[i].id & 0xffffffffu)] = i;
    }
}

void nscd__world_drop_joints(nscd_world *w, nscd_body_id body) {
    for (int32_t k = w->n_joints - 1; k >= 0; --k) {
        if (w->joints[k].body[0] == body || w->joints[k].body[1] == body) {
            erase(w, k);
        }
    }
}

void nscd__world_free_joints(nscd_world *w) {
    const nscd_allocator *a = &w->allocator;
    nscd__free(a, w->joints, (size_t)w->joints_capacity * sizeof(nscd__world_joint));
    nscd__free(a, w->joint_generation, (size_t)w->joint_slots_capacity * sizeof(uint32_t));
    nscd__free(a, w->joint_dense, (size_t)w->joint_slots_capacity * sizeof(int32_t));
    nscd__free(a, w->projection_scratch, w->projection_bytes);
}

nscd_status nscd_world_set_joint_projection(nscd_world *w, int32_t iterations, double tolerance) {
    if (w == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd__diag_clear(&w->diag);
    if (!isfinite(tolerance)) {
        return nscd__fail(&w->diag, NSCD_ERR_NOT_FINITE, "projection tolerance is not finite");
    }
    if (iterations < 0 || iterations > 100 || !(tolerance > 0.0)) {
        return nscd__fail(&w->diag, NSCD_ERR_OUT_OF_RANGE,
                          "projection iterations %d (0 to 100), tolerance %g (> 0)",
                          (int)iterations, tolerance);
    }
    w->projection_iterations = iterations;
    w->projection_tolerance = tolerance;
    return NSCD_OK;
}

/* ------------------------------------------------------------ creation */

nscd_status nscd_world_add_joint(nscd_world *w, const nscd_joint_desc *desc, nscd_joint_id *id) {
    if (w == NULL || desc == NULL || id == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd__diag_clear(&w->diag);
    nscd_joint_desc d;
    nscd_joint_desc_init(&d, sizeof d);
    if (nscd__struct_read(&d, sizeof d, desc, NSCD__JOINT_DESC_SIZE_0_2) != NSCD_OK) {
        return nscd__fail(&w->diag, NSCD_ERR_STRUCT_SIZE, "joint desc struct_size %u",
                          (unsigned)nscd__struct_size_of(desc));
    }
    double reals[14];
    memcpy(reals, d.position_a, 3 * sizeof(double));
    memcpy(reals + 3, d.orientation_a, 4 * sizeof(double));
    memcpy(reals + 7, d.position_b, 3 * sizeof(double));
    memcpy(reals + 10, d.orientation_b, 4 * sizeof(double));
    if (!nscd__all_finite(reals, 14)) {
        return nscd__fail(&w->diag, NSCD_ERR_NOT_FINITE, "joint desc has a NaN");
    }
    if (nscd__joint_kind_of(0, d.type) == NULL || (d.energy_form != 0 && d.energy_form != 1)) {
        return nscd__fail(&w->diag, NSCD_ERR_INVALID_ARGUMENT, "joint type %d, energy form %d",
                          (int)d.type, (int)d.energy_form);
    }
    nscd__joint_def def;
    memset(&def, 0, sizeof def);
    def.type = d.type;
    def.energy_form = d.energy_form;
    if (set_frame(&def, 0, d.position_a, d.orientation_a) != NSCD_OK ||
        set_frame(&def, 1, d.position_b, d.orientation_b) != NSCD_OK) {
        return nscd__fail(&w->diag, NSCD_ERR_INVALID_ARGUMENT,
                          "joint frame orientation is not a unit quaternion");
    }
    const nscd_body_id body[2] = {d.body_a, d.body_b};
    nscd_status rc = check_bodies(w, body);
    return rc != NSCD_OK ? rc : insert(w, &def, body, id);
}

/* The geometry of a clearance joint: radii, lengths, polygon. */
static nscd_status clearance_geometry(nscd_world *w, const nscd_clearance_joint_desc *d,
                                      nscd__joint_def *def) {
    def->clearance = 1;
    def->type = d->type;
    def->friction = d->friction;
    def->inner_length = d->inner_length;
    if (!(d->friction >= 0.0) || !(d->inner_length > 0.0)) {
        return nscd__fail(&w->diag, NSCD_ERR_OUT_OF_RANGE, "friction %g or length %g", d->friction,
                          d->inner_length);
    }
    const nscd__joint_kind *kind = nscd__joint_kind_of(1, d->type);
    if (kind->polygon) {
        if (d->n_vertices < 3 || d->n_vertices > NSCD_CLEARANCE_MAX_VERTICES ||
            !(d->clearance > 0.0)) {
            return nscd__fail(&w->diag, NSCD_ERR_OUT_OF_RANGE, "%d vertices, clearance %g",
                              (int)d->n_vertices, d->clearance);
        }
        def->n_vertices = d->n_vertices;
        memcpy(def->guide, d->vertices, 2 * (size_t)d->n_vertices * sizeof(double));
        if (nscd__clearance_offset_polygon(def->n_vertices, def->guide, d->clearance,
                                           def->slider) != 0) {
            return nscd__fail(&w->diag, NSCD_ERR_OUT_OF_RANGE,
                              "the guide polygon is not convex and counter-clockwise, or its "
                              "offset by c = %g is empty",
                              d->clearance);
        }
        return NSCD_OK;
    }
    def->hole_radius = d->hole_radius;
    def->pin_radius = d->pin_radius;
    def->outer_length = d->outer_length;
    if (!(d->pin_radius > 0.0) || !(d->hole_radius - d->pin_radius > 0.0)) {
        return nscd__fail(&w->diag, NSCD_ERR_OUT_OF_RANGE,
                          "clearance c = R_hole - R_pin = %g must be > 0 (R_pin %g)",
                          d->hole_radius - d->pin_radius, d->pin_radius);
    }
    if (kind->axial_play && !(d->outer_length > d->inner_length)) {
        return nscd__fail(&w->diag, NSCD_ERR_OUT_OF_RANGE,
                          "axial play outer_length - inner_length = %g must be > 0",
                          d->outer_length - d->inner_length);
    }
    return NSCD_OK;
}

nscd_status nscd_world_add_clearance_joint(nscd_world *w, const nscd_clearance_joint_desc *desc,
                                           nscd_joint_id *id) {
    if (w == NULL || desc == NULL || id == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd__diag_clear(&w->diag);
    nscd_clearance_joint_desc d;
    nscd_clearance_joint_desc_init(&d, sizeof d);
    if (nscd__struct_read(&d, sizeof d, desc, NSCD__CLEARANCE_JOINT_DESC_SIZE_0_2) != NSCD_OK) {
        return nscd__fail(&w->diag, NSCD_ERR_STRUCT_SIZE, "clearance joint desc struct_size %u",
                          (unsigned)nscd__struct_size_of(desc));
    }
    double reals[20 + 2 * NSCD_CLEARANCE_MAX_VERTICES];
    const double head[20] = {d.inner_position[0],
                             d.inner_position[1],
                             d.inner_position[2],
                             d.inner_orientation[0],
                             d.inner_orientation[1],
                             d.inner_orientation[2],
                             d.inner_orientation[3],
                             d.outer_position[0],
                             d.outer_position[1],
                             d.outer_position[2],
                             d.outer_orientation[0],
                             d.outer_orientation[1],
                             d.outer_orientation[2],
                             d.outer_orientation[3],
                             d.hole_radius,
                             d.pin_radius,
                             d.inner_length,
                             d.outer_length,
                             d.clearance,
                             d.friction};
    memcpy(reals, head, sizeof head);
    memcpy(reals + 20, d.vertices, sizeof d.vertices);
    if (!nscd__all_finite(reals, sizeof reals / sizeof reals[0])) {
        return nscd__fail(&w->diag, NSCD_ERR_NOT_FINITE, "clearance joint desc has a NaN");
    }
    if (nscd__joint_kind_of(1, d.type) == NULL || d.impact_law != NSCD_CLEARANCE_PLASTIC ||
        (d.energy_form != 0 && d.energy_form != 1)) {
        return nscd__fail(&w->diag, NSCD_ERR_INVALID_ARGUMENT,
                          "clearance type %d, impact law %d, energy form %d", (int)d.type,
                          (int)d.impact_law, (int)d.energy_form);
    }
    nscd__joint_def def;
    memset(&def, 0, sizeof def);
    def.energy_form = d.energy_form;
    nscd_status rc = clearance_geometry(w, &d, &def);
    if (rc != NSCD_OK) {
        return rc;
    }
    if (set_frame(&def, 0, d.inner_position, d.inner_orientation) != NSCD_OK ||
        set_frame(&def, 1, d.outer_position, d.outer_orientation) != NSCD_OK) {
        return nscd__fail(&w->diag, NSCD_ERR_INVALID_ARGUMENT,
                          "joint frame orientation is not a unit quaternion");
    }
    const nscd_body_id body[2] = {d.inner_body, d.outer_body};
    rc = check_bodies(w, body);
    return rc != NSCD_OK ? rc : insert(w, &def, body, id);
}

nscd_status nscd_world_remove_joint(nscd_world *w, nscd_joint_id id) {
    if (w == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd__diag_clear(&w->diag);
    int32_t k = lookup(w, id);
    if (k < 0) {
        return nscd__fail(&w->diag, NSCD_ERR_STALE_HANDLE, "joint id %llu is not alive",
                          (unsigned long long)id);
    }
    erase(w, k);
    return NSCD_OK;
}

int32_t nscd_world_joint_valid(const nscd_world *w, nscd_joint_id id) { return lookup(w, id) >= 0; }

int32_t nscd_world_joint_count(const nscd_world *w) { return w == NULL ? 0 : w->n_joints; }

/* ------------------------------------------------------------ read-outs */

void nscd__world_joint_pose(const nscd_world *w, const nscd__world_joint *j, int s,
                            nscd__joint_pose *pose) {
    int32_t i = nscd__world_lookup(w, j->body[s]);
    if (i < 0) { /* the ground */
        memset(pose, 0, sizeof *pose);
        pose->R[0] = pose->R[4] = pose->R[8] = 1.0;
        return;
    }
    memcpy(pose->x, w->position + 3 * (size_t)i, 3 * sizeof(double));
    nscd__q_to_rows(w->orientation + 4 * (size_t)i, pose->R);
}

void nscd__world_joint_sides(const nscd_world *w, const nscd__world_joint *j,
                             nscd__joint_pose pose[2], int32_t body[2],
                             nscd__joint_frames *frames) {
    for (int s = 0; s < 2; ++s) {
        nscd__world_joint_pose(w, j, s, &pose[s]);
        int32_t i = nscd__world_lookup(w, j->body[s]);
        body[s] = i >= 0 && w->type[i] == NSCD_BODY_DYNAMIC ? i : -1;
    }
    nscd__joint_frames_at(&j->def, pose, frames);
}

static void joint_poses(const nscd_world *w, const nscd__world_joint *j, nscd__joint_pose pose[2]) {
    nscd__world_joint_pose(w, j, 0, &pose[0]);
    nscd__world_joint_pose(w, j, 1, &pose[1]);
}

/* Dense index of a live joint into *k; NSCD_ERR_STALE_HANDLE otherwise
 * (the read-outs take a const world, like nscd_world_get_body, and record
 * no message). */
static nscd_status find(const nscd_world *w, nscd_joint_id id, int32_t *k) {
    *k = lookup(w, id);
    return *k < 0 ? NSCD_ERR_STALE_HANDLE : NSCD_OK;
}

nscd_status nscd_world_joint_residual(const nscd_world *w, nscd_joint_id id, int32_t capacity,
                                      int32_t *count, double *values) {
    if (w == NULL || count == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    int32_t k;
    if (find(w, id, &k) != NSCD_OK) {
        return NSCD_ERR_STALE_HANDLE;
    }
    const nscd__world_joint *j = &w->joints[k];
    int32_t n = nscd__joint_value_count(&j->def);
    *count = n;
    if (n > capacity) {
        return NSCD_ERR_BUFFER_TOO_SMALL;
    }
    if (values == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd__joint_pose pose[2];
    joint_poses(w, j, pose);
    for (int32_t p = 0, v = 0; p < nscd__joint_part_count(&j->def); ++p) {
        nscd__joint_part part;
        nscd__joint_evaluate(&j->def, p, pose, &part);
        for (int32_t r = 0; r < (part.equality ? part.n_rows : 1); ++r) {
            values[v++] = part.value[r];
        }
    }
    return NSCD_OK;
}

/* Generalised impulse of every part on side s (force, torque about the
 * body centre) at the current poses. */
static void side_impulse(const nscd__world_joint *j, const nscd__joint_pose pose[2], int s,
                         double out[6]) {
    memset(out, 0, 6 * sizeof(double));
    for (int32_t p = 0; p < nscd__joint_part_count(&j->def); ++p) {
        nscd__joint_part part;
        nscd__joint_evaluate(&j->def, p, pose, &part);
        for (int32_t r = 0; r < part.n_rows; ++r) {
            for (int c = 0; c < 6; ++c) {
                out[c] += part.rows[s][r][c] * j->impulse[p][r];
            }
        }
    }
}

nscd_status nscd_world_joint_reaction(const nscd_world *w, nscd_joint_id id, double force[3],
                                      double torque[3]) {
    if (w == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    int32_t k;
    if (find(w, id, &k) != NSCD_OK) {
        return NSCD_ERR_STALE_HANDLE;
    }
    const nscd__world_joint *j = &w->joints[k];
    int s = j->def.clearance ? 0 : 1; /* body b of an ideal joint, the inner body */
    nscd__joint_pose pose[2];
    joint_poses(w, j, pose);
    double imp[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0}, F[3], T[3];
    if (j->step > 0.0) {
        side_impulse(j, pose, s, imp);
    }
    nscd__joint_frames f;
    nscd__joint_frames_at(&j->def, pose, &f);
    double lxF[3];
    for (int c = 0; c < 3; ++c) {
        F[c] = j->step > 0.0 ? imp[c] / j->step : 0.0;
    }
    nscd__world_angular_row(f.lever[s], F, lxF);
    for (int c = 0; c < 3; ++c) { /* about the frame origin: τ_x - l × F */
        T[c] = (j->step > 0.0 ? imp[3 + c] / j->step : 0.0) - lxF[c];
    }
    if (force != NULL) {
        memcpy(force, F, sizeof F);
    }
    if (torque != NULL) {
        memcpy(torque, T, sizeof T);
    }
    return NSCD_OK;
}

nscd_status nscd_world_clearance_gaps(const nscd_world *w, nscd_joint_id id, int32_t capacity,
                                      int32_t *count, double *gaps, double *normals, double *points,
                                      double *impulses) {
    if (w == NULL || count == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    int32_t k;
    if (find(w, id, &k) != NSCD_OK) {
        return NSCD_ERR_STALE_HANDLE;
    }
    const nscd__world_joint *j = &w->joints[k];
    if (!j->def.clearance) {
        return NSCD_ERR_INVALID_ARGUMENT;
    }
    int32_t n = nscd__joint_part_count(&j->def);
    *count = n;
    if (n > capacity) {
        return NSCD_ERR_BUFFER_TOO_SMALL;
    }
    nscd__joint_pose pose[2];
    joint_poses(w, j, pose);
    for (int32_t p = 0; p < n; ++p) {
        nscd__joint_part part;
        nscd__joint_evaluate(&j->def, p, pose, &part);
        if (gaps != NULL) {
            gaps[p] = part.value[0];
        }
        if (normals != NULL) {
            memcpy(normals + 3 * (size_t)p, part.frame, 3 * sizeof(double));
        }
        if (points != NULL) {
            memcpy(points + 3 * (size_t)p, part.point, 3 * sizeof(double));
        }
        if (impulses != NULL) {
            impulses[p] = j->step > 0.0 ? j->impulse[p][0] : 0.0;
        }
    }
    return NSCD_OK;
}
