/* The rigid body's rows and forces (world_rigid.h, issue 26): the contact
 * frame, M⁻¹ of a row, the explicit body force (gravity, applied load) and
 * the free motion of a step, with its gyroscopic part, shared by the
 * world's step (world_step.c, also the distributed world's, which calls the
 * same stage), the joint sweeps (world_joint_sweep.c) and the world as a
 * model of the time steppers (world_model.c). docs/world.md, "Rows and body
 * forces" and "Free rotation".
 *
 * The gyroscopic part. Seed 002, eq. (4), integrates the torque -ω × Iω explicitly:
 * ω' = ω - dt I⁻¹ (ω × Iω). The torque is orthogonal to ω, so the kinetic
 * energy of that update is E + dt² |ω × Iω|²_{I⁻¹} / 2 > E: every step adds
 * energy, and a body spinning about its intermediate axis gains tens of
 * percent in a few hundred steps (issue 24). This is the correction.
 *
 * The body-frame Euler equations I ω̇ + ω × Iω = 0 are integrated by the
 * implicit midpoint rule,
 *     I (ω' - ω) + dt m × (I m) = 0,   m = (ω + ω') / 2,
 * solved by Newton's method. Multiplying by m (resp. I m) shows that the
 * rule keeps both quadratic invariants exactly: (ω' + ω)' I (ω' - ω) = 0 is
 * E' = E, and (Iω' + Iω)' (Iω' - Iω) = 0 is |L'| = |L|. Its error is
 * O(dt³) per step (second order, symmetric); the world's step is first
 * order anyway. Among the alternatives: backward Euler (Bullet's
 * "implicit body") also never adds energy but loses |L| by O(dt²) per step,
 * and a splitting of the free rigid body into exact rotations about the
 * principal axes needs a diagonal inertia and is no cheaper.
 *
 * The orientation is then advanced by exp(dt ω') (world frame). A rotation
 * about ω' itself leaves the body-frame components of ω' unchanged, so the
 * next step starts from exactly the ω' computed here: over a sequence of
 * free steps the body-frame velocity is the midpoint map's, and E and |L|
 * stay constant to round-off. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "core/vec3.h"
#include "world/world_impl.h"

/* Newton iterations per (sub)step, and how often the step may be halved
 * when Newton does not converge (dt |ω| far beyond 1). */
enum { NEWTON_ITERATIONS = 30, MAX_HALVINGS = 12 };

/* Solves J x = b (3x3, row-major) by Cramer's rule; false when singular. */
static bool solve3(const double J[9], const double b[3], double x[3]) {
    double c0 = J[4] * J[8] - J[5] * J[7], c1 = J[5] * J[6] - J[3] * J[8],
           c2 = J[3] * J[7] - J[4] * J[6];
    double det = J[0] * c0 + J[1] * c1 + J[2] * c2;
    if (!(fabs(det) > 0.0) || !isfinite(det)) {
        return false;
    }
    double inv[9] = {c0, J[2] * J[7] - J[1] * J[8], J[1] * J[5] - J[2] * J[4],
                     c1, J[0] * J[8] - J[2] * J[6], J[2] * J[3] - J[0] * J[5],
                     c2, J[1] * J[6] - J[0] * J[7], J[0] * J[4] - J[1] * J[3]};
    for (int r = 0; r < 3; ++r) {
        x[r] = (inv[3 * r] * b[0] + inv[3 * r + 1] * b[1] + inv[3 * r + 2] * b[2]) / det;
    }
    return true;
}

/* One implicit-midpoint step of length dt from body-frame w (in place);
 * false when Newton did not converge (w unchanged). */
static bool midpoint_step(const double I[9], double dt, double w[3]) {
    double x[3] = {w[0], w[1], w[2]};
    double scale = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
    for (int it = 0; it < NEWTON_ITERATIONS; ++it) {
        double m[3], Im[3], g[3], d[3], F[3], J[9];
        for (int k = 0; k < 3; ++k) {
            m[k] = 0.5 * (w[k] + x[k]);
            d[k] = x[k] - w[k];
        }
        nscd__world_mat_vec(I, m, Im);
        nscd__cross3(m, Im, g);
        nscd__world_mat_vec(I, d, F);
        for (int k = 0; k < 3; ++k) {
            F[k] = -(F[k] + dt * g[k]);
        }
        /* dF/dx = I + (dt/2) ([m]× I - [Im]×) */
        const double mx[9] = {0.0, -m[2], m[1], m[2], 0.0, -m[0], -m[1], m[0], 0.0};
        const double Lx[9] = {0.0, -Im[2], Im[1], Im[2], 0.0, -Im[0], -Im[1], Im[0], 0.0};
        for (int r = 0; r < 3; ++r) {
            for (int c = 0; c < 3; ++c) {
                double mI = mx[3 * r] * I[c] + mx[3 * r + 1] * I[3 + c] + mx[3 * r + 2] * I[6 + c];
                J[3 * r + c] = I[3 * r + c] + 0.5 * dt * (mI - Lx[3 * r + c]);
            }
        }
        double delta[3];
        if (!solve3(J, F, delta)) {
            return false;
        }
        double step = 0.0;
        for (int k = 0; k < 3; ++k) {
            x[k] += delta[k];
            step = fmax(step, fabs(delta[k]));
        }
        if (!isfinite(x[0] + x[1] + x[2])) {
            return false;
        }
        /* Newton converges quadratically: a correction at the round-off
         * of |ω| means the previous one already was at it. */
        if (step <= 4.0 * DBL_EPSILON * scale) {
            memcpy(w, x, sizeof x);
            return true;
        }
    }
    return false;
}

/* Steps of dt / 2^level from body-frame w; false when even the finest
 * substeps fail (w then unchanged). */
static bool midpoint_steps(const double I[9], double dt, int level, double w[3]) {
    double x[3] = {w[0], w[1], w[2]};
    int32_t n = (int32_t)1 << level;
    for (int32_t s = 0; s < n; ++s) {
        if (!midpoint_step(I, dt / (double)n, x)) {
            return level < MAX_HALVINGS && midpoint_steps(I, dt, level + 1, w);
        }
    }
    memcpy(w, x, sizeof x);
    return true;
}

void nscd__world_gyroscopic_step(const double q[4], const double I[9], double dt, double omega[3]) {
    double R[9], wb[3], w0[3], Iw[3];
    nscd__q_to_rows(q, R);
    nscd__world_mat_t_vec(R, omega, wb); /* R' ω */
    memcpy(w0, wb, sizeof wb);
    if (!midpoint_steps(I, dt, 0, wb)) {
        /* No step it can resolve (dt |ω| beyond 2^12 Newton-resolvable
         * substeps, or an overflow): NaN, which the step's guard turns into
         * NSCD_ERR_NOT_FINITE naming the body, the state unchanged. */
        omega[0] = omega[1] = omega[2] = NAN;
        return;
    }
    /* The rule keeps E exactly; Newton and round-off leave a relative error
     * of a few ε, and so does the way back to the world frame (R from a
     * quaternion is orthogonal to a few ε only, and a bias there would add up
     * over the steps). Never let it round upwards: the energy of the new ω,
     * measured through the same R as the old, is scaled back onto the old. */
    nscd__world_mat_vec(I, w0, Iw);
    double e0 = w0[0] * Iw[0] + w0[1] * Iw[1] + w0[2] * Iw[2];
    nscd__world_mat_vec(R, wb, omega);
    nscd__world_mat_t_vec(R, omega, wb);
    nscd__world_mat_vec(I, wb, Iw);
    double e1 = wb[0] * Iw[0] + wb[1] * Iw[1] + wb[2] * Iw[2];
    if (e1 > e0 && e1 > 0.0) {
        double s = sqrt(e0 / e1);
        for (int k = 0; k < 3; ++k) {
            omega[k] *= s;
        }
    }
}

/* ------------------------------------------------------------ rows */

/* Duff et al. 2017, "Building an orthonormal basis, revisited": branch
 * free but for the sign of n_z. */
void nscd__world_tangents(const double n[3], double t[3], double o[3]) {
    double sign = copysign(1.0, n[2]);
    double a = -1.0 / (sign + n[2]);
    double b = n[0] * n[1] * a;
    t[0] = 1.0 + sign * n[0] * n[0] * a, t[1] = sign * b, t[2] = -sign * n[0];
    o[0] = b, o[1] = sign + n[1] * n[1] * a, o[2] = -n[1];
}

void nscd__world_frame_apply(const double R[9], const double A[9], const double x[3], double y[3]) {
    double b[3], c[3];
    nscd__world_mat_t_vec(R, x, b);
    nscd__world_mat_vec(A, b, c);
    nscd__world_mat_vec(R, c, y);
}

void nscd__world_inverse_mass(const nscd_world *w, int32_t i, const double h[6], double y[6]) {
    for (int k = 0; k < 3; ++k) {
        y[k] = w->inv_mass[i] * h[k];
    }
    nscd__world_mat_vec(w->inv_inertia_world + 9 * (size_t)i, h + 3, y + 3);
}

void nscd__world_inverse_mass_at(const nscd_world *w, int32_t i, const double R[9],
                                 const double h[6], double y[6]) {
    for (int k = 0; k < 3; ++k) {
        y[k] = w->inv_mass[i] * h[k];
    }
    nscd__world_frame_apply(R, w->inv_inertia + 9 * (size_t)i, h + 3, y + 3);
}

/* ------------------------------------------------------------ body forces */

void nscd__world_body_force(const nscd_world *w, int32_t i, double h[6]) {
    const double *g = w->desc.gravity;
    const double *F = w->applied_force + 3 * (size_t)i, *tau = w->applied_torque + 3 * (size_t)i;
    for (int c = 0; c < 3; ++c) {
        h[c] = w->mass[i] * g[c] + F[c];
        h[3 + c] = tau[c];
    }
}

void nscd__world_gyroscopic(const nscd_world *w, int32_t i, const double q[4], double dt,
                            double omega[3]) {
    if (w->isotropic[i]) {
        return;
    }
    nscd__world_gyroscopic_step(q, w->inertia + 9 * (size_t)i, dt, omega);
}

/* The load is skipped when there is none, so that a world without loads
 * steps bitwise as before loads existed. */
void nscd__world_free_motion(nscd_world *w, int32_t i, double dt) {
    const double *g = w->desc.gravity;
    const double *F = w->applied_force + 3 * (size_t)i, *tau = w->applied_torque + 3 * (size_t)i;
    double *v = w->velocity + 3 * (size_t)i, *om = w->omega + 3 * (size_t)i;
    for (int k = 0; k < 3; ++k) {
        v[k] += dt * g[k];
    }
    if (F[0] != 0.0 || F[1] != 0.0 || F[2] != 0.0) {
        for (int k = 0; k < 3; ++k) {
            v[k] += dt * w->inv_mass[i] * F[k];
        }
    }
    if (tau[0] != 0.0 || tau[1] != 0.0 || tau[2] != 0.0) {
        double dw[3];
        nscd__world_mat_vec(w->inv_inertia_world + 9 * (size_t)i, tau, dw);
        for (int k = 0; k < 3; ++k) {
            om[k] += dt * dw[k];
        }
    }
    nscd__world_gyroscopic(w, i, w->orientation + 4 * (size_t)i, dt, om);
}
