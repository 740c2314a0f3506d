/* Ideal cylindrical joint: B's origin on A's z axis, Haug's dot-2
 * conditions x_A·(p_B - p_A) = 0, y_A·(p_B - p_A) = 0 (part 0), and the z
 * axes parallel, dot-1 x_A·z_B = 0, y_A·z_B = 0 (part 1): four equations,
 * sliding along and turning about z free. */
#include "world/joints/joint.h"

void nscd__joint_cylindrical(const nscd__joint_def *def, const nscd__joint_frames *f,
                             const nscd__joint_pose pose[2], int32_t part, nscd__joint_part *out) {
    (void)def;
    out->n_rows = 2;
    if (part == 0) {
        nscd__joint_dot2_row(f, pose, f->axis[0], out, 0);
        nscd__joint_dot2_row(f, pose, f->axis[0] + 3, out, 1);
        return;
    }
    nscd__joint_dot1_row(f->axis[0], f->axis[1] + 6, out, 0);
    nscd__joint_dot1_row(f->axis[0] + 3, f->axis[1] + 6, out, 1);
}
