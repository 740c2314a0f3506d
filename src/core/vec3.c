/* 3D vector, matrix and quaternion arithmetic for the rigid-body layers. */
#include "core/vec3.h"

#include <math.h>

nscd__vec3 nscd__v3(double x, double y, double z) {
    nscd__vec3 r = {x, y, z};
    return r;
}

nscd__vec3 nscd__v3_add(nscd__vec3 a, nscd__vec3 b) {
    return nscd__v3(a.x + b.x, a.y + b.y, a.z + b.z);
}

nscd__vec3 nscd__v3_sub(nscd__vec3 a, nscd__vec3 b) {
    return nscd__v3(a.x - b.x, a.y - b.y, a.z - b.z);
}

nscd__vec3 nscd__v3_scale(nscd__vec3 a, double s) { return nscd__v3(a.x * s, a.y * s, a.z * s); }

double nscd__v3_dot(nscd__vec3 a, nscd__vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

nscd__vec3 nscd__v3_cross(nscd__vec3 a, nscd__vec3 b) {
    return nscd__v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}

double nscd__v3_norm(nscd__vec3 a) { return sqrt(nscd__v3_dot(a, a)); }

nscd__vec3 nscd__v3_normalize(nscd__vec3 a) {
    double n = nscd__v3_norm(a);
    return n > 0.0 ? nscd__v3_scale(a, 1.0 / n) : nscd__v3(0.0, 0.0, 0.0);
}

nscd__mat3 nscd__m3_identity(void) {
    nscd__mat3 r = {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
    return r;
}

nscd__mat3 nscd__m3_mul(nscd__mat3 a, nscd__mat3 b) {
    nscd__mat3 r;
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            r.m[i][j] = a.m[i][0] * b.m[0][j] + a.m[i][1] * b.m[1][j] + a.m[i][2] * b.m[2][j];
        }
    }
    return r;
}

nscd__vec3 nscd__m3_apply(nscd__mat3 a, nscd__vec3 v) {
    return nscd__v3(a.m[0][0] * v.x + a.m[0][1] * v.y + a.m[0][2] * v.z,
                    a.m[1][0] * v.x + a.m[1][1] * v.y + a.m[1][2] * v.z,
                    a.m[2][0] * v.x + a.m[2][1] * v.y + a.m[2][2] * v.z);
}

nscd__mat3 nscd__m3_transpose(nscd__mat3 a) {
    nscd__mat3 r;
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            r.m[i][j] = a.m[j][i];
        }
    }
    return r;
}

nscd__mat3 nscd__m3_skew(nscd__vec3 a) {
    nscd__mat3 r = {{{0, -a.z, a.y}, {a.z, 0, -a.x}, {-a.y, a.x, 0}}};
    return r;
}

double nscd__m3_det(nscd__mat3 a) {
    return a.m[0][0] * (a.m[1][1] * a.m[2][2] - a.m[1][2] * a.m[2][1]) -
           a.m[0][1] * (a.m[1][0] * a.m[2][2] - a.m[1][2] * a.m[2][0]) +
           a.m[0][2] * (a.m[1][0] * a.m[2][1] - a.m[1][1] * a.m[2][0]);
}

int nscd__m3_inverse(nscd__mat3 a, nscd__mat3 *inv) {
    double scale = 0.0;
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            scale = fmax(scale, fabs(a.m[i][j]));
        }
    }
    double det = nscd__m3_det(a);
    if (!(fabs(det) > 1e-300) || fabs(det) <= 1e-14 * scale * scale * scale) {
        return 0;
    }
    nscd__mat3 r;
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            /* cofactor of a[j][i] */
            int r0 = (j + 1) % 3, r1 = (j + 2) % 3, c0 = (i + 1) % 3, c1 = (i + 2) % 3;
            r.m[i][j] = (a.m[r0][c0] * a.m[r1][c1] - a.m[r0][c1] * a.m[r1][c0]) / det;
        }
    }
    *inv = r;
    return 1;
}

nscd__quat nscd__q_identity(void) {
    nscd__quat q = {1.0, 0.0, 0.0, 0.0};
    return q;
}

nscd__quat nscd__q_mul(nscd__quat a, nscd__quat b) {
    nscd__quat r = {a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
                    a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                    a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                    a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
    return r;
}

nscd__quat nscd__q_conj(nscd__quat a) {
    nscd__quat r = {a.w, -a.x, -a.y, -a.z};
    return r;
}

nscd__quat nscd__q_normalize(nscd__quat a) {
    double n = sqrt(a.w * a.w + a.x * a.x + a.y * a.y + a.z * a.z);
    if (!(n > 0.0)) {
        return nscd__q_identity();
    }
    nscd__quat r = {a.w / n, a.x / n, a.y / n, a.z / n};
    return r;
}

nscd__quat nscd__q_from_axis_angle(nscd__vec3 axis, double angle) {
    nscd__vec3 u = nscd__v3_normalize(axis);
    double s = sin(0.5 * angle);
    nscd__quat r = {cos(0.5 * angle), u.x * s, u.y * s, u.z * s};
    return r;
}

nscd__vec3 nscd__q_rotate(nscd__quat q, nscd__vec3 v) {
    /* v' = v + 2 w (u x v) + 2 u x (u x v), u = vector part */
    nscd__vec3 u = nscd__v3(q.x, q.y, q.z);
    nscd__vec3 t = nscd__v3_scale(nscd__v3_cross(u, v), 2.0);
    return nscd__v3_add(nscd__v3_add(v, nscd__v3_scale(t, q.w)), nscd__v3_cross(u, t));
}

nscd__mat3 nscd__q_to_mat3(nscd__quat q) {
    double w = q.w, x = q.x, y = q.y, z = q.z;
    nscd__mat3 r = {{{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                     {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                     {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}}};
    return r;
}
