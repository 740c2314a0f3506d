/* The rigid-body world's internal layout (docs/world.md), shared by
 * world.c (handle, materials, copy-out), world_body.c (bodies, ids, mass
 * properties), world_step.c (the stages of one step), world_solver.c (its
 * view for the matrix-free block Gauss–Seidel of contact/solvers/block_gs.c) and
 * world_io.c (VTK and CSV).
 *
 * Layout, chosen for the distributed world of issue 15:
 * - bodies live in dense structure-of-arrays storage [0, n_bodies) in the
 *   order they were added; a removed body is only marked dead and the arrays
 *   are compacted, keeping order, at the start of the next step (one O(n)
 *   pass however many bodies were removed, and the storage order stays the
 *   insertion order: deterministic, and what an MPI rank packs and sends);
 * - a slot table maps the slot index of a generational id to the dense index;
 * - shapes live in a dense array, grouped by body in body order
 *   (shape_first / shape_count), compacted with the bodies;
 * - contacts are an array in the collision layer's order, sorted by
 *   (key_a, key_b, feature); last step's contacts stay in a second array so
 *   that warm starting is a merge of two sorted lists (no hash table). */
#ifndef NSCD_MODELS_WORLD_IMPL_H
#define NSCD_MODELS_WORLD_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "collision/collision.h"
#include "contact/solvers/block_gs.h"
#include "core/diag.h"
#include "core/envelope.h"
#include "core/parallel.h"
#include "world/joints/joint.h"
#include "world/material_pairs.h"
#include "nscd/joint.h"
#include "nscd/world.h"
#include "world/world_model.h"
#include "world/world_rigid.h"

/* Defaults of the joint projection (nscd_world_set_joint_projection) and
 * the most ideal-joint rows it projects (its dense W is m x m). */
/* Colours of the colour order (one bit each in a body's uint64_t mask); the
 * contacts beyond them form one more, swept in order by one thread. */
#define NSCD__WORLD_COLOURS 64
/* Largest nscd_world_desc::threads. */
#define NSCD__WORLD_MAX_THREADS 256
#define NSCD__WORLD_PROJECTION_ITERATIONS 10
#define NSCD__WORLD_PROJECTION_TOLERANCE 1e-12
#define NSCD__WORLD_MAX_PROJECTED_ROWS 1024

/* Shapes per body: the shape index takes the low 8 bits of a shape key. */
#define NSCD__WORLD_MAX_SHAPES 256
/* A slot whose generation reaches this is retired: shape keys hold the
 * body id shifted by 8 bits, so generations must fit in 24 bits. */
#define NSCD__WORLD_MAX_GENERATION 0xffffffu

/* One shape, in its body's frame (the centre of mass frame of a dynamic body). */
typedef struct nscd__world_shape {
    int32_t type;
    int32_t body;  /* dense index of its body */
    int32_t index; /* within its body: the low bits of its key */
    int32_t material;
    double radius, half_height;
    double half_extents[3];
    double position[3];
    double rotation[9]; /* shape -> body, row-major */
    uint32_t category, mask;
    /* NSCD_SHAPE_CONVEX: its hull (collision/hull.h), owned by this shape:
     * freed with its body (nscd__world_compact, nscd__world_free_bodies);
     * NULL for the other types. */
    struct nscd__hull *hull;
} nscd__world_shape;

/* The solver's blocks (contact/solvers/block_gs.h): a contact as the solver sees
 * it (bodies are dense indices), the general rows of a contact, parallel to
 * w->contacts, a joint part's block and a mechanism. */
typedef nscd__bgs_contact nscd__world_contact;
typedef nscd__bgs_contact_rows nscd__world_contact_rows;
typedef nscd__bgs_joint_block nscd__world_joint_block;
typedef nscd__bgs_mechanism nscd__world_mechanism;

/* The ideal joints' rows and mechanism factors that the projection's
 * velocity stage left at the end of a world step (world_joint_sweep.c,
 * "the factors' reuse"): the next step's blocks and factors at the same
 * positions, bitwise. A joint's entry holds while its serial, each side's
 * dense index, pose and inverse mass are those recorded (state, 2 x
 * NSCD__WORLD_CACHE_STATE doubles per joint), whatever changed the world
 * in between. */
typedef struct nscd__world_cached_row { /* also the projection's row */
    int32_t joint, part;                /* of the world's joints */
    int32_t body[2];                    /* dense index of a moving side, -1 when it does not move */
    int32_t gap; /* a clearance gap: an inequality, p >= 0, target -tolerance */
    double value;
    double h[2][6]; /* the row on each side's (v, ω) */
    double y[2][6]; /* M^-1 h' on each moving side */
} nscd__world_cached_row;
#define NSCD__WORLD_CACHE_STATE 18 /* index, position, orientation, 1/m, I⁻¹ */
typedef struct nscd__world_joint_cache {
    bool capture; /* set by the world step around its projection */
    int32_t n_joints, joints_capacity;
    int32_t *first_row;   /* per joint: its first row, -1: none */
    int32_t *factor_rows; /* per joint heading a component: its factor's rows, 0: none */
    size_t *factor_at;    /* ... and where it is in factors */
    uint64_t *serial;
    double *state;
    nscd__world_cached_row *rows;
    int32_t n_rows, rows_capacity;
    double *factors;
    size_t n_factors;
    int32_t factors_capacity;
} nscd__world_joint_cache;

/* What a step leaves of a contact: its identity for the next step's warm
 * start and what nscd_world_get_contacts() copies out. */
typedef struct nscd__world_record {
    uint64_t key_a, key_b; /* persistent identity, sorted (key_a, key_b, feature) */
    uint32_t feature;
    nscd_body_id id_a, id_b;
    double point[3], normal[3], gap;
    double x[3];             /* impulse (n, t, o) */
    double impulse_world[3]; /* the same in the world frame (warm start) */
    double angular_world[3]; /* rolling and spinning resistance's angular impulse, world frame */
} nscd__world_record;

/* One joint (world_joint.c): its geometry, its bodies (NSCD_BODY_NULL:
 * the ground) and what the last accepted step of a time stepper left: the
 * impulses of each part (the entries' impulse[3]) and the step. */
typedef struct nscd__world_joint {
    nscd__joint_def def;
    nscd_body_id body[2];
    nscd_joint_id id;
    uint64_t serial; /* creation order: matches entries across updates */
    double impulse[NSCD__JOINT_MAX_PARTS][3];
    double step; /* length of the step the impulses belong to, s (0: none) */
} nscd__world_joint;

struct nscd_world {
    nscd_world_desc desc;
    nscd_allocator allocator;
    nscd_diag diag;
    double time;
    int64_t steps;

    /* Materials: friction per material, and the pairs whose friction was
     * set (a hash table: memory proportional to the pairs set). */
    double *material_mu;
    nscd__material_pairs pairs;
    int32_t n_materials, materials_capacity;
    /* Rolling and spinning resistance lengths (m), 2 per material (rolling,
     * spinning; materials_capacity pairs; NULL until a length is set), and
     * how many materials have one that is not zero (0: no contact pays for
     * resistance). */
    double *material_resistance;
    int32_t resistant_materials;

    /* Bodies, dense SoA. */
    int32_t n_bodies, bodies_capacity, n_dead;
    double *position;          /* 3n: the centre of mass of a dynamic body */
    double *orientation;       /* 4n (w, x, y, z) */
    double *velocity;          /* 3n */
    double *omega;             /* 3n, world frame */
    double *inv_mass;          /* n (0: static, kinematic) */
    double *mass;              /* n */
    double *inertia;           /* 9n: body-frame inertia tensor about the COM */
    double *inv_inertia;       /* 9n: its inverse, body frame */
    double *inv_inertia_world; /* 9n: R I^-1 R', refreshed each step */
    double *bound_radius;      /* n: for the writers */
    /* 3n each, world frame: the applied force through the centre of mass and
     * torque (nscd_world_set_applied_force), zero unless set; read by
     * free_velocities (world_step.c) and the model's forces (world_model.c). */
    double *applied_force, *applied_torque;
    /* Sleeping (world_sleep.c; nscd_world_desc::sleep), n each: how long
     * the body has stayed below the sleep speed (s), and the label of its
     * sleeping island (0: awake; labels from sleep_serial, never reused). */
    double *sleep_timer;
    uint64_t *sleep_island;
    int32_t *type;      /* n: nscd_body_type, -1 when removed */
    int32_t *isotropic; /* n: inertia a multiple of the identity */
    int32_t *shape_first, *shape_count;
    uint64_t *user_id;
    nscd_body_id *id;

    /* Slot table of the generational ids. */
    uint32_t *slot_generation;
    int32_t *slot_dense; /* dense index, -1 when free */
    int32_t *free_slots; /* stack of free slots */
    int32_t n_slots, slots_capacity, n_free;

    /* Shapes, grouped by body. */
    nscd__world_shape *shapes;
    int32_t n_shapes, shapes_capacity;

    /* Collision input (world poses) and the collision layer's buffers. */
    nscd__collision_shape *collision_shapes;
    int32_t collision_shapes_capacity;
    nscd__collision collision;

    /* This step's contacts (the solver's) and the records of the last step's
     * (warm start; copy-out). */
    nscd__world_contact *contacts;
    nscd__world_contact_rows *contact_rows; /* parallel to contacts */
    double *contact_x_start; /* 3 per contact: impulses at a sweep's start (Jacobi blend) */
    int32_t n_contacts, contacts_capacity;
    /* Parallel to contacts, only with resistant materials (contact_resist
     * NULL otherwise): the angular blocks of the contacts whose `resist` is 1. */
    nscd__bgs_contact_resist *contact_resist;
    int32_t contact_resist_capacity;
    nscd__world_record *records;
    int32_t n_records, records_capacity;
    /* This step's light-body clusters (world_solver.c, nscd__bgs_problem):
     * cluster_start (n_clusters + 1) and cluster_contacts index the
     * contacts; body_contacts (bodies + 1 starts, then the lists) is the
     * scratch that finds them. */
    int32_t *cluster_start, *cluster_contacts, *body_contact_start, *body_contact_list;
    int32_t n_clusters, cluster_bodies_capacity, cluster_contacts_capacity;
    /* Sleeping: the dynamic bodies asleep, the last island label given, and
     * the records of the sleeping contacts (neither side awake) a step
     * carries over unsolved, in key order (scratch of the step). */
    int32_t n_sleeping;
    int32_t n_carried, carried_capacity;
    uint64_t sleep_serial;
    nscd__world_record *carried;

    /* Scratch of the solver and the step: velocities before the step (NaN
     * restore), and the snapshot and accumulator of the Jacobi blend. */
    double *saved_velocity, *saved_omega;
    double *snapshot_velocity, *snapshot_omega;
    double *blend_velocity, *blend_omega;
    /* 2 per body: the last group of this sweep that moved it, and how many
     * groups did (the safe blend weight, contact/solvers/block_gs.c jacobi_sweep) */
    int32_t *blend_group;
    /* The velocities that move the positions when the step had a
     * penetration correction (nscd__world_step_relax): those of the solve
     * with the correction; the relax pass then removes it from the velocities. */
    double *position_velocity, *position_omega;
    bool split_positions;
    /* Set by the step around its collision detection: shapes get their
     * speculative reach (world_step.c; the time steppers' detection, whose
     * step the world does not know, has none). */
    bool speculative;
    int32_t scratch_capacity;

    /* Joints in creation order (removal keeps the order) and the slot table
     * of their generational ids (slot: generation, dense index or -1). */
    nscd__world_joint *joints;
    int32_t n_joints, joints_capacity;
    uint32_t *joint_generation;
    int32_t *joint_dense;
    int32_t n_joint_slots, joint_slots_capacity;
    uint64_t joint_serial;
    /* Projection of the ideal joints after each time-stepper step
     * (world_joint_projection.c): Gauss–Newton steps (0: off), tolerance
     * on |Φ|, and its scratch. */
    int32_t projection_iterations;
    double projection_tolerance;
    void *projection_scratch;
    size_t projection_bytes;
    /* The ideal joints' blocks of nscd_world_step (world_joint_sweep.c). */
    nscd__world_joint_block *joint_blocks;
    int32_t n_joint_blocks, joint_blocks_capacity;
    nscd__world_mechanism *mechanisms; /* joint_blocks_capacity of them */
    int32_t n_mechanisms;
    void *joint_scratch; /* the factors (and the grouping, before them) */
    size_t joint_scratch_bytes;
    double *joint_vectors; /* in joint_scratch: a mechanism sweep's right-hand side */
    nscd__world_joint_cache joint_cache;

    /* The world as an nscd__model (world_model.c), created by the first
     * stepper that drives the world; NULL until then. */
    struct nscd__world_model *model;

    /* Threads (desc.threads, core/parallel.h; docs/world.md, "Threads"):
     * the pool or the host's callbacks, and the colour order of the step's
     * contacts (world_colour.c): colour_order lists the contacts by colour,
     * colour c at [colour_start[c], colour_start[c + 1]), the last colour
     * (NSCD__WORLD_COLOURS) the contacts no colour could take; colour_mask:
     * per body, the colours its contacts took; partials: per-chunk sums. */
    nscd__parallel parallel;
    uint64_t *colour_mask;
    int32_t colour_mask_capacity;
    int32_t *colour_order, *colour_of;
    int32_t colour_capacity;
    int32_t colour_start[NSCD__WORLD_COLOURS + 2];
    bool coloured; /* the order is that of the current contacts */
    /* The solve's copy of the contacts in colour order (nscd__world_permute):
     * while `permuted`, contacts/contact_rows hold the colour order and
     * colour_contacts/colour_rows the key order's arrays (swapped, both of
     * colour_contacts_capacity == contacts_capacity). */
    nscd__world_contact *colour_contacts;
    nscd__world_contact_rows *colour_rows;
    int32_t colour_contacts_capacity;
    nscd__bgs_contact_resist *colour_resist; /* as colour_rows, for contact_resist */
    int32_t colour_resist_capacity;
    bool permuted;
    double *partials;
    size_t partials_capacity; /* doubles */
};

/* The colour order of the current contacts (threads >= 1; world_colour.c):
 * computed by nscd__world_warm_start when not yet, dropped (coloured =
 * false) whenever the contacts change. */
nscd_status nscd__world_colour(nscd_world *w);
void nscd__world_free_colours(nscd_world *w);
/* With threads >= 1 (and no Jacobi groups): the contacts put in colour order
 * for the solve (contiguous colours: the sweeps stream them), and back in
 * key order (before the records are stored). Without memory the contacts
 * stay in key order and the solve reads them through the colour order. */
void nscd__world_permute(nscd_world *w);
void nscd__world_unpermute(nscd_world *w);
/* Room for n doubles in w->partials (contents not kept). */
nscd_status nscd__world_reserve_partials(nscd_world *w, size_t n);

/* Records a failure of a read-only call (its world is const to the caller,
 * but its last error is the caller's to read: a getter that fails must not
 * leave an earlier, unrelated message there). Not thread-safe, like every
 * failing call on one handle. */
nscd_status nscd__world_read_fail(const nscd_world *w, nscd_status status, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Bodies (world_body.c). */
void nscd__world_free_bodies(nscd_world *w);
/* Room for bodies, slots and shapes (the checkpoint loader). */
nscd_status nscd__world_reserve_storage(nscd_world *w, int32_t bodies, int32_t slots,
                                        int32_t shapes);
/* Dense index of a live id, or -1. */
int32_t nscd__world_lookup(const nscd_world *w, nscd_body_id id);
/* Removes dense body i (marks it dead; compacted later). */
void nscd__world_kill(nscd_world *w, int32_t i);
/* Compacts the dense arrays after removals, keeping order. */
void nscd__world_compact(nscd_world *w);
/* The scratch arrays for n_bodies bodies. */
nscd_status nscd__world_reserve_scratch(nscd_world *w);

/* Materials (world.c): friction of a contact between two materials. */
double nscd__world_pair_friction(const nscd_world *w, int32_t material_a, int32_t material_b);
/* The rolling and spinning resistance lengths of a contact between two
 * materials (the average of theirs). */
void nscd__world_pair_resistance(const nscd_world *w, int32_t material_a, int32_t material_b,
                                 double *rolling, double *spinning);
/* The zeroed lengths of materials_capacity materials (material_resistance NULL before). */
nscd_status nscd__world_alloc_resistance(nscd_world *w);
/* Room for n contacts' angular blocks (contents not kept). */
nscd_status nscd__world_reserve_resist(nscd_world *w, int32_t n);
/* The world's diagnostics from a const world: a getter that fails records
 * why (its message is the handle's, not part of its state). */
nscd_diag *nscd__world_diag(const nscd_world *w);

/* Solver (world_solver.c): the matrix-free block Gauss–Seidel of
 * contact/solvers/block_gs.h on views of the world's arrays. The view and the
 * options of the world's description: */
nscd__bgs_problem nscd__world_bgs_problem(nscd_world *w);
/* Finds this step's light-body clusters (after the contacts are built). */
nscd_status nscd__world_find_clusters(nscd_world *w);
/* Frees the clusters' arrays. */
void nscd__world_free_clusters(nscd_world *w);
nscd__bgs_options nscd__world_bgs_options(const nscd_world *w, int32_t max_sweeps);
/* Applies the warm-start impulses and runs the sweeps. Returns the sweeps
 * done and the merit of the last one. */
void nscd__world_warm_start(nscd_world *w);
void nscd__world_solve(nscd_world *w, int32_t max_sweeps, int32_t *sweeps, double *merit);
/* The deep-penetration guard's test (nscd_world_desc::deep_penetration):
 * the contacts deeper than the depth at the start of the step that the
 * current velocities still close, and the one they press deepest (gap + dt
 * u_n, its contact index, -1 for none). */
typedef struct nscd__world_deep {
    int32_t count, worst;
    double depth, u_n;
} nscd__world_deep;
nscd__world_deep nscd__world_deep_contacts(nscd_world *w);
/* One sweep over the contacts (Gauss–Seidel, or the Jacobi blend of the
 * world's groups); its merit. */
double nscd__world_sweep(nscd_world *w);

/* The stages of nscd_world_step (world_step.c), also run one by one by the
 * distributed world (mpi/world_mpi_step.c), which exchanges velocities
 * between them:
 *   prepare           compaction, inertia, collision, solver contacts (on
 *                     failure: no contacts; the status)
 *   free_velocities   warm-start merge, velocities saved, v* = v + dt g, ...
 *   warm start, sweeps (above)
 *   finite / restore  the NaN guard: the saved velocities back
 *   integrate         positions and orientations, then the contact records */
nscd_status nscd__world_step_prepare(nscd_world *w, double *max_penetration);
/* Frees the solver contacts and their parallel arrays. */
void nscd__world_free_contacts(nscd_world *w);
/* Moves solver contact `from` to index `to` <= from, with its general rows
 * (the distributed world keeps the contacts a rank resolves). */
void nscd__world_move_contact(nscd_world *w, int32_t from, int32_t to);
void nscd__world_step_free_velocities(nscd_world *w);
bool nscd__world_step_finite(const nscd_world *w);
void nscd__world_step_restore(nscd_world *w);
void nscd__world_step_integrate(nscd_world *w);
/* After the sweeps: drops the penetration correction from every contact's
 * bias; true when a contact had one. The caller then keeps the velocities
 * for the positions (nscd__world_step_keep_position_velocities) and sweeps
 * again (the relax pass), and the integration moves the positions with the
 * kept velocities: the correction moves positions only. */
bool nscd__world_step_relax(nscd_world *w);
void nscd__world_step_keep_position_velocities(nscd_world *w);

/* One body as a flat row (what a rank packs to migrate a body): its state,
 * mass properties and type; the shapes follow separately. */
typedef struct nscd__world_row {
    double position[3], orientation[4], velocity[3], omega[3];
    double mass, inv_mass, inertia[9], inv_inertia[9], bound_radius;
    double applied_force[3], applied_torque[3];
    uint64_t user_id;
    int32_t type, isotropic, shape_count, pad;
} nscd__world_row;
/* Copies dense body i into row (shapes: w->shapes + w->shape_first[i]). */
void nscd__world_get_row(const nscd_world *w, int32_t i, nscd__world_row *row);
/* Appends a body from a row and its shape_count shapes (their `body` field
 * is ignored); a new generational id. Nothing changes on failure. A convex
 * shape's `hull` must be one the caller built (nscd__hull_build with the
 * world's allocator): the world owns it on success, the caller still does
 * on failure. */
nscd_status nscd__world_append_row(nscd_world *w, const nscd__world_row *row,
                                   const nscd__world_shape *shapes, nscd_body_id *id);

/* Stages of world_step.c shared with the model adapter (world_model.c). */
/* Every shape in its world pose, then the collision layer (w->collision). */
nscd_status nscd__world_detect_contacts(nscd_world *w);
/* out = exp(dt om) q, renormalised: the exact rotation by dt |om| about om
 * (world frame); out may be q. */
void nscd__world_rotate(const double *q, const double om[3], double dt, double *out);
/* Removes the dynamic bodies whose centre left the domain box; the count. */
int32_t nscd__world_remove_outside(nscd_world *w);
/* Room for n contact records, keeping the current ones. */
nscd_status nscd__world_reserve_records(nscd_world *w, int32_t n);

/* Joints (world_joint.c). */
void nscd__world_free_joints(nscd_world *w);
/* Removes every joint of a body (its ids become stale). */
void nscd__world_drop_joints(nscd_world *w, nscd_body_id body);
/* The pose of side s of joint j: from the body's world state, or the ground. */
void nscd__world_joint_pose(const nscd_world *w, const nscd__world_joint *j, int s,
                            nscd__joint_pose *pose);
/* Both sides of joint j: their poses, the dense index of each side that
 * moves (-1 otherwise) and the joint's frames (once for all its parts). */
void nscd__world_joint_sides(const nscd_world *w, const nscd__world_joint *j,
                             nscd__joint_pose pose[2], int32_t body[2], nscd__joint_frames *frames);

/* Moves the positions onto the ideal joints' Φ = 0 and the velocities
 * onto H v = 0 (world_joint_projection.c: the world's adapter of the one
 * projection, contact/assembly/projection.h), one mechanism (joints connected
 * through dynamic bodies) at a time, after an accepted step; its checks and
 * scratch come first, before the step (they may fail). */
nscd_status nscd__world_prepare_projection(nscd_world *w);
/* Gaps closer than this (1000 projection tolerances; 0 without projection)
 * are closed: in the projection's velocity stage, and to the steppers, which
 * see each clearance gap as g minus this distance. The redundant gaps of a
 * resting prismatic slider that carry no impulse end a few 1e-11 m open
 * after the projection; they must stay in the active set. */
double nscd__world_contact_distance(const nscd_world *w);
nscd_status nscd__world_project_joints(nscd_world *w);

/* Ideal joints in the world's own step (world_joint_sweep.c): the blocks of
 * every part at the step's poses (warm impulses when the last step had the
 * same dt), their warm start, one Gauss–Seidel pass over them (the merit,
 * m/s) and the impulses kept for the next step (the drift is the world's
 * one projection's, nscd__world_project_joints). Clearance joints are not
 * blocks (yet). */
bool nscd__world_has_clearance_joints(const nscd_world *w);
nscd_status nscd__world_joint_blocks_build(nscd_world *w);
void nscd__world_joint_warm_start(nscd_world *w);
double nscd__world_joint_sweep(nscd_world *w);
void nscd__world_joint_store(nscd_world *w);
void nscd__world_free_joint_blocks(nscd_world *w);
/* The joint cache (world_joint_sweep.c): room for `rows` rows and
 * `factors` doubles of factors, every entry cleared (false: out of memory,
 * nothing cached); one component's entries from the projection; freed. */
bool nscd__world_joint_cache_begin(nscd_world *w, int32_t rows, size_t factors);
void nscd__world_joint_cache_state(const nscd_world *w, int32_t k, double *state);
void nscd__world_free_joint_cache(nscd_world *w);

/* Sleeping (world_sleep.c; docs/world.md, "Sleeping"). Every function is a
 * no-op for a world without sleeping bodies (n_sleeping 0) unless noted. */
/* Whether dense body i sleeps. */
static inline bool nscd__world_asleep(const nscd_world *w, int32_t i) {
    return w->sleep_island[i] != 0;
}
/* Whether dense body i moves in a step: awake dynamic, or kinematic with a
 * velocity (with sleeping bodies, the others are fixed to the detection). */
bool nscd__world_sleep_mover(const nscd_world *w, int32_t i);
/* After the collision detection of a step: wakes every sleeping island a
 * moving body (an awake dynamic one, a kinematic one with a velocity)
 * touches, detecting again until no more wakes. */
nscd_status nscd__world_sleep_wake_touched(nscd_world *w);
/* After the contacts are built: the records of the contacts of sleeping
 * bodies (carried unsolved), and room for them with this step's. */
nscd_status nscd__world_sleep_carry(nscd_world *w);
/* After the records are stored: the carried ones merged back in key order. */
void nscd__world_sleep_merge(nscd_world *w);
/* At the end of a step (sleep on): timers, islands, and the islands that
 * fall asleep. */
void nscd__world_sleep_update(nscd_world *w);
/* Wakes the island of dense body i (a dynamic body; nothing when awake) and
 * restarts the timers of its bodies. */
void nscd__world_wake_island(nscd_world *w, int32_t i);
/* Wakes what dense body i supports or rests on: its island, and the islands
 * of the bodies its last contacts touch (a removed or moved body). */
void nscd__world_wake_touching(nscd_world *w, int32_t i);
/* Wakes every sleeping body (a static body moved, a material changed). */
void nscd__world_wake_all(nscd_world *w);

/* The model adapter (world_model.c; nscd__world_model in world_model.h). */
/* Frees the adapter and clears every stepper's link to it. */
void nscd__world_model_free(nscd_world *w);

#endif
