/* Prismatic clearance joint (seed 004, Sect. 3.2, eqs. (38)–(39);
 * docs/joints.md). Side 0 is the slider, side 1 the guide, whose cavity is
 * the convex polygon Q_0 .. Q_{M-1} (counter-clockwise, guide frame xy,
 * sliding along z). The slider's section is the cavity offset inwards by
 * c, vertices P_k (slider frame xy), at the front (z = -L/2) and back
 * (z = +L/2) faces. Vertex k sits in corner k and is held by the two faces
 * that meet there, edge k-1 (Q_{k-1} Q_k) and edge k (Q_k Q_{k+1}), of
 * inward unit normals m (the left normals of the edges):
 *
 *   g = m·(r_P - r_Q)   (eq. (38): m points into the cavity, towards P)
 *
 * 4M gaps, c each when the frames coincide. g' = m·(v_slider(r_P) -
 * v_guide(r_P)): the turn of m and of Q together are the guide's velocity
 * at r_P. Part index: face (front, back) x 2M + 2k + (0: edge k-1, 1: edge k). */
#include <math.h>

#include "world/joints/joint.h"

/* Inward unit normal of edge k (from vertex k to k+1) of a CCW polygon. */
static void inward_normal(int32_t n, const double *poly, int32_t k, double m[2]) {
    int32_t k1 = (k + 1) % n;
    double ex = poly[2 * k1] - poly[2 * k], ey = poly[2 * k1 + 1] - poly[2 * k + 1];
    double len = sqrt(ex * ex + ey * ey);
    m[0] = -ey / len, m[1] = ex / len;
}

int32_t nscd__clearance_offset_polygon(int32_t n, const double *guide, double c, double *slider) {
    for (int32_t k = 0; k < n; ++k) { /* convex and counter-clockwise: every turn left */
        int32_t k1 = (k + 1) % n, k2 = (k + 2) % n;
        double ax = guide[2 * k1] - guide[2 * k], ay = guide[2 * k1 + 1] - guide[2 * k + 1];
        double bx = guide[2 * k2] - guide[2 * k1], by = guide[2 * k2 + 1] - guide[2 * k1 + 1];
        if (!(ax * by - ay * bx > 0.0)) {
            return -1;
        }
    }
    for (int32_t k = 0; k < n; ++k) { /* lines k-1 and k moved in by c meet at P_k */
        double m0[2], m1[2];
        inward_normal(n, guide, (k + n - 1) % n, m0);
        inward_normal(n, guide, k, m1);
        double b0 = m0[0] * guide[2 * k] + m0[1] * guide[2 * k + 1] + c;
        double b1 = m1[0] * guide[2 * k] + m1[1] * guide[2 * k + 1] + c;
        double det = m0[0] * m1[1] - m0[1] * m1[0];
        slider[2 * k] = (b0 * m1[1] - m0[1] * b1) / det;
        slider[2 * k + 1] = (m0[0] * b1 - b0 * m1[0]) / det;
    }
    for (int32_t k = 0; k < n; ++k) { /* not empty: every offset edge keeps its direction */
        int32_t k1 = (k + 1) % n;
        double ex = guide[2 * k1] - guide[2 * k], ey = guide[2 * k1 + 1] - guide[2 * k + 1];
        double fx = slider[2 * k1] - slider[2 * k], fy = slider[2 * k1 + 1] - slider[2 * k + 1];
        if (!(ex * fx + ey * fy > 0.0)) {
            return -1;
        }
    }
    return 0;
}

/* World point of local (x, y, z) in side s's frame. */
static void frame_point(const nscd__joint_frames *f, int s, double x, double y, double z,
                        double p[3]) {
    const double *ax = f->axis[s];
    for (int c = 0; c < 3; ++c) {
        p[c] = f->origin[s][c] + x * ax[c] + y * ax[3 + c] + z * ax[6 + c];
    }
}

void nscd__clearance_prismatic(const nscd__joint_def *def, const nscd__joint_frames *f,
                               const nscd__joint_pose pose[2], int32_t part,
                               nscd__joint_part *out) {
    int32_t n = def->n_vertices, face = part / (2 * n), k = (part % (2 * n)) / 2;
    int32_t edge = part % 2 == 0 ? (k + n - 1) % n : k;
    double m[2], P[3], Q[3], N[3], p[3];
    inward_normal(n, def->guide, edge, m);
    frame_point(f, 0, def->slider[2 * k], def->slider[2 * k + 1],
                (face == 0 ? -0.5 : 0.5) * def->inner_length, P);
    frame_point(f, 1, def->guide[2 * k], def->guide[2 * k + 1], 0.0, Q);
    for (int c = 0; c < 3; ++c) {
        N[c] = m[0] * f->axis[1][c] + m[1] * f->axis[1][3 + c];
    }
    double g = N[0] * (P[0] - Q[0]) + N[1] * (P[1] - Q[1]) + N[2] * (P[2] - Q[2]);
    for (int c = 0; c < 3; ++c) { /* midway between the vertex and the face */
        p[c] = P[c] - 0.5 * g * N[c];
    }
    nscd__joint_gap_part(pose, g, p, N, out);
}
