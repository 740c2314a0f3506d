/* The table of joint types (docs/joints.md): one row per ideal type
 * (nscd_joint_type) and per clearance type (nscd_clearance_type), indexed
 * by the enums, with its parts, its constraint values, its evaluate
 * function and what its geometry needs (nscd__joint_kind in joint.h). The
 * world reads the row instead of switching over the type; a type outside
 * the table is refused. */
#include <stddef.h>
#include <string.h>

#include "world/joints/joint.h"

/* Ideal joints: one or two equality parts of at most 3 rows. Clearance
 * joints: one gap part per gap (values 0: one per part), the cylindrical
 * joint's two radial gaps, the revolute one's two more axial stops, the
 * prismatic one's four per vertex of its guide polygon. */
/* clang-format off */
static const nscd__joint_kind ideal[] = {
    /* name, parts, parts per vertex, values, equality, polygon, axial play, evaluate */
    [NSCD_JOINT_SPHERICAL]   = {"spherical",   1, 0, 3, 1, 0, 0, nscd__joint_spherical},
    [NSCD_JOINT_REVOLUTE]    = {"revolute",    2, 0, 5, 1, 0, 0, nscd__joint_revolute},
    [NSCD_JOINT_CYLINDRICAL] = {"cylindrical", 2, 0, 4, 1, 0, 0, nscd__joint_cylindrical},
    [NSCD_JOINT_PRISMATIC]   = {"prismatic",   2, 0, 5, 1, 0, 0, nscd__joint_prismatic},
    [NSCD_JOINT_FIXED]       = {"fixed",       2, 0, 6, 1, 0, 0, nscd__joint_fixed},
};
static const nscd__joint_kind clearance[] = {
    [NSCD_CLEARANCE_CYLINDRICAL] = {"cylindrical", 2, 0, 0, 0, 0, 0, nscd__clearance_cylindrical},
    [NSCD_CLEARANCE_REVOLUTE]    = {"revolute",    4, 0, 0, 0, 0, 1, nscd__clearance_revolute},
    [NSCD_CLEARANCE_PRISMATIC]   = {"prismatic",   0, 4, 0, 0, 1, 0, nscd__clearance_prismatic},
};
/* clang-format on */

const nscd__joint_kind *nscd__joint_kind_of(int32_t is_clearance, int32_t type) {
    if (is_clearance == 0 && type >= 0 && type < (int32_t)(sizeof ideal / sizeof ideal[0])) {
        return &ideal[type];
    }
    if (is_clearance == 1 && type >= 0 &&
        type < (int32_t)(sizeof clearance / sizeof clearance[0])) {
        return &clearance[type];
    }
    return NULL;
}

int32_t nscd__joint_part_count(const nscd__joint_def *def) {
    const nscd__joint_kind *kind = nscd__joint_kind_of(def->clearance, def->type);
    return kind->parts + kind->parts_per_vertex * def->n_vertices;
}

int32_t nscd__joint_value_count(const nscd__joint_def *def) {
    const nscd__joint_kind *kind = nscd__joint_kind_of(def->clearance, def->type);
    return kind->values != 0 ? kind->values : nscd__joint_part_count(def);
}

void nscd__joint_evaluate(const nscd__joint_def *def, int32_t part, const nscd__joint_pose pose[2],
                          nscd__joint_part *out) {
    const nscd__joint_kind *kind = nscd__joint_kind_of(def->clearance, def->type);
    nscd__joint_frames f;
    memset(out, 0, sizeof *out);
    nscd__joint_frames_at(def, pose, &f);
    out->equality = kind->equality; /* a gap part sets 0 itself */
    kind->evaluate(def, &f, pose, part, out);
}

void nscd__joint_evaluate_frames(const nscd__joint_def *def, int32_t part,
                                 const nscd__joint_frames *f, const nscd__joint_pose pose[2],
                                 nscd__joint_part *out) {
    const nscd__joint_kind *kind = nscd__joint_kind_of(def->clearance, def->type);
    memset(out, 0, sizeof *out);
    out->equality = kind->equality;
    kind->evaluate(def, f, pose, part, out);
}
