/* A triangular slider in a triangular guide through a prismatic joint with
 * clearance (seed 004, Sect. 4.2; Table 2 is lost: the parameters are ours,
 * printed in "parameters" and in docs/joints.md).
 *
 * The guide is fixed, its axis along the world z, its cavity an equilateral
 * triangle of circumradius 20 mm with the apex down (vertices at -90°, 30°,
 * 150°, counter-clockwise); the slider (m = 0.5 kg, isotropic I = 1e-3 kg m²,
 * length 0.1 m) is the cavity offset inwards by c = 0.3 mm, so its 2 x 3
 * vertices sit at distance c from the two faces of their corners: 12 gaps
 * (eqs. 38-39). It starts centred with v = (0, 0, 0.1) m/s (--spin: also
 * v_x = 0.02 m/s and ω_z = 0.5 rad/s), gravity -y; it falls by 2c into the
 * apex (plastic impacts), slides freely along the axis and rests there.
 * Driven by the midpoint rule (default) with h in [1e-3, 1e-2]. (--spin with
 * the midpoint rule or Moreau–Jean fails with "local LCP of 8 rows failed"
 * on the redundant rows: use --scheme semi_implicit; docs/joints.md.)
 *
 * Output (--json): the parameters; the time from which the transverse
 * velocity stays below 1e-9 (steady state); the active set at the end: every
 * gap within the contact distance (1e-9 m) with its contact point (relative
 * to the slider's centre), normal and force (impulse / h of the last step);
 * the number of closed gaps and of distinct vertices in contact; the sum of
 * the gap forces against m g; steps, step sizes, CPU time.
 *
 * Usage: prismatic_slider [--json] [--csv FILE] [--dt 1e-3] [--dt-max 1e-2]
 *                         [--t-end 1] [--scheme midpoint|moreau_jean|semi_implicit]
 *                         [--spin] [--clearance-energy-form 0|1]
 * (--clearance-energy-form: nscd_clearance_joint_desc::energy_form, default
 * 1; 0 = every gap plastic at every step, docs/joints.md) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "example_cli.h"
#include "joint_example.h"
#include "nscd/nscd.h"

#define G 9.81
#define N_GAPS 12
/* Closed: within twice the world's contact distance (1e-9 m, docs/joints.md); the
 * semi-implicit scheme lands a closing gap at the contact distance itself. */
#define CLOSED_GAP 2e-9

typedef struct settings {
    joint_example_steps steps;
    double mass, inertia, length, circumradius, c, v0[3], w0[3];
    int32_t energy_form; /* nscd_clearance_joint_desc::energy_form */
} settings;

typedef struct result {
    double gaps[N_GAPS], normals[3 * N_GAPS], points[3 * N_GAPS], forces[N_GAPS];
    double force_sum[3], position[3], rest_time, cpu, dt_smallest, dt_largest, h_last;
    int closed, vertices;
    long steps;
} result;

static nscd_status build(const settings *s, nscd_world **world, nscd_body_id *body,
                         nscd_joint_id *joint) {
    nscd_body_desc bd;
    joint_example_body_desc(s->mass, s->inertia, &bd);
    memcpy(bd.velocity, s->v0, sizeof s->v0);
    memcpy(bd.angular_velocity, s->w0, sizeof s->w0);
    const double gravity[3] = {0.0, -G, 0.0};
    nscd_status rc = joint_example_world_with_body(gravity, &bd, world, body);
    if (rc != NSCD_OK) {
        return rc;
    }
    nscd_clearance_joint_desc cd;
    nscd_clearance_joint_desc_init(&cd, sizeof cd);
    cd.type = NSCD_CLEARANCE_PRISMATIC;
    cd.inner_body = *body;
    cd.inner_length = s->length;
    cd.n_vertices = 3;
    for (int k = 0; k < 3; ++k) { /* apex down, counter-clockwise */
        double angle = -1.5707963267948966 + 2.0943951023931957 * k;
        cd.vertices[2 * k] = s->circumradius * cos(angle);
        cd.vertices[2 * k + 1] = s->circumradius * sin(angle);
    }
    cd.clearance = s->c;
    cd.energy_form = s->energy_form;
    return nscd_world_add_clearance_joint(*world, &cd, joint);
}

/* Distinct vertices among the closed gaps' contact points (two gaps at the
 * same vertex report the same point up to the gap). */
static int count_vertices(const result *r) {
    int count = 0;
    for (int k = 0; k < N_GAPS; ++k) {
        int fresh = r->gaps[k] <= CLOSED_GAP;
        for (int j = 0; fresh && j < k; ++j) {
            double d = 0.0;
            for (int a = 0; a < 3; ++a) {
                d = fmax(d, fabs(r->points[3 * k + a] - r->points[3 * j + a]));
            }
            fresh = !(r->gaps[j] <= CLOSED_GAP && d < 1e-6);
        }
        count += fresh;
    }
    return count;
}

/* The active set and the forces of the last step (size h). */
static nscd_status active_set(const nscd_world *w, nscd_body_id body, nscd_joint_id joint, double h,
                              result *r) {
    double impulses[N_GAPS], x[3];
    int32_t count = 0;
    nscd_status rc = nscd_world_clearance_gaps(w, joint, N_GAPS, &count, r->gaps, r->normals,
                                               r->points, impulses);
    if (rc == NSCD_OK) {
        rc = nscd_world_get_body(w, body, x, NULL, NULL, NULL);
    }
    memcpy(r->position, x, sizeof x);
    r->closed = 0;
    for (int k = 0; rc == NSCD_OK && k < N_GAPS; ++k) {
        r->forces[k] = impulses[k] / h;
        r->closed += r->gaps[k] <= CLOSED_GAP;
        for (int a = 0; a < 3; ++a) {
            r->force_sum[a] += r->normals[3 * k + a] * r->forces[k];
            r->points[3 * k + a] -= x[a];
        }
    }
    r->vertices = count_vertices(r);
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
    double t = 0.0, h = 0.0;
    r->dt_smallest = INFINITY, r->rest_time = -1.0;
    clock_t start = clock();
    while (rc == NSCD_OK && t < s->steps.t_end) {
        nscd_time_stepping_stats st;
        rc = joint_example_advance(ts, s->steps.t_end, &st);
        h = st.t - t, t = st.t;
        double x[3], v[3], om[3];
        nscd_world_get_body(w, body, x, NULL, v, om);
        double transverse =
            fmax(fmax(fabs(v[0]), fabs(v[1])), fmax(fmax(fabs(om[0]), fabs(om[1])), fabs(om[2])));
        if (transverse > 1e-9) {
            r->rest_time = -1.0;
        } else if (r->rest_time < 0.0) {
            r->rest_time = t;
        }
        r->dt_smallest = fmin(r->dt_smallest, h), r->dt_largest = fmax(r->dt_largest, h);
        r->steps++;
        if (csv != NULL) {
            fprintf(csv, "%.9g,%.9g,%.17g,%.17g,%.17g,%.17g,%.17g\n", t, h, x[0], x[1], x[2], v[2],
                    transverse);
        }
    }
    r->cpu = (double)(clock() - start) / CLOCKS_PER_SEC;
    r->h_last = h;
    if (rc == NSCD_OK) {
        rc = active_set(w, body, joint, h, r);
    }
    if (rc != NSCD_OK) {
        fprintf(stderr, "prismatic_slider: failed (%d): %s\n", (int)rc,
                ts ? nscd_time_stepping_last_error(ts) : nscd_world_last_error(w));
    }
    nscd_time_stepping_destroy(ts);
    nscd_world_destroy(w);
    return rc == NSCD_OK ? 0 : 1;
}

static void print_active_set(const result *r) {
    printf("\"active_set\":[");
    for (int k = 0, first = 1; k < N_GAPS; ++k) {
        if (!(r->gaps[k] <= CLOSED_GAP)) {
            continue;
        }
        printf(first ? "{\"gap\":%d,\"value\":" : ",{\"gap\":%d,\"value\":", k);
        first = 0;
        json_number(stdout, r->gaps[k]);
        printf(",\"point\":");
        json_array(stdout, r->points + 3 * k, 3);
        printf(",\"normal\":");
        json_array(stdout, r->normals + 3 * k, 3);
        printf(",\"force\":");
        json_number(stdout, r->forces[k]);
        printf("}");
    }
    printf("]");
}

static void print_json(const settings *s, const result *r) {
    printf("{\"parameters\":{\"scheme\":\"%s\",\"mass\":",
           joint_example_scheme_name(s->steps.scheme));
    json_number(stdout, s->mass);
    json_field(stdout, "inertia", s->inertia);
    json_field(stdout, "length", s->length);
    json_field(stdout, "cavity_circumradius", s->circumradius);
    json_field(stdout, "clearance", s->c);
    json_field(stdout, "g", G);
    joint_example_json_steps(&s->steps);
    printf(",\"initial_state\":{\"position\":[0,0,0],\"velocity\":");
    json_array(stdout, s->v0, 3);
    printf(",\"angular_velocity\":");
    json_array(stdout, s->w0, 3);
    printf("}},\"rest_time\":");
    json_number(stdout, r->rest_time);
    printf(",\"closed_gaps\":%d,\"vertices_in_contact\":%d,", r->closed, r->vertices);
    print_active_set(r);
    printf(",\"position\":");
    json_array(stdout, r->position, 3);
    printf(",\"force_sum\":");
    json_array(stdout, r->force_sum, 3);
    json_field(stdout, "weight", s->mass * G);
    printf(",\"steps\":%ld,\"step_sizes\":{\"min\":", r->steps);
    json_number(stdout, r->dt_smallest);
    json_field(stdout, "max", r->dt_largest);
    json_field(stdout, "last", r->h_last);
    printf(",\"count\":%ld},\"cpu_seconds\":", r->steps);
    json_number(stdout, r->cpu);
    printf("}\n");
}

static const char usage_text[] =
    "usage: prismatic_slider [--json] [--csv FILE] [--dt H] [--dt-max H2] [--t-end T] "
    "[--scheme midpoint|moreau_jean|semi_implicit] [--spin] [--clearance-energy-form 0|1]";

int main(int argc, char **argv) {
    cli_check(argc, argv, usage_text);
    settings s = {
        .steps = {.scheme = NSCD_TS_MOREAU_MIDPOINT, .dt_min = 1e-3, .dt_max = 1e-2, .t_end = 1.0},
        .mass = 0.5,
        .inertia = 1e-3,
        .length = 0.1,
        .circumradius = 0.02,
        .c = 3e-4,
        .v0 = {0.0, 0.0, 0.1}};
    if (cli_has_flag(argc, argv, "--spin")) { /* a transverse kick: it rests rolled */
        s.v0[0] = 0.02, s.w0[2] = 0.5;
    }
    if (joint_example_parse_steps(argc, argv, "prismatic_slider", &s.steps) != 0) {
        return 2;
    }
    if (joint_example_parse_energy_form(argc, argv, "prismatic_slider", &s.energy_form) != 0) {
        return 2;
    }
    const char *csv_path = cli_string(argc, argv, "--csv", NULL);
    FILE *csv = NULL;
    if (joint_example_open_csv("prismatic_slider", csv_path, "t,h,x,y,z,vz,transverse_speed",
                               &csv) != 0) {
        return 2;
    }
    result r = {.closed = 0};
    int code = run(&s, csv, &r);
    if (csv != NULL) {
        fclose(csv);
    }
    if (code == 0 && cli_has_flag(argc, argv, "--json")) {
        print_json(&s, &r);
    } else if (code == 0) {
        printf("rest from %.4g s: %d closed gaps, %d vertices, force sum %.12g N (m g %.12g N)\n",
               r.rest_time, r.closed, r.vertices, r.force_sum[1], s.mass * G);
    }
    return code;
}
