/* The world's adapter of the one projection (contact/assembly/projection.h,
 * which holds the algebra; docs/joints.md, "Drift and projection"). The
 * time steppers hold the joints on the velocity level, u = H(q_k) v_{k+1} =
 * 0, so the positions drift at first order over a fixed time
 * (docs/time_stepping.md, "Penetration and drift"). After each step the
 * world moves the positions back onto Φ = 0 by mass-weighted Gauss–Newton
 * steps
 *
 *     Δ = M^-1 H' p,  (H M^-1 H' + δ I) p = -Φ,  q <- q ⊕ Δ  (exact rotation),
 *
 * then the velocities onto H v = 0 the same way. The closed clearance gaps
 * take part as inequalities: in the positions every gap, g + H Δ >=
 * -tolerance (a gap pushed back is left just closed, so that the next
 * step's active set, g(q_M) <= 0 for the midpoint rule, holds it), in the
 * velocities the closed ones (g <= 1000 tolerances), H v >= 0, each with
 * its impulse p >= 0 (it only pushes: a plastic contact). Both stages are
 * the mixed LCP of projection.h, whose regularised solve (δ relative to the
 * problem's scale) keeps the spun prismatic slider resting, where a
 * least-norm solve kept 4 closed gaps after 4 s against rest at 0.3 to
 * 2.9 s (docs/time_stepping.md, "Redundant rows").
 *
 * What stays here is the world's part: the rows of the joints per
 * mechanism (connected component) on 6-dof body blocks, M^-1 per body
 * (m and R I^-1 R'), W on those blocks (dense, or its envelope for
 * equalities alone) and the update with an exact rotation per joint and
 * side. */
#include <math.h>
#include <string.h>

#include "contact/assembly/projection.h"
#include "core/dense.h"
#include "core/dense_small.h"
#include "core/memory.h"
#include "core/vec3.h"
#include "world/world_impl.h"

/* One projected row: its joint and part, its body on each side (dense
 * index, -1 when the side does not move), whether it is a gap (impulse >=
 * 0), its value, its row and M^-1 row' per side: the world's cached row
 * (world_impl.h), so that the world step's gathers write straight into the
 * joint cache. */
typedef nscd__world_cached_row projection_row;

/* Row r of a part into rows[*m], with M^-1 row'. */
static void add_row(const nscd_world *w, const nscd__joint_part *part, int32_t r,
                    const int32_t body[2], const nscd__joint_pose pose[2], projection_row *rows,
                    int32_t *m, int32_t joint, int32_t index) {
    projection_row *row = &rows[(*m)++];
    row->joint = joint;
    row->part = index;
    row->gap = !part->equality;
    row->value = part->value[r];
    for (int s = 0; s < 2; ++s) {
        row->body[s] = body[s];
        memcpy(row->h[s], part->rows[s][r], sizeof row->h[s]);
        if (body[s] >= 0) {
            nscd__world_inverse_mass_at(w, body[s], pose[s].R, row->h[s], row->y[s]);
        }
    }
}

double nscd__world_contact_distance(const nscd_world *w) {
    return w->projection_iterations > 0 ? 1e3 * w->projection_tolerance : 0.0;
}

/* The rows of every ideal joint and the normal rows of the gaps at the
 * world's positions; the count. Position stage (`positions`): every gap as
 * an inequality g >= -tolerance (p = 0 unless the step would close it, so
 * that pushing one gap back never drives another in; an equation would
 * over-constrain the redundant gaps of a prismatic joint). Velocity stage:
 * the closed gaps (g <= the contact distance) as inequalities H v >= 0.
 * *largest: the largest |Φ| and -g - tolerance. */
static int32_t gather(const nscd_world *w, int32_t first, const int32_t *next, int positions,
                      projection_row *rows, double *largest) {
    int32_t m = 0;
    double tol = w->projection_tolerance;
    *largest = 0.0;
    for (int32_t k = first; k >= 0; k = next[k]) {
        const nscd__world_joint *j = &w->joints[k];
        nscd__joint_pose pose[2];
        int32_t body[2];
        nscd__joint_frames f;
        nscd__world_joint_sides(w, j, pose, body, &f);
        for (int32_t p = 0; p < nscd__joint_part_count(&j->def); ++p) {
            nscd__joint_part part;
            nscd__joint_evaluate_frames(&j->def, p, &f, pose, &part);
            if (!part.equality) {
                double g = part.value[0];
                *largest = fmax(*largest, -g - tol);
                if (positions || g <= nscd__world_contact_distance(w)) {
                    add_row(w, &part, 0, body, pose, rows, &m, k, p);
                }
                continue;
            }
            for (int32_t r = 0; r < part.n_rows; ++r) {
                *largest = fmax(*largest, fabs(part.value[r]));
                add_row(w, &part, r, body, pose, rows, &m, k, p);
            }
        }
    }
    return m;
}

/* The mechanisms: joints that share a dynamic body, directly or through
 * other joints, form one component, and components share no moving body,
 * so H M^-1 H' is block diagonal over them and each is projected on its own
 * (a granular bed with 50 five-link chains is 50 systems of 25 rows, not one
 * of 1250). label[k] = the component of joint k (the dense index of its
 * root body), or -1 for a joint with no dynamic side (nothing to move).
 * parent: n_bodies ints of scratch (union-find), then the first joint of
 * each component (at its root body); next[k]: the component's next joint
 * after k (ascending, -1 at the end). Returns the largest number of rows of
 * one component. */
static int32_t root(int32_t *parent, int32_t i) {
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

static int32_t components(const nscd_world *w, int32_t *label, int32_t *parent, int32_t *rows,
                          int32_t *next) {
    for (int32_t i = 0; i < w->n_bodies; ++i) {
        parent[i] = i;
        rows[i] = 0;
    }
    for (int32_t k = 0; k < w->n_joints; ++k) {
        int32_t side[2];
        for (int s = 0; s < 2; ++s) {
            int32_t i = nscd__world_lookup(w, w->joints[k].body[s]);
            side[s] = i >= 0 && w->type[i] == NSCD_BODY_DYNAMIC ? root(parent, i) : -1;
        }
        if (side[0] >= 0 && side[1] >= 0 && side[0] != side[1]) {
            /* the smaller index is the root: labels independent of joint order */
            int32_t lo = side[0] < side[1] ? side[0] : side[1];
            parent[side[0] + side[1] - lo] = lo;
        }
    }
    int32_t largest = 0;
    for (int32_t k = 0; k < w->n_joints; ++k) {
        label[k] = -1;
        for (int s = 0; s < 2 && label[k] < 0; ++s) {
            int32_t i = nscd__world_lookup(w, w->joints[k].body[s]);
            if (i >= 0 && w->type[i] == NSCD_BODY_DYNAMIC) {
                label[k] = root(parent, i);
            }
        }
        if (label[k] >= 0) {
            rows[label[k]] += nscd__joint_value_count(&w->joints[k].def);
            largest = rows[label[k]] > largest ? rows[label[k]] : largest;
        }
    }
    int32_t *head = parent; /* the union-find is done: each component's list */
    for (int32_t i = 0; i < w->n_bodies; ++i) {
        head[i] = -1;
    }
    for (int32_t k = w->n_joints - 1; k >= 0; --k) {
        next[k] = -1;
        if (label[k] >= 0) {
            next[k] = head[label[k]];
            head[label[k]] = k;
        }
    }
    return largest;
}

/* x += M^-1 H' p on every moving side: positions (Δ) or velocities. The
 * rows of one joint (a run of rows on the same two bodies) move a body
 * together: their displacements are summed and the orientation turned
 * once by the sum (one exact rotation per joint and side instead of one
 * per row: the same step to second order in its small angle, which the
 * Gauss–Newton iteration converges through). */
static void apply(nscd_world *w, const projection_row *rows, int32_t m, const double *p,
                  int positions) {
    for (int32_t a = 0; a < m;) {
        int32_t end = a + 1;
        while (end < m && rows[end].body[0] == rows[a].body[0] &&
               rows[end].body[1] == rows[a].body[1]) {
            ++end;
        }
        for (int s = 0; s < 2; ++s) {
            int32_t i = rows[a].body[s];
            if (i < 0) {
                continue;
            }
            double d[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
            bool moved = false;
            for (int32_t b = a; b < end; ++b) {
                if (p[b] != 0.0) {
                    moved = true;
                    for (int c = 0; c < 6; ++c) {
                        d[c] += p[b] * rows[b].y[s][c];
                    }
                }
            }
            if (!moved) {
                continue;
            }
            double *x = positions ? w->position : w->velocity;
            for (int c = 0; c < 3; ++c) {
                x[3 * (size_t)i + c] += d[c];
            }
            if (positions) {
                nscd__world_rotate(w->orientation + 4 * (size_t)i, d + 3, 1.0,
                                   w->orientation + 4 * (size_t)i);
            } else {
                for (int c = 0; c < 3; ++c) {
                    w->omega[3 * (size_t)i + c] += d[3 + c];
                }
            }
        }
        a = end;
    }
}

/* Scratch for components of at most m rows: the rows, W, b, p, the
 * solver's work (NSCD__PROJECTION_WORK(m) doubles) and the gap flags, then
 * the component labels of the joints and the union-find's two body arrays;
 * all or nothing. */
static size_t scratch_bytes(const nscd_world *w, int32_t m) {
    return (size_t)m * sizeof(projection_row) +
           ((size_t)m * (size_t)m + 2 * (size_t)m + NSCD__PROJECTION_WORK(m)) * sizeof(double) +
           ((size_t)m + 2 * (size_t)w->n_joints + 2 * (size_t)w->n_bodies) * sizeof(int32_t);
}

/* The components (see components()). */
typedef struct component_lists {
    int32_t *label, *first, *rows, *next;
} component_lists;

static nscd_status reserve(nscd_world *w, size_t need) {
    if (need <= w->projection_bytes) {
        return NSCD_OK;
    }
    void *p = nscd__alloc(&w->allocator, need);
    if (p == NULL) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    nscd__free(&w->allocator, w->projection_scratch, w->projection_bytes);
    w->projection_scratch = p;
    w->projection_bytes = need;
    return NSCD_OK;
}

/* The largest component's rows, with the labels of the joints, the first
 * joint and the rows of each component (at its root body) and each joint's
 * next in its component at the end of the scratch (reserved first for
 * these alone); -1 when out of memory. */
static int32_t label_components(nscd_world *w, component_lists *c) {
    if (reserve(w, scratch_bytes(w, 0)) != NSCD_OK) {
        return -1;
    }
    size_t ints = 2 * (size_t)w->n_joints + 2 * (size_t)w->n_bodies;
    int32_t *tail = (int32_t *)((char *)w->projection_scratch + w->projection_bytes) - ints;
    c->label = tail;
    c->first = tail + w->n_joints;
    c->rows = c->first + w->n_bodies;
    c->next = c->rows + w->n_bodies;
    return components(w, c->label, c->first, c->rows, c->next);
}

nscd_status nscd__world_prepare_projection(nscd_world *w) {
    if (w->n_joints == 0 || w->projection_iterations == 0) {
        return NSCD_OK;
    }
    component_lists lists;
    int32_t m = label_components(w, &lists);
    if (m < 0) {
        return nscd__fail(&w->diag, NSCD_ERR_OUT_OF_MEMORY, "joint projection labels");
    }
    if (m > NSCD__WORLD_MAX_PROJECTED_ROWS) {
        return nscd__fail(&w->diag, NSCD_ERR_UNSUPPORTED,
                          "a mechanism of %d joint rows exceeds the projection's %d (turn it off)",
                          (int)m, NSCD__WORLD_MAX_PROJECTED_ROWS);
    }
    if (reserve(w, scratch_bytes(w, m)) != NSCD_OK) {
        return nscd__fail(&w->diag, NSCD_ERR_OUT_OF_MEMORY, "joint projection of %d rows", (int)m);
    }
    return NSCD_OK;
}

/* One mechanism's projection: nscd__project's adapter (the algebra is
 * contact/assembly/projection.c's). Its joints (first, then next[]), the
 * scratch of its rows, and the rows of the last gather. */
typedef struct joint_projection {
    nscd_world *w;
    int32_t first;
    const int32_t *next;
    projection_row *rows;
    double *W, *b, *p, *work;
    int32_t *gap;
    int32_t n;
    bool gaps;      /* whether the last position gather had gaps */
    bool enveloped; /* whether the velocity stage's factor is in work */
} joint_projection;

/* The rows of a stage and b: positions, Φ and g + tolerance (the target
 * g >= -tolerance); velocities, H v at the final positions, on the closed
 * gaps' rows when there are gaps, else on the last position gather's (the
 * same rows at the same positions). */
static nscd_status joints_gather(void *self, int stage, nscd__projection_system *sys) {
    joint_projection *jp = self;
    nscd_world *w = jp->w;
    double residual = 0.0;
    if (stage == NSCD__PROJECT_POSITIONS) {
        jp->n = gather(w, jp->first, jp->next, 1, jp->rows, &residual);
        jp->gaps = false;
        for (int32_t a = 0; a < jp->n && !jp->gaps; ++a) {
            jp->gaps = jp->rows[a].gap;
        }
    } else if (jp->gaps) {
        double largest = 0.0;
        jp->n = gather(w, jp->first, jp->next, 0, jp->rows, &largest);
    }
    const projection_row *rows = jp->rows;
    for (int32_t a = 0; a < jp->n; ++a) {
        jp->gap[a] = rows[a].gap;
        if (stage == NSCD__PROJECT_POSITIONS) {
            jp->b[a] = rows[a].value + (rows[a].gap ? w->projection_tolerance : 0.0);
            continue;
        }
        jp->b[a] = 0.0;
        for (int s = 0; s < 2; ++s) {
            int32_t i = rows[a].body[s];
            if (i >= 0) {
                jp->b[a] += nscd__dot(3, rows[a].h[s], w->velocity + 3 * (size_t)i) +
                            nscd__dot(3, rows[a].h[s] + 3, w->omega + 3 * (size_t)i);
            }
        }
    }
    sys->m = jp->n;
    sys->gap = jp->gap;
    sys->b = jp->b;
    sys->W = jp->W;
    sys->p = jp->p;
    sys->work = jp->work;
    sys->residual = residual;
    return NSCD_OK;
}

/* W = H M^-1 H' (m x m, row-major) on the body blocks: the rows that share
 * a moving body. */
static nscd_status joints_delassus(void *self, const nscd__projection_system *sys) {
    const projection_row *rows = ((joint_projection *)self)->rows;
    int32_t m = sys->m;
    for (int32_t a = 0; a < m; ++a) {
        for (int32_t b = 0; b < m; ++b) {
            double sum = 0.0;
            for (int s = 0; s < 2; ++s) {
                for (int t = 0; t < 2; ++t) {
                    if (rows[a].body[s] >= 0 && rows[a].body[s] == rows[b].body[t]) {
                        sum += nscd__dot(6, rows[a].h[s], rows[b].y[t]);
                    }
                }
            }
            sys->W[(size_t)a * (size_t)m + (size_t)b] = sum;
        }
    }
    return NSCD_OK;
}

/* The envelope of W (the rows' order is the joints': a chain's W is block
 * tridiagonal, O(m) to factor instead of the dense O(m^3)), with the
 * entries of joints_delassus. */
static void joints_envelope(void *self, const nscd__projection_system *sys, nscd__envelope *e) {
    const projection_row *rows = ((joint_projection *)self)->rows;
    int32_t m = sys->m;
    for (int32_t a = 0; a < m; ++a) { /* the first row that shares a moving body */
        if (a > 0 && rows[a].body[0] == rows[a - 1].body[0] &&
            rows[a].body[1] == rows[a - 1].body[1]) {
            e->start[a] = e->start[a - 1]; /* the same bodies: a part's next row */
            continue;
        }
        int32_t first = a;
        for (int32_t c = 0; c < a && first == a; ++c) {
            for (int s = 0; s < 2; ++s) {
                int32_t i = rows[a].body[s];
                if (i >= 0 && (rows[c].body[0] == i || rows[c].body[1] == i)) {
                    first = c;
                }
            }
        }
        e->start[a] = first;
    }
    nscd__envelope_layout(e);
    for (int32_t a = 0; a < m; ++a) {
        double *row = e->L + e->offset[a] - e->start[a];
        const projection_row *ra = &rows[a];
        for (int32_t c = e->start[a]; c <= a;) {
            /* a run of rows on the same bodies (a part's): the sides they
             * share with row a once, in the order (s, t) of the sum */
            int32_t end = c;
            while (end < a && rows[end + 1].body[0] == rows[c].body[0] &&
                   rows[end + 1].body[1] == rows[c].body[1]) {
                ++end;
            }
            int shared = 0, side[4][2];
            for (int s = 0; s < 2; ++s) {
                for (int t = 0; t < 2; ++t) {
                    if (ra->body[s] >= 0 && ra->body[s] == rows[c].body[t]) {
                        side[shared][0] = s;
                        side[shared++][1] = t;
                    }
                }
            }
            for (; c <= end; ++c) {
                double sum = 0.0;
                for (int k = 0; k < shared; ++k) {
                    sum += nscd__small_dot6(ra->h[side[k][0]], rows[c].y[side[k][1]]);
                }
                row[c] = sum;
            }
        }
    }
}

static nscd_status joints_apply(void *self, int stage, const nscd__projection_system *sys) {
    joint_projection *jp = self;
    apply(jp->w, jp->rows, sys->m, sys->p, stage == NSCD__PROJECT_POSITIONS);
    jp->enveloped = stage == NSCD__PROJECT_VELOCITIES && sys->enveloped;
    return NSCD_OK;
}

/* The rows of the last gather (at the final positions) and the velocity
 * stage's factor of W at them into the world's joint cache, for the next
 * step's blocks (world_joint_sweep.c, "the factors' reuse"). */
static void keep(nscd_world *w, const joint_projection *jp) {
    nscd__world_joint_cache *c = &w->joint_cache;
    int32_t n = jp->n;
    size_t doubles = nscd__bgs_mechanism_doubles(n);
    if (c->n_factors + doubles > (size_t)c->factors_capacity) {
        return; /* not begun (out of memory): nothing kept */
    }
    const projection_row *rows = jp->rows; /* already in c->rows at c->n_rows */
    int32_t k0 = rows[0].joint;
    for (int32_t a = 0; a < n; ++a) {
        if (a == 0 || rows[a].joint != rows[a - 1].joint) {
            int32_t k = rows[a].joint;
            c->first_row[k] = c->n_rows + a;
            c->serial[k] = w->joints[k].serial;
            nscd__world_joint_cache_state(w, k, c->state + 2 * NSCD__WORLD_CACHE_STATE * (size_t)k);
        }
    }
    c->n_rows += n;
    /* the factor in nscd__bgs_mechanism_view's layout (the projection's
     * envelope in work has it): the envelope's L and T and the integers */
    double *to = c->factors + c->n_factors;
    const double *from = jp->work;
    const int32_t *ints = (const int32_t *)(from + (size_t)n * (size_t)n);
    const int32_t *offset = ints + 2 * n, *toff = offset + n + 1;
    size_t t0 = (size_t)n * ((size_t)n + 1) / 2;
    memcpy(to, from, (size_t)offset[n] * sizeof(double));
    memcpy(to + t0, from + t0, (size_t)toff[n] * sizeof(double));
    memcpy(to + (size_t)n * (size_t)n, ints, (4 * (size_t)n + 2) * sizeof(int32_t));
    c->factor_rows[k0] = n;
    c->factor_at[k0] = c->n_factors;
    c->n_factors += doubles;
}

/* Positions, then velocities, of one component (its joints: first, then
 * next[]; at most m rows); its residual. */
static double project_component(nscd_world *w, int32_t first, const int32_t *next, int32_t m) {
    joint_projection jp;
    jp.w = w;
    jp.first = first;
    jp.next = next;
    jp.rows = w->projection_scratch;
    jp.W = (double *)(jp.rows + m);
    nscd__world_joint_cache *c = &w->joint_cache;
    bool capture = c->capture && c->n_joints == w->n_joints && c->n_rows + m <= c->rows_capacity;
    if (capture) { /* the rows straight into the joint cache (room for m) */
        jp.rows = c->rows + c->n_rows;
    }
    jp.b = jp.W + (size_t)m * (size_t)m;
    jp.p = jp.b + m;
    jp.work = jp.p + m;
    jp.gap = (int32_t *)(jp.work + NSCD__PROJECTION_WORK(m));
    jp.n = 0;
    jp.gaps = false;
    jp.enveloped = false;
    /* the world step's projection keeps the first iteration's factor (its
     * chord steps: contact/assembly/projection.h); the time steppers' the
     * full Gauss–Newton, as before */
    nscd__projection_ops ops = {
        &jp, joints_gather,         joints_delassus, joints_envelope, joints_apply,
        1,   w->joint_cache.capture};
    double residual = 0.0;
    int projected = 0;
    (void)nscd__project(&ops, w->projection_tolerance, w->projection_iterations, &residual,
                        &projected); /* the callbacks do not fail */
    if (capture && jp.enveloped && !jp.gaps && jp.n > 0) {
        keep(w, &jp);
    }
    return residual;
}

nscd_status nscd__world_project_joints(nscd_world *w) {
    if (w->n_joints == 0 || w->projection_iterations == 0) {
        return NSCD_OK;
    }
    component_lists c;
    int32_t m = label_components(w, &c);
    if (m < 0 || m > NSCD__WORLD_MAX_PROJECTED_ROWS || reserve(w, scratch_bytes(w, m)) != NSCD_OK) {
        return NSCD_OK; /* prepared before the step: does not happen */
    }
    label_components(w, &c);      /* the reserve may have moved the scratch */
    if (w->joint_cache.capture) { /* room for every component's rows and factor */
        int32_t rows = 0;
        size_t factors = 0;
        for (int32_t k = 0; k < w->n_joints; ++k) {
            int32_t root = c.label[k];
            if (root >= 0) {
                rows += nscd__joint_value_count(&w->joints[k].def);
                factors += c.first[root] == k ? nscd__bgs_mechanism_doubles(c.rows[root]) : 0;
            }
        }
        if (!nscd__world_joint_cache_begin(w, rows + m, factors)) { /* m: a component's gathers */
            w->joint_cache.n_joints = -1;                           /* nothing kept this step */
        }
    }
    double residual = 0.0;
    for (int32_t k = 0; k < w->n_joints; ++k) {
        int32_t root = c.label[k];
        if (root >= 0 &&
            c.rows[root] > 0) { /* each component once, in the order of its first joint */
            residual = fmax(residual, project_component(w, c.first[root], c.next, m));
            c.rows[root] = 0;
        }
    }
    if (residual > w->projection_tolerance) { /* never a silent drift or penetration */
        return nscd__fail(&w->diag, NSCD_ERR_NOT_CONVERGED,
                          "joint projection: residual %.3g m after %d iterations (tolerance "
                          "%.3g m; raise the iterations)",
                          residual, (int)w->projection_iterations, w->projection_tolerance);
    }
    return NSCD_OK;
}
