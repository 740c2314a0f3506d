/* A pendulum on an ideal revolute joint against the same pendulum on a
 * revolute joint with clearance (seed 004, Sects. 4.3 and 5.4; Table 4 is
 * lost: the parameters are ours, printed in "parameters" and in
 * docs/joints.md).
 *
 * A body of mass m (isotropic inertia I_cm about its centre of mass) hangs
 * from a pin fixed to the ground along z through the origin, its centre of
 * mass at com_distance L from the pin axis (and, with --3d, com_offset_z
 * along the axis: the centre of mass off the plane of the swing), released
 * at rest horizontal (90° from the downward vertical), gravity -y. The
 * clearance pendulum's hole (radius R_pin + c, length 0.05 m) is concentric
 * with the pin at release; the pin's axial stops are 0.05 m + c_a apart.
 * Driven by the midpoint rule (default) or seed 004's semi-implicit scheme
 * (--scheme semi_implicit, Sect. 2.1.4), at fixed h or, with --dt-max H2 > H,
 * by variable steps in [H, H2] (the time stepper's dt_min, dt_max).
 *
 * Output (--json): the parameters; the period (between the first two upward
 * zero crossings of the swing angle) and the exact ideal period
 * 4 sqrt(I_O/(m g L)) K(sin²(θ0/2)); the first contact time (the first step
 * end at which a radial gap is closed) and √(2c/g); the energy samples; the
 * energy lost at the first impact and m g c I_cm/I_O; the largest
 * penetration and eccentricity over the run; the contact onsets; steps,
 * CPU time; the largest residual of the ideal joint.
 *
 * Usage: revolute_pendulum [--json] [--csv FILE] [--joint ideal|clearance]
 *                          [--scheme midpoint|semi_implicit|moreau_jean]
 *                          [--dt 1e-3] [--dt-max H] [--t-end 10] [--3d]
 *                          [--projection N] (Gauss–Newton iterations of the
 *                          world's joint projection, default 10)
 *                          [--clearance-energy-form 0|1] (the clearance
 *                          gaps' nscd_clearance_joint_desc::energy_form,
 *                          default 1; 0 = every gap plastic at every step,
 *                          docs/joints.md)
 * --dt-max smaller than --dt is refused (exit 2). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "example_cli.h"
#include "joint_example.h"
#include "nscd/nscd.h"

#define G 9.81
#define RELEASE_ANGLE 1.5707963267948966 /* pi/2 */
#define K_HALF 1.8540746773013719        /* K(m = 1/2), scipy.special.ellipk(0.5) */
/* A radial gap at most the world's contact distance (1e-9 m, docs/joints.md) is
 * closed: the semi-implicit scheme lands a closing gap there. */
#define CLOSED_GAP 1.001e-9

typedef struct settings {
    int clearance, three_d, scheme, projection;
    double dt, dt_max, t_end;
    double mass, com_distance, com_offset_z, inertia, pin_radius, c, axial_play, hole_length;
    int32_t energy_form; /* nscd_clearance_joint_desc::energy_form */
} settings;

typedef struct result {
    double period, first_contact, loss, max_penetration, max_eccentricity, max_residual;
    int contact_onsets;
    long steps;
    double cpu, dt_smallest, dt_largest;
    double *energy; /* pairs (t, E) every 0.01 s */
    int n_energy;
} result;

static double energy_of(const nscd_world *w, nscd_body_id id, const settings *s) {
    double x[3], v[3], om[3];
    nscd_world_get_body(w, id, x, NULL, v, om);
    return 0.5 * s->mass * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) +
           0.5 * s->inertia * (om[0] * om[0] + om[1] * om[1] + om[2] * om[2]) + s->mass * G * x[1];
}

/* The world with the pendulum and its joint; the body id. */
static nscd_status build(const settings *s, nscd_world **world, nscd_body_id *body,
                         nscd_joint_id *joint) {
    nscd_body_desc bd;
    joint_example_body_desc(s->mass, s->inertia, &bd);
    bd.position[0] = s->com_distance;
    bd.position[2] = s->com_offset_z;
    const double gravity[3] = {0.0, -G, 0.0};
    nscd_status rc = joint_example_world_with_body(gravity, &bd, world, body);
    if (rc != NSCD_OK) {
        return rc;
    }
    if (!s->clearance) {
        nscd_joint_desc jd;
        nscd_joint_desc_init(&jd, sizeof jd);
        jd.type = NSCD_JOINT_REVOLUTE;
        jd.body_b = *body;
        jd.position_b[0] = -s->com_distance;
        jd.position_b[2] = -s->com_offset_z;
        return nscd_world_add_joint(*world, &jd, joint);
    }
    nscd_clearance_joint_desc cd;
    nscd_clearance_joint_desc_init(&cd, sizeof cd);
    cd.type = NSCD_CLEARANCE_REVOLUTE;
    cd.inner_body = *body;
    cd.inner_position[0] = -s->com_distance;
    cd.inner_position[2] = -s->com_offset_z;
    cd.pin_radius = s->pin_radius;
    cd.hole_radius = s->pin_radius + s->c;
    cd.inner_length = s->hole_length;
    cd.outer_length = s->hole_length + s->axial_play;
    cd.energy_form = s->energy_form;
    return nscd_world_add_clearance_joint(*world, &cd, joint);
}

/* Per-step bookkeeping of the gaps (clearance) or the residual (ideal). */
static void observe(const nscd_world *w, nscd_joint_id joint, const settings *s, double t,
                    int *closed, result *r) {
    double values[6];
    int32_t count = 0;
    nscd_world_joint_residual(w, joint, 6, &count, values);
    if (!s->clearance) {
        for (int k = 0; k < count; ++k) {
            r->max_residual = fmax(r->max_residual, fabs(values[k]));
        }
        return;
    }
    for (int k = 0; k < count; ++k) {
        r->max_penetration = fmax(r->max_penetration, -values[k]);
    }
    for (int k = 0; k < 2; ++k) {
        r->max_eccentricity = fmax(r->max_eccentricity, s->c - values[k]);
    }
    int now = fmin(values[0], values[1]) <= CLOSED_GAP;
    if (now && !*closed) {
        r->contact_onsets++;
        if (r->first_contact < 0.0) {
            r->first_contact = t;
        }
    }
    *closed = now;
}

static int variable(const settings *s) { return s->dt_max > s->dt; }

/* The stepper of the settings: fixed steps of dt, or variable in [dt, dt_max]
 * stopping after every step, so that the loop below sees each step (the fixed
 * path advances to n h instead, as before: bitwise the same). */
static nscd_status make_stepper(const settings *s, nscd_world *w, nscd_time_stepping **ts) {
    nscd_time_stepping_options o;
    nscd_time_stepping_options_init(&o, sizeof o);
    o.scheme = s->scheme;
    o.dt = s->dt;
    if (variable(s)) {
        o.dt_min = s->dt, o.dt_max = s->dt_max, o.on_step = joint_example_stop_after_one_step;
    }
    return nscd_time_stepping_create_world(w, &o, ts);
}

static int run(const settings *s, FILE *csv, result *r) {
    nscd_world *w = NULL;
    nscd_body_id body = 0;
    nscd_joint_id joint = 0;
    nscd_time_stepping *ts = NULL;
    nscd_status rc = build(s, &w, &body, &joint);
    if (rc == NSCD_OK && s->projection != 10) { /* 10: the world's default */
        rc = nscd_world_set_joint_projection(w, s->projection, 1e-12);
    }
    if (rc == NSCD_OK) {
        rc = make_stepper(s, w, &ts);
    }
    long steps = lround(s->t_end / s->dt), every = lround(0.01 / s->dt);
    every = every > 0 ? every : 1;
    r->energy = calloc(2 * (size_t)(s->t_end / 0.01 + steps / every + 2), sizeof(double));
    if (rc != NSCD_OK || r->energy == NULL) {
        fprintf(stderr, "revolute_pendulum: setup failed (%d)\n", (int)rc);
        nscd_time_stepping_destroy(ts);
        nscd_world_destroy(w);
        return 1;
    }
    double previous_angle = 0.0, crossings[2] = {0.0, 0.0}, e_before_contact = 0.0;
    double e_previous = energy_of(w, body, s), t_previous = 0.0, t = 0.0;
    int n_cross = 0, closed = 0;
    long loss_step = -1, next_sample = 1;
    r->dt_smallest = INFINITY, r->dt_largest = 0.0;
    clock_t start = clock();
    for (long n = 1; rc == NSCD_OK && (variable(s) ? t < s->t_end : n <= steps); ++n) {
        nscd_time_stepping_stats st;
        rc = joint_example_advance(ts, variable(s) ? s->t_end : (double)n * s->dt, &st);
        t = variable(s) ? st.t : (double)n * s->dt;
        r->dt_smallest = fmin(r->dt_smallest, t - t_previous);
        r->dt_largest = fmax(r->dt_largest, t - t_previous);
        double x[3], e = energy_of(w, body, s);
        nscd_world_get_body(w, body, x, NULL, NULL, NULL);
        double had_contact = r->first_contact;
        observe(w, joint, s, t, &closed, r);
        if (had_contact < 0.0 && r->first_contact >= 0.0) {
            e_before_contact = e_previous, loss_step = n + 2;
        }
        if (n == loss_step) {
            r->loss = e_before_contact - e;
        }
        double angle = atan2(x[0], -x[1]);
        if (previous_angle < 0.0 && angle >= 0.0 && n_cross < 2) {
            double fraction = previous_angle / (previous_angle - angle);
            crossings[n_cross++] = variable(s) ? t_previous + fraction * (t - t_previous)
                                               : ((double)n - 1.0 + fraction) * s->dt;
        }
        previous_angle = angle;
        int sample = variable(s) ? t >= 0.01 * (double)next_sample - 1e-12 : n % every == 0;
        if (sample) {
            r->energy[2 * r->n_energy] = t;
            r->energy[2 * r->n_energy++ + 1] = e;
            next_sample = (long)floor(t / 0.01 + 1e-9) + 1;
        }
        if (csv != NULL) {
            fprintf(csv, "%.9g,%.17g,%.17g,%.17g,%.17g\n", t, x[0], x[1], x[2], e);
        }
        e_previous = e, t_previous = t;
        r->steps = n;
    }
    r->cpu = (double)(clock() - start) / CLOCKS_PER_SEC;
    r->period = n_cross == 2 ? crossings[1] - crossings[0] : NAN;
    if (rc != NSCD_OK) {
        fprintf(stderr, "revolute_pendulum: %s\n", nscd_time_stepping_last_error(ts));
    }
    nscd_time_stepping_destroy(ts);
    nscd_world_destroy(w);
    return rc == NSCD_OK ? 0 : 1;
}

static void print_json(const settings *s, const result *r) {
    double io = s->inertia + s->mass * s->com_distance * s->com_distance;
    printf("{\"parameters\":{\"joint\":\"%s\",\"scheme\":\"%s\",\"mass\":",
           s->clearance ? "clearance" : "ideal", joint_example_scheme_name(s->scheme));
    json_number(stdout, s->mass);
    json_field(stdout, "com_distance", s->com_distance);
    json_field(stdout, "com_offset_z", s->com_offset_z);
    json_field(stdout, "inertia_cm_axis", s->inertia);
    json_field(stdout, "g", G);
    json_field(stdout, "release_angle", RELEASE_ANGLE);
    json_field(stdout, "clearance", s->clearance ? s->c : 0.0);
    json_field(stdout, "axial_play", s->clearance ? s->axial_play : 0.0);
    json_field(stdout, "pin_radius", s->pin_radius);
    json_field(stdout, "hole_length", s->hole_length);
    json_field(stdout, "dt", s->dt);
    if (variable(s)) {
        json_field(stdout, "dt_min", s->dt);
        json_field(stdout, "dt_max", s->dt_max);
    }
    json_field(stdout, "t_end", s->t_end);
    printf(",\"initial_state\":{\"position\":[");
    json_number(stdout, s->com_distance);
    printf(",0,");
    json_number(stdout, s->com_offset_z);
    printf("],\"velocity\":[0,0,0],\"angular_velocity\":[0,0,0]}},\"period\":");
    json_number(stdout, r->period);
    json_field(stdout, "period_ideal_exact",
               4.0 * sqrt(io / (s->mass * G * s->com_distance)) * K_HALF);
    json_field(stdout, "first_contact_time", s->clearance ? r->first_contact : NAN);
    json_field(stdout, "first_contact_exact", s->clearance ? sqrt(2.0 * s->c / G) : NAN);
    printf(",\"energy\":[");
    for (int k = 0; k < r->n_energy; ++k) {
        printf(k ? ",[" : "[");
        json_number(stdout, r->energy[2 * k]);
        printf(",");
        json_number(stdout, r->energy[2 * k + 1]);
        printf("]");
    }
    printf("],\"energy_loss_first_impact\":");
    json_number(stdout, s->clearance ? r->loss : NAN);
    json_field(stdout, "energy_loss_expected",
               s->clearance ? s->mass * G * s->c * s->inertia / io : NAN);
    json_field(stdout, "max_penetration", r->max_penetration);
    json_field(stdout, "max_eccentricity", r->max_eccentricity);
    json_field(stdout, "max_residual", r->max_residual);
    printf(",\"contact_onsets\":%d,\"steps\":%ld,\"step_sizes\":{\"min\":", r->contact_onsets,
           r->steps);
    json_number(stdout, variable(s) ? r->dt_smallest : s->dt);
    json_field(stdout, "max", variable(s) ? r->dt_largest : s->dt);
    if (variable(s)) {
        printf(",\"count\":%ld", r->steps);
    }
    printf("},\"cpu_seconds\":");
    json_number(stdout, r->cpu);
    printf("}\n");
}

static const char usage_text[] =
    "usage: revolute_pendulum [--json] [--csv FILE] [--joint ideal|clearance] [--dt H] "
    "[--dt-max H2] [--t-end T] [--3d] [--scheme midpoint|semi_implicit|moreau_jean] [--projection "
    "N] [--clearance-energy-form 0|1]";

int main(int argc, char **argv) {
    cli_check(argc, argv, usage_text);
    settings s = {.mass = 1.0,
                  .com_distance = 0.5,
                  .inertia = 0.02,
                  .pin_radius = 0.01,
                  .c = 1e-4,
                  .axial_play = 2e-4,
                  .hole_length = 0.05};
    s.clearance = strcmp(cli_string(argc, argv, "--joint", "ideal"), "clearance") == 0;
    s.three_d = cli_has_flag(argc, argv, "--3d");
    s.com_offset_z = s.three_d ? 0.05 : 0.0;
    s.dt = cli_double(argc, argv, "--dt", 1e-3);
    s.dt_max = cli_double(argc, argv, "--dt-max", s.dt);
    s.t_end = cli_double(argc, argv, "--t-end", 10.0);
    double projection = cli_double(argc, argv, "--projection", 10.0);
    if (!(projection >= 0.0 && projection <= 100.0) || projection != floor(projection)) {
        fprintf(stderr, "revolute_pendulum: --projection takes 0 to 100 iterations\n");
        return 2;
    }
    s.projection = (int)projection;
    if (joint_example_parse_energy_form(argc, argv, "revolute_pendulum", &s.energy_form) != 0) {
        return 2;
    }
    int json = cli_has_flag(argc, argv, "--json");
    if (!(s.dt > 0.0) || !(s.t_end > 0.0) || s.t_end / s.dt > 1e8) {
        fprintf(stderr, "revolute_pendulum: bad --dt or --t-end\n");
        return 2;
    }
    if (!(s.dt_max >= s.dt) || s.t_end / s.dt_max > 1e8) {
        fprintf(stderr, "revolute_pendulum: --dt-max must be >= --dt\n");
        return 2;
    }
    const char *scheme = cli_string(argc, argv, "--scheme", "midpoint");
    s.scheme = joint_example_scheme(scheme);
    if (s.scheme < 0) {
        fprintf(stderr, "revolute_pendulum: unknown --scheme %s\n", scheme);
        return 2;
    }
    const char *csv_path = cli_string(argc, argv, "--csv", NULL);
    FILE *csv = NULL;
    if (joint_example_open_csv("revolute_pendulum", csv_path, "t,x,y,z,energy", &csv) != 0) {
        return 2;
    }
    result r = {.first_contact = -1.0};
    int code = run(&s, csv, &r);
    if (csv != NULL) {
        fclose(csv);
    }
    if (code == 0 && json) {
        print_json(&s, &r);
    } else if (code == 0) {
        printf("%s joint, h = %g: period %.9f s, first contact %.6g s, max penetration %.3g m\n",
               s.clearance ? "clearance" : "ideal", s.dt, r.period, r.first_contact,
               r.max_penetration);
    }
    free(r.energy);
    return code;
}
