/* Ideal fixed joint: the spherical condition (part 0) and the three dot-1
 * conditions x_A·z_B = 0, y_A·z_B = 0, x_A·y_B = 0 (part 1): six
 * equations, the frames locked together. */
#include "world/joints/joint.h"

void nscd__joint_fixed(const nscd__joint_def *def, const nscd__joint_frames *f,
                       const nscd__joint_pose pose[2], int32_t part, nscd__joint_part *out) {
    if (part == 0) {
        nscd__joint_spherical(def, f, pose, 0, out);
        return;
    }
    nscd__joint_prismatic(def, f, pose, 1, out);
}
