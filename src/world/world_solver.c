/* The world's contact and joint solve: the matrix-free block Gauss–Seidel
 * of contact/solvers/block_gs.c on views of the world's arrays (dense bodies, the
 * step's contacts and joint blocks), with the options of its description. */
#include <math.h>

#include "contact/solvers/block_gs.h"
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
    return p;
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
