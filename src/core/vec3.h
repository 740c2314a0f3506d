/* 3-vectors, 3x3 matrices (row-major) and unit quaternions (w, x, y, z). */
#ifndef NSCD_CORE_VEC3_H
#define NSCD_CORE_VEC3_H

#include <string.h>

typedef struct nscd_vec3 {
    double x, y, z;
} nscd_vec3;

typedef struct nscd_mat3 {
    double m[3][3]; /* m[row][col] */
} nscd_mat3;

typedef struct nscd_quat {
    double w, x, y, z; /* Euler parameters: w = cos(angle/2) */
} nscd_quat;

nscd_vec3 nscd_v3(double x, double y, double z);
nscd_vec3 nscd_v3_add(nscd_vec3 a, nscd_vec3 b);
nscd_vec3 nscd_v3_sub(nscd_vec3 a, nscd_vec3 b);
nscd_vec3 nscd_v3_scale(nscd_vec3 a, double s);
double nscd_v3_dot(nscd_vec3 a, nscd_vec3 b);
nscd_vec3 nscd_v3_cross(nscd_vec3 a, nscd_vec3 b);
double nscd_v3_norm(nscd_vec3 a);
/* a / |a|; returns the zero vector for |a| = 0. */
nscd_vec3 nscd_v3_normalize(nscd_vec3 a);

nscd_mat3 nscd_m3_identity(void);
nscd_mat3 nscd_m3_mul(nscd_mat3 a, nscd_mat3 b);
nscd_vec3 nscd_m3_apply(nscd_mat3 a, nscd_vec3 v);
nscd_mat3 nscd_m3_transpose(nscd_mat3 a);
/* Skew-symmetric matrix [a]x with [a]x b = a x b. */
nscd_mat3 nscd_m3_skew(nscd_vec3 a);
double nscd_m3_det(nscd_mat3 a);
/* Inverse by the adjugate; returns 0 and leaves *inv unchanged when |det| is
 * below 1e-300 or relatively tiny against the entries. */
int nscd_m3_inverse(nscd_mat3 a, nscd_mat3 *inv);

nscd_quat nscd_q_identity(void);
nscd_quat nscd_q_mul(nscd_quat a, nscd_quat b);
nscd_quat nscd_q_conj(nscd_quat a);
nscd_quat nscd_q_normalize(nscd_quat a);
/* Rotation of `angle` radians about the unit `axis`. */
nscd_quat nscd_q_from_axis_angle(nscd_vec3 axis, double angle);
/* R v for the rotation of unit quaternion q. */
nscd_vec3 nscd_q_rotate(nscd_quat q, nscd_vec3 v);
/* Rotation matrix of unit quaternion q. */
nscd_mat3 nscd_q_to_mat3(nscd_quat q);

/* Array forms for structure-of-arrays storage (the world's bodies): the
 * row-major rotation matrix of the unit quaternion q = (w, x, y, z), the dot
 * product a.b and the cross product c = a x b (c may not alias a or b). */
static inline void nscd_q_to_rows(const double q[4], double R[9]) {
    nscd_mat3 m = nscd_q_to_mat3((nscd_quat){q[0], q[1], q[2], q[3]});
    memcpy(R, m.m, sizeof m.m);
}
static inline double nscd_dot3(const double a[3], const double b[3]) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static inline void nscd_cross3(const double a[3], const double b[3], double c[3]) {
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

#endif
