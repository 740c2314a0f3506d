/* A slider on a fixed rod through a cylindrical joint with clearance (seed
 * 004, Sect. 4.1; Table 1 is lost: the parameters are ours, printed in
 * "parameters" and in docs/joints.md).
 *
 * The rod is fixed along the world x axis through the origin (radius
 * R_pin = 10 mm); the slider (m = 1 kg, isotropic I = 0.01 kg m², its centre
 * of mass on the hole's axis at the hole's centre) has a hole of length
 * L = 0.1 m and radius R_pin + c, c = 0.1 mm, and starts concentric at rest.
 * Gravity -y. A constant axial force F = 20 N along +x acts at a point
 * offset e = 0.05 m above the centre of mass (+y): equivalent to F at the
 * centre of mass plus the couple r x F = (0, 0, -e F). The example predates
 * nscd_world_set_applied_force and keeps its splitting (docs/joints.md, the
 * figures of which it reproduces): F at the centre of mass is put into the world's
 * "gravity" as the uniform acceleration F/m along x (exact: it acts at the
 * centre of mass of a single body), the couple as an angular impulse
 * I^-1 (0, 0, -e F) h after each step of size h (splitting; exact in the
 * seated state, where the contacts absorb it every step).
 *
 * Since 2 e F / L = 20 N > m g, the couple tilts the slider until it seats
 * at both ends on opposite sides: the front end (x = +L/2) on the rod's top
 * (force up), the back end (x = -L/2) under the rod (force down). Static
 * equilibrium of the tilted slider (no rotation, translation along x only;
 * the frictionless normals are perpendicular to the rod):
 *   N_front - N_back = m g,  (L/2) (N_front + N_back) = e F
 *   => N_front = (m g + 2 e F / L) / 2 = 14.905 N (up),
 *      N_back  = (2 e F / L - m g) / 2 =  5.095 N (down).
 * The axial motion is the free body's, x(t) = F t² / (2 m).
 *
 * Output (--json): the parameters; the largest |x - F t²/(2m)| over the run;
 * the seated gap forces (impulse / h, along their normals, of the last step
 * whose size equals the previous one: the step absorbs the couple's impulse
 * of the previous step; "forces_time" says which) and the
 * static values; the tilt; steps and step sizes; CPU time.
 *
 * Driven by Moreau–Jean θ = 1/2 (default): its free flight under a constant
 * force is exact (the axial parabola) and its rows sit at q_k, so the seated
 * impulses absorb the couple's impulse exactly; the midpoint rule's rows at
 * q_M = q_k + h v_k / 2 see the kick's rotation (an O(h²) force error, 1e-6
 * relative at h = 1e-3), the semi-implicit scheme's free flight is
 * symplectic Euler (axial error a h t / 2).
 *
 * Step sizes: variable in [--dt, --dt-max], default [1e-3, 3e-3]. The issue's
 * [1e-3, 1e-2] runs (axial motion exact) but the seated slider has a stiff
 * lateral mode (each end swings on the rod like a pendulum of length c:
 * ω ≈ sqrt(N / (m c)) ≈ 400 rad/s) that every stepper here integrates
 * explicitly: h above about 2/ω = 5e-3 makes it unstable (docs/joints.md).
 *
 * Usage: cylindrical_slider [--json] [--csv FILE] [--dt 1e-3] [--dt-max 3e-3]
 *                           [--t-end 1] [--scheme moreau_jean|midpoint|semi_implicit]
 *                           [--clearance-energy-form 0|1]
 * (--clearance-energy-form: nscd_clearance_joint_desc::energy_form, default
 * 1; 0 = every gap plastic at every step; Moreau–Jean does not use it,
 * docs/joints.md) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "example_cli.h"
#include "joint_example.h"
#include "nscd/nscd.h"

#define G 9.81

typedef struct settings {
    joint_example_steps steps;
    double mass, inertia, hole_length, pin_radius, c, force, offset;
    int32_t energy_form; /* nscd_clearance_joint_desc::energy_form */
} settings;

typedef struct result {
    double max_axial_error, force_front[3], force_back[3], tilt, cpu, dt_smallest, dt_largest;
    double gaps[2], forces_time;
    long steps;
} result;

/* The world: the slider and its joint to the ground (the rod). */
static nscd_status build(const settings *s, nscd_world **world, nscd_body_id *body,
                         nscd_joint_id *joint) {
    nscd_body_desc bd;
    joint_example_body_desc(s->mass, s->inertia, &bd);
    const double gravity[3] = {s->force / s->mass, -G, 0.0};
    nscd_status rc = joint_example_world_with_body(gravity, &bd, world, body);
    if (rc != NSCD_OK) {
        return rc;
    }
    const double turn[4] = {sqrt(0.5), 0.0, sqrt(0.5), 0.0}; /* local z -> world x */
    nscd_clearance_joint_desc cd;
    nscd_clearance_joint_desc_init(&cd, sizeof cd);
    cd.type = NSCD_CLEARANCE_CYLINDRICAL;
    cd.inner_body = *body;
    memcpy(cd.inner_orientation, turn, sizeof turn);
    memcpy(cd.outer_orientation, turn, sizeof turn);
    cd.pin_radius = s->pin_radius;
    cd.hole_radius = s->pin_radius + s->c;
    cd.inner_length = s->hole_length;
    cd.energy_form = s->energy_form;
    return nscd_world_add_clearance_joint(*world, &cd, joint);
}

/* The couple r x F of the offset force (r = the body-fixed offset (0, e, 0)
 * turned by the orientation p, F along x) as an angular impulse over h. */
static nscd_status apply_couple(nscd_world *w, nscd_body_id body, const settings *s, double h) {
    double p[4], om[3];
    nscd_status rc = nscd_world_get_body(w, body, NULL, p, NULL, om);
    /* r = R(p) (0, e, 0): the second column of R(p) times e. */
    double ry = s->offset * (p[0] * p[0] - p[1] * p[1] + p[2] * p[2] - p[3] * p[3]);
    double rz = s->offset * 2.0 * (p[2] * p[3] + p[0] * p[1]);
    om[1] += rz * s->force * h / s->inertia;
    om[2] += -ry * s->force * h / s->inertia;
    return rc == NSCD_OK ? nscd_world_set_body(w, body, NULL, NULL, NULL, om) : rc;
}

/* Gap forces of the last step of size h: front (gap at x = +L/2) and back. */
static nscd_status seated_forces(const nscd_world *w, nscd_joint_id joint, double h, result *r) {
    double gaps[2], normals[6], points[6], impulses[2];
    int32_t count = 0;
    nscd_status rc =
        nscd_world_clearance_gaps(w, joint, 2, &count, gaps, normals, points, impulses);
    for (int k = 0; rc == NSCD_OK && k < 2; ++k) {
        double *f = k == 1 ? r->force_front : r->force_back; /* part 0: o_h - (L/2) z_h */
        for (int a = 0; a < 3; ++a) {
            f[a] = normals[3 * k + a] * impulses[k] / h;
        }
        r->gaps[1 - k] = gaps[k];
    }
    return rc;
}

static int run(const settings *s, FILE *csv, result *r) {
    nscd_world *w = NULL;
    nscd_body_id body = 0;
    nscd_joint_id joint = 0;
    nscd_time_stepping *ts = NULL;
    nscd_status rc = build(s, &w, &body, &joint);
    if (rc == NSCD_OK) {
        rc = joint_example_variable_stepper(w, &s->steps, &ts);
    }
    double t = 0.0, h = 0.0, h_previous = -1.0;
    r->dt_smallest = INFINITY;
    clock_t start = clock();
    while (rc == NSCD_OK && t < s->steps.t_end) {
        nscd_time_stepping_stats st;
        rc = joint_example_advance(ts, s->steps.t_end, &st);
        h = st.t - t, t = st.t;
        /* The step absorbed the couple's impulse of the previous step: its
         * impulses / h are the forces when both steps have the same size. */
        if (rc == NSCD_OK && h == h_previous) {
            rc = seated_forces(w, joint, h, r);
            r->forces_time = t;
        }
        if (rc == NSCD_OK) {
            rc = apply_couple(w, body, s, h);
        }
        h_previous = h;
        double x[3], p[4];
        nscd_world_get_body(w, body, x, p, NULL, NULL);
        double exact = 0.5 * s->force / s->mass * t * t;
        r->max_axial_error = fmax(r->max_axial_error, fabs(x[0] - exact));
        r->tilt = 2.0 * atan2(p[3], p[0]); /* rotation about z (p = (w, x, y, z)) */
        r->dt_smallest = fmin(r->dt_smallest, h), r->dt_largest = fmax(r->dt_largest, h);
        r->steps++;
        if (csv != NULL) {
            fprintf(csv, "%.9g,%.9g,%.17g,%.17g,%.17g,%.17g\n", t, h, x[0] - exact, x[1], x[2],
                    r->tilt);
        }
    }
    r->cpu = (double)(clock() - start) / CLOCKS_PER_SEC;
    if (rc != NSCD_OK) {
        fprintf(stderr, "cylindrical_slider: failed (%d): %s\n", (int)rc,
                ts ? nscd_time_stepping_last_error(ts) : nscd_world_last_error(w));
    }
    nscd_time_stepping_destroy(ts);
    nscd_world_destroy(w);
    return rc == NSCD_OK ? 0 : 1;
}

static void print_json(const settings *s, const result *r) {
    double lever = 2.0 * s->offset * s->force / s->hole_length, mg = s->mass * G;
    printf("{\"parameters\":{\"scheme\":\"%s\",\"mass\":",
           joint_example_scheme_name(s->steps.scheme));
    json_number(stdout, s->mass);
    json_field(stdout, "inertia", s->inertia);
    json_field(stdout, "hole_length", s->hole_length);
    json_field(stdout, "pin_radius", s->pin_radius);
    json_field(stdout, "clearance", s->c);
    json_field(stdout, "g", G);
    json_field(stdout, "axial_force", s->force);
    json_field(stdout, "force_offset", s->offset);
    joint_example_json_steps(&s->steps);
    printf(",\"initial_state\":{\"position\":[0,0,0],\"velocity\":[0,0,0],"
           "\"angular_velocity\":[0,0,0]}},\"max_axial_error\":");
    json_number(stdout, r->max_axial_error);
    printf(",\"force_front\":");
    json_array(stdout, r->force_front, 3);
    printf(",\"force_back\":");
    json_array(stdout, r->force_back, 3);
    json_field(stdout, "forces_time", r->forces_time);
    json_field(stdout, "static_front_y", 0.5 * (mg + lever));
    json_field(stdout, "static_back_y", -0.5 * (lever - mg));
    printf(",\"gaps\":");
    json_array(stdout, r->gaps, 2);
    json_field(stdout, "tilt", r->tilt);
    json_field(stdout, "tilt_seated", -asin(2.0 * s->c / s->hole_length));
    printf(",\"steps\":%ld,\"step_sizes\":{\"min\":", r->steps);
    json_number(stdout, r->dt_smallest);
    json_field(stdout, "max", r->dt_largest);
    printf(",\"count\":%ld},\"cpu_seconds\":", r->steps);
    json_number(stdout, r->cpu);
    printf("}\n");
}

static const char usage_text[] =
    "usage: cylindrical_slider [--json] [--csv FILE] [--dt H] [--dt-max H2] [--t-end T] "
    "[--scheme moreau_jean|midpoint|semi_implicit] [--clearance-energy-form 0|1]";

int main(int argc, char **argv) {
    cli_check(argc, argv, usage_text);
    settings s = {
        .steps = {.scheme = NSCD_TS_MOREAU_JEAN, .dt_min = 1e-3, .dt_max = 3e-3, .t_end = 1.0},
        .mass = 1.0,
        .inertia = 0.01,
        .hole_length = 0.1,
        .pin_radius = 0.01,
        .c = 1e-4,
        .force = 20.0,
        .offset = 0.05};
    if (joint_example_parse_steps(argc, argv, "cylindrical_slider", &s.steps) != 0) {
        return 2;
    }
    if (joint_example_parse_energy_form(argc, argv, "cylindrical_slider", &s.energy_form) != 0) {
        return 2;
    }
    const char *csv_path = cli_string(argc, argv, "--csv", NULL);
    FILE *csv = NULL;
    if (joint_example_open_csv("cylindrical_slider", csv_path, "t,h,axial_error,y,z,tilt", &csv) !=
        0) {
        return 2;
    }
    result r = {.max_axial_error = 0.0};
    int code = run(&s, csv, &r);
    if (csv != NULL) {
        fclose(csv);
    }
    if (code == 0 && cli_has_flag(argc, argv, "--json")) {
        print_json(&s, &r);
    } else if (code == 0) {
        printf("axial error %.3g m, front %.12g N, back %.12g N, %ld steps\n", r.max_axial_error,
               r.force_front[1], r.force_back[1], r.steps);
    }
    return code;
}
