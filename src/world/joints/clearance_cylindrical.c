/* Cylindrical clearance joint (seed 004, Sect. 3.1, eqs. (33)–(37),
 * corrected; docs/joints.md). Side 0 is the hole (radius R_h, length L_h,
 * axis z_h through its frame origin o_h), side 1 the pin (radius R_p,
 * axis â = z_p through o_p). For each end x of the hole's centre line,
 * r_x = o_h ∓ (L_h/2) z_h, and w = r_x - o_p:
 *
 *   d_x = w - â (âᵀw)            (eq. (34) corrected: the paper's divides
 *                                 by ||w|| ||â|| and leaves d parallel to w)
 *   g_x = c - ||d_x||,  c = R_h - R_p   (eq. (36) with g >= 0 admissible)
 *
 * g_x' = N·(v_hole(r_x) - v_pin(f_x)) with N = -d_x/||d_x|| (from the pin
 * to the hole) and f_x = o_p + â(âᵀw) the foot of r_x on the pin axis: the
 * turn of â only moves the foot (docs/joints.md). Both points lie on the
 * line through the contact point along N, so the rows at the contact point
 * (midway between the hole wall r_x + R_h N and the pin surface) are the
 * exact derivative. */
#include <math.h>

#include "world/joints/joint.h"

void nscd__clearance_radial_gap(const nscd__joint_def *def, const nscd__joint_frames *f,
                                const nscd__joint_pose pose[2], const double r[3],
                                nscd__joint_part *out) {
    const double *a = f->axis[1] + 6;
    double w[3], d[3];
    for (int c = 0; c < 3; ++c) {
        w[c] = r[c] - f->origin[1][c];
    }
    double s = a[0] * w[0] + a[1] * w[1] + a[2] * w[2];
    for (int c = 0; c < 3; ++c) {
        d[c] = w[c] - s * a[c];
    }
    double dist = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    double N[3];
    if (dist > 0.0) {
        for (int c = 0; c < 3; ++c) {
            N[c] = -d[c] / dist;
        }
    } else { /* concentric: any radial direction; the pin frame's -x */
        for (int c = 0; c < 3; ++c) {
            N[c] = -f->axis[1][c];
        }
    }
    double g = (def->hole_radius - def->pin_radius) - dist, p[3];
    for (int c = 0; c < 3; ++c) { /* the hole wall r + R_h N, back by g/2 */
        p[c] = r[c] + def->hole_radius * N[c] - 0.5 * g * N[c];
    }
    nscd__joint_gap_part(pose, g, p, N, out);
}

void nscd__clearance_cylindrical(const nscd__joint_def *def, const nscd__joint_frames *f,
                                 const nscd__joint_pose pose[2], int32_t part,
                                 nscd__joint_part *out) {
    double r[3], side = part == 0 ? -0.5 : 0.5;
    for (int c = 0; c < 3; ++c) {
        r[c] = f->origin[0][c] + side * def->inner_length * f->axis[0][6 + c];
    }
    nscd__clearance_radial_gap(def, f, pose, r, out);
}
