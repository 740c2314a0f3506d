/* The rigid body's rows and forces, written once (issue 26; docs/world.md,
 * "Rows and body forces"). Every stage of the world builds them here: the
 * step's contacts and free motion (world_step.c, also the distributed
 * world's, which calls the same stages), the joints' rows (joints/joint_rows.c),
 * their sweeps and projection (world_joint_sweep.c, world_joint_projection.c)
 * and the world as a model of the time steppers (world_model.c).
 *
 * A direction e acting at a point p of a body whose centre of mass is at x
 * has the lever arm r = p - x and the rigid row [e, r × e] on the body's
 * (v, ω): e·(v + ω × r) = e·v + ω·(r × e). A body-fixed vector u turns like
 * a lever arm (u' = ω × u), so the rate of u·w is ω·(u × w): the same
 * angular part. The sums below are written in one fixed order, the order
 * of the copies they replace (bitwise the same results). */
#ifndef NSCD_WORLD_RIGID_H
#define NSCD_WORLD_RIGID_H

#include <stdint.h>

#include "nscd/world.h"

/* y = A x, A 3x3 row-major (y may not alias x). */
static inline void nscd__world_mat_vec(const double A[9], const double x[3], double y[3]) {
    for (int k = 0; k < 3; ++k) {
        y[k] = A[3 * k] * x[0] + A[3 * k + 1] * x[1] + A[3 * k + 2] * x[2];
    }
}

/* y = A' x, A 3x3 row-major (y may not alias x): with A = R a rotation, a
 * world vector in the body frame. */
static inline void nscd__world_mat_t_vec(const double A[9], const double x[3], double y[3]) {
    for (int k = 0; k < 3; ++k) {
        y[k] = A[k] * x[0] + A[3 + k] * x[1] + A[6 + k] * x[2];
    }
}

/* r = p - x: the lever arm of a point p from a body's centre of mass x. */
static inline void nscd__world_lever(const double p[3], const double x[3], double r[3]) {
    for (int k = 0; k < 3; ++k) {
        r[k] = p[k] - x[k];
    }
}

/* ang = r × e: the angular part of the row of direction e at lever arm r
 * (the moment of a force e at r; ang may not alias r or e). */
static inline void nscd__world_angular_row(const double r[3], const double e[3], double ang[3]) {
    ang[0] = r[1] * e[2] - r[2] * e[1];
    ang[1] = r[2] * e[0] - r[0] * e[2];
    ang[2] = r[0] * e[1] - r[1] * e[0];
}

/* The rigid row of direction e at lever arm r, times sign:
 * row = [sign e, sign (r × e)] on the body's (v, ω). */
static inline void nscd__world_rigid_row(const double r[3], const double e[3], double sign,
                                         double row[6]) {
    double ang[3];
    nscd__world_angular_row(r, e, ang);
    for (int k = 0; k < 3; ++k) {
        row[k] = sign * e[k];
        row[3 + k] = sign * ang[k];
    }
}

/* u = v + ω × r: the velocity of the point at lever arm r of a body moving
 * with (v, ω), the transpose of the rigid rows (u may not alias the inputs). */
static inline void nscd__world_point_velocity(const double v[3], const double om[3],
                                              const double r[3], double u[3]) {
    double wr[3];
    nscd__world_angular_row(om, r, wr);
    for (int k = 0; k < 3; ++k) {
        u[k] = v[k] + wr[k];
    }
}

/* Two unit tangents completing the unit normal n to a right-handed frame
 * (n, t, o): a deterministic function of n (the contact frame of the
 * world's contacts and of the joints' gaps). */
void nscd__world_tangents(const double n[3], double t[3], double o[3]);

/* y = R A R' x: a body-frame matrix A (inertia, inverse inertia) applied
 * in the world frame of a body of rotation R (y may not alias x). */
void nscd__world_frame_apply(const double R[9], const double A[9], const double x[3], double y[3]);

/* y = M⁻¹ h of dense body i for a 6-row h on its (v, ω): (h_v / m,
 * I_w⁻¹ h_ω), I_w⁻¹ the world-frame inverse inertia of the step
 * (refresh_inertia, world_step.c). */
void nscd__world_inverse_mass(const nscd_world *w, int32_t i, const double h[6], double y[6]);

/* y = M⁻¹ h of dense body i at rotation R (nscd__q_to_rows of an
 * orientation that need not be the stored one): (h_v / m, R I⁻¹ R' h_ω). */
void nscd__world_inverse_mass_at(const nscd_world *w, int32_t i, const double R[9],
                                 const double h[6], double y[6]);

/* h = (m g + F, τ): the explicit force on dense body i, gravity and its
 * applied load (F, τ) (the model's forces, world_model.c). The gyroscopic
 * torque is not in it: nscd__world_gyroscopic applies it over a step. */
void nscd__world_body_force(const nscd_world *w, int32_t i, double h[6]);

/* The free motion of dynamic body i over dt in the world's step: v += dt g,
 * the applied load v += dt F / m, ω += dt I_w⁻¹ τ (each only when nonzero,
 * I_w⁻¹ of this step's orientation), then the gyroscopic term at the
 * stored orientation (nscd__world_gyroscopic). */
void nscd__world_free_motion(nscd_world *w, int32_t i, double dt);

/* The gyroscopic part of the free motion over dt of dense body i at
 * orientation q: ω (world frame, in place) by nscd__world_gyroscopic_step;
 * nothing for an isotropic body (its term is zero). */
void nscd__world_gyroscopic(const nscd_world *w, int32_t i, const double q[4], double dt,
                            double omega[3]);

/* The gyroscopic part of the free motion over dt of a body of orientation q
 * and body-frame inertia I: ω (world frame, in place) by the implicit
 * midpoint rule on the body-frame Euler equations, which keeps the
 * rotational energy and |L| (the correction of seed 002's explicit eq. (4)).
 * NaN when the rule cannot be solved (an overflowing spin), for the
 * non-finite guard of the step. */
void nscd__world_gyroscopic_step(const double q[4], const double I[9], double dt, double omega[3]);

#endif
