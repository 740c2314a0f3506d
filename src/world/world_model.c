/* The rigid-body world as an nscd__model (core/model.h), so that the time
 * steppers (integrators/) drive a world (docs/world.md, "Driving a world
 * with a time stepper"). A thin adapter over the world's internals:
 *
 *   state     the dynamic bodies in storage order: q = (x, φ) (7 per body),
 *             v = (v, ω world frame) (6 per body); static and kinematic
 *             bodies are not in the model: their side of a contact is a
 *             constant (a kinematic body must be at rest: the interface has
 *             no velocity of a moving obstacle, so a moving one is refused)
 *   mass      one 6x6 block per body, M^-1 = diag(1/m, R I^-1 R')
 *   forces    gravity and the applied load; the gyroscopic term
 *             -ω × (R I R') ω in free_rotation (implicit midpoint)
 *   motion    x + dx, φ' = exp(dθ) φ renormalised (the world's rotation)
 *   entries   the world's contacts (collision at q, the world's stage):
 *             unilateral, Newton e = 0, friction from the materials, rows
 *             [∓e_k, ∓(r × e_k)] for e = n, t, o (normal from a to b)
 *
 * The world's arrays stay the truth between steps: pull_state reads them
 * before each step (bodies may have been added, removed or moved), and
 * push_state writes the accepted step back (time, contact records for
 * nscd_world_get_contacts, removal at the domain box, like nscd_world_step).
 * Entries are matched across updates by their collision key (key_a, key_b,
 * feature), a merge of two sorted lists like the world's warm start. */
#include <math.h>
#include <string.h>

#include "core/memory.h"
#include "core/model.h"
#include "core/vec3.h"
#include "world/world_impl.h"
#include "nscd/contact_law.h"

enum { Q_PER_BODY = 7, V_PER_BODY = 6, ENTRY_ROWS = 3 };

/* What an entry needs to give its gap and rows at any q: the contact as
 * detected at the step's start, each side's lever arm. */
typedef struct wm_entry {
    uint64_t key_a, key_b;
    uint32_t feature;
    int32_t body[2];    /* model body of side a, b; -1 when the side is fixed */
    int32_t dense[2];   /* world body of side a, b (dense index of this step) */
    int32_t centred[2]; /* a centred sphere: its contact point only translates */
    double frame[9];    /* n, t, o (world), n from a to b */
    double point[3];    /* contact point at detection */
    double gap;         /* gap at detection */
    double lever[2][3]; /* body-frame lever arm R0' (p - x0) of each moving side */
    double x0[2][3];    /* body position at detection */
    /* A joint's part (docs/joints.md): the joint's dense index in the world
     * (-1 for a contact), its part and creation serial (the match key). */
    int32_t joint, part;
    uint64_t serial;
} wm_entry;

typedef struct nscd__world_model {
    nscd__model model;
    nscd_world *world;
    double t;
    int32_t n_bodies;
    int32_t q_capacity, v_capacity, body_capacity, block_capacity; /* in bodies */
    double *q, *v;
    int32_t *block_start; /* n_bodies + 1 */
    int32_t *body_of;     /* model body -> dense world index */
    int32_t *model_of;    /* dense world index -> model body or -1 */
    int32_t dense_capacity;
    /* Entries, and those of the last update (kept for the merge). */
    int32_t n_entries, entry_capacity, n_old;
    int32_t n_contact_entries; /* contacts first, then the joints' parts */
    /* Newton's law with e = 1, the law of the equality entries of ideal
     * joints whose energy form is on (integrators/time_stepping/ts_local_solve.c). */
    nscd_contact_law energy_law;
    wm_entry *entries, *old_entries;
    nscd__contact_slot *slots, *old_slots;
    int32_t *previous;
} world_adapter;

/* ------------------------------------------------------------ helpers */

/* ------------------------------------------------------------ state */

static nscd_status reserve_bodies(world_adapter *a, int32_t n) {
    const nscd_allocator *al = &a->world->allocator;
    if (nscd__reserve_array(al, (void **)&a->q, 0, &a->q_capacity, n,
                            Q_PER_BODY * sizeof(double)) != NSCD_OK ||
        nscd__reserve_array(al, (void **)&a->v, 0, &a->v_capacity, n,
                            V_PER_BODY * sizeof(double)) != NSCD_OK ||
        nscd__reserve_array(al, (void **)&a->body_of, 0, &a->body_capacity, n, sizeof(int32_t)) !=
            NSCD_OK ||
        nscd__reserve_array(al, (void **)&a->block_start, 0, &a->block_capacity, n + 1,
                            sizeof(int32_t)) != NSCD_OK) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    int32_t d = a->world->n_bodies;
    return nscd__reserve_array(al, (void **)&a->model_of, 0, &a->dense_capacity, d,
                               sizeof(int32_t));
}

/* The world's bodies into the model: t, q, v, the mass blocks. */
static nscd_status pull_state(void *self) {
    world_adapter *a = self;
    nscd_world *w = a->world;
    if (w->desc.sleep) { /* the steppers integrate every body */
        return nscd__fail(&w->diag, NSCD_ERR_UNSUPPORTED,
                          "a time stepper drives a world without sleeping "
                          "(nscd_world_desc::sleep): step it with nscd_world_step");
    }
    if (w->resistant_materials > 0) { /* the assembled W has no angular rows */
        return nscd__fail(&w->diag, NSCD_ERR_UNSUPPORTED,
                          "a time stepper drives a world without rolling or spinning resistance "
                          "(%d material(s) have some): step it with nscd_world_step",
                          (int)w->resistant_materials);
    }
    nscd__world_compact(w);
    int32_t n = 0;
    for (int32_t i = 0; i < w->n_bodies; ++i) {
        const double *v = w->velocity + 3 * (size_t)i, *om = w->omega + 3 * (size_t)i;
        if (w->type[i] == NSCD_BODY_KINEMATIC && (v[0] != 0.0 || v[1] != 0.0 || v[2] != 0.0 ||
                                                  om[0] != 0.0 || om[1] != 0.0 || om[2] != 0.0)) {
            return nscd__fail(&w->diag, NSCD_ERR_UNSUPPORTED,
                              "a time stepper drives a world whose kinematic bodies are at rest "
                              "(body %d moves)",
                              (int)i);
        }
        n += w->type[i] == NSCD_BODY_DYNAMIC;
    }
    if (reserve_bodies(a, n) != NSCD_OK) {
        return nscd__fail(&w->diag, NSCD_ERR_OUT_OF_MEMORY, "model of %d bodies", (int)n);
    }
    int32_t k = 0;
    for (int32_t i = 0; i < w->n_bodies; ++i) {
        a->model_of[i] = -1;
        if (w->type[i] != NSCD_BODY_DYNAMIC) {
            continue;
        }
        memcpy(a->q + Q_PER_BODY * (size_t)k, w->position + 3 * (size_t)i, 3 * sizeof(double));
        memcpy(a->q + Q_PER_BODY * (size_t)k + 3, w->orientation + 4 * (size_t)i,
               4 * sizeof(double));
        memcpy(a->v + V_PER_BODY * (size_t)k, w->velocity + 3 * (size_t)i, 3 * sizeof(double));
        memcpy(a->v + V_PER_BODY * (size_t)k + 3, w->omega + 3 * (size_t)i, 3 * sizeof(double));
        a->block_start[k] = V_PER_BODY * k;
        a->body_of[k] = i;
        a->model_of[i] = k++;
    }
    a->block_start[n] = V_PER_BODY * n;
    nscd_status rc = nscd__world_prepare_projection(w);
    if (rc != NSCD_OK) {
        return rc;
    }
    a->n_bodies = n;
    a->t = w->time;
    nscd__model *m = &a->model;
    m->n_q = Q_PER_BODY * n;
    m->n_v = V_PER_BODY * n;
    m->n_mass_blocks = n;
    m->mass_block_start = a->block_start;
    m->q = a->q;
    m->v = a->v;
    return NSCD_OK;
}

/* The accepted step into the world's records (nscd_world_get_contacts). */
static void store_records(world_adapter *a) {
    nscd_world *w = a->world;
    if (nscd__world_reserve_records(w, a->n_contact_entries) != NSCD_OK) {
        w->n_records = 0; /* no copy-out for this step; the state is still right */
        return;
    }
    for (int32_t e = 0; e < a->n_contact_entries; ++e) {
        const wm_entry *en = &a->entries[e];
        const double *x = a->slots[e].state.impulse;
        nscd__world_record *r = &w->records[e];
        r->key_a = en->key_a;
        r->key_b = en->key_b;
        r->feature = en->feature;
        r->id_a = w->id[en->dense[0]];
        r->id_b = w->id[en->dense[1]];
        memcpy(r->point, en->point, sizeof r->point);
        memcpy(r->normal, en->frame, sizeof r->normal);
        r->gap = en->gap;
        memcpy(r->x, x, sizeof r->x);
        for (int k = 0; k < 3; ++k) {
            r->impulse_world[k] =
                en->frame[k] * x[0] + en->frame[3 + k] * x[1] + en->frame[6 + k] * x[2];
        }
    }
    w->n_records = a->n_contact_entries;
}

/* The accepted step's impulses of every joint part (nscd_world_joint_reaction,
 * nscd_world_clearance_gaps), with the step's length. */
static void store_joint_impulses(world_adapter *a, double step) {
    nscd_world *w = a->world;
    for (int32_t k = 0; k < w->n_joints; ++k) {
        memset(w->joints[k].impulse, 0, sizeof w->joints[k].impulse);
        w->joints[k].step = step;
    }
    for (int32_t e = a->n_contact_entries; e < a->n_entries; ++e) {
        const wm_entry *en = &a->entries[e];
        memcpy(w->joints[en->joint].impulse[en->part], a->slots[e].state.impulse,
               3 * sizeof(double));
    }
}

/* The accepted step into the world's bodies. */
static nscd_status push_state(void *self) {
    world_adapter *a = self;
    nscd_world *w = a->world;
    for (int32_t k = 0; k < a->n_bodies; ++k) {
        size_t i = (size_t)a->body_of[k];
        memcpy(w->position + 3 * i, a->q + Q_PER_BODY * (size_t)k, 3 * sizeof(double));
        memcpy(w->orientation + 4 * i, a->q + Q_PER_BODY * (size_t)k + 3, 4 * sizeof(double));
        memcpy(w->velocity + 3 * i, a->v + V_PER_BODY * (size_t)k, 3 * sizeof(double));
        memcpy(w->omega + 3 * i, a->v + V_PER_BODY * (size_t)k + 3, 3 * sizeof(double));
    }
    nscd_status rc = nscd__world_project_joints(w);
    store_records(a);
    store_joint_impulses(a, a->t - w->time);
    w->time = a->t;
    w->steps++;
    nscd__world_remove_outside(w);
    return rc;
}

/* ------------------------------------------------------------ mass, forces */

static const double *body_q(const double *q, int32_t k) { return q + Q_PER_BODY * (size_t)k; }

static nscd_status mass_solve(void *self, const double *q, int32_t block, int32_t nrhs,
                              const double *B, double *X) {
    const world_adapter *a = self;
    size_t i = (size_t)a->body_of[block];
    double R[9];
    nscd__q_to_rows(body_q(q, block) + 3, R);
    for (int32_t c = 0; c < nrhs; ++c) { /* row-major 6 x nrhs: column c strides nrhs */
        double h[6], y[6];
        for (int k = 0; k < 6; ++k) {
            h[k] = B[k * nrhs + c];
        }
        nscd__world_inverse_mass_at(a->world, (int32_t)i, R, h, y);
        for (int k = 0; k < 6; ++k) {
            X[k * nrhs + c] = y[k];
        }
    }
    return NSCD_OK;
}

static nscd_status mass_times(void *self, const double *q, const double *x, double *y) {
    const world_adapter *a = self;
    for (int32_t k = 0; k < a->n_bodies; ++k) {
        size_t i = (size_t)a->body_of[k], o = V_PER_BODY * (size_t)k;
        double R[9];
        nscd__q_to_rows(body_q(q, k) + 3, R);
        for (int c = 0; c < 3; ++c) {
            y[o + c] = a->world->mass[i] * x[o + c];
        }
        nscd__world_frame_apply(R, a->world->inertia + 9 * i, x + o + 3, y + o + 3);
    }
    return NSCD_OK;
}

static nscd_status mass_block(void *self, const double *q, int32_t block, double *M) {
    const world_adapter *a = self;
    size_t i = (size_t)a->body_of[block];
    double R[9];
    nscd__q_to_rows(body_q(q, block) + 3, R);
    memset(M, 0, 36 * sizeof(double));
    for (int c = 0; c < 3; ++c) {
        double e[3] = {0.0, 0.0, 0.0}, col[3];
        e[c] = 1.0;
        M[7 * c] = a->world->mass[i];
        nscd__world_frame_apply(R, a->world->inertia + 9 * i, e, col);
        for (int r = 0; r < 3; ++r) {
            M[6 * (3 + r) + 3 + c] = col[r];
        }
    }
    return NSCD_OK;
}

/* h = (m g + F, τ) with the applied load (F, τ): the explicit forces of the
 * world's step (world_rigid.c, nscd__world_body_force). The gyroscopic
 * torque -ω × (R I R') ω is not here but in free_rotation, which the Moreau
 * steppers apply over the step (core/model.h). */
static nscd_status forces(void *self, double t, const double *q, const double *v, double *h) {
    (void)t;
    (void)q;
    (void)v;
    const world_adapter *a = self;
    for (int32_t k = 0; k < a->n_bodies; ++k) {
        nscd__world_body_force(a->world, a->body_of[k], h + V_PER_BODY * (size_t)k);
    }
    return NSCD_OK;
}

/* The gyroscopic part of the free velocity over dt, at the orientations q
 * of the stepper's mass matrix: the world's implicit midpoint rule
 * (world_rigid.c, nscd__world_gyroscopic), the same as nscd_world_step's. */
static void free_rotation(void *self, const double *q, double dt, double *v_free) {
    const world_adapter *a = self;
    for (int32_t k = 0; k < a->n_bodies; ++k) {
        nscd__world_gyroscopic(a->world, a->body_of[k], body_q(q, k) + 3, dt,
                               v_free + V_PER_BODY * (size_t)k + 3);
    }
}

/* dx/dt = v, dφ/dt = ½ (0, ω) φ (ω in the world frame multiplies from the left). */
static void position_rate(void *self, const double *q, const double *v, double *qdot) {
    const world_adapter *a = self;
    for (int32_t k = 0; k < a->n_bodies; ++k) {
        const double *x = body_q(q, k), *u = v + V_PER_BODY * (size_t)k;
        double *d = qdot + Q_PER_BODY * (size_t)k;
        nscd__quat r =
            nscd__q_mul((nscd__quat){0.0, u[3], u[4], u[5]}, (nscd__quat){x[3], x[4], x[5], x[6]});
        d[0] = u[0], d[1] = u[1], d[2] = u[2];
        d[3] = 0.5 * r.w, d[4] = 0.5 * r.x, d[5] = 0.5 * r.y, d[6] = 0.5 * r.z;
    }
}

/* x + dx, φ' = exp(dθ) φ: the world's exact rotation (world_step.c). */
static void displace(void *self, const double *q, const double *dq, double *q_out) {
    const world_adapter *a = self;
    for (int32_t k = 0; k < a->n_bodies; ++k) {
        const double *x = body_q(q, k), *d = dq + V_PER_BODY * (size_t)k;
        double *out = q_out + Q_PER_BODY * (size_t)k;
        for (int c = 0; c < 3; ++c) {
            out[c] = x[c] + d[c];
        }
        nscd__world_rotate(x + 3, d + 3, 1.0, out + 3);
    }
}

/* ------------------------------------------------------------ entries */

/* The contact point of side s at q, moved with its body from detection: a
 * centred sphere's point only translates (its surface point along n stays
 * under the centre whatever the spin), any other shape's turns with it. */
static void side_point(const world_adapter *a, const wm_entry *en, int s, const double *q,
                       double p[3], double r[3]) {
    const double *x = body_q(q, en->body[s]);
    if (en->centred[s]) {
        nscd__world_lever(en->point, en->x0[s], r);
    } else {
        double R[9];
        nscd__q_to_rows(x + 3, R);
        nscd__world_mat_vec(R, en->lever[s], r);
    }
    (void)a;
    for (int c = 0; c < 3; ++c) {
        p[c] = x[c] + r[c];
    }
}

/* Gap and rows of entry `index` at q: g = ξ0 + n·(Δp_b - Δp_a) with the
 * normal of detection; rows e_k·(v_b + ω_b × r_b - v_a - ω_a × r_a), one
 * 3x6 block per moving side, blocks in increasing column order. */
/* The pose of side s of a joint entry at q: a model body's from q, a
 * fixed body's (static, kinematic at rest) or the ground's from the world. */
static void joint_side_pose(const world_adapter *a, const wm_entry *en, int s, const double *q,
                            nscd__joint_pose *pose) {
    if (en->body[s] < 0) {
        nscd__world_joint_pose(a->world, &a->world->joints[en->joint], s, pose);
        return;
    }
    const double *x = body_q(q, en->body[s]);
    memcpy(pose->x, x, 3 * sizeof(double));
    nscd__q_to_rows(x + 3, pose->R);
}

/* A joint part's value and rows (world/joints/joint.h): an equality's equations,
 * or a gap with its normal and tangent rows; blocks in increasing column
 * order like a contact's. */
static nscd_status joint_entry(const world_adapter *a, const wm_entry *en, const double *q,
                               double *gap, nscd__rows *rows) {
    nscd__joint_pose pose[2];
    joint_side_pose(a, en, 0, q, &pose[0]);
    joint_side_pose(a, en, 1, q, &pose[1]);
    nscd__joint_part part;
    nscd__joint_evaluate(&a->world->joints[en->joint].def, en->part, pose, &part);
    *gap = part.value[0];
    if (!part.equality) { /* the projection's closed gaps are contacts to the steppers */
        *gap -= nscd__world_contact_distance(a->world);
    }
    int order[2] = {0, 1};
    if (en->body[0] >= 0 && en->body[1] >= 0 && en->body[1] < en->body[0]) {
        order[0] = 1, order[1] = 0;
    }
    rows->n_rows = part.n_rows;
    rows->n_blocks = 0;
    for (int j = 0; j < 2; ++j) {
        if (en->body[order[j]] >= 0) {
            rows->column[rows->n_blocks] = V_PER_BODY * en->body[order[j]];
            rows->width[rows->n_blocks++] = V_PER_BODY;
        }
    }
    rows->width_total = V_PER_BODY * rows->n_blocks;
    for (int32_t r = 0; r < part.n_rows; ++r) {
        double *row = rows->values + (size_t)r * (size_t)rows->width_total;
        for (int j = 0, b = 0; j < 2; ++j) {
            if (en->body[order[j]] >= 0) {
                memcpy(row + V_PER_BODY * b++, part.rows[order[j]][r], 6 * sizeof(double));
            }
        }
    }
    return NSCD_OK;
}

static nscd_status entry(void *self, int32_t index, double t, const double *q, double *gap,
                         nscd__rows *rows) {
    (void)t;
    const world_adapter *a = self;
    const wm_entry *en = &a->entries[index];
    if (en->joint >= 0) {
        return joint_entry(a, en, q, gap, rows);
    }
    double dp[3] = {0.0, 0.0, 0.0}, r[2][3];
    for (int s = 0; s < 2; ++s) {
        if (en->body[s] < 0) {
            continue;
        }
        double p[3];
        side_point(a, en, s, q, p, r[s]);
        for (int c = 0; c < 3; ++c) {
            dp[c] += (s == 1 ? 1.0 : -1.0) * (p[c] - en->point[c]);
        }
    }
    *gap = en->gap + en->frame[0] * dp[0] + en->frame[1] * dp[1] + en->frame[2] * dp[2];
    int order[2] = {0, 1};
    if (en->body[0] >= 0 && en->body[1] >= 0 && en->body[1] < en->body[0]) {
        order[0] = 1, order[1] = 0;
    }
    rows->n_rows = ENTRY_ROWS;
    rows->n_blocks = 0;
    for (int j = 0; j < 2; ++j) {
        int s = order[j];
        if (en->body[s] >= 0) {
            rows->column[rows->n_blocks] = V_PER_BODY * en->body[s];
            rows->width[rows->n_blocks++] = V_PER_BODY;
        }
    }
    rows->width_total = V_PER_BODY * rows->n_blocks;
    for (int k = 0; k < ENTRY_ROWS; ++k) {
        double *row = rows->values + (size_t)k * (size_t)rows->width_total;
        const double *e = en->frame + 3 * k;
        for (int j = 0, b = 0; j < 2; ++j) {
            int s = order[j];
            if (en->body[s] < 0) {
                continue;
            }
            nscd__world_rigid_row(r[s], e, s == 1 ? 1.0 : -1.0, row + V_PER_BODY * b);
            ++b;
        }
    }
    return NSCD_OK;
}

/* A persistent 64-bit key of the contact (splitmix64 of the triple); the
 * matching itself uses the full triple. */
static uint64_t mix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static int compare_triple(const wm_entry *x, const nscd__contact_point *p) {
    if (x->key_a != p->key_a) {
        return x->key_a < p->key_a ? -1 : 1;
    }
    if (x->key_b != p->key_b) {
        return x->key_b < p->key_b ? -1 : 1;
    }
    return x->feature == p->feature ? 0 : (x->feature < p->feature ? -1 : 1);
}

/* Side s of a new entry from its shape. */
static void make_side(const world_adapter *a, wm_entry *en, int s, const nscd__world_shape *shape) {
    const nscd_world *w = a->world;
    int32_t i = shape->body;
    en->dense[s] = i;
    en->body[s] = a->model_of[i];
    if (en->body[s] < 0) {
        return;
    }
    en->centred[s] = shape->type == NSCD_SHAPE_SPHERE && shape->position[0] == 0.0 &&
                     shape->position[1] == 0.0 && shape->position[2] == 0.0;
    double R[9], r[3];
    nscd__q_to_rows(w->orientation + 4 * (size_t)i, R);
    memcpy(en->x0[s], w->position + 3 * (size_t)i, sizeof en->x0[s]);
    nscd__world_lever(en->point, en->x0[s], r);
    nscd__world_mat_t_vec(R, r, en->lever[s]); /* R' r */
}

/* The state an entry carries from the last update: its impulses turned
 * into the new frame (the tangents may have turned), like the world's warm
 * start. */
static void carry_state(const wm_entry *old, const nscd__contact_slot *old_slot, const wm_entry *en,
                        nscd__contact_slot *slot) {
    slot->state = old_slot->state;
    if (memcmp(old->frame, en->frame, sizeof en->frame) == 0) {
        return; /* the same frame: bitwise the same impulses (a retried step) */
    }
    const double *x = old_slot->state.impulse;
    double P[3];
    for (int c = 0; c < 3; ++c) {
        P[c] = old->frame[c] * x[0] + old->frame[3 + c] * x[1] + old->frame[6 + c] * x[2];
    }
    for (int k = 0; k < 3; ++k) {
        const double *e = en->frame + 3 * k;
        slot->state.impulse[k] = e[0] * P[0] + e[1] * P[1] + e[2] * P[2];
    }
    slot->state.impulse[0] = slot->state.impulse[0] > 0.0 ? slot->state.impulse[0] : 0.0;
}

/* Room for n entries in the five entry arrays, all or none; each keeps
 * its content (the old lists are read by the merge that follows). */
static nscd_status reserve_entries(world_adapter *a, int32_t n) {
    nscd__array arrays[5] = {{(void **)&a->entries, sizeof(wm_entry), a->n_entries},
                             {(void **)&a->old_entries, sizeof(wm_entry), a->n_old},
                             {(void **)&a->slots, sizeof(nscd__contact_slot), a->n_entries},
                             {(void **)&a->old_slots, sizeof(nscd__contact_slot), a->n_old},
                             {(void **)&a->previous, sizeof(int32_t), a->n_entries}};
    return nscd__reserve_arrays(&a->world->allocator, arrays, 5, &a->entry_capacity, n);
}

/* Parts of every joint: the entries they add. */
static int32_t joint_parts(const nscd_world *w) {
    int32_t n = 0;
    for (int32_t k = 0; k < w->n_joints; ++k) {
        n += nscd__joint_part_count(&w->joints[k].def);
    }
    return n;
}

/* Side s of a joint entry: the model body of a dynamic body, -1 for the
 * ground and for a static or kinematic body (fixed in the step). */
static void joint_side(const world_adapter *a, const nscd__world_joint *j, wm_entry *en, int s) {
    int32_t i = nscd__world_lookup(a->world, j->body[s]);
    en->dense[s] = i;
    en->body[s] = i >= 0 ? a->model_of[i] : -1;
}

/* The normal rate H v of a joint part's first row at the world's
 * velocities (the ground and fixed bodies do not move). */
static double part_rate(const nscd_world *w, const nscd__world_joint *j,
                        const nscd__joint_part *part) {
    double rate = 0.0;
    for (int s = 0; s < 2; ++s) {
        int32_t i = nscd__world_lookup(w, j->body[s]);
        if (i < 0 || w->type[i] != NSCD_BODY_DYNAMIC) {
            continue;
        }
        const double *v = w->velocity + 3 * (size_t)i, *om = w->omega + 3 * (size_t)i;
        const double *row = part->rows[s][0];
        rate += row[0] * v[0] + row[1] * v[1] + row[2] * v[2] + row[3] * om[0] + row[4] * om[1] +
                row[5] * om[2];
    }
    return rate;
}

/* The energy form of clearance gap `part` of joint j (docs/joints.md, "The
 * energy form of the clearance gaps"): a persistent contact, one that
 * pushed in the last step (its carried normal impulse > 0: a rolling pin
 * may end a step a few 1e-9 m open, above the contact distance) or one
 * closed (within the contact distance) at the update's q, gets Newton's
 * e = 1 on its mean velocity (slot->mean_velocity) and its approach rate
 * at the step's start, min(H v, 0) at the world's q and v, which stays
 * plastic (an impact the projection has not taken, an external kick).
 * An open gap that carried nothing is an impact: plastic. Everything is
 * read from the state (q, v, the carried impulses, which a rejected step
 * restores), so that a retried step sees the same law. */
static void clearance_energy_form(const world_adapter *a, const nscd__world_joint *j, int32_t part,
                                  nscd__contact_slot *slot) {
    nscd__joint_pose pose[2];
    nscd__world_joint_pose(a->world, j, 0, &pose[0]);
    nscd__world_joint_pose(a->world, j, 1, &pose[1]);
    nscd__joint_part value;
    nscd__joint_evaluate(&j->def, part, pose, &value);
    if (slot->state.impulse[0] > 0.0 || value.value[0] <= nscd__world_contact_distance(a->world)) {
        slot->law = a->energy_law;
        slot->mean_velocity = 1;
        slot->start_approach = fmin(part_rate(a->world, j, &value), 0.0);
    }
}

/* The joints' parts after the n contacts: equality entries (ideal joints)
 * and frictionless or Coulomb unilateral entries (clearance gaps, Newton
 * e = 0: plastic, or e = 1 when closed with the energy form on), matched with the last update's
 * joint entries by (serial, part) — joints keep their creation order, so a forward merge. Returns
 * the entry count. */
static int32_t append_joints(world_adapter *a, int32_t n) {
    const nscd_world *w = a->world;
    int32_t o = 0;
    while (o < a->n_old && a->old_entries[o].joint < 0) {
        ++o;
    }
    for (int32_t k = 0; k < w->n_joints; ++k) {
        const nscd__world_joint *j = &w->joints[k];
        for (int32_t p = 0; p < nscd__joint_part_count(&j->def); ++p) {
            wm_entry *en = &a->entries[n];
            memset(en, 0, sizeof *en);
            en->joint = k, en->part = p, en->serial = j->serial;
            joint_side(a, j, en, 0);
            joint_side(a, j, en, 1);
            if (en->body[0] < 0 && en->body[1] < 0) {
                continue; /* nothing moves */
            }
            nscd__contact_slot *slot = &a->slots[n];
            memset(slot, 0, sizeof *slot);
            slot->key = mix(0x6a6f696e74ull ^ mix(j->serial * NSCD__JOINT_MAX_PARTS + (uint64_t)p));
            slot->kind = j->def.clearance ? NSCD__ENTRY_UNILATERAL : NSCD__ENTRY_EQUALITY;
            slot->friction = j->def.friction;
            slot->n_tangent = j->def.clearance ? 2 : 0;
            slot->clearance = j->def.clearance != 0;
            if (j->def.energy_form && !j->def.clearance) {
                slot->law = a->energy_law;
            }
            while (o < a->n_old &&
                   (a->old_entries[o].serial < j->serial ||
                    (a->old_entries[o].serial == j->serial && a->old_entries[o].part < p))) {
                ++o;
            }
            a->previous[n] = -1;
            if (o < a->n_old && a->old_entries[o].serial == j->serial &&
                a->old_entries[o].part == p) {
                slot->state = a->old_slots[o].state; /* same geometry: impulses carry over */
                a->previous[n] = o;
            }
            if (j->def.energy_form && j->def.clearance) {
                clearance_energy_form(a, j, p, slot);
            }
            ++n;
        }
    }
    return n;
}

/* Contacts at q (the world's collision stage), matched with the last
 * update's entries by key. */
static nscd_status update_entries(void *self, double t, const double *q) {
    (void)t;
    world_adapter *a = self;
    nscd_world *w = a->world;
    if (q != a->q) { /* the world detects at its own poses, which pull_state set to q */
        return nscd__fail(&w->diag, NSCD_ERR_INVALID_ARGUMENT,
                          "a world's entries are detected at its current state only");
    }
    nscd_status rc = nscd__world_detect_contacts(w);
    const nscd__collision *col = &w->collision;
    if (rc == NSCD_OK) { /* room for both lists before they swap */
        int32_t need = col->n_contacts + joint_parts(w);
        rc = reserve_entries(a, need > a->n_entries ? need : a->n_entries);
    }
    if (rc != NSCD_OK) {
        return nscd__fail(&w->diag, rc, "collision detection: out of memory");
    }
    wm_entry *te = a->old_entries;
    a->old_entries = a->entries, a->entries = te;
    nscd__contact_slot *ts = a->old_slots;
    a->old_slots = a->slots, a->slots = ts;
    a->n_old = a->n_entries;
    int32_t n = 0, o = 0;
    for (int32_t j = 0; j < col->n_contacts; ++j) {
        const nscd__contact_point *p = &col->contacts[j];
        const nscd__world_shape *sa = &w->shapes[p->shape_a], *sb = &w->shapes[p->shape_b];
        wm_entry *en = &a->entries[n];
        memset(en, 0, sizeof *en);
        en->key_a = p->key_a, en->key_b = p->key_b, en->feature = p->feature;
        memcpy(en->point, p->point, sizeof en->point);
        memcpy(en->frame, p->normal, 3 * sizeof(double));
        nscd__world_tangents(en->frame, en->frame + 3, en->frame + 6);
        en->gap = p->gap;
        en->joint = -1;
        make_side(a, en, 0, sa);
        make_side(a, en, 1, sb);
        if ((en->body[0] < 0 && en->body[1] < 0) || en->body[0] == en->body[1]) {
            continue; /* nothing moves (or one body with itself) */
        }
        nscd__contact_slot *slot = &a->slots[n];
        memset(slot, 0, sizeof *slot);
        slot->key = mix(p->key_a ^ mix(p->key_b ^ mix(p->feature)));
        slot->kind = NSCD__ENTRY_UNILATERAL; /* law ops NULL: Newton, e = 0 */
        slot->friction = nscd__world_pair_friction(w, sa->material, sb->material);
        slot->n_tangent = 2;
        while (o < a->n_old && compare_triple(&a->old_entries[o], p) < 0) {
            ++o;
        }
        a->previous[n] = -1;
        if (o < a->n_old && compare_triple(&a->old_entries[o], p) == 0) {
            carry_state(&a->old_entries[o], &a->old_slots[o], en, slot);
            a->previous[n] = o;
        }
        ++n;
    }
    a->n_contact_entries = n;
    n = append_joints(a, n);
    a->n_entries = n;
    nscd__model *m = &a->model;
    m->n_contacts = n;
    m->contacts = a->slots;
    m->entry_previous = a->previous;
    return NSCD_OK;
}

/* ------------------------------------------------------------ lifetime */

static void free_adapter(world_adapter *a) {
    const nscd_allocator *al = &a->world->allocator;
    size_t ne = (size_t)a->entry_capacity;
    nscd__free(al, a->q, (size_t)a->q_capacity * Q_PER_BODY * sizeof(double));
    nscd__free(al, a->v, (size_t)a->v_capacity * V_PER_BODY * sizeof(double));
    nscd__free(al, a->body_of, (size_t)a->body_capacity * sizeof(int32_t));
    nscd__free(al, a->block_start, (size_t)a->block_capacity * sizeof(int32_t));
    nscd__free(al, a->model_of, (size_t)a->dense_capacity * sizeof(int32_t));
    nscd__free(al, a->entries, ne * sizeof(wm_entry));
    nscd__free(al, a->old_entries, ne * sizeof(wm_entry));
    nscd__free(al, a->slots, ne * sizeof(nscd__contact_slot));
    nscd__free(al, a->old_slots, ne * sizeof(nscd__contact_slot));
    nscd__free(al, a->previous, ne * sizeof(int32_t));
    nscd__free(al, a, sizeof *a);
}

/* The deferred destroy (nscd__model::destroy_owner): a callback destroyed
 * the world while a stepper advanced it. */
static void destroy_owner(void *self) { nscd_world_destroy(((world_adapter *)self)->world); }

nscd_status nscd__world_model(nscd_world *w, nscd__model **model) {
    if (w->model == NULL) {
        world_adapter *a = nscd__alloc(&w->allocator, sizeof *a);
        if (a == NULL) {
            return nscd__fail(&w->diag, NSCD_ERR_OUT_OF_MEMORY, "world model");
        }
        a->world = w;
        nscd_contact_law *law = NULL;
        if (nscd_contact_law_create_newton(1.0, &w->allocator, &law) != NSCD_OK) {
            nscd__free(&w->allocator, a, sizeof *a);
            return nscd__fail(&w->diag, NSCD_ERR_OUT_OF_MEMORY, "world model");
        }
        a->energy_law = *law; /* a law is a small value (core/law.h) */
        nscd_contact_law_destroy(law);
        nscd__model *m = &a->model;
        m->self = a;
        m->t = &a->t;
        m->row_width = 2 * V_PER_BODY;
        m->diag = &w->diag;
        m->allocator = &w->allocator;
        m->mass_solve = mass_solve;
        m->mass_times = mass_times;
        m->mass_block = mass_block;
        m->forces = forces;
        m->position_rate = position_rate;
        m->displace = displace;
        m->entry = entry;
        m->update_entries = update_entries;
        m->pull_state = pull_state;
        m->push_state = push_state;
        m->free_rotation = free_rotation;
        m->destroy_owner = destroy_owner;
        m->rigid_bodies = 1;
        w->model = a;
    }
    nscd_status rc = pull_state(w->model); /* the sizes a new stepper starts from */
    if (rc != NSCD_OK) {
        return rc;
    }
    *model = &w->model->model;
    return NSCD_OK;
}

void nscd__world_model_free(nscd_world *w) {
    if (w->model != NULL) {
        nscd__model_release(&w->model->model);
        free_adapter(w->model);
        w->model = NULL;
    }
}
