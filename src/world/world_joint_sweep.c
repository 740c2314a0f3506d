/* The ideal joints inside the world's own step (docs/joints.md, "Joints in
 * nscd_world_step"): the joints are blocks of the same matrix-free block
 * Gauss–Seidel that solves the contacts (contact/solvers/block_gs.c; this file
 * builds the blocks, their mechanisms and factors), so that a
 * mechanism in a granular bed costs what its rows cost, never an assembled W
 * of the whole world.
 *
 * Velocity level, the time steppers' convention for ideal joints (seed 004,
 * eq. (16) with e = 0): H(q_k) v_{k+1} = 0. The block of a joint update is a
 * whole mechanism (the joints connected through dynamic bodies: a chain, a
 * four-bar), R rows:
 *
 *     u = H v,   Δλ = -W⁻¹ u,   v += M⁻¹ Hᵀ Δλ,   W = H M⁻¹ Hᵀ (+ δ I),
 *
 * an exact solve of the mechanism's equations with the contacts frozen,
 * W factored once per step (Cholesky on its envelope, R ≤ NSCD__WORLD_MAX_PROJECTED_ROWS;
 * δ = 1e-12 of its largest diagonal entry keeps redundant rows solvable, the
 * projection's regularisation). Part by part instead (each part's ≤ 3 rows
 * an exact block), a chain hit by a falling sphere carries the impulse one
 * link per sweep: with the benchmark's 10 sweeps the joints' relative
 * velocities stayed at 2–4 m/s and the drift of a step reached 1.7 cm
 * (bench_world --scene chains), beyond what the projection can bring back.
 * A mechanism too large to factor, or whose W does not factor, is swept part
 * by part. The merit of a block is |u| of each part before the update (m/s,
 * rad/s for the angular rows), the same unit as a contact's merit.
 *
 * Position level: over a step the velocity condition lets Φ drift at second
 * order in dt; after the positions moved, the world's one projection
 * (world_joint_projection.c, per mechanism) brings them back onto Φ = 0 and
 * the velocities onto H v = 0. Since the velocities of the step's start
 * then satisfy H(q_k) v_k = 0, the energy form H (v_k + v_{k+1}) = 0 of
 * the time steppers is the same condition here. Parts whose two sides do
 * not move are skipped. */
#include <math.h>
#include <string.h>

#include "core/dense.h"
#include "core/dense_small.h"
#include "core/envelope.h"
#include "core/memory.h"
#include "core/vec3.h"
#include "world/world_impl.h"

/* h·y of two 6-rows (fixed order: the sweeps need no partial sums). */
static double dot6(const double h[6], const double y[6]) {
    return h[0] * y[0] + h[1] * y[1] + h[2] * y[2] + h[3] * y[3] + h[4] * y[4] + h[5] * y[5];
}

/* The Cholesky factor of the part's own A = H M⁻¹ Hᵀ (n ≤ 3, lower,
 * row-major), regularised when a pivot is not clearly positive; n = 0
 * when it does not factor (nothing moves the part: no block). */
static void block_factor(nscd__world_joint_block *b) {
    double A[9] = {0.0}, top = 0.0;
    for (int r = 0; r < b->n; ++r) {
        for (int c = 0; c < b->n; ++c) {
            double sum = 0.0;
            for (int s = 0; s < 2; ++s) {
                sum += dot6(b->h[s][r], b->y[s][c]);
            }
            A[3 * r + c] = sum;
        }
        top = fmax(top, A[4 * r]);
    }
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
    b->n = 0;
}

/* The rows of the parts of joint k at the current poses and their
 * responses M⁻¹ hᵀ, with the arithmetic of the projection's gather
 * (world_joint_projection.c: each moving side's rotation R from its
 * orientation, nscd__world_inverse_mass_at), then each part's factor; the
 * blocks at b, their count (the parts that factor). */
static int32_t evaluate_joint(const nscd_world *w, int32_t k, nscd__world_joint_block *b) {
    const nscd__world_joint *j = &w->joints[k];
    nscd__joint_pose pose[2];
    int32_t body[2];
    nscd__joint_frames f;
    nscd__world_joint_sides(w, j, pose, body, &f);
    int32_t count = 0;
    for (int32_t part = 0; part < nscd__joint_part_count(&j->def); ++part) {
        nscd__joint_part p;
        nscd__joint_evaluate_frames(&j->def, part, &f, pose, &p);
        nscd__world_joint_block *bk = &b[count];
        bk->joint = k;
        bk->part = part;
        bk->n = p.n_rows;
        for (int s = 0; s < 2; ++s) {
            bk->body[s] = body[s];
            for (int r = 0; r < bk->n; ++r) {
                memcpy(bk->h[s][r], p.rows[s][r], 6 * sizeof(double));
                if (body[s] >= 0) {
                    nscd__world_inverse_mass_at(w, body[s], pose[s].R, bk->h[s][r], bk->y[s][r]);
                } else {
                    memset(bk->y[s][r], 0, 6 * sizeof(double));
                }
            }
        }
        block_factor(bk);
        count += bk->n > 0;
    }
    return count;
}

/* ------------------------------------------------------------ the factors' reuse
 *
 * The projection's velocity stage at the end of a step builds the rows of
 * every mechanism at the step's final positions and factors their W (on
 * the envelope, δ as here); the next step's blocks are the same rows at the
 * same positions and its factors the same W. Since the sweeps' arithmetic
 * is the projection's (evaluate_joint, mechanism_delassus), the projection
 * leaves them in w->joint_cache and the blocks take them, bitwise what they
 * would compute, whenever the joint's serial, its sides' dense indices,
 * poses and inverse masses are those recorded: a cached entry is a function
 * of exactly these, so whatever changed the world between the steps (a
 * body set, removed or put to sleep, a joint added) only sends the joints
 * it touched back to evaluate_joint. */

void nscd__world_joint_cache_state(const nscd_world *w, int32_t k, double *state) {
    const nscd__world_joint *j = &w->joints[k];
    memset(state, 0, 2 * NSCD__WORLD_CACHE_STATE * sizeof(double));
    for (int s = 0; s < 2; ++s) {
        double *st = state + s * NSCD__WORLD_CACHE_STATE;
        int32_t i = nscd__world_lookup(w, j->body[s]);
        st[0] = (double)i;
        if (i >= 0) {
            memcpy(st + 1, w->position + 3 * (size_t)i, 3 * sizeof(double));
            memcpy(st + 4, w->orientation + 4 * (size_t)i, 4 * sizeof(double));
            st[8] = w->inv_mass[i];
            memcpy(st + 9, w->inv_inertia + 9 * (size_t)i, 9 * sizeof(double));
        }
    }
}

bool nscd__world_joint_cache_begin(nscd_world *w, int32_t rows, size_t factors) {
    nscd__world_joint_cache *c = &w->joint_cache;
    c->n_joints = 0;
    c->n_rows = 0;
    c->n_factors = 0;
    nscd__array per_joint[5] = {
        {(void **)&c->first_row, sizeof(int32_t), 0},
        {(void **)&c->factor_rows, sizeof(int32_t), 0},
        {(void **)&c->factor_at, sizeof(size_t), 0},
        {(void **)&c->serial, sizeof(uint64_t), 0},
        {(void **)&c->state, 2 * NSCD__WORLD_CACHE_STATE * sizeof(double), 0},
    };
    if (factors > INT32_MAX / 16 ||
        nscd__reserve_arrays(&w->allocator, per_joint, 5, &c->joints_capacity, w->n_joints) !=
            NSCD_OK ||
        nscd__reserve_array(&w->allocator, (void **)&c->rows, 0, &c->rows_capacity, rows,
                            sizeof(nscd__world_cached_row)) != NSCD_OK ||
        nscd__reserve_array(&w->allocator, (void **)&c->factors, 0, &c->factors_capacity,
                            (int32_t)factors, sizeof(double)) != NSCD_OK) {
        return false; /* all or nothing per array: what was kept stays valid */
    }
    for (int32_t k = 0; k < w->n_joints; ++k) {
        c->first_row[k] = -1;
        c->factor_rows[k] = 0;
    }
    c->n_joints = w->n_joints;
    return true;
}

void nscd__world_free_joint_cache(nscd_world *w) {
    nscd__world_joint_cache *c = &w->joint_cache;
    size_t n = (size_t)c->joints_capacity;
    nscd__free(&w->allocator, c->first_row, n * sizeof(int32_t));
    nscd__free(&w->allocator, c->factor_rows, n * sizeof(int32_t));
    nscd__free(&w->allocator, c->factor_at, n * sizeof(size_t));
    nscd__free(&w->allocator, c->serial, n * sizeof(uint64_t));
    nscd__free(&w->allocator, c->state, 2 * NSCD__WORLD_CACHE_STATE * n * sizeof(double));
    nscd__free(&w->allocator, c->rows, (size_t)c->rows_capacity * sizeof(nscd__world_cached_row));
    nscd__free(&w->allocator, c->factors, (size_t)c->factors_capacity * sizeof(double));
    memset(c, 0, sizeof *c);
}

/* Whether joint k's cached rows are those evaluate_joint would compute now. */
static bool cached_valid(const nscd_world *w, int32_t k) {
    const nscd__world_joint_cache *c = &w->joint_cache;
    if (k >= c->n_joints || c->first_row[k] < 0 || c->serial[k] != w->joints[k].serial) {
        return false;
    }
    double now[2 * NSCD__WORLD_CACHE_STATE];
    nscd__world_joint_cache_state(w, k, now);
    return memcmp(now, c->state + 2 * NSCD__WORLD_CACHE_STATE * (size_t)k, sizeof now) == 0;
}

/* The blocks of joint k from the cache (evaluate_joint's, bitwise). */
static int32_t cached_joint(const nscd_world *w, int32_t k, nscd__world_joint_block *b) {
    const nscd__world_joint_cache *c = &w->joint_cache;
    const nscd__world_cached_row *row = c->rows + c->first_row[k], *end = c->rows + c->n_rows;
    int32_t count = 0;
    for (int32_t part = 0; part < nscd__joint_part_count(&w->joints[k].def); ++part) {
        nscd__world_joint_block *bk = &b[count];
        bk->joint = k;
        bk->part = part;
        bk->n = 0;
        for (; row < end && row->joint == k && row->part == part && bk->n < 3; ++row) {
            for (int s = 0; s < 2; ++s) {
                bk->body[s] = row->body[s];
                memcpy(bk->h[s][bk->n], row->h[s], 6 * sizeof(double));
                if (row->body[s] >= 0) {
                    memcpy(bk->y[s][bk->n], row->y[s], 6 * sizeof(double));
                } else {
                    memset(bk->y[s][bk->n], 0, 6 * sizeof(double));
                }
            }
            bk->n++;
        }
        block_factor(bk);
        count += bk->n > 0;
    }
    return count;
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

/* Grows w->joint_scratch to `bytes` (contents not kept). */
static nscd_status reserve_scratch(nscd_world *w, size_t bytes) {
    if (bytes <= w->joint_scratch_bytes) {
        return NSCD_OK;
    }
    void *p = nscd__alloc(&w->allocator, bytes);
    if (p == NULL) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    nscd__free(&w->allocator, w->joint_scratch, w->joint_scratch_bytes);
    w->joint_scratch = p;
    w->joint_scratch_bytes = bytes;
    return NSCD_OK;
}

static int32_t root(int32_t *parent, int32_t i) {
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

/* Orders the blocks by mechanism (stable: joint order inside one), and
 * fills w->mechanisms, in O(blocks + bodies). Scratch: the union-find over
 * the bodies, each block's label and mechanism, and a copy of the blocks. */
static nscd_status group_mechanisms(nscd_world *w) {
    int32_t n = w->n_joint_blocks;
    size_t ints = (size_t)w->n_bodies + 2 * (size_t)n;
    size_t bytes = (size_t)n * sizeof(nscd__world_joint_block) + ints * sizeof(int32_t);
    if (reserve_scratch(w, bytes) != NSCD_OK) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    nscd__world_joint_block *copy = w->joint_scratch;
    int32_t *parent = (int32_t *)(copy + n), *label = parent + w->n_bodies, *next = label + n;
    for (int32_t i = 0; i < w->n_bodies; ++i) {
        parent[i] = i;
    }
    for (int32_t j = 0; j < n; ++j) {
        const int32_t *body = w->joint_blocks[j].body;
        if (body[0] >= 0 && body[1] >= 0) {
            int32_t a = root(parent, body[0]), b = root(parent, body[1]);
            if (a != b) { /* the smaller index is the root */
                parent[a > b ? a : b] = a < b ? a : b;
            }
        }
    }
    for (int32_t j = 0; j < n; ++j) {
        const int32_t *body = w->joint_blocks[j].body;
        label[j] = root(parent, body[0] >= 0 ? body[0] : body[1]);
    }
    /* mechanisms in the order of their first block (the bodies' array now
     * maps a root to its mechanism), then the blocks placed stably */
    for (int32_t i = 0; i < w->n_bodies; ++i) {
        parent[i] = -1;
    }
    int32_t count = 0;
    for (int32_t j = 0; j < n; ++j) {
        if (parent[label[j]] < 0) {
            nscd__world_mechanism *m = &w->mechanisms[count];
            m->count = m->rows = 0;
            parent[label[j]] = count++;
        }
        nscd__world_mechanism *m = &w->mechanisms[parent[label[j]]];
        m->count++;
        m->rows += w->joint_blocks[j].n;
        next[j] = parent[label[j]];
    }
    for (int32_t k = 0, first = 0; k < count; ++k) {
        w->mechanisms[k].first = first;
        first += w->mechanisms[k].count;
        w->mechanisms[k].count = 0;
    }
    memcpy(copy, w->joint_blocks, (size_t)n * sizeof *copy);
    for (int32_t j = 0; j < n; ++j) {
        nscd__world_mechanism *m = &w->mechanisms[next[j]];
        w->joint_blocks[m->first + m->count++] = copy[j];
    }
    w->n_mechanisms = count;
    return NSCD_OK;
}

/* Whether blocks A and B share a moving body. */
static bool coupled(const nscd__world_joint_block *A, const nscd__world_joint_block *B) {
    for (int s = 0; s < 2; ++s) {
        if (A->body[s] >= 0 && (A->body[s] == B->body[0] || A->body[s] == B->body[1])) {
            return true;
        }
    }
    return false;
}

/* The envelope of mechanism m's W: rows of block a start at the first row
 * of the first block b <= a that shares a moving body with it (a chain's
 * blocks in joint order: block tridiagonal). */
static void mechanism_envelope(const nscd_world *w, const nscd__world_mechanism *m,
                               nscd__envelope *e) {
    const nscd__world_joint_block *blocks = w->joint_blocks + m->first;
    for (int32_t a = 0, ra = 0; a < m->count; ra += blocks[a].n, ++a) {
        int32_t first = ra;
        for (int32_t b = 0, rb = 0; b < a; rb += blocks[b].n, ++b) {
            if (coupled(&blocks[a], &blocks[b])) {
                first = rb;
                break;
            }
        }
        for (int r = 0; r < blocks[a].n; ++r) {
            e->start[ra + r] = first;
        }
    }
    nscd__envelope_layout(e);
}

/* W = H M⁻¹ Hᵀ + δ I of mechanism m into the envelope e (its lower
 * triangle; the entries of the block pairs that share no body are zero). */
static void mechanism_delassus(const nscd_world *w, const nscd__world_mechanism *m,
                               nscd__envelope *e) {
    memset(e->L, 0, (size_t)e->offset[e->n] * sizeof(double));
    const nscd__world_joint_block *blocks = w->joint_blocks + m->first;
    for (int32_t a = 0, ra = 0; a < m->count; ra += blocks[a].n, ++a) {
        for (int32_t b = 0, rb = 0; b <= a; rb += blocks[b].n, ++b) {
            if (rb < e->start[ra] || !coupled(&blocks[a], &blocks[b])) {
                continue;
            }
            for (int r = 0; r < blocks[a].n; ++r) {
                double *row = e->L + e->offset[ra + r] - e->start[ra + r];
                for (int c = 0; c < blocks[b].n && rb + c <= ra + r; ++c) {
                    double sum = 0.0;
                    for (int s = 0; s < 2; ++s) {
                        for (int t = 0; t < 2; ++t) {
                            if (blocks[a].body[s] >= 0 && blocks[a].body[s] == blocks[b].body[t]) {
                                sum += nscd__small_dot6(blocks[a].h[s][r], blocks[b].y[t][c]);
                            }
                        }
                    }
                    row[rb + c] = sum;
                }
            }
        }
    }
    double top = 0.0;
    for (int32_t r = 0; r < e->n; ++r) {
        top = fmax(top, e->L[e->offset[r] + (r - e->start[r])]);
    }
    for (int32_t r = 0; r < e->n; ++r) {
        e->L[e->offset[r] + (r - e->start[r])] += 1e-12 * top;
    }
}

/* The cached factor of mechanism m into e (whose envelope is laid out):
 * when every block's joint was cached and the component the projection
 * factored, headed by m's first joint, has m's rows and envelope. */
static bool cached_factor(const nscd_world *w, const nscd__world_mechanism *m, nscd__envelope *e) {
    const nscd__world_joint_cache *c = &w->joint_cache;
    const nscd__world_joint_block *blocks = w->joint_blocks + m->first;
    int32_t k0 = blocks[0].joint;
    if (k0 >= c->n_joints || c->factor_rows[k0] != m->rows) {
        return false;
    }
    for (int32_t a = 0; a < m->count; ++a) {
        if (c->first_row[blocks[a].joint] < 0) {
            return false;
        }
    }
    nscd__world_mechanism at = *m;
    at.factor = c->factor_at[k0];
    nscd__envelope cached = nscd__bgs_mechanism_view(c->factors, &at);
    if (memcmp(cached.start, e->start, (size_t)m->rows * sizeof *e->start) != 0) {
        return false;
    }
    memcpy(e->L, cached.L, (size_t)e->offset[e->n] * sizeof(double));
    memcpy(e->T, cached.T, (size_t)e->toff[e->n] * sizeof(double));
    return true;
}

/* The factors of the mechanisms of more than one part that fit: once per
 * step, O(rows) for a chain (the envelope). Scratch: every factor, then
 * the sweep's vectors (NSCD__BGS_BATCH of the largest). */
static nscd_status factor_mechanisms(nscd_world *w) {
    size_t total = 0;
    int32_t largest = 0;
    for (int32_t k = 0; k < w->n_mechanisms; ++k) {
        nscd__world_mechanism *m = &w->mechanisms[k];
        m->factored = m->count > 1 && m->rows <= NSCD__WORLD_MAX_PROJECTED_ROWS;
        if (m->factored) {
            m->factor = total;
            total += nscd__bgs_mechanism_doubles(m->rows);
            largest = m->rows > largest ? m->rows : largest;
        }
    }
    size_t doubles = total + (size_t)NSCD__BGS_BATCH * (size_t)largest;
    if (reserve_scratch(w, doubles * sizeof(double)) != NSCD_OK) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    for (int32_t k = 0; k < w->n_mechanisms; ++k) {
        nscd__world_mechanism *m = &w->mechanisms[k];
        if (m->factored) {
            nscd__envelope e = nscd__bgs_mechanism_view(w->joint_scratch, m);
            mechanism_envelope(w, m, &e);
            if (!cached_factor(w, m, &e)) {
                mechanism_delassus(w, m, &e);
                m->factored = nscd__envelope_factor(&e) == NSCD_OK;
            }
        }
    }
    w->joint_vectors = (double *)w->joint_scratch + total;
    return NSCD_OK;
}

nscd_status nscd__world_joint_blocks_build(nscd_world *w) {
    w->n_joint_blocks = 0;
    w->n_mechanisms = 0;
    int32_t needed = part_total(w);
    if (needed > w->joint_blocks_capacity) {
        size_t grown_bytes = (size_t)needed * sizeof(nscd__world_joint_block);
        size_t mech_bytes = (size_t)needed * sizeof(nscd__world_mechanism);
        nscd__world_joint_block *grown = nscd__alloc(&w->allocator, grown_bytes);
        nscd__world_mechanism *mechanisms = nscd__alloc(&w->allocator, mech_bytes);
        if (grown == NULL || mechanisms == NULL) {
            nscd__free(&w->allocator, grown, grown_bytes);
            nscd__free(&w->allocator, mechanisms, mech_bytes);
            return NSCD_ERR_OUT_OF_MEMORY;
        }
        nscd__world_free_joint_blocks(w);
        w->joint_blocks = grown;
        w->mechanisms = mechanisms;
        w->joint_blocks_capacity = needed;
    }
    for (int32_t k = 0; k < w->n_joints; ++k) {
        const nscd__world_joint *j = &w->joints[k];
        bool warm = w->desc.warm_start && j->step == w->desc.dt;
        nscd__world_joint_block *b = &w->joint_blocks[w->n_joint_blocks];
        int32_t count;
        if (cached_valid(w, k)) {
            count = cached_joint(w, k, b);
        } else {
            count = evaluate_joint(w, k, b);
            if (k < w->joint_cache.n_joints) {
                w->joint_cache.first_row[k] = -1; /* its mechanism's factor is not cached */
            }
        }
        for (int32_t a = 0; a < count; ++a) {
            for (int r = 0; r < 3; ++r) {
                b[a].lambda[r] = warm && r < b[a].n ? j->impulse[b[a].part][r] : 0.0;
            }
        }
        w->n_joint_blocks += count;
    }
    if (w->n_joint_blocks == 0) {
        return NSCD_OK;
    }
    nscd_status rc = group_mechanisms(w);
    return rc == NSCD_OK ? factor_mechanisms(w) : rc;
}

void nscd__world_joint_warm_start(nscd_world *w) {
    nscd__bgs_problem p = nscd__world_bgs_problem(w);
    nscd__bgs_joint_warm_start(&p);
}

double nscd__world_joint_sweep(nscd_world *w) {
    nscd__bgs_problem p = nscd__world_bgs_problem(w);
    return nscd__bgs_joint_sweep(&p, 0.0);
}

void nscd__world_joint_store(nscd_world *w) {
    for (int32_t k = 0; k < w->n_joints; ++k) { /* the parts beyond the count stay zero */
        nscd__world_joint *j = &w->joints[k];
        memset(j->impulse, 0, (size_t)nscd__joint_part_count(&j->def) * sizeof j->impulse[0]);
        j->step = w->desc.dt;
    }
    for (int32_t j = 0; j < w->n_joint_blocks; ++j) {
        const nscd__world_joint_block *b = &w->joint_blocks[j];
        memcpy(w->joints[b->joint].impulse[b->part], b->lambda, 3 * sizeof(double));
    }
}

void nscd__world_free_joint_blocks(nscd_world *w) {
    size_t n = (size_t)w->joint_blocks_capacity;
    nscd__free(&w->allocator, w->joint_blocks, n * sizeof(nscd__world_joint_block));
    nscd__free(&w->allocator, w->mechanisms, n * sizeof(nscd__world_mechanism));
    nscd__free(&w->allocator, w->joint_scratch, w->joint_scratch_bytes);
    w->joint_blocks = NULL;
    w->mechanisms = NULL;
    w->joint_scratch = NULL;
    w->joint_vectors = NULL;
    w->joint_scratch_bytes = 0;
    w->joint_blocks_capacity = 0;
    w->n_joint_blocks = 0;
    w->n_mechanisms = 0;
}
