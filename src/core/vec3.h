/* 3-vectors, 3x3 matrices (row-major) and unit quaternions (w, x, y, z). */
#ifndef NSCD_CORE_VEC3_H
#define NSCD_CORE_VEC3_H

#include <string.h>

typedef struct nscd__vec3 {
    double x, y, z;
} nscd__vec3;

typedef struct nscd__mat3 {
    double m[3][3]; /* m[row][col] */
} nscd__mat3;

typedef struct nscd__quat {
    double w, x, y, z; /* Euler parameters: w = cos(angle/2) */
} nscd__quat;

nscd__vec3 nscd__v3(double x, double y, double z);
nscd__vec3 nscd__v3_add(nscd__vec3 a, nscd__vec3 b);
nscd__vec3 nscd__v3_sub(nscd__vec3 a, nscd__vec3 b);
nscd__vec3 nscd__v3_scale(nscd__vec3 a, double s);
double nscd__v3_dot(nscd__vec3 a, nscd__vec3 b);
nscd__vec3 nscd__v3_cross(nscd__vec3 a, nscd__vec3 b);
double nscd__v3_norm(nscd__vec3 a);
/* a / |a|; returns the zero vector for |a| = 0. */
nscd__vec3 nscd__v3_normalize(nscd__vec3 a);

nscd__mat3 nscd__m3_identity(void);
nscd__mat3 nscd__m3_mul(nscd__mat3 a, nscd__mat3 b);
nscd__vec3 nscd__m3_apply(nscd__mat3 a, nscd__vec3 v);
nscd__mat3 nscd__m3_transpose(nscd__mat3 a);
/* Skew-symmetric matrix [a]x with [a]x b = a x b. */
nscd__mat3 nscd__m3_skew(nscd__vec3 a);
double nscd__m3_det(nscd__mat3 a);
/* Inverse by the adjugate; returns 0 and leaves *inv unchanged when |det| is
 * below 1e-300 or relatively tiny against the entries. */
int nscd__m3_inverse(nscd__mat3 a, nscd__mat3 *inv);

nscd__quat nscd__q_identity(void);
nscd__quat nscd__q_mul(nscd__quat a, nscd__quat b);
nscd__quat nscd__q_conj(nscd__quat a);
nscd__quat nscd__q_normalize(nscd__quat a);
/* Rotation of `angle` radians about the unit `axis`. */
nscd__quat nscd__q_from_axis_angle(nscd__vec3 axis, double angle);
/* R v for the rotation of unit quaternion q. */
nscd__vec3 nscd__q_rotate(nscd__quat q, nscd__vec3 v);
/* Rotation matrix of unit quaternion q. */
nscd__mat3 nscd__q_to_mat3(nscd__quat q);

/* Array forms for structure-of-arrays storage (the world's bodies): the
 * row-major rotation matrix of the unit quaternion q = (w, x, y, z), the dot
 * product a.b and the cross product c = a x b (c may not alias a or b). */
static inline void nscd__q_to_rows(const double q[4], double R[9]) {
    nscd__mat3 m = nscd__q_to_mat3((nscd__quat){q[0], q[1], q[2], q[3]});
    memcpy(R, m.m, sizeof m.m);
}
static inline double nscd__dot3(const double a[3], const double b[3]) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static inline void nscd__cross3(const double a[3], const double b[3], double c[3]) {
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

#endif
