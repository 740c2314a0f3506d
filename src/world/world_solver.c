/* The world's contact and joint solve: the matrix-free block Gauss–Seidel
 * of contact/solvers/block_gs.c on views of the world's arrays (dense bodies, the
 * step's contacts and joint blocks), with the options of its description. */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "contact/solvers/block_gs.h"
#include "core/memory.h"
#include "nscd/fc3d.h"
#include "world/world_impl.h"

nscd__bgs_problem nscd__world_bgs_problem(nscd_world *w) {
    nscd__bgs_problem p;
    p.bodies.n = w->n_bodies;
    p.bodies.velocity = w->velocity;
    p.bodies.omega = w->omega;
    p.bodies.snapshot_velocity = w->snapshot_velocity;
    p.bodies.snapshot_omega = w->snapshot_omega;
    p.bodies.blend_velocity = w->blend_velocity;
    p.bodies.blend_omega = w->blend_omega;
    p.bodies.blend_group = w->blend_group;
    p.contacts = w->contacts;
    p.contact_rows = w->contact_rows;
    p.contact_resist = w->contact_resist;
    p.x_start = w->contact_x_start;
    p.n_contacts = w->n_contacts;
    p.joint_blocks = w->joint_blocks;
    p.n_joint_blocks = w->n_joint_blocks;
    p.mechanisms = w->mechanisms;
    p.n_mechanisms = w->n_mechanisms;
    p.factors = w->joint_scratch;
    p.vectors = w->joint_vectors;
    p.order = NULL; /* the contacts in their order (the time steppers', threads 0) */
    p.colour_start = NULL;
    p.n_colours = 0;
    p.serial_colour = -1;
    p.parallel = NULL;
    p.partials = NULL;
    p.cluster_start = w->cluster_start;
    p.cluster_contacts = w->cluster_contacts;
    p.n_clusters = w->n_clusters;
    return p;
}

/* Whether a side of inverse mass `mine` is light against a moving side of
 * inverse mass `other`: the other at least `ratio` times heavier. */
static bool lighter(double mine, double other, double ratio) { return other * ratio <= mine; }

/* A body is light when a moving neighbour it touches is at least
 * light_body_ratio times heavier; its contacts (2 to NSCD__BGS_CLUSTER_MAX)
 * form its cluster. Bodies in index order, contacts in theirs:
 * deterministic. Only the Gauss–Seidel sweeps run the clusters. */
nscd_status nscd__world_find_clusters(nscd_world *w) {
    w->n_clusters = 0;
    double ratio = w->desc.light_body_ratio;
    int32_t n = w->n_bodies, m = w->n_contacts;
    if (!(ratio > 0.0) || m < 2 || w->desc.jacobi_groups > 1) {
        return NSCD_OK;
    }
    /* A body is light only through a contact whose two sides move and whose
     * inverse masses differ by the ratio (the test below, from either
     * side): a scene without one (every pile of like bodies) has no
     * cluster, and the lists need not be built. */
    bool any = false;
    for (int32_t j = 0; j < m && !any; ++j) {
        const nscd__world_contact *c = &w->contacts[j];
        any = c->a_moves && c->b_moves &&
              (lighter(c->inv_mass_a, c->inv_mass_b, ratio) ||
               lighter(c->inv_mass_b, c->inv_mass_a, ratio));
    }
    if (!any) {
        return NSCD_OK;
    }
    if (n + 1 > w->cluster_bodies_capacity) {
        nscd__array a[2] = {{(void **)&w->body_contact_start, sizeof(int32_t), 0},
                            {(void **)&w->cluster_start, sizeof(int32_t), 0}};
        if (nscd__reserve_arrays(&w->allocator, a, 2, &w->cluster_bodies_capacity, n + 1) !=
            NSCD_OK) {
            return NSCD_ERR_OUT_OF_MEMORY;
        }
    }
    if (2 * m > w->cluster_contacts_capacity) {
        nscd__array a[2] = {{(void **)&w->body_contact_list, sizeof(int32_t), 0},
                            {(void **)&w->cluster_contacts, sizeof(int32_t), 0}};
        if (nscd__reserve_arrays(&w->allocator, a, 2, &w->cluster_contacts_capacity, 2 * m) !=
            NSCD_OK) {
            return NSCD_ERR_OUT_OF_MEMORY;
        }
    }
    int32_t *start = w->body_contact_start, *list = w->body_contact_list;
    memset(start, 0, (size_t)(n + 1) * sizeof *start);
    for (int32_t j = 0; j < m; ++j) { /* counts, then starts, then the lists */
        const nscd__world_contact *c = &w->contacts[j];
        start[c->a + 1] += c->a_moves;
        start[c->b + 1] += c->b_moves;
    }
    for (int32_t i = 0; i < n; ++i) {
        start[i + 1] += start[i];
    }
    for (int32_t j = 0; j < m; ++j) {
        const nscd__world_contact *c = &w->contacts[j];
        if (c->a_moves) {
            list[start[c->a]++] = j;
        }
        if (c->b_moves) {
            list[start[c->b]++] = j;
        }
    }
    for (int32_t i = n; i > 0; --i) {
        start[i] = start[i - 1];
    }
    start[0] = 0;
    int32_t used = 0;
    w->cluster_start[0] = 0;
    for (int32_t i = 0; i < n; ++i) {
        int32_t count = start[i + 1] - start[i];
        if (count < 2 || count > NSCD__BGS_CLUSTER_MAX) {
            continue;
        }
        bool light = false;
        for (int32_t e = start[i]; e < start[i + 1] && !light; ++e) {
            const nscd__world_contact *c = &w->contacts[list[e]];
            bool a_side = c->a == i && c->a_moves;
            double mine = a_side ? c->inv_mass_a : c->inv_mass_b;
            double other = a_side ? c->inv_mass_b : c->inv_mass_a;
            bool other_moves = a_side ? c->b_moves : c->a_moves;
            light = other_moves && lighter(mine, other, ratio);
        }
        if (light) {
            memcpy(w->cluster_contacts + used, list + start[i], (size_t)count * sizeof *list);
            used += count;
            w->cluster_start[++w->n_clusters] = used;
        }
    }
    return NSCD_OK;
}

void nscd__world_free_clusters(nscd_world *w) {
    size_t nb = (size_t)w->cluster_bodies_capacity, nc = (size_t)w->cluster_contacts_capacity;
    nscd__free(&w->allocator, w->body_contact_start, nb * sizeof(int32_t));
    nscd__free(&w->allocator, w->cluster_start, nb * sizeof(int32_t));
    nscd__free(&w->allocator, w->body_contact_list, nc * sizeof(int32_t));
    nscd__free(&w->allocator, w->cluster_contacts, nc * sizeof(int32_t));
    w->body_contact_start = w->cluster_start = w->body_contact_list = w->cluster_contacts = NULL;
    w->cluster_bodies_capacity = w->cluster_contacts_capacity = 0;
    w->n_clusters = 0;
}

/* The step's problem: with threads >= 1, in the colour order of the
 * contacts (coloured first if they are not yet; without memory for the
 * colours, in their order: deterministic all the same). */
static nscd__bgs_problem step_problem(nscd_world *w) {
    nscd__bgs_problem p = nscd__world_bgs_problem(w);
    if (w->parallel.threads < 1 || w->n_contacts == 0) {
        return p;
    }
    if (!w->coloured && nscd__world_colour(w) != NSCD_OK) {
        return p;
    }
    p.order = w->permuted ? NULL : w->colour_order; /* permuted: colours contiguous */
    p.colour_start = w->colour_start;
    p.n_colours = NSCD__WORLD_COLOURS + 1;
    p.serial_colour = NSCD__WORLD_COLOURS;
    p.parallel = &w->parallel;
    p.partials = w->partials;
    return p;
}

nscd__bgs_options nscd__world_bgs_options(const nscd_world *w, int32_t max_sweeps) {
    nscd__bgs_options o;
    o.max_sweeps = max_sweeps;
    o.tolerance = w->desc.tolerance;
    o.friction_law = w->desc.friction_law;
    o.jacobi_groups = w->desc.jacobi_groups;
    o.relaxation = w->desc.relaxation;
    return o;
}

void nscd__world_warm_start(nscd_world *w) {
    nscd__bgs_problem p = step_problem(w);
    nscd__bgs_warm_start(&p);
}

double nscd__world_sweep(nscd_world *w) {
    nscd__bgs_problem p = step_problem(w);
    nscd__bgs_options o = nscd__world_bgs_options(w, 1);
    return nscd__bgs_contact_sweep(&p, &o);
}

void nscd__world_solve(nscd_world *w, int32_t max_sweeps, int32_t *sweeps, double *merit) {
    nscd__bgs_problem p = step_problem(w);
    nscd__bgs_options o = nscd__world_bgs_options(w, max_sweeps);
    nscd__bgs_solve(&p, &o, sweeps, merit);
}

nscd__world_deep nscd__world_deep_contacts(nscd_world *w) {
    nscd__world_deep deep = {0, -1, 0.0, 0.0};
    const double depth = w->desc.deep_penetration, dt = w->desc.dt;
    /* closing: faster than the tolerance and than a thousandth of the
     * depth a step, so that round-off never decides */
    const double closing = fmax(w->desc.tolerance, 1e-3 * depth / dt);
    const nscd__contact_point *points = w->collision.contacts;
    nscd__bgs_problem p = nscd__world_bgs_problem(w);
    for (int32_t j = 0; j < w->n_contacts; ++j) {
        double gap = points[w->contacts[j].source].gap;
        if (!(gap < -depth)) {
            continue;
        }
        double u_n = nscd__bgs_normal_velocity(&p, j);
        if (u_n < -closing) {
            deep.count++;
            double end = gap + dt * u_n;
            if (deep.worst < 0 || end < deep.depth) {
                deep.worst = j;
                deep.depth = end;
                deep.u_n = u_n;
            }
        }
    }
    return deep;
}
