/* The matrix-free nonlinear block Gauss–Seidel of seed 002, Sect. 3
 * (preclik14): one sweep visits the contacts in order; for contact j it
 * forms the local velocity the other contacts leave, v_j = J_j v - A_jj x_j
 * (+ the ξ/dt bias on the normal row), solves the single-contact problem
 * u = A_jj x + v_j (Coulomb, or maximum dissipation eq. (5)), and applies the
 * impulse change to the two bodies' velocities in place. W is never formed:
 * a sweep costs O(contacts).
 *
 * With jacobi_groups G > 1 the contact order is cut into G contiguous
 * groups: Gauss–Seidel inside a group against a snapshot of the velocities
 * at the start of the sweep, and the groups' changes blended as weighted
 * block Jacobi, v = v0 + ω Σ_g Δv_g (seed 002, Sect. 3: the scheme of the
 * distributed runs, where a group is a process). */
#include <math.h>
#include <string.h>

#include "contact/solvers/fc3d_local.h"
#include "contact/single/mdp_single.h"
#include "world/world_impl.h"

/* Local velocity of a general contact (rows r) from the current body
 * velocities: rows n, t, o of J v (b relative to a); the sides that do not
 * move are the constant u_fixed. */
static void general_velocity(const nscd_world *w, const nscd__world_contact *c,
                             const nscd__world_contact_rows *r, double u[3]) {
    u[0] = c->u_fixed[0], u[1] = c->u_fixed[1], u[2] = c->u_fixed[2];
    const int32_t bodies[2] = {c->b, c->a};
    const int32_t moves[2] = {c->b_moves, c->a_moves};
    const double *angs[2] = {r->ang_b, r->ang_a}, signs[2] = {1.0, -1.0};
    for (int s = 0; s < 2; ++s) {
        if (!moves[s]) {
            continue;
        }
        const double *v = w->velocity + 3 * (size_t)bodies[s],
                     *om = w->omega + 3 * (size_t)bodies[s];
        for (int k = 0; k < 3; ++k) {
            const double *e = c->frame + 3 * k, *g = angs[s] + 3 * k;
            u[k] += signs[s] * (e[0] * v[0] + e[1] * v[1] + e[2] * v[2] + g[0] * om[0] +
                                g[1] * om[1] + g[2] * om[2]);
        }
    }
}

/* Local velocity of a diagonal contact: the contact-point velocity of a
 * moving sphere is v + l (ω x n). */
static void diagonal_velocity(const nscd_world *w, const nscd__world_contact *c, double u[3]) {
    const double *n = c->frame;
    double rel[3] = {0.0, 0.0, 0.0}, spin[3] = {0.0, 0.0, 0.0};
    if (c->b_moves) {
        const double *v = w->velocity + 3 * (size_t)c->b, *om = w->omega + 3 * (size_t)c->b;
        for (int k = 0; k < 3; ++k) {
            rel[k] = v[k];
            spin[k] = c->lever_b * om[k];
        }
    }
    if (c->a_moves) {
        const double *v = w->velocity + 3 * (size_t)c->a, *om = w->omega + 3 * (size_t)c->a;
        for (int k = 0; k < 3; ++k) {
            rel[k] -= v[k];
            spin[k] -= c->lever_a * om[k];
        }
    }
    rel[0] += spin[1] * n[2] - spin[2] * n[1];
    rel[1] += spin[2] * n[0] - spin[0] * n[2];
    rel[2] += spin[0] * n[1] - spin[1] * n[0];
    for (int k = 0; k < 3; ++k) {
        const double *e = c->frame + 3 * k;
        u[k] = c->u_fixed[k] + e[0] * rel[0] + e[1] * rel[1] + e[2] * rel[2];
    }
}

/* Applies the impulse change dx (contact frame) to the bodies: +P on b,
 * -P on a, P = dx_n n + dx_t t + dx_o o. The angular change of a side is
 * l / I (n x P) for a diagonal contact (I^-1 (r x P) with r = l n) and the
 * responses of the rows r (resp_k dx_k) for a general one (r NULL: diagonal). */
static void apply_impulse(nscd_world *w, const nscd__world_contact *c,
                          const nscd__world_contact_rows *r, const double dx[3]) {
    double P[3], nP[3] = {0.0, 0.0, 0.0};
    for (int k = 0; k < 3; ++k) {
        P[k] = c->frame[k] * dx[0] + c->frame[3 + k] * dx[1] + c->frame[6 + k] * dx[2];
    }
    if (r == NULL) {
        const double *n = c->frame;
        nP[0] = n[1] * P[2] - n[2] * P[1];
        nP[1] = n[2] * P[0] - n[0] * P[2];
        nP[2] = n[0] * P[1] - n[1] * P[0];
    }
    if (c->a_moves) {
        double *v = w->velocity + 3 * (size_t)c->a, *om = w->omega + 3 * (size_t)c->a;
        double s = c->lever_a * c->inv_inertia_a;
        for (int k = 0; k < 3; ++k) {
            v[k] -= c->inv_mass_a * P[k];
            om[k] -= r == NULL ? s * nP[k]
                               : r->resp_a[k] * dx[0] + r->resp_a[3 + k] * dx[1] +
                                     r->resp_a[6 + k] * dx[2];
        }
    }
    if (c->b_moves) {
        double *v = w->velocity + 3 * (size_t)c->b, *om = w->omega + 3 * (size_t)c->b;
        double s = c->lever_b * c->inv_inertia_b;
        for (int k = 0; k < 3; ++k) {
            v[k] += c->inv_mass_b * P[k];
            om[k] += r == NULL ? s * nP[k]
                               : r->resp_b[k] * dx[0] + r->resp_b[3 + k] * dx[1] +
                                     r->resp_b[6 + k] * dx[2];
        }
    }
}

/* The rows of contact j, or NULL for a diagonal contact. */
static const nscd__world_contact_rows *rows_of(const nscd_world *w, int32_t j) {
    return w->contacts[j].diagonal ? NULL : &w->contact_rows[j];
}

/* The local velocity of contact j with the normal row's bias added: the
 * velocity its single-contact problem sees, u_j + β_j e_n. */
static void biased_velocity(const nscd_world *w, int32_t j, double u[3]) {
    const nscd__world_contact *c = &w->contacts[j];
    if (c->diagonal) {
        diagonal_velocity(w, c, u);
    } else {
        general_velocity(w, c, &w->contact_rows[j], u);
    }
    u[0] += c->bias;
}

/* x·(A x) for the contact's own block. */
static double block_energy(const nscd__world_contact *c, const nscd__world_contact_rows *r,
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
void nscd__world_warm_start(nscd_world *w) {
    double g = 0.0, d = 0.0;
    for (int32_t j = 0; j < w->n_contacts; ++j) {
        const nscd__world_contact *c = &w->contacts[j];
        if (c->x[0] == 0.0 && c->x[1] == 0.0 && c->x[2] == 0.0) {
            continue;
        }
        double u[3];
        biased_velocity(w, j, u);
        g += c->x[0] * u[0] + c->x[1] * u[1] + c->x[2] * u[2];
        d += block_energy(c, rows_of(w, j), c->x);
        apply_impulse(w, c, rows_of(w, j), c->x);
    }
    if (g + 0.5 * d <= 0.0) {
        return;
    }
    double h = 0.0;
    for (int32_t j = 0; j < w->n_contacts; ++j) {
        const nscd__world_contact *c = &w->contacts[j];
        if (c->x[0] != 0.0 || c->x[1] != 0.0 || c->x[2] != 0.0) {
            double u[3];
            biased_velocity(w, j, u);
            h += c->x[0] * u[0] + c->x[1] * u[1] + c->x[2] * u[2];
        }
    }
    double b = 2.0 * (h - g) - d, a = h - b;
    double s = a < 0.0 && b > 0.0 ? -2.0 * a / b : 0.0;
    s = s < 1.0 ? s : 1.0;
    for (int32_t j = 0; j < w->n_contacts; ++j) {
        nscd__world_contact *c = &w->contacts[j];
        if (c->x[0] != 0.0 || c->x[1] != 0.0 || c->x[2] != 0.0) {
            double dx[3] = {(s - 1.0) * c->x[0], (s - 1.0) * c->x[1], (s - 1.0) * c->x[2]};
            apply_impulse(w, c, rows_of(w, j), dx);
            c->x[0] *= s, c->x[1] *= s, c->x[2] *= s;
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

/* The impulse change dx of contact c, applied: returns |A dx|, the change
 * of its relative velocity (the merit). */
static double commit(nscd_world *w, nscd__world_contact *c, const nscd__world_contact_rows *r,
                     const double x[3], const double du[3], const double dx[3]) {
    apply_impulse(w, c, r, dx);
    c->x[0] = x[0], c->x[1] = x[1], c->x[2] = x[2];
    return sqrt(du[0] * du[0] + du[1] * du[1] + du[2] * du[2]);
}

/* One block update of a diagonal contact (the granular fast path): the
 * products with A's zero off-diagonal entries are left out, which changes
 * nothing but the sign of an exact zero. */
static double update_diagonal(nscd_world *w, nscd__world_contact *c) {
    const double an = c->a_n, at = c->a_t, *x0 = c->x;
    double u[3], x[3];
    diagonal_velocity(w, c, u);
    double v[3] = {u[0] - an * x0[0] + c->bias, u[1] - at * x0[1], u[2] - at * x0[2]};
    solve_diagonal(an, at, v, c->mu, x);
    double dx[3] = {x[0] - x0[0], x[1] - x0[1], x[2] - x0[2]};
    if (dx[0] == 0.0 && dx[1] == 0.0 && dx[2] == 0.0) {
        return 0.0;
    }
    double du[3] = {an * dx[0], at * dx[1], at * dx[2]};
    return commit(w, c, NULL, x, du, dx);
}

/* One block update of a general contact. A local failure keeps the impulse. */
static double update_general(nscd_world *w, nscd__world_contact *c,
                             const nscd__world_contact_rows *r, int32_t law) {
    const double *A = r->A;
    double u[3], v[3], x[3] = {c->x[0], c->x[1], c->x[2]};
    general_velocity(w, c, r, u);
    for (int k = 0; k < 3; ++k) {
        v[k] = u[k] - (A[3 * k] * x[0] + A[3 * k + 1] * x[1] + A[3 * k + 2] * x[2]);
    }
    v[0] += c->bias;
    if (law == NSCD_FRICTION_MAX_DISSIPATION) {
        double b[3] = {-v[0], -v[1], -v[2]};
        nscd__mdp_solve_factored(A, r->L, b, c->mu, x);
    } else if (nscd__fc3d_local_coulomb(A, v, c->mu, x) != NSCD_OK) {
        return 0.0;
    }
    double dx[3] = {x[0] - c->x[0], x[1] - c->x[1], x[2] - c->x[2]};
    if (dx[0] == 0.0 && dx[1] == 0.0 && dx[2] == 0.0) {
        return 0.0;
    }
    double du[3];
    for (int k = 0; k < 3; ++k) {
        du[k] = A[3 * k] * dx[0] + A[3 * k + 1] * dx[1] + A[3 * k + 2] * dx[2];
    }
    return commit(w, c, r, x, du, dx);
}

static double gauss_seidel(nscd_world *w, int32_t lo, int32_t hi) {
    double merit = 0.0;
    int32_t law = w->desc.friction_law;
    for (int32_t j = lo; j < hi; ++j) {
        nscd__world_contact *c = &w->contacts[j];
        double m =
            c->diagonal ? update_diagonal(w, c) : update_general(w, c, &w->contact_rows[j], law);
        merit = m > merit ? m : merit;
    }
    return merit;
}

/* After group g, contacts [lo, hi), ran on the snapshot: adds its velocity
 * changes to the blend accumulator, puts its bodies back to the snapshot and
 * counts, per body, the groups that touched it; returns the largest count so
 * far. A body seen by two contacts of the group is handled at its first visit
 * only (its velocity equals the snapshot afterwards, so the second adds zero). */
static int32_t collect_group(nscd_world *w, int32_t g, int32_t lo, int32_t hi, int32_t shared) {
    for (int32_t j = lo; j < hi; ++j) {
        const nscd__world_contact *c = &w->contacts[j];
        int32_t bodies[2] = {c->a_moves ? c->a : -1, c->b_moves ? c->b : -1};
        for (int s = 0; s < 2; ++s) {
            if (bodies[s] < 0) {
                continue;
            }
            int32_t *seen = &w->blend_group[2 * (size_t)bodies[s]];
            if (seen[0] != g) {
                seen[0] = g;
                seen[1]++;
                shared = seen[1] > shared ? seen[1] : shared;
            }
            size_t i = 3 * (size_t)bodies[s];
            for (int k = 0; k < 3; ++k) {
                w->blend_velocity[i + k] += w->velocity[i + k] - w->snapshot_velocity[i + k];
                w->blend_omega[i + k] += w->omega[i + k] - w->snapshot_omega[i + k];
                w->velocity[i + k] = w->snapshot_velocity[i + k];
                w->omega[i + k] = w->snapshot_omega[i + k];
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
static double jacobi_sweep(nscd_world *w, int32_t groups) {
    size_t n = (size_t)w->n_bodies, n3 = 3 * n;
    double merit = 0.0;
    memcpy(w->snapshot_velocity, w->velocity, n3 * sizeof(double));
    memcpy(w->snapshot_omega, w->omega, n3 * sizeof(double));
    memset(w->blend_velocity, 0, n3 * sizeof(double));
    memset(w->blend_omega, 0, n3 * sizeof(double));
    for (size_t i = 0; i < n; ++i) {
        w->blend_group[2 * i] = -1;
        w->blend_group[2 * i + 1] = 0;
    }
    double *x_start = w->contact_x_start;
    for (int32_t j = 0; j < w->n_contacts; ++j) {
        memcpy(x_start + 3 * (size_t)j, w->contacts[j].x, sizeof w->contacts[j].x);
    }
    int64_t n_contacts = w->n_contacts;
    int32_t shared = 1;
    for (int32_t g = 0; g < groups; ++g) {
        int32_t lo = (int32_t)(n_contacts * g / groups);
        int32_t hi = (int32_t)(n_contacts * (g + 1) / groups);
        double m = gauss_seidel(w, lo, hi);
        merit = m > merit ? m : merit;
        shared = collect_group(w, g, lo, hi, shared);
    }
    double omega =
        w->desc.relaxation * (double)shared <= 1.0 ? w->desc.relaxation : 1.0 / (double)shared;
    for (size_t i = 0; i < n3; ++i) {
        w->velocity[i] = w->snapshot_velocity[i] + omega * w->blend_velocity[i];
        w->omega[i] = w->snapshot_omega[i] + omega * w->blend_omega[i];
    }
    for (int32_t j = 0; j < w->n_contacts; ++j) {
        nscd__world_contact *c = &w->contacts[j];
        for (int k = 0; k < 3; ++k) {
            double x0 = x_start[3 * (size_t)j + k];
            c->x[k] = x0 + omega * (c->x[k] - x0);
        }
    }
    return merit;
}

double nscd__world_sweep(nscd_world *w) {
    int32_t groups = w->desc.jacobi_groups;
    if (groups > w->n_contacts) {
        groups = w->n_contacts;
    }
    return groups > 1 ? jacobi_sweep(w, groups) : gauss_seidel(w, 0, w->n_contacts);
}

void nscd__world_solve(nscd_world *w, int32_t max_sweeps, int32_t *sweeps, double *merit) {
    *merit = 0.0;
    *sweeps = 0;
    if (w->n_contacts == 0 && w->n_joint_blocks == 0) {
        return;
    }
    for (int32_t s = 0; s < max_sweeps; ++s) {
        /* the joints' blocks first, then the contacts: one Gauss–Seidel */
        double joints = w->n_joint_blocks > 0 ? nscd__world_joint_sweep(w) : 0.0;
        double contacts = nscd__world_sweep(w);
        *merit = contacts > joints ? contacts : joints;
        *sweeps = s + 1;
        if (w->desc.tolerance > 0.0 && *merit < w->desc.tolerance) {
            break;
        }
    }
}
