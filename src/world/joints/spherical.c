/* Ideal spherical joint: the origins of frames A and B coincide,
 * Φ = p_B - p_A = 0 (Haug's spherical condition), three rows along the
 * world axes. One part. */
#include "world/joints/joint.h"

void nscd__joint_spherical(const nscd__joint_def *def, const nscd__joint_frames *f,
                           const nscd__joint_pose pose[2], int32_t part, nscd__joint_part *out) {
    (void)def, (void)pose, (void)part;
    static const double e[3][3] = {{1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}, {0.0, 0.0, 1.0}};
    out->n_rows = 3;
    for (int32_t r = 0; r < 3; ++r) {
        nscd__joint_point_row(f, e[r], out, r);
    }
}
