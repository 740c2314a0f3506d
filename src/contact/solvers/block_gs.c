/* The matrix-free nonlinear block Gauss–Seidel of seed 002, Sect. 3
 * (preclik14), over arrays (block_gs.h): one sweep visits the joint blocks
 * (the ideal joints' equality rows, a whole mechanism at a time), then the
 * contacts in order; for contact j it forms the local velocity the other
 * blocks leave, v_j = J_j v - A_jj x_j (+ the bias β on the normal row),
 * solves the single-contact problem u = A_jj x + v_j (Coulomb, or maximum
 * dissipation eq. (5)), and applies the impulse change to the two bodies'
 * velocities in place. W is never formed: a sweep costs O(contacts).
 *
 * With jacobi_groups G > 1 the contact order is cut into G contiguous
 * groups: Gauss–Seidel inside a group against a snapshot of the velocities
 * at the start of the sweep, and the groups' changes blended as weighted
 * block Jacobi, v = v0 + ω Σ_g Δv_g (seed 002, Sect. 3: the scheme of the
 * distributed runs, where a group is a process).
 *
 * The joint blocks (docs/joints.md, "Joints in nscd_world_step"): velocity
 * level, H v = 0. The block of a joint update is a whole mechanism (the
 * joints connected through moving bodies: a chain, a four-bar), R rows:
 *
 *     u = H v,   Δλ = -W⁻¹ u,   v += M⁻¹ Hᵀ Δλ,   W = H M⁻¹ Hᵀ (+ δ I),
 *
 * an exact solve of the mechanism's equations with the contacts frozen, by
 * the caller's envelope Cholesky factor of W; a mechanism without a factor
 * is swept part by part (each part's ≤ 3 rows an exact block). The merit
 * of a block is |u| of each part before the update (m/s, rad/s for the
 * angular rows), the same unit as a contact's merit. */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "contact/solvers/block_gs.h"
#include "contact/solvers/fc3d_local.h"
#include "contact/single/delassus3.h"
#include "contact/single/friction_cone.h"
#include "contact/single/mdp_single.h"
#include "contact/solvers/lemke.h"
#include "core/envelope.h"
#include "nscd/fc3d.h"

/* The hot loops below are written out by hand, each value read once into
 * a local: -O2 keeps 3-step loops as loops, and the stores into the
 * bodies' arrays would otherwise force the contact's fields to be read
 * again (they may alias). The arithmetic, and its order, is that of the
 * loops: the same bits. */

/* u += g . om over the 3 rows of g (row-major 3x3), or u -= with sign < 0. */
static inline void add_rows(double u[3], const double g[9], const double om[3], bool minus) {
    const double o0 = om[0], o1 = om[1], o2 = om[2];
    const double a0 = g[0] * o0 + g[1] * o1 + g[2] * o2;
    const double a1 = g[3] * o0 + g[4] * o1 + g[5] * o2;
    const double a2 = g[6] * o0 + g[7] * o1 + g[8] * o2;
    if (minus) {
        u[0] -= a0, u[1] -= a1, u[2] -= a2;
    } else {
        u[0] += a0, u[1] += a1, u[2] += a2;
    }
}

/* Local velocity of a general contact (rows r) from the current body
 * velocities: rows n, t, o of J v (b relative to a); the sides that do not
 * move are the constant u_fixed. The linear parts as e_k . (v_b - v_a). */
static void general_velocity(const nscd__bgs_problem *p, const nscd__bgs_contact *c,
                             const nscd__bgs_contact_rows *r, double u[3]) {
    double r0 = 0.0, r1 = 0.0, r2 = 0.0;
    double w[3] = {c->u_fixed[0], c->u_fixed[1], c->u_fixed[2]};
    if (c->b_moves) {
        const double *v = p->bodies.velocity + 3 * (size_t)c->b;
        r0 = v[0], r1 = v[1], r2 = v[2];
        add_rows(w, r->ang_b, p->bodies.omega + 3 * (size_t)c->b, false);
    }
    if (c->a_moves) {
        const double *v = p->bodies.velocity + 3 * (size_t)c->a;
        r0 -= v[0], r1 -= v[1], r2 -= v[2];
        add_rows(w, r->ang_a, p->bodies.omega + 3 * (size_t)c->a, true);
    }
    const double *e = c->frame;
    u[0] = w[0] + (e[0] * r0 + e[1] * r1 + e[2] * r2);
    u[1] = w[1] + (e[3] * r0 + e[4] * r1 + e[5] * r2);
    u[2] = w[2] + (e[6] * r0 + e[7] * r1 + e[8] * r2);
}

/* The normal row of general_velocity alone (the same arithmetic as its
 * u[0]). */
static double general_normal_velocity(const nscd__bgs_problem *p, const nscd__bgs_contact *c,
                                      const nscd__bgs_contact_rows *r) {
    double r0 = 0.0, r1 = 0.0, r2 = 0.0, u = c->u_fixed[0];
    if (c->b_moves) {
        const double *v = p->bodies.velocity + 3 * (size_t)c->b,
                     *om = p->bodies.omega + 3 * (size_t)c->b, *g = r->ang_b;
        r0 = v[0], r1 = v[1], r2 = v[2];
        u += g[0] * om[0] + g[1] * om[1] + g[2] * om[2];
    }
    if (c->a_moves) {
        const double *v = p->bodies.velocity + 3 * (size_t)c->a,
                     *om = p->bodies.omega + 3 * (size_t)c->a, *g = r->ang_a;
        r0 -= v[0], r1 -= v[1], r2 -= v[2];
        u -= g[0] * om[0] + g[1] * om[1] + g[2] * om[2];
    }
    const double *e = c->frame;
    return u + (e[0] * r0 + e[1] * r1 + e[2] * r2);
}

/* The relative contact-point velocity of a diagonal contact (world
 * frame): that of a moving sphere is v + l (ω x n). */
static void diagonal_relative(const nscd__bgs_problem *p, const nscd__bgs_contact *c,
                              double rel[3]) {
    const double *n = c->frame;
    double r0 = 0.0, r1 = 0.0, r2 = 0.0, s0 = 0.0, s1 = 0.0, s2 = 0.0;
    if (c->b_moves) {
        const double *v = p->bodies.velocity + 3 * (size_t)c->b,
                     *om = p->bodies.omega + 3 * (size_t)c->b;
        const double l = c->lever_b;
        r0 = v[0], r1 = v[1], r2 = v[2];
        s0 = l * om[0], s1 = l * om[1], s2 = l * om[2];
    }
    if (c->a_moves) {
        const double *v = p->bodies.velocity + 3 * (size_t)c->a,
                     *om = p->bodies.omega + 3 * (size_t)c->a;
        const double l = c->lever_a;
        r0 -= v[0], r1 -= v[1], r2 -= v[2];
        s0 -= l * om[0], s1 -= l * om[1], s2 -= l * om[2];
    }
    const double n0 = n[0], n1 = n[1], n2 = n[2];
    rel[0] = r0 + (s1 * n2 - s2 * n1);
    rel[1] = r1 + (s2 * n0 - s0 * n2);
    rel[2] = r2 + (s0 * n1 - s1 * n0);
}

/* Local velocity of a diagonal contact: the frame rows of its relative
 * velocity. */
static void diagonal_velocity(const nscd__bgs_problem *p, const nscd__bgs_contact *c, double u[3]) {
    double rel[3];
    diagonal_relative(p, c, rel);
    for (int k = 0; k < 3; ++k) {
        const double *e = c->frame + 3 * k;
        u[k] = c->u_fixed[k] + e[0] * rel[0] + e[1] * rel[1] + e[2] * rel[2];
    }
}

/* Applies the impulse change dx (contact frame) to the bodies: +P on b,
 * -P on a, P = dx_n n + dx_t t + dx_o o. The angular change of a side is
 * l / I (n x P) for a diagonal contact (I^-1 (r x P) with r = l n) and the
 * responses of the rows r (resp_k dx_k) for a general one (r NULL: diagonal). */
static void apply_impulse(nscd__bgs_problem *p, const nscd__bgs_contact *c,
                          const nscd__bgs_contact_rows *r, const double dx[3]) {
    const double d0 = dx[0], d1 = dx[1], d2 = dx[2];
    const double *f = c->frame;
    const double P0 = f[0] * d0 + f[3] * d1 + f[6] * d2;
    const double P1 = f[1] * d0 + f[4] * d1 + f[7] * d2;
    const double P2 = f[2] * d0 + f[5] * d1 + f[8] * d2;
    /* the angular change per unit "side sign": a-side subtracts, b adds */
    double wa0 = 0.0, wa1 = 0.0, wa2 = 0.0, wb0 = 0.0, wb1 = 0.0, wb2 = 0.0;
    const int a_moves = c->a_moves, b_moves = c->b_moves;
    const int32_t ia = c->a, ib = c->b;
    const double ima = c->inv_mass_a, imb = c->inv_mass_b;
    if (r == NULL) {
        const double nP0 = f[1] * P2 - f[2] * P1;
        const double nP1 = f[2] * P0 - f[0] * P2;
        const double nP2 = f[0] * P1 - f[1] * P0;
        const double sa = c->lever_a * c->inv_inertia_a, sb = c->lever_b * c->inv_inertia_b;
        wa0 = sa * nP0, wa1 = sa * nP1, wa2 = sa * nP2;
        wb0 = sb * nP0, wb1 = sb * nP1, wb2 = sb * nP2;
    } else {
        if (a_moves) {
            const double *q = r->resp_a;
            wa0 = q[0] * d0 + q[3] * d1 + q[6] * d2;
            wa1 = q[1] * d0 + q[4] * d1 + q[7] * d2;
            wa2 = q[2] * d0 + q[5] * d1 + q[8] * d2;
        }
        if (b_moves) {
            const double *q = r->resp_b;
            wb0 = q[0] * d0 + q[3] * d1 + q[6] * d2;
            wb1 = q[1] * d0 + q[4] * d1 + q[7] * d2;
            wb2 = q[2] * d0 + q[5] * d1 + q[8] * d2;
        }
    }
    if (a_moves) {
        double *v = p->bodies.velocity + 3 * (size_t)ia, *om = p->bodies.omega + 3 * (size_t)ia;
        v[0] -= ima * P0, v[1] -= ima * P1, v[2] -= ima * P2;
        om[0] -= wa0, om[1] -= wa1, om[2] -= wa2;
    }
    if (b_moves) {
        double *v = p->bodies.velocity + 3 * (size_t)ib, *om = p->bodies.omega + 3 * (size_t)ib;
        v[0] += imb * P0, v[1] += imb * P1, v[2] += imb * P2;
        om[0] += wb0, om[1] += wb1, om[2] += wb2;
    }
}

/* The rows of contact j, or NULL for a diagonal contact. */
static const nscd__bgs_contact_rows *rows_of(const nscd__bgs_problem *p, int32_t j) {
    return p->contacts[j].diagonal ? NULL : &p->contact_rows[j];
}

/* The local velocity of contact j with the normal row's bias added: the
 * velocity its single-contact problem sees, u_j + β_j e_n. */
static void biased_velocity(const nscd__bgs_problem *p, int32_t j, double u[3]) {
    const nscd__bgs_contact *c = &p->contacts[j];
    if (c->diagonal) {
        diagonal_velocity(p, c, u);
    } else {
        general_velocity(p, c, &p->contact_rows[j], u);
    }
    u[0] += c->bias;
}

double nscd__bgs_normal_velocity(const nscd__bgs_problem *p, int32_t j) {
    double u[3];
    biased_velocity(p, j, u);
    return u[0] - p->contacts[j].bias;
}

/* ------------------------------------------------------------ resistance
 *
 * Rolling and spinning resistance (nscd__bgs_contact_resist; docs/world.md,
 * "Rolling and spinning resistance"): after the contact's (n, t, o) update,
 * its angular block m on w = ω_b − ω_a. With the other impulses fixed, the
 * kinetic energy as a function of m is ½ mᵀKm + mᵀv + const, v = w − K m
 * the angular velocity the other blocks leave; each update minimises it over
 * its admissible set (the spin row over |m_n| <= μ_s x_n, then the rolling
 * rows over the disc |m_r| <= μ_r x_n), the maximal-dissipation projection,
 * so a sweep never adds energy through these blocks. */

/* The frame components of w = ω_b − ω_a at the current velocities. */
static void resist_velocity(const nscd__bgs_problem *p, const nscd__bgs_contact *c,
                            const nscd__bgs_contact_resist *r, double w[3]) {
    double rel[3] = {0.0, 0.0, 0.0};
    if (c->b_moves) {
        const double *om = p->bodies.omega + 3 * (size_t)c->b;
        rel[0] = om[0], rel[1] = om[1], rel[2] = om[2];
    }
    if (c->a_moves) {
        const double *om = p->bodies.omega + 3 * (size_t)c->a;
        rel[0] -= om[0], rel[1] -= om[1], rel[2] -= om[2];
    }
    for (int k = 0; k < 3; ++k) {
        const double *e = c->frame + 3 * k;
        w[k] = r->w_fixed[k] + e[0] * rel[0] + e[1] * rel[1] + e[2] * rel[2];
    }
}

/* Applies the angular impulse change dm (frame): +I_b⁻¹ Fᵀdm on b, −I_a⁻¹ Fᵀdm on a. */
static void resist_apply(nscd__bgs_problem *p, const nscd__bgs_contact *c,
                         const nscd__bgs_contact_resist *r, const double dm[3]) {
    if (c->a_moves) {
        double *om = p->bodies.omega + 3 * (size_t)c->a;
        for (int k = 0; k < 3; ++k) {
            om[k] -= r->resp_a[k] * dm[0] + r->resp_a[3 + k] * dm[1] + r->resp_a[6 + k] * dm[2];
        }
    }
    if (c->b_moves) {
        double *om = p->bodies.omega + 3 * (size_t)c->b;
        for (int k = 0; k < 3; ++k) {
            om[k] += r->resp_b[k] * dm[0] + r->resp_b[3 + k] * dm[1] + r->resp_b[6 + k] * dm[2];
        }
    }
}

/* mᵀ K m of the angular block. */
static double resist_energy(const nscd__bgs_contact_resist *r, const double m[3]) {
    double e = 0.0;
    for (int k = 0; k < 3; ++k) {
        e += m[k] * (r->K[3 * k] * m[0] + r->K[3 * k + 1] * m[1] + r->K[3 * k + 2] * m[2]);
    }
    return e;
}

/* The minimiser of ½ mᵀKm + mᵀv over the disc |m| <= radius, K = [k00 k01;
 * k01 k11] positive definite: the unconstrained −K⁻¹v when it lies in the
 * disc; else on the circle, m(λ) = −(K + λE)⁻¹v with λ > 0 the root of
 * 1/|m(λ)| = 1/radius (the trust-region subproblem; Moré and Sorensen's
 * Newton iteration on that concave, increasing function converges from
 * λ = 0 without overshooting), scaled onto the circle. An isotropic K (a
 * sphere's) needs no iteration: the radial projection. */
static void solve_disc(double k00, double k01, double k11, const double v[2], double radius,
                       double m[2]) {
    double det = k00 * k11 - k01 * k01;
    if (!(radius > 0.0) || !(det > 0.0) || !(k00 > 0.0)) {
        m[0] = m[1] = 0.0;
        return;
    }
    m[0] = -(k11 * v[0] - k01 * v[1]) / det;
    m[1] = -(k00 * v[1] - k01 * v[0]) / det;
    double s = m[0] * m[0] + m[1] * m[1];
    if (s <= radius * radius) {
        return;
    }
    if (k01 != 0.0 || k00 != k11) {
        double lambda = 0.0;
        for (int it = 0; it < 60; ++it) {
            double a = k00 + lambda, b = k11 + lambda, d = a * b - k01 * k01;
            double m0 = -(b * v[0] - k01 * v[1]) / d, m1 = -(a * v[1] - k01 * v[0]) / d;
            double size = sqrt(m0 * m0 + m1 * m1);
            m[0] = m0, m[1] = m1;
            double y0 = (b * m0 - k01 * m1) / d, y1 = (a * m1 - k01 * m0) / d;
            double q = m0 * y0 + m1 * y1; /* mᵀ(K + λE)⁻¹m = −|m|² d|m|/dλ / |m| */
            double step = (size - radius) / radius * size * size / q;
            if (!(size - radius > 1e-14 * radius) || !(step > 0.0)) {
                break;
            }
            lambda += step;
        }
        s = m[0] * m[0] + m[1] * m[1];
    }
    double f = radius / sqrt(s);
    m[0] *= f;
    m[1] *= f;
}

/* One update of contact c's angular block (after its linear one, so that
 * the bounds see its new x_n): the spin row, then the rolling rows with the
 * spin change seen; returns |K Δm| (rad/s, the merit). */
static double update_resist(nscd__bgs_problem *p, const nscd__bgs_contact *c,
                            nscd__bgs_contact_resist *r) {
    const double *K = r->K, *m = r->m;
    double w[3], next[3];
    resist_velocity(p, c, r, w);
    double xn = c->x[0] > 0.0 ? c->x[0] : 0.0;
    /* spin: the velocity the other blocks leave v_n = w_n − K_nn m_n (the
     * rolling rows are another block: their share of w_n stays), m_n =
     * −v_n / K_nn clamped to ±μ_s x_n */
    double bound = r->spinning * xn;
    next[0] = 0.0;
    if (bound > 0.0 && K[0] > 0.0) {
        double vn = w[0] - K[0] * m[0];
        double ms = -vn / K[0];
        next[0] = ms > bound ? bound : (ms < -bound ? -bound : ms);
    }
    double dn = next[0] - m[0];
    /* rolling: the velocity the other blocks leave, the spin change seen */
    double v[2] = {w[1] + K[3] * dn - (K[4] * m[1] + K[5] * m[2]),
                   w[2] + K[6] * dn - (K[7] * m[1] + K[8] * m[2])};
    solve_disc(K[4], K[5], K[8], v, r->rolling * xn, next + 1);
    double dm[3] = {dn, next[1] - m[1], next[2] - m[2]};
    if (dm[0] == 0.0 && dm[1] == 0.0 && dm[2] == 0.0) {
        return 0.0;
    }
    resist_apply(p, c, r, dm);
    r->m[0] = next[0], r->m[1] = next[1], r->m[2] = next[2];
    double du = 0.0;
    for (int k = 0; k < 3; ++k) {
        double d = K[3 * k] * dm[0] + K[3 * k + 1] * dm[1] + K[3 * k + 2] * dm[2];
        du += d * d;
    }
    return du; /* squared: update_contact */
}

/* The warm start's share of contact j's angular block: m·w before it is
 * applied into *g, mᵀKm into *d, then applies m (apply false: only m·w). */
static void resist_warm(nscd__bgs_problem *p, int32_t j, double *g, double *d, bool apply) {
    const nscd__bgs_contact *c = &p->contacts[j];
    const nscd__bgs_contact_resist *r = &p->contact_resist[j];
    if (r->m[0] == 0.0 && r->m[1] == 0.0 && r->m[2] == 0.0) {
        return;
    }
    double w[3];
    resist_velocity(p, c, r, w);
    *g += r->m[0] * w[0] + r->m[1] * w[1] + r->m[2] * w[2];
    if (apply) {
        *d += resist_energy(r, r->m);
        resist_apply(p, c, r, r->m);
    }
}

/* Scales contact j's angular impulse by s (the warm start's last pass). */
static void resist_scale(nscd__bgs_problem *p, int32_t j, double s) {
    nscd__bgs_contact_resist *r = &p->contact_resist[j];
    double dm[3] = {(s - 1.0) * r->m[0], (s - 1.0) * r->m[1], (s - 1.0) * r->m[2]};
    if (dm[0] != 0.0 || dm[1] != 0.0 || dm[2] != 0.0) {
        resist_apply(p, &p->contacts[j], r, dm);
    }
    r->m[0] *= s, r->m[1] *= s, r->m[2] *= s;
}

bool nscd__bgs_contact_rows_factor(nscd__bgs_contact_rows *r) {
    double S[9];
    if (nscd__delassus3_factor(r->A, S, r->L) != NSCD_OK) {
        return false;
    }
    (void)nscd__fc3d_inverse3(r->A, r->Ai);
    return true;
}

/* x·(A x) for the contact's own block. */
static double block_energy(const nscd__bgs_contact *c, const nscd__bgs_contact_rows *r,
                           const double x[3]) {
    if (r == NULL) {
        return c->a_n * x[0] * x[0] + c->a_t * (x[1] * x[1] + x[2] * x[2]);
    }
    double e = 0.0;
    for (int k = 0; k < 3; ++k) {
        e += x[k] * (r->A[3 * k] * x[0] + r->A[3 * k + 1] * x[1] + r->A[3 * k + 2] * x[2]);
    }
    return e;
}

/* Applies last step's impulses r0 to the velocities, scaled so that they
 * add no energy.
 *
 * With v₀ the velocities before (free flight plus the joints' warm start),
 * the contact problem's energy E(r) = ½ rᵀWr + (q + β)ᵀr, q = J v₀, is the
 * kinetic energy the impulses add, ½|v|²_M − ½|v₀|²_M, plus the work of the
 * bias β (the ε ξ/dt correction, the speculative gap). A converged impulse
 * has E ≤ 0 (r·(u + β e_n) ≤ 0: Coulomb's and Signorini's laws), and a cold
 * start's first sweep keeps E ≤ 0, but last step's impulses can have E > 0
 * (a contact that now separates, a sphere whose neighbour left): applied in
 * full, a step with few sweeps cannot take it back and the world gains
 * energy (docs/fuzzing.md, known issues World 1 and World 2). So when
 * E(r0) > 0 the impulses are scaled by s = −2 a / b, a = (q + β)ᵀr0,
 * b = r0ᵀWr0, the largest s in [0, 1] with E(s r0) = s a + ½ s² b ≤ 0; s
 * reaches 1 as E(r0) falls to 0, so the rule is continuous, and a step whose
 * warm start adds nothing (every resting scene) is unchanged.
 *
 * W is not formed. Applying r0 contact by contact and summing
 * g = Σ_j r0_j·(u_j + β_j e_n) at the velocities just before contact j
 * gives g = a + ½ (b − d), d = Σ_j r0_jᵀA_jj r0_j, so E(r0) = g + ½ d; only
 * when that is positive does one more pass read h = Σ_j r0_j·(u_j + β_j e_n)
 * at the end, h = a + b, so b = 2 (h − g) − d and a = h − b. */
static void coloured_warm_start(nscd__bgs_problem *p);

void nscd__bgs_warm_start(nscd__bgs_problem *p) {
    if (p->colour_start != NULL) {
        coloured_warm_start(p);
        return;
    }
    double g = 0.0, d = 0.0;
    for (int32_t j = 0; j < p->n_contacts; ++j) {
        const nscd__bgs_contact *c = &p->contacts[j];
        if (c->x[0] == 0.0 && c->x[1] == 0.0 && c->x[2] == 0.0) {
            continue;
        }
        double u[3];
        biased_velocity(p, j, u);
        g += c->x[0] * u[0] + c->x[1] * u[1] + c->x[2] * u[2];
        d += block_energy(c, rows_of(p, j), c->x);
        apply_impulse(p, c, rows_of(p, j), c->x);
        if (c->resist) {
            resist_warm(p, j, &g, &d, true);
        }
    }
    if (g + 0.5 * d <= 0.0) {
        return;
    }
    double h = 0.0;
    for (int32_t j = 0; j < p->n_contacts; ++j) {
        const nscd__bgs_contact *c = &p->contacts[j];
        if (c->x[0] != 0.0 || c->x[1] != 0.0 || c->x[2] != 0.0) {
            double u[3];
            biased_velocity(p, j, u);
            h += c->x[0] * u[0] + c->x[1] * u[1] + c->x[2] * u[2];
            if (c->resist) {
                resist_warm(p, j, &h, NULL, false);
            }
        }
    }
    double b = 2.0 * (h - g) - d, a = h - b;
    double s = a < 0.0 && b > 0.0 ? -2.0 * a / b : 0.0;
    s = s < 1.0 ? s : 1.0;
    for (int32_t j = 0; j < p->n_contacts; ++j) {
        nscd__bgs_contact *c = &p->contacts[j];
        if (c->x[0] != 0.0 || c->x[1] != 0.0 || c->x[2] != 0.0) {
            double dx[3] = {(s - 1.0) * c->x[0], (s - 1.0) * c->x[1], (s - 1.0) * c->x[2]};
            apply_impulse(p, c, rows_of(p, j), dx);
            c->x[0] *= s, c->x[1] *= s, c->x[2] *= s;
            if (c->resist) {
                resist_scale(p, j, s);
            }
        }
    }
}

/* The single-contact problem of a diagonal block A = diag(a_n, a_t, a_t):
 * the normal row decouples (x_n = -v_n / a_n when approaching, else 0) and
 * the tangential impulse is the projection of the sticking impulse -v_t / a_t
 * on the disc of radius μ x_n. Coulomb's law and maximum dissipation
 * (eq. (5)) have this same solution for such a block: on the plane of
 * maximum compression u_n = 0 the energy is a_t/2 |x_t|^2 + x_t·v_t, whose
 * minimum on the disc is that projection, and a sliding Coulomb impulse
 * -μ x_n u_t / |u_t| with u_t = a_t x_t + v_t points along -v_t. */
static void solve_diagonal(double a_n, double a_t, const double v[3], double mu, double x[3]) {
    if (v[0] >= 0.0) {
        x[0] = x[1] = x[2] = 0.0;
        return;
    }
    x[0] = -v[0] / a_n;
    x[1] = -v[1] / a_t;
    x[2] = -v[2] / a_t;
    double s = x[1] * x[1] + x[2] * x[2], limit = mu * x[0];
    if (s > limit * limit) {
        double f = limit / sqrt(s);
        x[1] *= f;
        x[2] *= f;
    }
}

/* The impulse change dx of contact c, applied: returns |A dx|^2, the
 * square of the change of its relative velocity (the merit; squared, see
 * update_contact). */
static double commit(nscd__bgs_problem *p, nscd__bgs_contact *c, const nscd__bgs_contact_rows *r,
                     const double x[3], const double du[3], const double dx[3]) {
    apply_impulse(p, c, r, dx);
    c->x[0] = x[0], c->x[1] = x[1], c->x[2] = x[2];
    return du[0] * du[0] + du[1] * du[1] + du[2] * du[2];
}

/* One block update of a diagonal contact (the granular fast path): the
 * products with A's zero off-diagonal entries are left out, which changes
 * nothing but the sign of an exact zero. */
static double update_diagonal(nscd__bgs_problem *p, nscd__bgs_contact *c) {
    const double an = c->a_n, at = c->a_t, *x0 = c->x;
    double u[3], x[3], rel[3];
    diagonal_relative(p, c, rel);
    const double *e = c->frame;
    u[0] = c->u_fixed[0] + e[0] * rel[0] + e[1] * rel[1] + e[2] * rel[2];
    if (x0[0] == 0.0 && x0[1] == 0.0 && x0[2] == 0.0 && u[0] + c->bias >= 0.0) {
        /* No impulse and separating: solve_diagonal's take-off, decided on
         * the same v_n (u_n - a_n 0 + β is u_n + β exactly), without the
         * tangential rows. */
        return 0.0;
    }
    for (int k = 1; k < 3; ++k) {
        e = c->frame + 3 * k;
        u[k] = c->u_fixed[k] + e[0] * rel[0] + e[1] * rel[1] + e[2] * rel[2];
    }
    double v[3] = {u[0] - an * x0[0] + c->bias, u[1] - at * x0[1], u[2] - at * x0[2]};
    solve_diagonal(an, at, v, c->mu, x);
    double dx[3] = {x[0] - x0[0], x[1] - x0[1], x[2] - x0[2]};
    if (dx[0] == 0.0 && dx[1] == 0.0 && dx[2] == 0.0) {
        return 0.0;
    }
    double du[3] = {an * dx[0], at * dx[1], at * dx[2]};
    return commit(p, c, NULL, x, du, dx);
}

/* One block update of a general contact. A local failure keeps the impulse. */
static double update_general(nscd__bgs_problem *p, nscd__bgs_contact *c,
                             const nscd__bgs_contact_rows *r, int32_t law) {
    const double *A = r->A;
    double u[3], v[3], x[3] = {c->x[0], c->x[1], c->x[2]};
    if (law != NSCD_FC3D_MAX_DISSIPATION && x[0] == 0.0 && x[1] == 0.0 && x[2] == 0.0 &&
        general_normal_velocity(p, c, r) + c->bias >= 0.0) {
        /* No impulse and a separating (biased) normal velocity: Coulomb's
         * take-off, x stays 0 (nscd__fc3d_local_coulomb would return it),
         * read from the normal row alone. */
        return 0.0;
    }
    general_velocity(p, c, r, u);
    v[0] = u[0] - (A[0] * x[0] + A[1] * x[1] + A[2] * x[2]);
    v[1] = u[1] - (A[3] * x[0] + A[4] * x[1] + A[5] * x[2]);
    v[2] = u[2] - (A[6] * x[0] + A[7] * x[1] + A[8] * x[2]);
    v[0] += c->bias;
    double resid = 0.0; /* the sliding step's residual (fc3d_local.h) */
    if (law == NSCD_FC3D_MAX_DISSIPATION) {
        double b[3] = {-v[0], -v[1], -v[2]};
        nscd__mdp_solve_factored(A, r->L, b, c->mu, x);
    } else if ((r->Ai[0] > 0.0
                    ? nscd__fc3d_local_coulomb_step(A, r->Ai, v[0], v[1], v[2], c->mu, x, &resid)
                    : nscd__fc3d_local_coulomb(A, v, c->mu, x)) != NSCD_OK) {
        return 0.0;
    }
    double dx[3] = {x[0] - c->x[0], x[1] - c->x[1], x[2] - c->x[2]};
    if (dx[0] == 0.0 && dx[1] == 0.0 && dx[2] == 0.0) {
        return resid * resid;
    }
    double du[3] = {A[0] * dx[0] + A[1] * dx[1] + A[2] * dx[2],
                    A[3] * dx[0] + A[4] * dx[1] + A[5] * dx[2],
                    A[6] * dx[0] + A[7] * dx[1] + A[8] * dx[2]};
    double m2 = commit(p, c, r, x, du, dx), r2 = resid * resid;
    return r2 > m2 ? r2 : m2;
}

/* Contact j's block update, then its angular block (if any): the square
 * of the merit. The callers take the largest square of a sweep and its
 * root once (sqrt is monotone and correctly rounded, so the root of the
 * largest square is the largest root: the same merit, bit for bit, without
 * a square root in each update's chain). */
static double update_contact(nscd__bgs_problem *p, int32_t j, int32_t law) {
    nscd__bgs_contact *c = &p->contacts[j];
    double m = c->diagonal ? update_diagonal(p, c) : update_general(p, c, &p->contact_rows[j], law);
    if (c->resist) {
        double a = update_resist(p, c, &p->contact_resist[j]);
        m = a > m ? a : m;
    }
    return m;
}

static double gauss_seidel(nscd__bgs_problem *p, int32_t law, int32_t lo, int32_t hi) {
    double merit2 = 0.0;
    for (int32_t j = lo; j < hi; ++j) {
        double m2 = update_contact(p, j, law);
        merit2 = m2 > merit2 ? m2 : merit2;
    }
    return sqrt(merit2);
}

/* After group g, contacts [lo, hi), ran on the snapshot: adds its velocity
 * changes to the blend accumulator, puts its bodies back to the snapshot and
 * counts, per body, the groups that touched it; returns the largest count so
 * far. A body seen by two contacts of the group is handled at its first visit
 * only (its velocity equals the snapshot afterwards, so the second adds zero). */
static int32_t collect_group(nscd__bgs_problem *p, int32_t g, int32_t lo, int32_t hi,
                             int32_t shared) {
    for (int32_t j = lo; j < hi; ++j) {
        const nscd__bgs_contact *c = &p->contacts[j];
        int32_t bodies[2] = {c->a_moves ? c->a : -1, c->b_moves ? c->b : -1};
        for (int s = 0; s < 2; ++s) {
            if (bodies[s] < 0) {
                continue;
            }
            int32_t *seen = &p->bodies.blend_group[2 * (size_t)bodies[s]];
            if (seen[0] != g) {
                seen[0] = g;
                seen[1]++;
                shared = seen[1] > shared ? seen[1] : shared;
            }
            size_t i = 3 * (size_t)bodies[s];
            for (int k = 0; k < 3; ++k) {
                p->bodies.blend_velocity[i + k] +=
                    p->bodies.velocity[i + k] - p->bodies.snapshot_velocity[i + k];
                p->bodies.blend_omega[i + k] +=
                    p->bodies.omega[i + k] - p->bodies.snapshot_omega[i + k];
                p->bodies.velocity[i + k] = p->bodies.snapshot_velocity[i + k];
                p->bodies.omega[i + k] = p->bodies.snapshot_omega[i + k];
            }
        }
    }
    return shared;
}

/* One sweep of weighted block Jacobi over G groups of Gauss–Seidel.
 *
 * The weight: each group's Gauss–Seidel pass lowers the contact problem's
 * energy E(x) = ½ xᵀAx − bᵀx with the other groups' impulses frozen,
 * E(x₀ + Δ_g) ≤ E(x₀). The blend x₀ + ω Σ_g Δ_g has, for a body touched by k
 * groups, the cross terms of k velocity changes: by Cauchy–Schwarz
 * ‖Σ_g Δv_g‖² ≤ k Σ_g ‖Δv_g‖², so E(x₀ + ω Σ Δ_g) − E(x₀) ≤
 * ω Σ_g [∇E·Δ_g + ½ ω k ‖Δ_g‖²_A] ≤ ω Σ_g (E(x₀ + Δ_g) − E(x₀)) ≤ 0 when
 * ω k ≤ 1, k the largest number of groups sharing a body in this sweep. The
 * user's relaxation is an upper bound; the sweep uses min(ω, 1/k). Without
 * the bound (ω = 1 with four groups sharing bodies) the blend overshoots
 * k-fold and diverges (docs/world.md, "Weighted Jacobi blend"). */
static double jacobi_sweep(nscd__bgs_problem *p, int32_t law, int32_t groups, double relaxation) {
    size_t n = (size_t)p->bodies.n, n3 = 3 * n;
    double merit = 0.0;
    memcpy(p->bodies.snapshot_velocity, p->bodies.velocity, n3 * sizeof(double));
    memcpy(p->bodies.snapshot_omega, p->bodies.omega, n3 * sizeof(double));
    memset(p->bodies.blend_velocity, 0, n3 * sizeof(double));
    memset(p->bodies.blend_omega, 0, n3 * sizeof(double));
    for (size_t i = 0; i < n; ++i) {
        p->bodies.blend_group[2 * i] = -1;
        p->bodies.blend_group[2 * i + 1] = 0;
    }
    double *x_start = p->x_start;
    for (int32_t j = 0; j < p->n_contacts; ++j) {
        memcpy(x_start + 3 * (size_t)j, p->contacts[j].x, sizeof p->contacts[j].x);
        if (p->contacts[j].resist) {
            nscd__bgs_contact_resist *r = &p->contact_resist[j];
            memcpy(r->m_start, r->m, sizeof r->m);
        }
    }
    int64_t n_contacts = p->n_contacts;
    int32_t shared = 1;
    for (int32_t g = 0; g < groups; ++g) {
        int32_t lo = (int32_t)(n_contacts * g / groups);
        int32_t hi = (int32_t)(n_contacts * (g + 1) / groups);
        double m = gauss_seidel(p, law, lo, hi);
        merit = m > merit ? m : merit;
        shared = collect_group(p, g, lo, hi, shared);
    }
    double omega = relaxation * (double)shared <= 1.0 ? relaxation : 1.0 / (double)shared;
    for (size_t i = 0; i < n3; ++i) {
        p->bodies.velocity[i] =
            p->bodies.snapshot_velocity[i] + omega * p->bodies.blend_velocity[i];
        p->bodies.omega[i] = p->bodies.snapshot_omega[i] + omega * p->bodies.blend_omega[i];
    }
    for (int32_t j = 0; j < p->n_contacts; ++j) {
        nscd__bgs_contact *c = &p->contacts[j];
        for (int k = 0; k < 3; ++k) {
            double x0 = x_start[3 * (size_t)j + k];
            c->x[k] = x0 + omega * (c->x[k] - x0);
        }
        if (c->resist) { /* the angular impulses blended as the linear ones */
            nscd__bgs_contact_resist *r = &p->contact_resist[j];
            for (int k = 0; k < 3; ++k) {
                r->m[k] = r->m_start[k] + omega * (r->m[k] - r->m_start[k]);
            }
        }
    }
    return merit;
}

/* x = -A⁻¹ u by the factor. */
static void solve_block(const nscd__bgs_joint_block *b, const double u[3], double x[3]) {
    double z[3];
    for (int r = 0; r < b->n; ++r) {
        double sum = -u[r];
        for (int m = 0; m < r; ++m) {
            sum -= b->L[3 * r + m] * z[m];
        }
        z[r] = sum / b->L[4 * r];
    }
    for (int r = b->n - 1; r >= 0; --r) {
        double sum = z[r];
        for (int m = r + 1; m < b->n; ++m) {
            sum -= b->L[3 * m + r] * x[m];
        }
        x[r] = sum / b->L[4 * r];
    }
}

/* u = H v of the block's rows at the bodies' current velocities (each
 * side's six products summed left to right, side 0 then side 1). */
static void block_velocity(const nscd__bgs_problem *p, const nscd__bgs_joint_block *b,
                           double u[3]) {
    double sum[3] = {0.0, 0.0, 0.0};
    for (int s = 0; s < 2; ++s) {
        int32_t i = b->body[s];
        if (i < 0) {
            continue;
        }
        const double *vp = p->bodies.velocity + 3 * (size_t)i,
                     *op = p->bodies.omega + 3 * (size_t)i;
        const double v0 = vp[0], v1 = vp[1], v2 = vp[2], o0 = op[0], o1 = op[1], o2 = op[2];
        for (int r = 0; r < b->n; ++r) {
            const double *h = b->h[s][r];
            sum[r] += h[0] * v0 + h[1] * v1 + h[2] * v2 + h[3] * o0 + h[4] * o1 + h[5] * o2;
        }
    }
    for (int r = 0; r < b->n; ++r) {
        u[r] = sum[r];
    }
}

/* v += M⁻¹ Hᵀ x on both moving sides (each velocity's updates in the
 * order of the rows, accumulated in registers: the same sums). */
static void apply_block(nscd__bgs_problem *p, const nscd__bgs_joint_block *b, const double x[3]) {
    for (int s = 0; s < 2; ++s) {
        int32_t i = b->body[s];
        if (i < 0) {
            continue;
        }
        double *vp = p->bodies.velocity + 3 * (size_t)i, *op = p->bodies.omega + 3 * (size_t)i;
        double v0 = vp[0], v1 = vp[1], v2 = vp[2], o0 = op[0], o1 = op[1], o2 = op[2];
        for (int r = 0; r < b->n; ++r) {
            const double *y = b->y[s][r], xr = x[r];
            v0 += y[0] * xr;
            o0 += y[3] * xr;
            v1 += y[1] * xr;
            o1 += y[4] * xr;
            v2 += y[2] * xr;
            o2 += y[5] * xr;
        }
        vp[0] = v0, vp[1] = v1, vp[2] = v2;
        op[0] = o0, op[1] = o1, op[2] = o2;
    }
}

/* Doubles of a mechanism of R rows in the scratch: its envelope (at most
 * the lower triangle) and its columns (at most the strict one), then start,
 * last, offset and toff (4 R + 2 ints). */
size_t nscd__bgs_mechanism_doubles(int32_t R) {
    size_t ints = 4 * (size_t)R + 2;
    return (size_t)R * (size_t)R + (ints + 1) / 2;
}

/* The view of mechanism m's envelope in the factors. */
nscd__envelope nscd__bgs_mechanism_view(double *factors, const nscd__bgs_mechanism *m) {
    nscd__envelope e;
    e.x = NULL;
    double *base = factors + m->factor;
    e.n = m->rows;
    e.L = base;
    e.T = base + (size_t)m->rows * ((size_t)m->rows + 1) / 2;
    e.start = (int32_t *)(base + (size_t)m->rows * (size_t)m->rows);
    e.last = e.start + m->rows;
    e.offset = e.last + m->rows;
    e.toff = e.offset + m->rows + 1;
    return e;
}

void nscd__bgs_joint_warm_start(nscd__bgs_problem *p) {
    for (int32_t j = 0; j < p->n_joint_blocks; ++j) {
        const nscd__bgs_joint_block *b = &p->joint_blocks[j];
        if (b->lambda[0] != 0.0 || b->lambda[1] != 0.0 || b->lambda[2] != 0.0) {
            apply_block(p, b, b->lambda);
        }
    }
}

/* One part by its own block: the merit |u|. */
static double sweep_part(nscd__bgs_problem *p, nscd__bgs_joint_block *b) {
    double u[3], dx[3], size = 0.0;
    block_velocity(p, b, u);
    solve_block(b, u, dx);
    apply_block(p, b, dx);
    for (int r = 0; r < b->n; ++r) {
        b->lambda[r] += dx[r];
        size += u[r] * u[r];
    }
    return sqrt(size);
}

/* x = -u = -H v of mechanism m (its parts' rows in order); the largest |u|
 * of a part (the merit). */
static double mechanism_velocity(const nscd__bgs_problem *p, const nscd__bgs_mechanism *m,
                                 double *x) {
    double merit = 0.0;
    for (int32_t a = 0, r0 = 0; a < m->count; ++a) {
        const nscd__bgs_joint_block *b = &p->joint_blocks[m->first + a];
        double u[3], size = 0.0;
        block_velocity(p, b, u);
        for (int r = 0; r < b->n; ++r) {
            x[r0 + r] = -u[r];
            size += u[r] * u[r];
        }
        merit = fmax(merit, sqrt(size));
        r0 += b->n;
    }
    return merit;
}

/* Mechanisms by their factors, `count` at a time (their bodies are
 * disjoint: the order of their updates changes nothing; e[g].x holds
 * -u): the solves in lockstep, then v += M⁻¹ Hᵀ Δλ. */
static void solve_mechanisms(nscd__bgs_problem *p, nscd__bgs_mechanism *const *ms,
                             nscd__envelope *e, int32_t count) {
    nscd__envelope_solve_many(count, e);
    for (int32_t g = 0; g < count; ++g) {
        const nscd__bgs_mechanism *m = ms[g];
        const double *x = e[g].x;
        for (int32_t a = 0, r0 = 0; a < m->count; ++a) {
            nscd__bgs_joint_block *b = &p->joint_blocks[m->first + a];
            apply_block(p, b, x + r0);
            for (int r = 0; r < b->n; ++r) {
                b->lambda[r] += x[r0 + r];
            }
            r0 += b->n;
        }
    }
}

double nscd__bgs_joint_sweep(nscd__bgs_problem *p, double skip) {
    double merit = 0.0;
    nscd__bgs_mechanism *batch[NSCD__BGS_BATCH];
    nscd__envelope views[NSCD__BGS_BATCH];
    int32_t count = 0, rows = 0;
    for (int32_t k = 0; k < p->n_mechanisms; ++k) {
        nscd__bgs_mechanism *m = &p->mechanisms[k];
        if (!m->factored) {
            for (int32_t j = m->first; j < m->first + m->count; ++j) {
                merit = fmax(merit, sweep_part(p, &p->joint_blocks[j]));
            }
            continue;
        }
        double *x = p->vectors + rows;
        double size = mechanism_velocity(p, m, x);
        merit = fmax(merit, size);
        if (size == 0.0 || size < skip) {
            continue; /* nothing to do, or already within the tolerance */
        }
        views[count] = nscd__bgs_mechanism_view(p->factors, m);
        views[count].x = x;
        rows += m->rows;
        batch[count++] = m;
        if (count == NSCD__BGS_BATCH) {
            solve_mechanisms(p, batch, views, count);
            count = rows = 0;
        }
    }
    if (count > 0) {
        solve_mechanisms(p, batch, views, count);
    }
    return merit;
}

/* ------------------------------------------------------------ light bodies
 *
 * A light body between a heavy one and its support (a 0.07 g hull under a
 * box 300 times heavier; docs/world.md, "A light body squeezed"): block
 * Gauss–Seidel passes the heavy body's momentum to the support through the
 * light one by a fraction of about the mass ratio per sweep, so the heavy
 * body presses the light one into the floor for hundreds of sweeps. The
 * cluster pass solves the normal rows of all the light body's contacts
 * together, W_nn = H_n M⁻¹ H_nᵀ over the cluster's bodies (the light one and
 * its neighbours, each contact's other side moving freely), as the LCP
 *
 *     w = (W + δ D) z + q,  q = u_n + β − W x_n − δ D x_n,  0 <= z ⊥ w >= 0,
 *
 * with the other contacts and the tangential impulses frozen: the exact
 * block update of the normal impulses (a proximal one: δ = 1e-6, D =
 * diag W, keeps the redundant rows of a face on a face bounded), by Lemke's
 * method. It minimises the kinetic energy over the cluster's normal
 * impulses, so it adds none; a tangential impulse outside its cone after a
 * smaller normal one is cut back radially. Only the contacts that push or
 * close (x_n > 0 or u_n + β < 0) take part. */

#define CLUSTER_PROX 1e-6

/* The normal row of one contact of a cluster on each of its sides (0: a,
 * 1: b): the side's body (-1 when it does not move) and inverse mass, and
 * the row as linear part, angular part and angular response, signed as in
 * u = J v (b relative to a). A centred sphere's lever arm lies along n: its
 * angular part is zero. */
typedef struct cluster_row {
    int32_t body[2];
    double inv_mass[2];
    double lin[2][3], ang[2][3], resp[2][3];
} cluster_row;

static void cluster_row_of(const nscd__bgs_problem *p, int32_t j, cluster_row *row) {
    const nscd__bgs_contact *c = &p->contacts[j];
    const nscd__bgs_contact_rows *r = c->diagonal ? NULL : &p->contact_rows[j];
    row->body[0] = c->a_moves ? c->a : -1;
    row->body[1] = c->b_moves ? c->b : -1;
    row->inv_mass[0] = c->inv_mass_a;
    row->inv_mass[1] = c->inv_mass_b;
    for (int s = 0; s < 2; ++s) {
        double sign = s == 0 ? -1.0 : 1.0;
        const double *g = r == NULL ? NULL : (s == 0 ? r->ang_a : r->ang_b);
        const double *y = r == NULL ? NULL : (s == 0 ? r->resp_a : r->resp_b);
        for (int k = 0; k < 3; ++k) {
            row->lin[s][k] = sign * c->frame[k];
            row->ang[s][k] = g == NULL ? 0.0 : sign * g[k];
            row->resp[s][k] = y == NULL ? 0.0 : sign * y[k];
        }
    }
}

/* Entry (i, j) of W_nn: the sides of the two rows on a shared moving body. */
static double cluster_entry(const cluster_row *ri, const cluster_row *rj) {
    double sum = 0.0;
    for (int s = 0; s < 2; ++s) {
        for (int t = 0; t < 2; ++t) {
            if (ri->body[s] < 0 || ri->body[s] != rj->body[t]) {
                continue;
            }
            const double *li = ri->lin[s], *gi = ri->ang[s], *lj = rj->lin[t], *yj = rj->resp[t];
            sum += ri->inv_mass[s] * (li[0] * lj[0] + li[1] * lj[1] + li[2] * lj[2]) +
                   (gi[0] * yj[0] + gi[1] * yj[1] + gi[2] * yj[2]);
        }
    }
    return sum;
}

/* Cluster k's normal solve; its merit. */
static double solve_cluster(nscd__bgs_problem *p, int32_t k) {
    enum { M = NSCD__BGS_CLUSTER_MAX };
    int32_t ids[M], n = 0;
    double b[M], xn[M];
    for (int32_t e = p->cluster_start[k]; e < p->cluster_start[k + 1] && n < M; ++e) {
        int32_t j = p->cluster_contacts[e];
        double u[3];
        biased_velocity(p, j, u);
        if (p->contacts[j].x[0] > 0.0 || u[0] < 0.0) {
            ids[n] = j;
            xn[n] = p->contacts[j].x[0];
            b[n++] = u[0];
        }
    }
    if (n < 2) {
        return 0.0;
    }
    cluster_row rows[M];
    for (int i = 0; i < n; ++i) {
        cluster_row_of(p, ids[i], &rows[i]);
    }
    double W[M * M], A[M * M], q[M], z[M], w[M], T[M * (2 * M + 2)], top = 0.0;
    int32_t basis[M];
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j <= i; ++j) {
            W[i * n + j] = W[j * n + i] = cluster_entry(&rows[i], &rows[j]);
        }
        top = fmax(top, W[i * n + i]);
    }
    if (!(top > 0.0) || !isfinite(top)) {
        return 0.0;
    }
    for (int i = 0; i < n; ++i) { /* scaled to O(1) entries for Lemke's tolerance */
        double d = CLUSTER_PROX * W[i * n + i];
        q[i] = b[i] - d * xn[i];
        for (int j = 0; j < n; ++j) {
            q[i] -= W[i * n + j] * xn[j];
            A[i * n + j] = (W[i * n + j] + (i == j ? d : 0.0)) / top;
        }
        q[i] /= top;
    }
    if (nscd__lemke(n, A, q, T, basis, z, w) != NSCD_OK) {
        return 0.0; /* the sweeps' impulses stay */
    }
    double merit = 0.0;
    for (int i = 0; i < n; ++i) {
        double du = 0.0;
        for (int j = 0; j < n; ++j) {
            du += W[i * n + j] * (z[j] - xn[j]);
        }
        merit = fmax(merit, fabs(du));
    }
    for (int i = 0; i < n; ++i) {
        nscd__bgs_contact *c = &p->contacts[ids[i]];
        double x[3] = {z[i], c->x[1], c->x[2]};
        nscd__cone_cut(x, c->mu);
        double dx[3] = {x[0] - c->x[0], x[1] - c->x[1], x[2] - c->x[2]};
        if (dx[0] != 0.0 || dx[1] != 0.0 || dx[2] != 0.0) {
            apply_impulse(p, c, rows_of(p, ids[i]), dx);
            c->x[0] = x[0], c->x[1] = x[1], c->x[2] = x[2];
        }
    }
    return merit;
}

double nscd__bgs_cluster_pass(nscd__bgs_problem *p) {
    double merit = 0.0;
    for (int32_t k = 0; k < p->n_clusters; ++k) {
        merit = fmax(merit, solve_cluster(p, k));
    }
    return merit;
}

/* ------------------------------------------------------------ colours
 *
 * The colour order (docs/world.md, "Threads"): the contacts of one colour
 * share no moving body, so their updates touch disjoint velocities and
 * commute bitwise; a colour is cut into chunks of NSCD__CHUNK contacts run
 * by any worker, and every sum is of per-chunk partials added in (colour,
 * chunk) order. The result is that of the serial sweep in the colour order,
 * whatever the threads. */

typedef enum colour_pass { PASS_SWEEP, PASS_WARM, PASS_WARM_CHECK, PASS_WARM_SCALE } colour_pass;

typedef struct colour_job {
    nscd__bgs_problem *p;
    int32_t law, lo, hi; /* positions [lo, hi) of the order */
    colour_pass pass;
    double scale;     /* PASS_WARM_SCALE: s */
    double *partials; /* 2 per chunk of the colour */
} colour_job;

/* One contact of a pass; its partials added to part[0], part[1]. */
static void colour_item(colour_job *t, int32_t j, double part[2]) {
    nscd__bgs_problem *p = t->p;
    nscd__bgs_contact *c = &p->contacts[j];
    if (t->pass == PASS_SWEEP) { /* squares: colour_pass_run takes the root */
        double m2 = update_contact(p, j, t->law);
        part[0] = m2 > part[0] ? m2 : part[0];
        return;
    }
    if (c->x[0] == 0.0 && c->x[1] == 0.0 && c->x[2] == 0.0) {
        return;
    }
    if (t->pass == PASS_WARM_SCALE) {
        double s = t->scale;
        double dx[3] = {(s - 1.0) * c->x[0], (s - 1.0) * c->x[1], (s - 1.0) * c->x[2]};
        apply_impulse(p, c, rows_of(p, j), dx);
        c->x[0] *= s, c->x[1] *= s, c->x[2] *= s;
        if (c->resist) {
            resist_scale(p, j, s);
        }
        return;
    }
    double u[3];
    biased_velocity(p, j, u);
    part[0] += c->x[0] * u[0] + c->x[1] * u[1] + c->x[2] * u[2];
    if (t->pass == PASS_WARM) {
        part[1] += block_energy(c, rows_of(p, j), c->x);
        apply_impulse(p, c, rows_of(p, j), c->x);
    }
    if (c->resist) {
        resist_warm(p, j, &part[0], &part[1], t->pass == PASS_WARM);
    }
}

static void colour_chunks(int32_t begin, int32_t end, int32_t worker, void *ctx) {
    (void)worker;
    colour_job *t = ctx;
    for (int32_t k = begin; k < end; ++k) {
        int32_t lo = t->lo + k * NSCD__CHUNK;
        int32_t hi = t->hi - lo > NSCD__CHUNK ? lo + NSCD__CHUNK : t->hi;
        double part[2] = {0.0, 0.0};
        const int32_t *order = t->p->order;
        for (int32_t i = lo; i < hi; ++i) {
            colour_item(t, order != NULL ? order[i] : i, part);
        }
        t->partials[2 * (size_t)k] = part[0];
        t->partials[2 * (size_t)k + 1] = part[1];
    }
}

/* One pass over every colour; out[0], out[1]: the sums of the partials in
 * (colour, chunk) order (the sweep: their maximum in out[0]). */
static void colour_pass_run(nscd__bgs_problem *p, int32_t law, colour_pass pass, double scale,
                            double out[2]) {
    out[0] = out[1] = 0.0;
    for (int32_t c = 0; c < p->n_colours; ++c) {
        colour_job t = {p,    law,   p->colour_start[c], p->colour_start[c + 1],
                        pass, scale, p->partials};
        int32_t n = t.hi - t.lo;
        if (n == 0) {
            continue;
        }
        int32_t chunks = nscd__chunks(n);
        if (c == p->serial_colour) {
            colour_chunks(0, chunks, 0, &t); /* shared bodies: in order, one thread */
        } else {
            nscd__parallel_for(p->parallel, chunks, 1, colour_chunks, &t);
        }
        for (int32_t k = 0; k < chunks; ++k) {
            double a = p->partials[2 * (size_t)k], b = p->partials[2 * (size_t)k + 1];
            if (pass == PASS_SWEEP) {
                out[0] = a > out[0] ? a : out[0];
            } else {
                out[0] += a;
                out[1] += b;
            }
        }
    }
    if (pass == PASS_SWEEP) {
        out[0] = sqrt(out[0]); /* the largest square's root: the merit */
    }
}

/* nscd__bgs_warm_start in the colour order: the same three passes. */
static void coloured_warm_start(nscd__bgs_problem *p) {
    double gd[2], hh[2];
    colour_pass_run(p, 0, PASS_WARM, 0.0, gd);
    double g = gd[0], d = gd[1];
    if (g + 0.5 * d <= 0.0) {
        return;
    }
    colour_pass_run(p, 0, PASS_WARM_CHECK, 0.0, hh);
    double h = hh[0];
    double b = 2.0 * (h - g) - d, a = h - b;
    double s = a < 0.0 && b > 0.0 ? -2.0 * a / b : 0.0;
    s = s < 1.0 ? s : 1.0;
    colour_pass_run(p, 0, PASS_WARM_SCALE, s, hh);
}

double nscd__bgs_contact_sweep(nscd__bgs_problem *p, const nscd__bgs_options *o) {
    int32_t groups = o->jacobi_groups;
    if (groups > p->n_contacts) {
        groups = p->n_contacts;
    }
    if (groups > 1) {
        return jacobi_sweep(p, o->friction_law, groups, o->relaxation);
    }
    double merit;
    if (p->colour_start != NULL) {
        double out[2];
        colour_pass_run(p, o->friction_law, PASS_SWEEP, 0.0, out);
        merit = out[0];
    } else {
        merit = gauss_seidel(p, o->friction_law, 0, p->n_contacts);
    }
    if (p->n_clusters > 0) {
        double m = nscd__bgs_cluster_pass(p);
        merit = m > merit ? m : merit;
    }
    return merit;
}

void nscd__bgs_solve(nscd__bgs_problem *p, const nscd__bgs_options *o, int32_t *sweeps,
                     double *merit) {
    *merit = 0.0;
    *sweeps = 0;
    if (p->n_contacts == 0 && p->n_joint_blocks == 0) {
        return;
    }
    for (int32_t s = 0; s < o->max_sweeps; ++s) {
        /* the joints' blocks first, then the contacts: one Gauss–Seidel */
        double joints = p->n_joint_blocks > 0 ? nscd__bgs_joint_sweep(p, o->tolerance) : 0.0;
        double contacts = nscd__bgs_contact_sweep(p, o);
        *merit = contacts > joints ? contacts : joints;
        *sweeps = s + 1;
        if (o->tolerance > 0.0 && *merit < o->tolerance) {
            break;
        }
    }
    if (p->n_joint_blocks > 0 && p->n_contacts > 0) {
        /* the joints last: the contacts' last sweep moved the links, and
         * the drift of the step is the joints' |H v| times dt */
        nscd__bgs_joint_sweep(p, 0.0);
    }
}
