/* The ideal joints inside the world's own step (docs/joints.md, "Joints in
 * nscd_world_step"): each part of a joint (at most 3 equality rows on two
 * bodies, joints/joint.h) is one block of the same matrix-free block
 * Gauss–Seidel that solves the contacts (world_solver.c), so that a
 * mechanism in a granular bed costs what its rows cost, never an assembled W.
 *
 * Velocity level, the time steppers' convention for ideal joints (seed 004,
 * eq. (16) with e = 0): H(q_k) v_{k+1} = 0. A block update on part j is
 *
 *     u = H_j v,   Δλ = -A_jj⁻¹ u,   v += M⁻¹ H_jᵀ Δλ,   A_jj = H_j M⁻¹ H_jᵀ,
 *
 * an exact solve of the part's equations with the other blocks frozen (the
 * bilateral analogue of the contact's single-contact problem); its merit is
 * |u|, the part's relative velocity before the update (m/s, rad/s for the
 * angular rows), the same unit as a contact's merit.
 *
 * Position level: over a step the velocity condition lets Φ drift at second
 * order in dt; after the positions moved, the world's one projection
 * (world_joint_projection.c, per mechanism) brings them back onto Φ = 0 and
 * the velocities onto H v = 0. Since the velocities of the step's start
 * then satisfy H(q_k) v_k = 0, the energy form H (v_k + v_{k+1}) = 0 of
 * the time steppers is the same condition here. Parts whose two sides do
 * not move are skipped; a block whose A_jj is singular is solved with
 * A_jj + δ I, δ = 1e-12 of its
 * largest diagonal entry, the projection's regularisation. */
#include <math.h>
#include <string.h>

#include "core/dense.h"
#include "core/memory.h"
#include "core/vec3.h"
#include "models/world_impl.h"

/* y = M⁻¹ h for dense body i: (h_v / m, I_w⁻¹ h_ω), I_w⁻¹ the world-frame
 * inverse inertia of the step (refresh_inertia). */
static void inverse_mass(const nscd_world *w, int32_t i, const double h[6], double y[6]) {
    const double *Iw = w->inv_inertia_world + 9 * (size_t)i;
    for (int k = 0; k < 3; ++k) {
        y[k] = w->inv_mass[i] * h[k];
        y[3 + k] = Iw[3 * k] * h[3] + Iw[3 * k + 1] * h[4] + Iw[3 * k + 2] * h[5];
    }
}

/* The rows of part `part` of joint k at the current poses, their responses
 * and the Cholesky factor of A (n ≤ 3). */
static void evaluate_block(const nscd_world *w, int32_t k, int32_t part,
                           nscd__world_joint_block *b) {
    const nscd__world_joint *j = &w->joints[k];
    nscd__joint_pose pose[2];
    nscd__joint_part p;
    for (int s = 0; s < 2; ++s) {
        nscd__world_joint_pose(w, j, s, &pose[s]);
        int32_t i = nscd__world_lookup(w, j->body[s]);
        b->body[s] = i >= 0 && w->type[i] == NSCD_BODY_DYNAMIC ? i : -1;
    }
    nscd__joint_evaluate(&j->def, part, pose, &p);
    b->joint = k;
    b->part = part;
    b->n = p.n_rows;
    double A[9] = {0.0}, top = 0.0;
    for (int s = 0; s < 2; ++s) {
        for (int r = 0; r < b->n; ++r) {
            memcpy(b->h[s][r], p.rows[s][r], 6 * sizeof(double));
            if (b->body[s] >= 0) {
                inverse_mass(w, b->body[s], b->h[s][r], b->y[s][r]);
            } else {
                memset(b->y[s][r], 0, 6 * sizeof(double));
            }
        }
    }
    for (int r = 0; r < b->n; ++r) {
        for (int c = 0; c < b->n; ++c) {
            double sum = 0.0;
            for (int s = 0; s < 2; ++s) {
                sum += nscd__dot(6, b->h[s][r], b->y[s][c]);
            }
            A[3 * r + c] = sum;
        }
        top = fmax(top, A[4 * r]);
    }
    /* Cholesky of the n x n block (lower, row-major), regularised when a
     * pivot is not clearly positive */
    for (int attempt = 0; attempt < 2; ++attempt) {
        bool ok = top > 0.0;
        double delta = attempt == 0 ? 0.0 : 1e-12 * top;
        memset(b->L, 0, sizeof b->L);
        for (int r = 0; r < b->n && ok; ++r) {
            for (int c = 0; c <= r; ++c) {
                double sum = A[3 * r + c] + (r == c ? delta : 0.0);
                for (int m = 0; m < c; ++m) {
                    sum -= b->L[3 * r + m] * b->L[3 * c + m];
                }
                if (r == c) {
                    ok = sum > 1e-14 * top;
                    b->L[4 * r] = ok ? sqrt(sum) : 0.0;
                } else {
                    b->L[3 * r + c] = sum / b->L[4 * c];
                }
            }
        }
        if (ok) {
            return;
        }
    }
    b->n = 0; /* nothing moves this part: no block */
}

/* x = -A⁻¹ u by the factor. */
static void solve_block(const nscd__world_joint_block *b, const double u[3], double x[3]) {
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

/* u = H v of the block's rows at the bodies' current velocities. */
static void block_velocity(const nscd_world *w, const nscd__world_joint_block *b, double u[3]) {
    for (int r = 0; r < b->n; ++r) {
        u[r] = 0.0;
        for (int s = 0; s < 2; ++s) {
            int32_t i = b->body[s];
            if (i >= 0) {
                u[r] += nscd__dot(3, b->h[s][r], w->velocity + 3 * (size_t)i) +
                        nscd__dot(3, b->h[s][r] + 3, w->omega + 3 * (size_t)i);
            }
        }
    }
}

/* v += M⁻¹ Hᵀ x on both moving sides. */
static void apply_block(nscd_world *w, const nscd__world_joint_block *b, const double x[3]) {
    for (int s = 0; s < 2; ++s) {
        int32_t i = b->body[s];
        if (i < 0) {
            continue;
        }
        for (int r = 0; r < b->n; ++r) {
            for (int c = 0; c < 3; ++c) {
                w->velocity[3 * (size_t)i + c] += b->y[s][r][c] * x[r];
                w->omega[3 * (size_t)i + c] += b->y[s][r][3 + c] * x[r];
            }
        }
    }
}

bool nscd__world_has_clearance_joints(const nscd_world *w) {
    for (int32_t k = 0; k < w->n_joints; ++k) {
        if (w->joints[k].def.clearance) {
            return true;
        }
    }
    return false;
}

static int32_t part_total(const nscd_world *w) {
    int32_t n = 0;
    for (int32_t k = 0; k < w->n_joints; ++k) {
        n += nscd__joint_part_count(&w->joints[k].def);
    }
    return n;
}

nscd_status nscd__world_joint_blocks_build(nscd_world *w) {
    w->n_joint_blocks = 0;
    int32_t needed = part_total(w);
    if (needed > w->joint_blocks_capacity) {
        nscd__world_joint_block *grown =
            nscd__alloc(&w->allocator, (size_t)needed * sizeof(nscd__world_joint_block));
        if (grown == NULL) {
            return NSCD_ERR_OUT_OF_MEMORY;
        }
        nscd__free(&w->allocator, w->joint_blocks,
                   (size_t)w->joint_blocks_capacity * sizeof(nscd__world_joint_block));
        w->joint_blocks = grown;
        w->joint_blocks_capacity = needed;
    }
    for (int32_t k = 0; k < w->n_joints; ++k) {
        const nscd__world_joint *j = &w->joints[k];
        bool warm = w->desc.warm_start && j->step == w->desc.dt;
        for (int32_t p = 0; p < nscd__joint_part_count(&j->def); ++p) {
            nscd__world_joint_block *b = &w->joint_blocks[w->n_joint_blocks];
            evaluate_block(w, k, p, b);
            if (b->n == 0) {
                continue;
            }
            for (int r = 0; r < 3; ++r) {
                b->lambda[r] = warm && r < b->n ? j->impulse[p][r] : 0.0;
            }
            w->n_joint_blocks++;
        }
    }
    return NSCD_OK;
}

void nscd__world_joint_warm_start(nscd_world *w) {
    for (int32_t j = 0; j < w->n_joint_blocks; ++j) {
        const nscd__world_joint_block *b = &w->joint_blocks[j];
        if (b->lambda[0] != 0.0 || b->lambda[1] != 0.0 || b->lambda[2] != 0.0) {
            apply_block(w, b, b->lambda);
        }
    }
}

double nscd__world_joint_sweep(nscd_world *w) {
    double merit = 0.0;
    for (int32_t j = 0; j < w->n_joint_blocks; ++j) {
        nscd__world_joint_block *b = &w->joint_blocks[j];
        double u[3], dx[3];
        block_velocity(w, b, u);
        solve_block(b, u, dx);
        apply_block(w, b, dx);
        double size = 0.0;
        for (int r = 0; r < b->n; ++r) {
            b->lambda[r] += dx[r];
            size += u[r] * u[r];
        }
        merit = fmax(merit, sqrt(size));
    }
    return merit;
}

void nscd__world_joint_store(nscd_world *w) {
    for (int32_t k = 0; k < w->n_joints; ++k) {
        memset(w->joints[k].impulse, 0, sizeof w->joints[k].impulse);
        w->joints[k].step = w->desc.dt;
    }
    for (int32_t j = 0; j < w->n_joint_blocks; ++j) {
        const nscd__world_joint_block *b = &w->joint_blocks[j];
        memcpy(w->joints[b->joint].impulse[b->part], b->lambda, 3 * sizeof(double));
    }
}

void nscd__world_free_joint_blocks(nscd_world *w) {
    nscd__free(&w->allocator, w->joint_blocks,
               (size_t)w->joint_blocks_capacity * sizeof(nscd__world_joint_block));
    w->joint_blocks = NULL;
    w->joint_blocks_capacity = 0;
    w->n_joint_blocks = 0;
}
