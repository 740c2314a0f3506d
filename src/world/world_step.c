/* One step of the rigid-body world (seed 002, Sect. 3, eqs. (4)-(5)), as a
 * table of contents of named stages (docs/world.md):
 *
 *   compact_bodies        bodies removed since the last step leave the arrays
 *   refresh_inertia       world-frame inverse inertia R I^-1 R' per body
 *   detect_contacts       shapes in world poses -> collision layer -> points
 *   build_contacts        frames, lever arms, Delassus blocks, μ, ξ/dt bias
 *   warm_start_merge      last step's impulses by key (merge of sorted lists)
 *   free_velocities       v* = v + dt g + dt F/m, ω* = ω + dt I^-1 τ, gyroscopic
 *                         term (world_rigid.c, nscd__world_free_motion)
 *   solve                 warm start, block Gauss–Seidel sweeps (world_solver.c)
 *   integrate_positions   x' = x + dt v', φ' = exp(dt ω') φ (renormalised)
 *   store_records         keys, geometry, impulses: next warm start, copy-out
 *   remove_outside        bodies whose centre left the domain box
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "contact/single/friction_cone.h"
#include "core/memory.h"
#include "core/struct_sizes.h"
#include "core/vec3.h"
#include "world/world_impl.h"

/* ------------------------------------------------------------ helpers */

/* C = A B (3x3, row-major). */
static void mat_mul(const double A[9], const double B[9], double C[9]) {
    for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 3; ++c) {
            C[3 * r + c] = A[3 * r] * B[c] + A[3 * r + 1] * B[3 + c] + A[3 * r + 2] * B[6 + c];
        }
    }
}

/* ------------------------------------------------------------ stages */

/* Bodies per task of the per-body stages (each body on its own: any cut
 * gives the same bits). */
#define BODY_RANGE 512

static void refresh_inertia_range(int32_t begin, int32_t end, int32_t worker, void *ctx) {
    (void)worker;
    nscd_world *w = ctx;
    for (int32_t i = begin; i < end; ++i) {
        double *out = w->inv_inertia_world + 9 * (size_t)i;
        const double *inv = w->inv_inertia + 9 * (size_t)i;
        if (w->type[i] != NSCD_BODY_DYNAMIC || w->isotropic[i]) {
            memcpy(out, inv, 9 * sizeof(double)); /* zero, or a multiple of E */
            continue;
        }
        double R[9], RI[9], Rt[9];
        nscd__q_to_rows(w->orientation + 4 * (size_t)i, R);
        for (int r = 0; r < 3; ++r) {
            for (int c = 0; c < 3; ++c) {
                Rt[3 * r + c] = R[3 * c + r];
            }
        }
        mat_mul(R, inv, RI);
        mat_mul(RI, Rt, out);
    }
}

static void refresh_inertia(nscd_world *w) {
    nscd__parallel_for(&w->parallel, w->n_bodies, BODY_RANGE, refresh_inertia_range, w);
}

static nscd_status reserve_collision_shapes(nscd_world *w) {
    if (w->n_shapes <= w->collision_shapes_capacity) {
        return NSCD_OK;
    }
    size_t cap = (size_t)w->shapes_capacity;
    nscd__collision_shape *s = nscd__alloc_array(&w->allocator, cap, sizeof *s);
    if (s == NULL) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    nscd__free(&w->allocator, w->collision_shapes,
               (size_t)w->collision_shapes_capacity * sizeof *s);
    w->collision_shapes = s;
    w->collision_shapes_capacity = (int32_t)cap;
    return NSCD_OK;
}

/* Every shape in its world pose, then the collision layer. */
/* How much farther than half the contact margin body i may travel in this
 * step: dt times a bound of the speed of any of its points (|v| + |ω| times
 * its bounding radius, plus what gravity adds), less margin / 2, which the
 * margin already covers. 0 for bodies too slow to matter (the margin is
 * enough, and such scenes detect exactly as before) and for static ones. */
static double speculative_reach(const nscd_world *w, int32_t i) {
    if (w->type[i] == NSCD_BODY_STATIC) {
        return 0.0;
    }
    const double *v = w->velocity + 3 * (size_t)i, *om = w->omega + 3 * (size_t)i;
    const double *g = w->desc.gravity;
    double speed = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) +
                   sqrt(om[0] * om[0] + om[1] * om[1] + om[2] * om[2]) * w->bound_radius[i];
    if (w->type[i] == NSCD_BODY_DYNAMIC) {
        speed += w->desc.dt * sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
    }
    double reach = w->desc.dt * speed - 0.5 * w->desc.contact_margin;
    return reach > 0.0 && isfinite(reach) ? reach : 0.0;
}

static void world_shapes_range(int32_t begin, int32_t end, int32_t worker, void *ctx) {
    (void)worker;
    nscd_world *w = ctx;
    for (int32_t s = begin; s < end; ++s) {
        const nscd__world_shape *sh = &w->shapes[s];
        nscd__collision_shape *c = &w->collision_shapes[s];
        int32_t i = sh->body;
        double R[9], p[3];
        nscd__q_to_rows(w->orientation + 4 * (size_t)i, R);
        nscd__world_mat_vec(R, sh->position, p);
        for (int k = 0; k < 3; ++k) {
            c->position[k] = w->position[3 * (size_t)i + k] + p[k];
        }
        mat_mul(R, sh->rotation, c->rotation);
        c->type = sh->type;
        c->body = i;
        c->key = nscd__shape_key(w->id[i], sh->index);
        c->radius = sh->radius;
        c->half_height = sh->half_height;
        memcpy(c->half_extents, sh->half_extents, sizeof c->half_extents);
        c->category = sh->category;
        c->mask = sh->mask;
        c->hull = sh->hull;
        /* with sleeping bodies: what does not move this step (a sleeping
         * body, a kinematic one at rest) is fixed, and a moving kinematic
         * body is not (it wakes what it touches) */
        c->fixed =
            w->n_sleeping > 0 ? !nscd__world_sleep_mover(w, i) : w->type[i] != NSCD_BODY_DYNAMIC;
        c->reach = w->speculative ? speculative_reach(w, i) : 0.0;
    }
}

nscd_status nscd__world_detect_contacts(nscd_world *w) {
    if (reserve_collision_shapes(w) != NSCD_OK) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    nscd__parallel_for(&w->parallel, w->n_shapes, BODY_RANGE, world_shapes_range, w);
    return nscd__collide(&w->collision, w->collision_shapes, w->n_shapes, w->desc.contact_margin);
}

void nscd__world_free_contacts(nscd_world *w) {
    size_t cap = (size_t)w->contacts_capacity;
    nscd__free(&w->allocator, w->contacts, cap * sizeof(nscd__world_contact));
    nscd__free(&w->allocator, w->contact_rows, cap * sizeof(nscd__world_contact_rows));
    nscd__free(&w->allocator, w->contact_x_start, 3 * cap * sizeof(double));
    nscd__free(&w->allocator, w->contact_resist,
               (size_t)w->contact_resist_capacity * sizeof(nscd__bgs_contact_resist));
    w->contact_resist = NULL;
    w->contact_resist_capacity = 0;
    w->contacts = NULL;
    w->contact_rows = NULL;
    w->contact_x_start = NULL;
    w->contacts_capacity = 0;
}

void nscd__world_move_contact(nscd_world *w, int32_t from, int32_t to) {
    w->contacts[to] = w->contacts[from];
    if (!w->contacts[from].diagonal) { /* a diagonal contact has no rows */
        w->contact_rows[to] = w->contact_rows[from];
    }
    if (w->contacts[from].resist) { /* nor one without resistance an angular block */
        w->contact_resist[to] = w->contact_resist[from];
    }
}

nscd_status nscd__world_reserve_resist(nscd_world *w, int32_t n) {
    if (n <= w->contact_resist_capacity && w->contact_resist != NULL) {
        return NSCD_OK;
    }
    size_t cap = w->contact_resist_capacity > 0 ? (size_t)w->contact_resist_capacity : 64;
    while (cap < (size_t)n) {
        cap *= 2;
    }
    nscd__bgs_contact_resist *r = nscd__alloc_array(&w->allocator, cap, sizeof *r);
    if (r == NULL) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    nscd__free(&w->allocator, w->contact_resist, (size_t)w->contact_resist_capacity * sizeof *r);
    w->contact_resist = r;
    w->contact_resist_capacity = (int32_t)cap;
    return NSCD_OK;
}

/* Room for n solver contacts and their parallel arrays (their contents
 * need not survive). */
static nscd_status reserve_contacts(nscd_world *w, int32_t n) {
    nscd__array arrays[3] = {{(void **)&w->contacts, sizeof(nscd__world_contact), 0},
                             {(void **)&w->contact_rows, sizeof(nscd__world_contact_rows), 0},
                             {(void **)&w->contact_x_start, 3 * sizeof(double), 0}};
    return nscd__reserve_arrays(&w->allocator, arrays, 3, &w->contacts_capacity, n);
}

/* True when body i is moving and shape s is a sphere centred at the body's
 * centre of mass with isotropic inertia: its lever arm is then r = l n. */
static bool centred_sphere(const nscd_world *w, const nscd__world_shape *s) {
    return w->type[s->body] == NSCD_BODY_DYNAMIC && w->isotropic[s->body] &&
           s->type == NSCD_SHAPE_SPHERE && s->position[0] == 0.0 && s->position[1] == 0.0 &&
           s->position[2] == 0.0;
}

/* The lever arm of a point from the centre of mass of body i. */
static void lever_arm(const nscd_world *w, int32_t i, const double point[3], double r[3]) {
    nscd__world_lever(point, w->position + 3 * (size_t)i, r);
}

/* The frame components of the contact-point velocity v + ω x r of a body
 * that does not move in the solve (static, kinematic): a constant. */
static void fixed_velocity(const nscd_world *w, int32_t i, const double point[3],
                           const double frame[9], double u[3]) {
    double r[3], vp[3];
    lever_arm(w, i, point, r);
    nscd__world_point_velocity(w->velocity + 3 * (size_t)i, w->omega + 3 * (size_t)i, r, vp);
    nscd__world_mat_vec(frame, vp, u);
}

/* General rows of a moving body: angular rows r x e_k and responses
 * I^-1 (r x e_k). */
static void body_rows(const nscd_world *w, int32_t i, const double point[3], const double frame[9],
                      double ang[9], double resp[9]) {
    double r[3];
    lever_arm(w, i, point, r);
    const double *Iw = w->inv_inertia_world + 9 * (size_t)i;
    for (int k = 0; k < 3; ++k) {
        nscd__world_angular_row(r, frame + 3 * k, ang + 3 * k);
        nscd__world_mat_vec(Iw, ang + 3 * k, resp + 3 * k);
    }
}

/* A_kl = (1/m_a + 1/m_b) δ_kl + ang_a[k]·resp_a[l] + ang_b[k]·resp_b[l],
 * computed on and above the diagonal and mirrored, so it is exactly
 * symmetric. */
static void general_delassus(const nscd__world_contact *c, nscd__world_contact_rows *r) {
    double m = c->inv_mass_a + c->inv_mass_b;
    for (int k = 0; k < 3; ++k) {
        for (int l = k; l < 3; ++l) {
            double v = nscd__dot3(r->ang_a + 3 * k, r->resp_a + 3 * l) +
                       nscd__dot3(r->ang_b + 3 * k, r->resp_b + 3 * l) + (k == l ? m : 0.0);
            r->A[3 * k + l] = r->A[3 * l + k] = v;
        }
    }
}

/* A diagonal contact: r = l n with l = (p - x)·n, so r x n = 0 and
 * A = diag(a_n, a_t, a_t), a_n = 1/m_a + 1/m_b, a_t = a_n + l_a^2/I_a + l_b^2/I_b. */
static void diagonal_rows(const nscd_world *w, nscd__world_contact *c, const double point[3]) {
    double r[3];
    c->lever_a = c->lever_b = c->inv_inertia_a = c->inv_inertia_b = 0.0;
    if (c->a_moves) {
        lever_arm(w, c->a, point, r);
        c->lever_a = nscd__dot3(r, c->frame);
        c->inv_inertia_a = w->inv_inertia[9 * (size_t)c->a];
    }
    if (c->b_moves) {
        lever_arm(w, c->b, point, r);
        c->lever_b = nscd__dot3(r, c->frame);
        c->inv_inertia_b = w->inv_inertia[9 * (size_t)c->b];
    }
    double an = c->inv_mass_a + c->inv_mass_b;
    double at = an + c->lever_a * c->lever_a * c->inv_inertia_a +
                c->lever_b * c->lever_b * c->inv_inertia_b;
    c->a_n = an;
    c->a_t = at;
}

/* The rows of one contact (r: its general rows); false when they cannot be
 * factored (a degenerate body: the contact is skipped). */
static bool contact_rows(const nscd_world *w, nscd__world_contact *c, nscd__world_contact_rows *r,
                         const nscd__world_shape *sa, const nscd__world_shape *sb,
                         const double point[3]) {
    c->diagonal = (!c->a_moves || centred_sphere(w, sa)) && (!c->b_moves || centred_sphere(w, sb));
    if (c->diagonal) {
        diagonal_rows(w, c, point);
        return true;
    }
    memset(r, 0, sizeof *r);
    if (c->a_moves) {
        body_rows(w, c->a, point, c->frame, r->ang_a, r->resp_a);
    }
    if (c->b_moves) {
        body_rows(w, c->b, point, c->frame, r->ang_b, r->resp_b);
    }
    general_delassus(c, r);
    return nscd__bgs_contact_rows_factor(r);
}

/* The angular block of a contact with rolling or spinning resistance
 * (block_gs.h, nscd__bgs_contact_resist): K = F (I_a⁻¹ + I_b⁻¹) Fᵀ of the
 * moving sides (a diagonal contact: (1/I_a + 1/I_b) E exactly, its bodies'
 * inertia being isotropic), their responses I⁻¹ e_k, and the frame
 * components of the fixed sides' ω_b − ω_a. */
static void resist_rows(const nscd_world *w, const nscd__world_contact *c,
                        nscd__bgs_contact_resist *r, double rolling, double spinning) {
    memset(r, 0, sizeof *r);
    r->rolling = rolling;
    r->spinning = spinning;
    double rel[3] = {0.0, 0.0, 0.0};
    if (!c->b_moves) {
        for (int k = 0; k < 3; ++k) {
            rel[k] += w->omega[3 * (size_t)c->b + k];
        }
    }
    if (!c->a_moves) {
        for (int k = 0; k < 3; ++k) {
            rel[k] -= w->omega[3 * (size_t)c->a + k];
        }
    }
    nscd__world_mat_vec(c->frame, rel, r->w_fixed);
    const int32_t bodies[2] = {c->a, c->b};
    const uint8_t moves[2] = {c->a_moves, c->b_moves};
    double *resp[2] = {r->resp_a, r->resp_b};
    for (int s = 0; s < 2; ++s) {
        if (!moves[s]) {
            continue;
        }
        const double *Iw = w->inv_inertia_world + 9 * (size_t)bodies[s];
        for (int k = 0; k < 3; ++k) {
            if (c->diagonal) {
                for (int l = 0; l < 3; ++l) {
                    resp[s][3 * k + l] = Iw[0] * c->frame[3 * k + l];
                }
            } else {
                nscd__world_mat_vec(Iw, c->frame + 3 * k, resp[s] + 3 * k);
            }
        }
    }
    if (c->diagonal) {
        double k = c->inv_inertia_a + c->inv_inertia_b;
        r->K[0] = r->K[4] = r->K[8] = k;
        return;
    }
    for (int k = 0; k < 3; ++k) {
        for (int l = k; l < 3; ++l) {
            double v = nscd__dot3(c->frame + 3 * k, r->resp_a + 3 * l) +
                       nscd__dot3(c->frame + 3 * k, r->resp_b + 3 * l);
            r->K[3 * k + l] = r->K[3 * l + k] = v;
        }
    }
}

/* The penetration correction ε ξ/dt (rate = ξ/dt < 0) of the normal row,
 * bounded by max_correction_speed: an overlap is removed at that speed at
 * most, never launched (issue 24; Box2D's contactPushoutVelocity). */
static double correction(const nscd_world *w, double rate) {
    double c = w->desc.error_reduction * rate;
    return c < -w->desc.max_correction_speed ? -w->desc.max_correction_speed : c;
}

/* One solver contact from a contact point; false when neither body moves
 * or its block cannot be factored. */
static bool make_contact(nscd_world *w, const nscd__contact_point *p, nscd__world_contact *c,
                         nscd__world_contact_rows *rows, nscd__bgs_contact_resist *resist) {
    const nscd__world_shape *sa = &w->shapes[p->shape_a], *sb = &w->shapes[p->shape_b];
    c->a = sa->body;
    c->b = sb->body;
    c->a_moves = w->type[c->a] == NSCD_BODY_DYNAMIC;
    c->b_moves = w->type[c->b] == NSCD_BODY_DYNAMIC;
    if (!c->a_moves && !c->b_moves) {
        return false;
    }
    c->inv_mass_a = c->a_moves ? w->inv_mass[c->a] : 0.0;
    c->inv_mass_b = c->b_moves ? w->inv_mass[c->b] : 0.0;
    memcpy(c->frame, p->normal, 3 * sizeof(double));
    nscd__world_tangents(c->frame, c->frame + 3, c->frame + 6);
    c->u_fixed[0] = c->u_fixed[1] = c->u_fixed[2] = 0.0;
    double u[3];
    if (!c->a_moves) {
        fixed_velocity(w, c->a, p->point, c->frame, u);
        c->u_fixed[0] = -u[0], c->u_fixed[1] = -u[1], c->u_fixed[2] = -u[2];
    }
    if (!c->b_moves) {
        fixed_velocity(w, c->b, p->point, c->frame, c->u_fixed);
    }
    if (!contact_rows(w, c, rows, sa, sb, p->point)) {
        return false;
    }
    c->mu = nscd__world_pair_friction(w, sa->material, sb->material);
    c->resist = 0;
    if (w->resistant_materials > 0) { /* resist != NULL: reserved by build_contacts */
        double rolling = 0.0, spinning = 0.0;
        nscd__world_pair_resistance(w, sa->material, sb->material, &rolling, &spinning);
        if (rolling > 0.0 || spinning > 0.0) {
            c->resist = 1;
            resist_rows(w, c, resist, rolling, spinning);
        }
    }
    double rate = p->gap / w->desc.dt;
    c->bias = rate < 0.0 ? correction(w, rate) : rate; /* after eq. (4) */
    c->x[0] = c->x[1] = c->x[2] = 0.0;
    return true;
}

/* The threaded build: contact point j into slot j (source -1: skipped),
 * chunk k's largest penetration in partials[k]. */
static void build_range(int32_t begin, int32_t end, int32_t worker, void *ctx) {
    (void)worker;
    nscd_world *w = ctx;
    const nscd__collision *col = &w->collision;
    for (int32_t k = begin; k < end; ++k) {
        int32_t lo = k * NSCD__CHUNK;
        int32_t hi = col->n_contacts - lo > NSCD__CHUNK ? lo + NSCD__CHUNK : col->n_contacts;
        double pen = 0.0;
        for (int32_t j = lo; j < hi; ++j) {
            nscd__world_contact *c = &w->contacts[j];
            if (make_contact(w, &col->contacts[j], c, &w->contact_rows[j],
                             w->contact_resist != NULL ? &w->contact_resist[j] : NULL)) {
                c->source = j;
                pen = -col->contacts[j].gap > pen ? -col->contacts[j].gap : pen;
            } else {
                c->source = -1;
            }
        }
        w->partials[k] = pen;
    }
}

/* build_contacts with threads: the same contacts (each is made alone; the
 * skipped ones leave, in order, the slots of the kept ones) and the same
 * largest penetration (a maximum, whatever the order). */
static nscd_status build_contacts_threaded(nscd_world *w, double *max_penetration) {
    const nscd__collision *col = &w->collision;
    int32_t chunks = nscd__chunks(col->n_contacts);
    if (nscd__world_reserve_partials(w, (size_t)chunks + 1) != NSCD_OK) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    nscd__parallel_for(&w->parallel, chunks, 1, build_range, w);
    double pen = 0.0;
    for (int32_t k = 0; k < chunks; ++k) {
        pen = w->partials[k] > pen ? w->partials[k] : pen;
    }
    int32_t n = 0;
    for (int32_t j = 0; j < col->n_contacts; ++j) {
        if (w->contacts[j].source < 0) {
            continue;
        }
        if (n != j) {
            nscd__world_move_contact(w, j, n);
        }
        ++n;
    }
    w->n_contacts = n;
    *max_penetration = pen;
    return NSCD_OK;
}

static nscd_status build_contacts(nscd_world *w, double *max_penetration) {
    const nscd__collision *col = &w->collision;
    if (reserve_contacts(w, col->n_contacts) != NSCD_OK ||
        (w->resistant_materials > 0 && nscd__world_reserve_resist(w, col->n_contacts) != NSCD_OK)) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    w->coloured = false;
    if (w->parallel.threads >= 1) {
        return build_contacts_threaded(w, max_penetration);
    }
    int32_t n = 0;
    double pen = 0.0;
    for (int32_t j = 0; j < col->n_contacts; ++j) {
        if (make_contact(w, &col->contacts[j], &w->contacts[n], &w->contact_rows[n],
                         w->contact_resist != NULL ? &w->contact_resist[n] : NULL)) {
            w->contacts[n].source = j;
            pen = -col->contacts[j].gap > pen ? -col->contacts[j].gap : pen;
            ++n;
        }
    }
    w->n_contacts = n;
    *max_penetration = pen;
    return NSCD_OK;
}

/* -1, 0, 1 as the key of a orders before, with or after that of b. */
static int compare_keys(const nscd__world_record *a, const nscd__contact_point *b) {
    if (a->key_a != b->key_a) {
        return a->key_a < b->key_a ? -1 : 1;
    }
    if (a->key_b != b->key_b) {
        return a->key_b < b->key_b ? -1 : 1;
    }
    if (a->feature != b->feature) {
        return a->feature < b->feature ? -1 : 1;
    }
    return 0;
}

/* Last step's angular impulse in the new frame, projected on its bounds
 * (x_n the warm start's normal impulse): m_n clamped to ±μ_s x_n, the
 * rolling part shortened to μ_r x_n (the start must be admissible, as the
 * linear one, for the sweeps to descend). */
static void merge_resist(nscd__bgs_contact_resist *r, const nscd__world_contact *c,
                         const nscd__world_record *old) {
    double *m = r->m;
    for (int k = 0; k < 3; ++k) {
        m[k] = nscd__dot3(c->frame + 3 * k, old->angular_world);
    }
    double spin = r->spinning * c->x[0], roll = r->rolling * c->x[0];
    m[0] = m[0] > spin ? spin : (m[0] < -spin ? -spin : m[0]);
    double t2 = m[1] * m[1] + m[2] * m[2];
    if (t2 > roll * roll) {
        double f = t2 > 0.0 && roll > 0.0 ? roll / sqrt(t2) : 0.0;
        m[1] *= f;
        m[2] *= f;
    }
}

/* Both lists are sorted by (key_a, key_b, feature): one merge pass finds
 * every contact that persists and starts it from last step's impulse,
 * projected on its new frame (the tangents may have turned). */
static void merge_in(nscd_world *w, int32_t i, int32_t j, int32_t end) {
    const nscd__contact_point *points = w->collision.contacts;
    while (i < w->n_records && j < end) {
        const nscd__world_record *old = &w->records[i];
        nscd__world_contact *c = &w->contacts[j];
        int order = compare_keys(old, &points[c->source]);
        if (order < 0) {
            ++i;
        } else if (order > 0) {
            ++j;
        } else {
            for (int k = 0; k < 3; ++k) {
                c->x[k] = nscd__dot3(c->frame + 3 * k, old->impulse_world);
            }
            /* Last step's impulse seen in a turned frame need not fit the
             * cone (a frictionless contact whose normal turned gets x_t != 0),
             * and a start outside it breaks the sweeps' descent: the first
             * block update takes the excess back along a direction that can
             * raise the contact energy (docs/fuzzing.md, World 1). Cut back
             * radially. */
            nscd__cone_cut(c->x, c->mu);
            if (c->resist) {
                merge_resist(&w->contact_resist[j], c, old);
            }
            ++i, ++j;
        }
    }
}

/* Contacts per chunk of the threaded merge. */
#define MERGE_CHUNK 2048

/* The merge of each chunk of MERGE_CHUNK contacts from the first record not
 * before its first contact (binary search): each contact meets the record
 * of its key (the keys are unique), as in the one merge pass. */
static void merge_chunk(nscd_world *w, int32_t begin, int32_t end) {
    const nscd__contact_point *first = &w->collision.contacts[w->contacts[begin].source];
    int32_t lo = 0, hi = w->n_records;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (compare_keys(&w->records[mid], first) < 0) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    merge_in(w, lo, begin, end);
}

static void merge_range(int32_t begin, int32_t end, int32_t worker, void *ctx) {
    (void)worker;
    nscd_world *w = ctx;
    for (int32_t k = begin; k < end; ++k) {
        int32_t lo = k * MERGE_CHUNK;
        merge_chunk(w, lo, w->n_contacts - lo > MERGE_CHUNK ? lo + MERGE_CHUNK : w->n_contacts);
    }
}

static void warm_start_merge(nscd_world *w) {
    if (w->parallel.threads < 1) {
        merge_in(w, 0, 0, w->n_contacts);
        return;
    }
    int32_t chunks = (w->n_contacts + MERGE_CHUNK - 1) / MERGE_CHUNK;
    nscd__parallel_for(&w->parallel, chunks, 1, merge_range, w);
}

/* v* = v + dt g + dt F/m; ω* = ω + dt I⁻¹ τ, then the gyroscopic term of
 * eq. (4) by the implicit midpoint rule in the body frame (world_rigid.c:
 * nscd__world_free_motion; it keeps the rotational energy and |L|; the
 * explicit form added energy at every step; zero for an isotropic body). */
static void free_velocities_range(int32_t begin, int32_t end, int32_t worker, void *ctx) {
    (void)worker;
    nscd_world *w = ctx;
    double dt = w->desc.dt;
    for (int32_t i = begin; i < end; ++i) {
        if (w->type[i] != NSCD_BODY_DYNAMIC ||
            w->sleep_island[i] != 0) { /* a sleeping one: at rest */
            continue;
        }
        nscd__world_free_motion(w, i, dt);
    }
}

static void free_velocities(nscd_world *w) {
    nscd__parallel_for(&w->parallel, w->n_bodies, BODY_RANGE, free_velocities_range, w);
}

/* x' = x + dt v'; φ' = exp(dt ω') φ, renormalised: the exact rotation by the
 * angle dt |ω'| about ω' (world frame, so it multiplies from the left). */
static void integrate_range(int32_t begin, int32_t end, int32_t worker, void *ctx) {
    (void)worker;
    nscd_world *w = ctx;
    double dt = w->desc.dt;
    /* with a penetration correction, the velocities of the solve with it */
    const double *vel = w->split_positions ? w->position_velocity : w->velocity;
    const double *omg = w->split_positions ? w->position_omega : w->omega;
    for (int32_t i = begin; i < end; ++i) {
        if (w->type[i] == NSCD_BODY_STATIC || (w->type[i] >= 0 && w->sleep_island[i] != 0)) {
            continue; /* a sleeping body's pose stays bitwise */
        }
        double *x = w->position + 3 * (size_t)i, *q = w->orientation + 4 * (size_t)i;
        const double *v = vel + 3 * (size_t)i, *om = omg + 3 * (size_t)i;
        for (int k = 0; k < 3; ++k) {
            x[k] += dt * v[k];
        }
        nscd__world_rotate(q, om, dt, q);
    }
}

static void integrate_positions(nscd_world *w) {
    nscd__parallel_for(&w->parallel, w->n_bodies, BODY_RANGE, integrate_range, w);
    w->split_positions = false;
}

void nscd__world_rotate(const double *q, const double om[3], double dt, double *out) {
    double rate = sqrt(nscd__dot3(om, om));
    if (rate == 0.0) {
        memmove(out, q, 4 * sizeof(double));
        return;
    }
    double half = 0.5 * dt * rate, s = sin(half) / rate;
    nscd__quat dq = {cos(half), s * om[0], s * om[1], s * om[2]};
    nscd__quat r = nscd__q_normalize(nscd__q_mul(dq, (nscd__quat){q[0], q[1], q[2], q[3]}));
    out[0] = r.w, out[1] = r.x, out[2] = r.y, out[3] = r.z;
}

int32_t nscd__world_remove_outside(nscd_world *w) {
    if (!w->desc.use_domain) {
        return 0;
    }
    int32_t removed = 0;
    const double *lo = w->desc.domain_min, *hi = w->desc.domain_max;
    for (int32_t i = 0; i < w->n_bodies; ++i) {
        const double *x = w->position + 3 * (size_t)i;
        if (w->type[i] == NSCD_BODY_DYNAMIC && !(x[0] >= lo[0] && x[0] <= hi[0] && x[1] >= lo[1] &&
                                                 x[1] <= hi[1] && x[2] >= lo[2] && x[2] <= hi[2])) {
            nscd__world_kill(w, i);
            ++removed;
        }
    }
    return removed;
}

nscd_status nscd__world_reserve_records(nscd_world *w, int32_t n) {
    if (n <= w->records_capacity) {
        return NSCD_OK;
    }
    size_t cap = w->records_capacity ? (size_t)w->records_capacity : 64;
    while (cap < (size_t)n) {
        cap *= 2;
    }
    nscd__world_record *r = nscd__alloc_array(&w->allocator, cap, sizeof *r);
    if (r == NULL) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    if (w->n_records > 0) { /* last step's, still needed by the warm start */
        memcpy(r, w->records, (size_t)w->n_records * sizeof *r);
    }
    nscd__free(&w->allocator, w->records, (size_t)w->records_capacity * sizeof *r);
    w->records = r;
    w->records_capacity = (int32_t)cap;
    return NSCD_OK;
}

/* What the step leaves of its contacts: identity, geometry and impulses
 * (also in the world frame, for the next step's warm start). */
static void store_records_range(int32_t begin, int32_t end, int32_t worker, void *ctx) {
    (void)worker;
    nscd_world *w = ctx;
    const nscd__contact_point *points = w->collision.contacts;
    for (int32_t j = begin; j < end; ++j) {
        const nscd__world_contact *c = &w->contacts[j];
        const nscd__contact_point *p = &points[c->source];
        nscd__world_record *r = &w->records[j];
        r->key_a = p->key_a;
        r->key_b = p->key_b;
        r->feature = p->feature;
        r->id_a = w->id[c->a];
        r->id_b = w->id[c->b];
        memcpy(r->point, p->point, sizeof r->point);
        memcpy(r->normal, c->frame, sizeof r->normal);
        r->gap = p->gap;
        memcpy(r->x, c->x, sizeof r->x);
        for (int k = 0; k < 3; ++k) {
            r->impulse_world[k] =
                c->frame[k] * c->x[0] + c->frame[3 + k] * c->x[1] + c->frame[6 + k] * c->x[2];
        }
        r->angular_world[0] = r->angular_world[1] = r->angular_world[2] = 0.0;
        if (c->resist) {
            const double *m = w->contact_resist[j].m;
            for (int k = 0; k < 3; ++k) {
                r->angular_world[k] =
                    c->frame[k] * m[0] + c->frame[3 + k] * m[1] + c->frame[6 + k] * m[2];
            }
        }
    }
}

static void store_records(nscd_world *w) {
    nscd__parallel_for(&w->parallel, w->n_contacts, BODY_RANGE, store_records_range, w);
    w->n_records = w->n_contacts;
}

/* The first body that integrate_positions would not keep finite, or -1:
 * a non-finite velocity, a non-finite position x + dt v (computed as it will
 * be) or rotation angle dt |ω| (nscd__world_rotate then gives a unit
 * quaternion). Checked before anything moves, so that a refused step leaves
 * the world as it was (issue 25: dt = 1e200 had put positions at -inf with
 * NSCD_OK). */
static int32_t first_non_finite_in(const nscd_world *w, int32_t begin, int32_t end) {
    double dt = w->desc.dt;
    for (int32_t i = begin; i < end; ++i) {
        const double *x = w->position + 3 * (size_t)i;
        const double *v = w->velocity + 3 * (size_t)i, *om = w->omega + 3 * (size_t)i;
        bool moves = w->type[i] != NSCD_BODY_STATIC;
        double rate = sqrt(om[0] * om[0] + om[1] * om[1] + om[2] * om[2]);
        if (!isfinite(v[0] + v[1] + v[2] + om[0] + om[1] + om[2]) ||
            (moves && !(isfinite(x[0] + dt * v[0]) && isfinite(x[1] + dt * v[1]) &&
                        isfinite(x[2] + dt * v[2]) && isfinite(0.5 * dt * rate)))) {
            return i;
        }
    }
    return -1;
}

/* Chunk k's first body that is not finite, or -1, in partials[k]. */
static void non_finite_range(int32_t begin, int32_t end, int32_t worker, void *ctx) {
    (void)worker;
    const nscd_world *w = ctx;
    for (int32_t k = begin; k < end; ++k) {
        int32_t lo = k * NSCD__CHUNK;
        int32_t hi = w->n_bodies - lo > NSCD__CHUNK ? lo + NSCD__CHUNK : w->n_bodies;
        w->partials[k] = (double)first_non_finite_in(w, lo, hi);
    }
}

static int32_t first_non_finite(const nscd_world *w) {
    int32_t chunks = nscd__chunks(w->n_bodies);
    if (w->parallel.threads < 2 || (size_t)chunks > w->partials_capacity) {
        return first_non_finite_in(w, 0, w->n_bodies);
    }
    nscd__parallel_for(&w->parallel, chunks, 4, non_finite_range, (void *)(uintptr_t)w);
    for (int32_t k = 0; k < chunks; ++k) { /* the first chunk's first: the serial answer */
        if (w->partials[k] >= 0.0) {
            return (int32_t)w->partials[k];
        }
    }
    return -1;
}

static bool velocities_finite(const nscd_world *w) { return first_non_finite(w) < 0; }

/* Restores the velocities of before the step and names what failed: the
 * step, the stage and the body (id and user id). */
static nscd_status non_finite_failure(nscd_world *w, int32_t i, const char *stage) {
    nscd_body_id id = w->id[i];
    unsigned long long user = (unsigned long long)w->user_id[i];
    nscd__world_step_restore(w);
    const double *om = w->omega + 3 * (size_t)i; /* as before the step */
    double spin = hypot(hypot(om[0], om[1]), om[2]);
    return nscd__fail(
        &w->diag, NSCD_ERR_NOT_FINITE,
        "step %lld (t = %.17g s), %s: body %llu (user id %llu) would get a non-finite "
        "velocity, position or orientation (|omega| %g rad/s before the step); the "
        "step is undone",
        (long long)w->steps + 1, w->time, stage, (unsigned long long)id, user, spin);
}

typedef struct copy_job {
    double *to[2];
    const double *from[2];
} copy_job;

/* Bodies [begin, end) of two 3n arrays. */
static void copy_range(int32_t begin, int32_t end, int32_t worker, void *ctx) {
    (void)worker;
    const copy_job *t = ctx;
    size_t at = 3 * (size_t)begin, bytes = 3 * (size_t)(end - begin) * sizeof(double);
    memcpy(t->to[0] + at, t->from[0] + at, bytes);
    memcpy(t->to[1] + at, t->from[1] + at, bytes);
}

static void save_velocities(nscd_world *w, bool restore) {
    size_t bytes = 3 * (size_t)w->n_bodies * sizeof(double);
    if (bytes == 0) { /* an empty world: the arrays may be NULL */
        return;
    }
    if (w->parallel.threads >= 2) {
        copy_job job = {{w->saved_velocity, w->saved_omega}, {w->velocity, w->omega}};
        if (restore) {
            job = (copy_job){{w->velocity, w->omega}, {w->saved_velocity, w->saved_omega}};
        }
        nscd__parallel_for(&w->parallel, w->n_bodies, 16384, copy_range, &job);
        return;
    }
    if (restore) {
        memcpy(w->velocity, w->saved_velocity, bytes);
        memcpy(w->omega, w->saved_omega, bytes);
    } else {
        memcpy(w->saved_velocity, w->velocity, bytes);
        memcpy(w->saved_omega, w->omega, bytes);
    }
}

/* ------------------------------------------------------------ the step */

/* The stages before the solve (shared with the distributed world, mpi/):
 * compaction, scratch, world-frame inertia, collision, solver contacts and
 * room for their records. On failure the step has no contacts. */
nscd_status nscd__world_step_prepare(nscd_world *w, double *max_penetration) {
    w->n_clusters = 0; /* found by the world's own step (nscd__world_find_clusters) */
    *max_penetration = 0.0;
    nscd__world_compact(w);
    if (nscd__world_reserve_scratch(w) != NSCD_OK) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    refresh_inertia(w);
    w->speculative = true; /* the world's own step: speculative reach */
    nscd_status rc = nscd__world_detect_contacts(w);
    w->speculative = false;
    if (rc == NSCD_OK && w->n_sleeping > 0) { /* sleeping islands a moving body touches */
        rc = nscd__world_sleep_wake_touched(w);
    }
    if (rc == NSCD_OK) {
        rc = build_contacts(w, max_penetration);
    }
    if (rc == NSCD_OK) {
        rc = nscd__world_reserve_records(w, w->n_contacts);
    }
    if (rc == NSCD_OK) { /* the sleeping contacts' records, carried unsolved */
        rc = nscd__world_sleep_carry(w);
    }
    if (rc == NSCD_OK && w->parallel.threads >= 1) { /* the per-chunk partials of the step */
        int32_t most = w->n_bodies > w->n_contacts ? w->n_bodies : w->n_contacts;
        rc = nscd__world_reserve_partials(w, (size_t)nscd__chunks(most) + 1);
    }
    if (rc != NSCD_OK) {
        w->n_contacts = 0;
    }
    return rc;
}

void nscd__world_step_free_velocities(nscd_world *w) {
    if (w->desc.warm_start) {
        warm_start_merge(w);
    }
    nscd__world_permute(w); /* threads: the contacts in colour order for the solve */
    save_velocities(w, false);
    free_velocities(w);
}

bool nscd__world_step_finite(const nscd_world *w) { return velocities_finite(w); }

void nscd__world_step_restore(nscd_world *w) {
    save_velocities(w, true);
    w->n_contacts = 0;
    w->coloured = false;
    w->permuted = false; /* no contact left to put back */
    w->split_positions = false;
}

static bool relax_in(nscd_world *w, int32_t begin, int32_t end) {
    const nscd__contact_point *points = w->collision.contacts;
    bool corrected = false;
    for (int32_t j = begin; j < end; ++j) {
        nscd__world_contact *c = &w->contacts[j];
        double rate = points[c->source].gap / w->desc.dt;
        double plain = rate > 0.0 ? rate : 0.0; /* ξ/dt of an open gap, else 0 */
        if (c->bias != plain) {
            c->bias = plain;
            corrected = true;
        }
    }
    return corrected;
}

static void relax_range(int32_t begin, int32_t end, int32_t worker, void *ctx) {
    (void)worker;
    nscd_world *w = ctx;
    for (int32_t k = begin; k < end; ++k) {
        int32_t lo = k * NSCD__CHUNK;
        int32_t hi = w->n_contacts - lo > NSCD__CHUNK ? lo + NSCD__CHUNK : w->n_contacts;
        w->partials[k] = relax_in(w, lo, hi) ? 1.0 : 0.0;
    }
}

bool nscd__world_step_relax(nscd_world *w) {
    int32_t chunks = nscd__chunks(w->n_contacts);
    if (w->parallel.threads < 2 || (size_t)chunks > w->partials_capacity) {
        return relax_in(w, 0, w->n_contacts);
    }
    nscd__parallel_for(&w->parallel, chunks, 4, relax_range, w);
    bool corrected = false;
    for (int32_t k = 0; k < chunks; ++k) {
        corrected |= w->partials[k] != 0.0;
    }
    return corrected;
}

void nscd__world_step_keep_position_velocities(nscd_world *w) {
    size_t bytes = 3 * (size_t)w->n_bodies * sizeof(double);
    if (bytes > 0) {
        memcpy(w->position_velocity, w->velocity, bytes);
        memcpy(w->position_omega, w->omega, bytes);
    }
    w->split_positions = true;
}

void nscd__world_step_integrate(nscd_world *w) {
    nscd__world_unpermute(w); /* the records in key order */
    integrate_positions(w);
    store_records(w);
    nscd__world_sleep_merge(w); /* the sleeping contacts' records back, in key order */
}

/* The deep-penetration guard (nscd_world_desc::deep_penetration;
 * docs/world.md, "Deep penetrations"): while the sweeps leave a contact
 * deeper than the depth closing, more sweeps, max_sweeps at a time, up to
 * deep_sweeps. A truncated Gauss–Seidel carries the weight of a pile down
 * slowly, and a light body under heavy ones is pressed into its support
 * step after step; sweeping on where that happens costs nothing elsewhere.
 * Returns the contacts still closing; the sweeps added and the merit of
 * the last one. */
static nscd__world_deep guard_deep_contacts(nscd_world *w, int32_t *added, double *merit) {
    *added = 0;
    nscd__world_deep deep = {0, -1, 0.0, 0.0};
    if (w->desc.deep_sweeps < 1 || w->n_contacts == 0) {
        return deep;
    }
    deep = nscd__world_deep_contacts(w);
    while (deep.count > 0 && *added < w->desc.deep_sweeps) {
        int32_t left = w->desc.deep_sweeps - *added, sweeps = 0;
        nscd__world_solve(w, left < w->desc.max_sweeps ? left : w->desc.max_sweeps, &sweeps, merit);
        *added += sweeps;
        deep = nscd__world_deep_contacts(w);
    }
    return deep;
}

static nscd_status step(nscd_world *w, nscd_world_step_report *report) {
    nscd__diag_clear(&w->diag);
    if (report != NULL && !nscd__struct_size_ok(nscd__struct_size_of(report),
                                                NSCD__WORLD_STEP_REPORT_SIZE_0_2, sizeof *report)) {
        return nscd__fail(&w->diag, NSCD_ERR_STRUCT_SIZE, "report struct_size %u",
                          (unsigned)nscd__struct_size_of(report));
    }
    if (nscd__world_has_clearance_joints(w)) { /* gaps are not blocks yet (docs/joints.md) */
        return nscd__fail(&w->diag, NSCD_ERR_UNSUPPORTED,
                          "nscd_world_step does not solve clearance joints: drive the world "
                          "with nscd_time_stepping_create_world");
    }
    double max_penetration = 0.0;
    nscd_status rc = nscd__world_step_prepare(w, &max_penetration);
    if (rc == NSCD_ERR_OUT_OF_MEMORY && w->bodies_capacity > w->scratch_capacity) {
        return nscd__fail(&w->diag, NSCD_ERR_OUT_OF_MEMORY, "step scratch");
    }
    if (rc != NSCD_OK) {
        return nscd__fail(&w->diag, rc, "collision detection: out of memory");
    }
    if (nscd__world_joint_blocks_build(w) != NSCD_OK) {
        w->n_contacts = 0;
        return nscd__fail(&w->diag, NSCD_ERR_OUT_OF_MEMORY, "joint blocks");
    }
    if (w->n_joint_blocks > 0) {
        rc = nscd__world_prepare_projection(w); /* its message names the projection */
        if (rc != NSCD_OK) {
            w->n_contacts = 0;
            return rc;
        }
    }
    nscd__world_step_free_velocities(w);
    int32_t bad = first_non_finite(w);
    if (bad >= 0) {
        return non_finite_failure(w, bad, "free motion (gravity, load, gyroscopic step)");
    }
    nscd__world_joint_warm_start(w);
    nscd__world_warm_start(w); /* colours (and may permute) the contacts first */
    if (nscd__world_find_clusters(w) != NSCD_OK) {
        nscd__world_step_restore(w);
        w->n_contacts = 0;
        return nscd__fail(&w->diag, NSCD_ERR_OUT_OF_MEMORY, "light-body clusters");
    }
    int32_t sweeps = 0, report_relax = 0;
    double merit = 0.0;
    nscd__world_solve(w, w->desc.max_sweeps, &sweeps, &merit);
    int32_t deep_sweeps = 0;
    nscd__world_deep deep = guard_deep_contacts(w, &deep_sweeps, &merit);
    if (w->desc.relax_sweeps > 0 && velocities_finite(w) && nscd__world_step_relax(w)) {
        /* the relax pass: the same sweeps without the correction, from the
         * impulses with it (warm), so that it leaves no velocity */
        nscd__world_step_keep_position_velocities(w);
        int32_t relax_sweeps = 0;
        double relax_merit = 0.0;
        nscd__world_solve(w, w->desc.relax_sweeps, &relax_sweeps, &relax_merit);
        report_relax = relax_sweeps;
        merit = relax_merit > merit ? relax_merit : merit;
    }
    bad = first_non_finite(w);
    if (bad >= 0) {
        return non_finite_failure(w, bad, "contact solve");
    }
    nscd_world_step_report r;
    memset(&r, 0, sizeof r);
    r.struct_size = sizeof r;
    r.contacts = w->n_contacts;
    r.sweeps = sweeps + deep_sweeps;
    r.merit = merit;
    r.converged = w->desc.tolerance > 0.0 && merit < w->desc.tolerance && deep.count == 0;
    r.max_penetration = max_penetration;
    r.broad_pairs = w->collision.n_pairs;
    r.relax_sweeps = report_relax;
    r.deep_sweeps = deep_sweeps;
    r.deep_contacts = deep.count;
    char why[192] = "";
    if (deep.count > 0) { /* the deepest, by its bodies */
        const nscd__world_contact *c = &w->contacts[deep.worst];
        snprintf(why, sizeof why,
                 "; %d contact(s) closing deeper than %g m (deepest: user ids %llu and %llu, "
                 "%g m at the step's end, closing at %g m/s)",
                 (int)deep.count, w->desc.deep_penetration, (unsigned long long)w->user_id[c->a],
                 (unsigned long long)w->user_id[c->b], -deep.depth, -deep.u_n);
    }
    if (!r.converged && w->desc.tolerance > 0.0 &&
        w->desc.on_unconverged == NSCD_UNCONVERGED_REJECT) {
        nscd__world_step_restore(w); /* nothing integrated yet: as before the call */
        if (report != NULL) {
            nscd__struct_write(report, &r, sizeof r, NSCD__WORLD_STEP_REPORT_SIZE_0_2);
        }
        return nscd__fail(&w->diag, NSCD_ERR_NOT_CONVERGED,
                          "step %lld rejected: contact merit %g m/s after %d sweeps above the "
                          "tolerance %g%.120s",
                          (long long)w->steps + 1, merit, (int)r.sweeps, w->desc.tolerance, why);
    }
    nscd__world_step_integrate(w);
    nscd_status joints = NSCD_OK;
    if (w->n_joint_blocks > 0) { /* the drift of H v = 0 over the step, removed */
        nscd__world_joint_store(w);
        w->joint_cache.capture = true; /* the next step's rows and factors */
        joints = nscd__world_project_joints(w);
        w->joint_cache.capture = false;
    }
    r.bodies_removed = nscd__world_remove_outside(w);
    if (w->desc.sleep) {
        nscd__world_sleep_update(w);
    }
    r.sleeping_bodies = w->n_sleeping;
    w->steps++;
    w->time = (double)w->steps * w->desc.dt;
    if (report != NULL) {
        nscd__struct_write(report, &r, sizeof r, NSCD__WORLD_STEP_REPORT_SIZE_0_2);
    }
    if (joints != NSCD_OK) { /* never a silent drift: the projection's message */
        return joints;
    }
    if (!r.converged && w->desc.tolerance > 0.0) {
        /* kept: the report says so, and so does the last error; the status
         * only when the caller asked (NSCD_UNCONVERGED_FAIL). Under KEEP the
         * step did not fail: a warning to the log, not an error. */
#define UNCONVERGED                                                                                \
    "step %lld kept but not converged: contact merit %g m/s after %d sweeps "                      \
    "(tolerance %g)%.120s"
        if (w->desc.on_unconverged == NSCD_UNCONVERGED_FAIL) {
            return nscd__fail(&w->diag, NSCD_ERR_NOT_CONVERGED, UNCONVERGED, (long long)w->steps,
                              merit, (int)r.sweeps, w->desc.tolerance, why);
        }
        snprintf(w->diag.last_error, sizeof w->diag.last_error, UNCONVERGED, (long long)w->steps,
                 merit, (int)r.sweeps, w->desc.tolerance, why);
#undef UNCONVERGED
        nscd__log(&w->diag, NSCD_LOG_WARNING, "%s", w->diag.last_error);
    }
    return NSCD_OK;
}

/* The step inside the world's re-entrancy guard (docs/hostile_input.md): a
 * step from the world's own log hook fails with NSCD_ERR_STATE, and a
 * destroy from there frees the world when the step returns. */
nscd_status nscd_world_step(nscd_world *w, nscd_world_step_report *report) {
    if (w == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    if (!nscd__diag_enter(&w->diag, "nscd_world_step")) {
        return NSCD_ERR_STATE;
    }
    nscd_status rc = step(w, report);
    if (nscd__diag_leave(&w->diag)) {
        nscd_world_destroy(w);
        return NSCD_ERR_STALE_HANDLE;
    }
    return rc;
}
