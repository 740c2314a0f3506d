/* The matrix-free nonlinear block Gauss–Seidel (block_gs.c; docs/fc3d.md,
 * "The matrix-free block Gauss–Seidel"): the solver of the world's step
 * over arrays, never a world. Its problem is
 *
 *     u = W x + q + β,   W = H M⁻¹ Hᵀ,   q = H v₀,
 *
 * with the rows H of the contacts (3 each: n, t, o) and of the ideal
 * joints' parts (≤ 3 each, equality rows H v = 0), never formed: a block
 * update reads the velocities v = v₀ + M⁻¹ Hᵀ x of its (at most two)
 * bodies, solves its block's law and applies its impulse change to them in
 * place. A sweep costs O(contacts + joint rows).
 *
 * What the caller provides (views of its arrays; the solver allocates
 * nothing): the bodies' velocities and the blend scratch
 * (nscd__bgs_bodies), the contact blocks with their Delassus blocks,
 * inverse masses and responses (nscd__bgs_contact, nscd__bgs_contact_rows),
 * the joint blocks with their responses M⁻¹ hᵀ and factors
 * (nscd__bgs_joint_block), and the mechanisms' envelope factors
 * (nscd__bgs_mechanism in `factors`).
 *
 * Merit: the largest |Δu| of a block in the last sweep: |A_jj Δx_j| of a
 * contact (the change of its relative velocity; for a sliding contact
 * under Coulomb's law with A⁻¹ given, updated by one Halley step,
 * nscd__fc3d_local_coulomb_step, the larger of that and the residual
 * |w × u_t| of its start), |u| of a joint part
 * before its update (its constraint violation), m/s (rad/s for angular
 * rows); the solve stops when it is below the tolerance (0: never). */
#ifndef NSCD_CONTACT_BLOCK_GS_H
#define NSCD_CONTACT_BLOCK_GS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/envelope.h"
#include "core/parallel.h"

/* One contact block: the two bodies, the contact frame (normal from a to
 * b, then two tangents), the lever arms and the inverse masses, the
 * diagonal Delassus block of a sphere contact and the impulse. */
typedef struct nscd__bgs_contact {
    /* What a sweep reads, and only that: the sweep streams this array, so a
     * contact is 3.5 cache lines (the general rows, which spheres never
     * need, are in the parallel array of nscd__bgs_contact_rows). */
    int32_t a, b;             /* body indices */
    int32_t source;           /* the caller's (the world: its point in the collision output) */
    uint8_t a_moves, b_moves; /* 1 for dynamic bodies (they take impulses) */
    /* 1 when every moving side is a centred sphere of isotropic inertia: then
     * the lever arms lie along n and A = diag(a_n, a_t, a_t) exactly, and both
     * friction laws reduce to the projection on a disc (the fast path). */
    uint8_t diagonal;
    /* 1 when the contact has rolling or spinning resistance: its angular
     * block is in the parallel array of nscd__bgs_contact_resist (the flag
     * sits in padding: a contact without resistance costs nothing more). */
    uint8_t resist;
    double mu;         /* friction coefficient */
    double bias;       /* β on the normal row (the world: eps min(0, xi/dt) + max(0, xi/dt)) */
    double x[3];       /* impulse (n, t, o) */
    double frame[9];   /* rows: n, t, o (world) */
    double u_fixed[3]; /* J v of the sides that do not move (constant in the solve) */
    double inv_mass_a, inv_mass_b;
    /* Diagonal contacts: lever arms r = l n (signed), the scalar inverse
     * inertia of each moving side and A = diag(a_n, a_t, a_t). */
    double lever_a, lever_b, inv_inertia_a, inv_inertia_b;
    double a_n, a_t;
} nscd__bgs_contact;

/* The rows of a general (not diagonal) contact j, parallel to the contacts:
 * its Delassus block, angular rows ra x e_k, rb x e_k and responses I_a^-1 (ra x e_k),
 * I_b^-1 (rb x e_k) for the frame axes e_k (rows), zero for a side that does
 * not move, the inverse of A (Coulomb's sticking impulse; all zero when
 * the caller did not fill it: the solve is then used) and the lower
 * Cholesky factor of A (maximum dissipation). Unset for a diagonal
 * contact. */
typedef struct nscd__bgs_contact_rows {
    double A[9]; /* Delassus block W_jj (row-major) */
    /* A^-1 by nscd__fc3d_inverse3 (Ai[0] > 0 for an SPD A), or all zero */
    double Ai[9];
    double ang_a[9], ang_b[9];
    double resp_a[9], resp_b[9];
    double L[9];
} nscd__bgs_contact_rows;

/* The rolling and spinning resistance of a contact j whose `resist` is 1,
 * parallel to the contacts (docs/world.md, "Rolling and spinning
 * resistance"): an angular impulse m on the relative angular velocity
 * w = ω_b − ω_a (+m on b, −m on a), frame components (n: spin; t, o:
 * rolling), bounded by |m_n| <= spinning x_n and |(m_t, m_o)| <= rolling x_n,
 * x_n the contact's normal impulse. K = F (I_a⁻¹ + I_b⁻¹) Fᵀ (the moving
 * sides; F the frame's rows) is the angular block's Delassus matrix,
 * resp_a/resp_b rows k: I⁻¹ e_k of a moving side (zero otherwise), w_fixed
 * the frame components of ω_b − ω_a of the sides that do not move. Unset
 * for a contact without resistance. */
typedef struct nscd__bgs_contact_resist {
    double rolling, spinning; /* μ_r, μ_s (m) */
    double m[3];              /* angular impulse (n, t, o), N m s */
    double w_fixed[3];
    double K[9];
    double resp_a[9], resp_b[9];
    double m_start[3]; /* the Jacobi blend's scratch: m at the sweep's start */
} nscd__bgs_contact_resist;

/* One part of an ideal joint as a block: its n <= 3 rows on each side's
 * (v, ω), their responses M^-1 h', the lower Cholesky factor of
 * A = H M^-1 H' (row-major 3x3) and its impulses. body[s] is the index of
 * a moving side, -1 for a side that does not move; joint and part are the
 * caller's. */
typedef struct nscd__bgs_joint_block {
    int32_t joint, part, n;
    int32_t body[2];
    double h[2][3][6];
    double y[2][3][6];
    double L[9];
    double lambda[3];
} nscd__bgs_joint_block;

/* A mechanism: the blocks [first, first + count) of joints connected
 * through moving bodies, `rows` rows; solved as one block by the envelope
 * Cholesky factor at factors + factor (doubles, nscd__bgs_mechanism_view)
 * when `factored`, else part by part. */
typedef struct nscd__bgs_mechanism {
    int32_t first, count, rows, factored;
    size_t factor;
} nscd__bgs_mechanism;

/* The bodies: velocities (3n each, world frame, updated in place) and the
 * scratch of the Jacobi blend (3n doubles each, 2n ints; only read with
 * jacobi_groups > 1). */
typedef struct nscd__bgs_bodies {
    int32_t n;
    double *velocity, *omega;
    double *snapshot_velocity, *snapshot_omega;
    double *blend_velocity, *blend_omega;
    int32_t *blend_group;
} nscd__bgs_bodies;

/* The problem: bodies, contact blocks (rows parallel; x_start: 3 per
 * contact, scratch of the blend) and joint blocks grouped by mechanism
 * (vectors: the right-hand sides of a batch of mechanism solves,
 * NSCD__BGS_BATCH times the largest mechanism's rows). */
typedef struct nscd__bgs_problem {
    nscd__bgs_bodies bodies;
    nscd__bgs_contact *contacts;
    nscd__bgs_contact_rows *contact_rows;
    nscd__bgs_contact_resist *contact_resist; /* parallel; read for `resist` contacts only */
    double *x_start;
    int32_t n_contacts;
    nscd__bgs_joint_block *joint_blocks;
    int32_t n_joint_blocks;
    nscd__bgs_mechanism *mechanisms;
    int32_t n_mechanisms;
    double *factors, *vectors;
    /* The colour order (the world with threads >= 1; colour_start NULL: the
     * contacts in their order): contacts order[colour_start[c] ..
     * colour_start[c + 1]) (order NULL: the identity, the contacts being
     * stored in colour order)
     * for c < n_colours; those of a colour c < serial_colour share no moving
     * body and are updated by `parallel` in chunks of NSCD__CHUNK, the
     * colour serial_colour (the contacts no colour could take) in order by
     * one thread. partials: 3 doubles per chunk, nscd__bgs_partials(). */
    const int32_t *order;
    const int32_t *colour_start;
    int32_t n_colours, serial_colour;
    const nscd__parallel *parallel;
    double *partials;
    /* Light-body clusters (nscd__bgs_cluster_pass; docs/world.md, "A light
     * body squeezed"): cluster k is the contacts cluster_contacts[
     * cluster_start[k] .. cluster_start[k + 1]) of one light body, at most
     * NSCD__BGS_CLUSTER_MAX; n_clusters 0: none. */
    const int32_t *cluster_start, *cluster_contacts;
    int32_t n_clusters;
} nscd__bgs_problem;

/* Most contacts of one light-body cluster. */
#define NSCD__BGS_CLUSTER_MAX 12

/* Doubles of the partials of a colour order of n contacts in `colours` colours. */
static inline size_t nscd__bgs_partials(int32_t n, int32_t colours) {
    return 3 * ((size_t)nscd__chunks(n) + (size_t)colours + 1);
}

/* The options: sweeps, the tolerance on the merit (0: run max_sweeps),
 * the friction law (an nscd_fc3d_friction_law value: the world's
 * nscd_friction_law has the same values), the groups of the Jacobi blend
 * (<= 1: plain Gauss–Seidel) and the upper bound of its weight. */
typedef struct nscd__bgs_options {
    int32_t max_sweeps;
    double tolerance;
    int32_t friction_law;
    int32_t jacobi_groups;
    double relaxation;
} nscd__bgs_options;

/* Mechanisms solved together in one joint sweep step. */
#define NSCD__BGS_BATCH 8

/* Completes a general contact's rows once its A, angular rows and
 * responses are set: the lower Cholesky factor L of A (pivots above 1e-14
 * of its largest diagonal, nscd__delassus3_factor) and A^-1 (Coulomb's
 * sticking impulse as a product; left zero, the solve then used, in the
 * unlikely case the inverse overflows). The one place every producer of
 * the rows (the world step, the time steppers' world solve) finishes them.
 * false when A is not positive definite (a degenerate body: the caller
 * leaves the contact out). */
bool nscd__bgs_contact_rows_factor(nscd__bgs_contact_rows *r);

/* Applies the contacts' impulses x (the warm start) to the velocities,
 * scaled so that they add no energy (block_gs.c). */
void nscd__bgs_warm_start(nscd__bgs_problem *p);
/* Applies the joint blocks' impulses lambda to the velocities. */
void nscd__bgs_joint_warm_start(nscd__bgs_problem *p);
/* One sweep over the contacts (Gauss–Seidel, or the Jacobi blend); its merit. */
double nscd__bgs_contact_sweep(nscd__bgs_problem *p, const nscd__bgs_options *o);
/* One sweep over the joint blocks (mechanisms by their factors); its merit.
 * A factored mechanism whose parts' |u| are all zero, or whose largest is
 * below `skip` (the sweeps' tolerance; 0: none), is not solved (its merit
 * counts as before). */
double nscd__bgs_joint_sweep(nscd__bgs_problem *p, double skip);
/* The light-body clusters' pass (after a contact sweep): per cluster, the
 * normal impulses of its active contacts solved together, the tangential
 * ones kept (cut back to the cone); the largest change of a normal
 * velocity (m/s, the merit's unit). */
double nscd__bgs_cluster_pass(nscd__bgs_problem *p);
/* Sweeps (joints first, then contacts) until the merit is below the
 * tolerance or max_sweeps ran; the sweeps done and the last merit. */
void nscd__bgs_solve(nscd__bgs_problem *p, const nscd__bgs_options *o, int32_t *sweeps,
                     double *merit);

/* The normal velocity u_n of contact j under the current body velocities,
 * without the bias: the rate at which its gap changes over the step. */
double nscd__bgs_normal_velocity(const nscd__bgs_problem *p, int32_t j);

/* Doubles of a mechanism's factor of R rows (envelope, columns, and the
 * envelope's integers), and its view at factors + m->factor (x unset). */
size_t nscd__bgs_mechanism_doubles(int32_t R);
nscd__envelope nscd__bgs_mechanism_view(double *factors, const nscd__bgs_mechanism *m);

#endif
