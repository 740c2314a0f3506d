/* The rows shared by every joint (docs/joints.md, "Rows"). A material
 * point p of side s moves with v_s + ω_s × (p - x_s), a body-fixed unit
 * vector u with ω_s × u, and e·(ω × r) = ω·(r × e): every row below is the
 * exact time derivative of its constraint function, so that the steppers'
 * u = H v is Φ'. The lever arms, rigid rows and contact frame are the
 * world's (world_rigid.h). */
#include <string.h>

#include "world/joints/joint.h"
#include "world/world_rigid.h"

void nscd__joint_frames_at(const nscd__joint_def *def, const nscd__joint_pose pose[2],
                           nscd__joint_frames *f) {
    for (int s = 0; s < 2; ++s) {
        nscd__world_mat_vec(pose[s].R, def->frame_position[s], f->lever[s]);
        for (int c = 0; c < 3; ++c) {
            f->origin[s][c] = pose[s].x[c] + f->lever[s][c];
        }
        for (int a = 0; a < 3; ++a) { /* axis a = R (frame_rotation column a) */
            double local[3] = {def->frame_rotation[s][a], def->frame_rotation[s][3 + a],
                               def->frame_rotation[s][6 + a]};
            nscd__world_mat_vec(pose[s].R, local, f->axis[s] + 3 * a);
        }
    }
}

static void set_row(nscd__joint_part *out, int32_t s, int32_t r, const double lin[3],
                    const double ang[3], double sign) {
    for (int c = 0; c < 3; ++c) {
        out->rows[s][r][c] = sign * lin[c];
        out->rows[s][r][3 + c] = sign * ang[c];
    }
}

void nscd__joint_point_row(const nscd__joint_frames *f, const double e[3], nscd__joint_part *out,
                           int32_t r) {
    double d[3];
    for (int c = 0; c < 3; ++c) {
        d[c] = f->origin[1][c] - f->origin[0][c];
    }
    out->value[r] = e[0] * d[0] + e[1] * d[1] + e[2] * d[2];
    nscd__world_rigid_row(f->lever[1], e, 1.0, out->rows[1][r]);
    nscd__world_rigid_row(f->lever[0], e, -1.0, out->rows[0][r]);
}

void nscd__joint_dot1_row(const double u[3], const double w[3], nscd__joint_part *out, int32_t r) {
    static const double zero[3] = {0.0, 0.0, 0.0};
    double uxw[3];
    out->value[r] = u[0] * w[0] + u[1] * w[1] + u[2] * w[2];
    nscd__world_angular_row(u, w, uxw); /* u turns with side 0 */
    set_row(out, 0, r, zero, uxw, 1.0);
    set_row(out, 1, r, zero, uxw, -1.0); /* w × u = -(u × w) */
}

void nscd__joint_dot2_row(const nscd__joint_frames *f, const nscd__joint_pose pose[2],
                          const double u[3], nscd__joint_part *out, int32_t r) {
    /* Φ' = ω_0·(u × d) + u·(v_1 + ω_1 × l_1 - v_0 - ω_0 × l_0): side 0
     * takes [-u, u × (d + l_0)] = [-u, u × (p_1 - x_0)], side 1 [u, l_1 × u]. */
    double d[3], r0[3];
    for (int c = 0; c < 3; ++c) {
        d[c] = f->origin[1][c] - f->origin[0][c];
    }
    nscd__world_lever(f->origin[1], pose[0].x, r0);
    out->value[r] = u[0] * d[0] + u[1] * d[1] + u[2] * d[2];
    /* u × r0, not -(r0 × u): the same number but for the sign of a zero */
    nscd__world_angular_row(u, r0, out->rows[0][r] + 3);
    for (int c = 0; c < 3; ++c) {
        out->rows[0][r][c] = -u[c];
    }
    nscd__world_rigid_row(f->lever[1], u, 1.0, out->rows[1][r]);
}

void nscd__joint_gap_part(const nscd__joint_pose pose[2], double g, const double p[3],
                          const double n[3], nscd__joint_part *out) {
    out->n_rows = 3;
    out->equality = 0;
    out->value[0] = g;
    out->value[1] = out->value[2] = 0.0;
    memcpy(out->point, p, sizeof out->point);
    memcpy(out->frame, n, 3 * sizeof(double));
    nscd__world_tangents(n, out->frame + 3, out->frame + 6);
    for (int k = 0; k < 3; ++k) {
        const double *e = out->frame + 3 * k;
        for (int s = 0; s < 2; ++s) {
            double r[3];
            nscd__world_lever(p, pose[s].x, r);
            nscd__world_rigid_row(r, e, s == 0 ? 1.0 : -1.0, out->rows[s][k]);
        }
    }
}
