/* Revolute clearance joint (seed 004, Sect. 3.3, eqs. (40)–(42),
 * corrected; docs/joints.md): the cylindrical joint's two radial gaps
 * (parts 0, 1) and two axial stops on the pin at q_1,2 = o_p ∓ (L_p/2) â,
 * against the hole's end faces at r_1,2 = o_h ∓ (L_h/2) z_h:
 *
 *   g_3 =  âᵀ(r_1 - q_1),   g_4 = -âᵀ(r_2 - q_2)       (parts 2, 3)
 *
 * with g >= 0 admissible; centred, g_3 = g_4 = (L_p - L_h)/2 = c_a/2, so
 * the axial play c_a enters through the stops' positions (the paper's (41)
 * puts the stops at the hole's ends and c_a nowhere). g_3' = â·(v_hole(r_1)
 * - v_pin(r_1)): the turn of â is the pin's velocity at r_1 instead of q_1,
 * so the rows at a point on the line through r_1 along â are exact. */
#include "world/joints/joint.h"

void nscd__clearance_revolute(const nscd__joint_def *def, const nscd__joint_frames *f,
                              const nscd__joint_pose pose[2], int32_t part, nscd__joint_part *out) {
    if (part < 2) {
        nscd__clearance_cylindrical(def, f, pose, part, out);
        return;
    }
    const double *a = f->axis[1] + 6, *zh = f->axis[0] + 6;
    double side = part == 2 ? -0.5 : 0.5, r[3], q[3], N[3], p[3];
    for (int c = 0; c < 3; ++c) {
        r[c] = f->origin[0][c] + side * def->inner_length * zh[c];
        q[c] = f->origin[1][c] + side * def->outer_length * a[c];
        N[c] = part == 2 ? a[c] : -a[c]; /* from the stop into the hole's face */
    }
    double g = N[0] * (r[0] - q[0]) + N[1] * (r[1] - q[1]) + N[2] * (r[2] - q[2]);
    for (int c = 0; c < 3; ++c) { /* midway between the face and the stop's plane */
        p[c] = r[c] - 0.5 * g * N[c];
    }
    nscd__joint_gap_part(pose, g, p, N, out);
}
