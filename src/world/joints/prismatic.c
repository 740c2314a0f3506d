/* Ideal prismatic joint: the cylindrical joint's dot-2 conditions (part 0)
 * and its dot-1 conditions with the turn about z locked, x_A·y_B = 0
 * (part 1): five equations, sliding along z free. */
#include "world/joints/joint.h"

void nscd__joint_prismatic(const nscd__joint_def *def, const nscd__joint_frames *f,
                           const nscd__joint_pose pose[2], int32_t part, nscd__joint_part *out) {
    if (part == 0) {
        nscd__joint_cylindrical(def, f, pose, 0, out);
        return;
    }
    out->n_rows = 3;
    nscd__joint_dot1_row(f->axis[0], f->axis[1] + 6, out, 0);
    nscd__joint_dot1_row(f->axis[0] + 3, f->axis[1] + 6, out, 1);
    nscd__joint_dot1_row(f->axis[0], f->axis[1] + 3, out, 2);
}
