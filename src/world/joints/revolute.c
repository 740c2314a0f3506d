/* Ideal revolute joint: the spherical condition (part 0) and the z axis of
 * B perpendicular to the x and y axes of A, Haug's dot-1 conditions
 * x_A·z_B = 0, y_A·z_B = 0 (part 1): five equations, the rotation about
 * the common z axis free. */
#include "world/joints/joint.h"

void nscd__joint_revolute(const nscd__joint_def *def, const nscd__joint_frames *f,
                          const nscd__joint_pose pose[2], int32_t part, nscd__joint_part *out) {
    if (part == 0) {
        nscd__joint_spherical(def, f, pose, 0, out);
        return;
    }
    out->n_rows = 2;
    nscd__joint_dot1_row(f->axis[0], f->axis[1] + 6, out, 0);
    nscd__joint_dot1_row(f->axis[0] + 3, f->axis[1] + 6, out, 1);
}
