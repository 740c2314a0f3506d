/* A planar four-bar linkage of four ideal revolute joints in a world, the
 * mechanism a new user builds first from docs/joints.md, and the smallest
 * one whose joint rows are dependent: three moving links (18 dofs) held by
 * four revolute joints (20 rows) keep one dof, so 3 of the 20 rows are
 * redundant (the out-of-plane rows of a planar loop). Its Delassus matrix
 * is singular in exact arithmetic; the time steppers solve it by the rule
 * of docs/time_stepping.md ("Redundant rows").
 *
 * Links (uniform rods, mass 2 kg/m, isotropic inertia m L^2 / 12): ground
 * A D of length d = 0.5 m along x, crank A B (a = 0.2 m), coupler B C
 * (b = 0.5 m), rocker D C (c = 0.4 m): a Grashof crank-rocker (a + b <=
 * c + d), whose crank turns fully. Joint axes along z, gravity -y. The crank
 * starts at rest at theta0 = 60 deg from +x with C in the upper (open)
 * assembly. With --clearance the coupler-rocker joint C is a revolute
 * clearance joint (pin radius 10 mm, clearance 0.1 mm, plastic, the
 * library's defaults otherwise).
 *
 * Output (--json): the parameters; the crank angle theta(t) (unwrapped,
 * from +x about z) sampled every 0.01 s, with the kinetic plus potential
 * energy; the largest joint residual over the run (ideal joints: their
 * equations, m or sines; clearance: the largest penetration); steps; CPU
 * time. The test (tests/python/test_example_four_bar.py) compares theta(t)
 * with an independent one-dof reference.
 *
 * Usage: four_bar [--json] [--csv FILE] [--clearance] [--dt 1e-3] [--t-end 10]
 *                 [--scheme moreau_jean|midpoint|half_explicit|generalized_alpha|
 *                           bathe|ed_alpha|semi_implicit] (default midpoint)
 *                 [--theta0 60] (degrees) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "example_cli.h"
#include "joint_example.h"
#include "nscd/nscd.h"

#define G 9.81
#define PI 3.14159265358979323846
#define LINE_DENSITY 2.0 /* kg/m */
#define LINKS 3          /* crank, coupler, rocker */

typedef struct settings {
    int clearance, scheme;
    double dt, t_end, theta0;
    double a, b, c, d; /* crank, coupler, rocker, ground */
} settings;

typedef struct result {
    double max_residual;
    long steps;
    double cpu;
    double *samples; /* triples (t, theta, E) every 0.01 s */
    int n_samples;
} result;

static const struct {
    const char *name;
    int scheme;
} schemes[] = {
    {"moreau_jean", NSCD_TS_MOREAU_JEAN},
    {"midpoint", NSCD_TS_MOREAU_MIDPOINT},
    {"half_explicit", NSCD_TS_HALF_EXPLICIT},
    {"generalized_alpha", NSCD_TS_GENERALIZED_ALPHA},
    {"bathe", NSCD_TS_BATHE},
    {"ed_alpha", NSCD_TS_ED_ALPHA},
    {"semi_implicit", NSCD_TS_SEMI_IMPLICIT},
};

static int scheme_of(const char *name) {
    for (size_t k = 0; k < sizeof schemes / sizeof schemes[0]; ++k) {
        if (strcmp(name, schemes[k].name) == 0) {
            return schemes[k].scheme;
        }
    }
    return -1;
}

static const char *scheme_name(int scheme) {
    for (size_t k = 0; k < sizeof schemes / sizeof schemes[0]; ++k) {
        if (schemes[k].scheme == scheme) {
            return schemes[k].name;
        }
    }
    return "?";
}

/* The joint points at crank angle theta (open assembly, C above the line
 * B D): B and C in the plane z = 0. */
static void assembly(const settings *s, double theta, double B[2], double C[2]) {
    B[0] = s->a * cos(theta), B[1] = s->a * sin(theta);
    double ex = s->d - B[0], ey = -B[1], e = hypot(ex, ey); /* B -> D */
    double along = (s->b * s->b - s->c * s->c + e * e) / (2.0 * e);
    double across = sqrt(s->b * s->b - along * along);
    C[0] = B[0] + (along * ex + across * ey) / e; /* to the left of B -> D: above */
    C[1] = B[1] + (along * ey - across * ex) / e;
}

/* A rod from P to Q: its centre, its turn about z (quaternion), mass, inertia. */
static void rod(const double P[2], const double Q[2], nscd_body_desc *bd) {
    double dx = Q[0] - P[0], dy = Q[1] - P[1], L = hypot(dx, dy), phi = atan2(dy, dx);
    double m = LINE_DENSITY * L;
    joint_example_body_desc(m, m * L * L / 12.0, bd);
    bd->position[0] = 0.5 * (P[0] + Q[0]);
    bd->position[1] = 0.5 * (P[1] + Q[1]);
    bd->orientation[0] = cos(0.5 * phi);
    bd->orientation[3] = sin(0.5 * phi);
}

/* Revolute joint (axis z) between the point at x = xa on body a's axis and
 * x = xb on body b's (NSCD_BODY_NULL: the ground, xa then in the world). */
static nscd_status revolute(nscd_world *w, nscd_body_id a, double xa, nscd_body_id b, double xb,
                            nscd_joint_id *id) {
    nscd_joint_desc jd;
    nscd_joint_desc_init(&jd, sizeof jd);
    jd.type = NSCD_JOINT_REVOLUTE;
    jd.body_a = a;
    jd.position_a[0] = xa;
    jd.body_b = b;
    jd.position_b[0] = xb;
    return nscd_world_add_joint(w, &jd, id);
}

/* The links and the joints A, B, D, C (joint[3] = C). */
static nscd_status build(const settings *s, nscd_world *w, nscd_body_id link[LINKS],
                         nscd_joint_id joint[4]) {
    double A[2] = {0.0, 0.0}, D[2] = {s->d, 0.0}, B[2], C[2];
    assembly(s, s->theta0, B, C);
    const double *ends[LINKS][2] = {{A, B}, {B, C}, {D, C}};
    nscd_status rc = NSCD_OK;
    for (int k = 0; k < LINKS && rc == NSCD_OK; ++k) {
        nscd_body_desc bd;
        rod(ends[k][0], ends[k][1], &bd);
        rc = nscd_world_add_body(w, &bd, NULL, 0, &link[k]);
    }
    if (rc == NSCD_OK) { /* A: ground - crank */
        rc = revolute(w, NSCD_BODY_NULL, 0.0, link[0], -0.5 * s->a, &joint[0]);
    }
    if (rc == NSCD_OK) { /* B: crank - coupler */
        rc = revolute(w, link[0], 0.5 * s->a, link[1], -0.5 * s->b, &joint[1]);
    }
    if (rc == NSCD_OK) { /* D: ground - rocker */
        rc = revolute(w, NSCD_BODY_NULL, s->d, link[2], -0.5 * s->c, &joint[2]);
    }
    if (rc != NSCD_OK) {
        return rc;
    }
    if (!s->clearance) { /* C: coupler - rocker */
        return revolute(w, link[1], 0.5 * s->b, link[2], 0.5 * s->c, &joint[3]);
    }
    nscd_clearance_joint_desc cd;
    nscd_clearance_joint_desc_init(&cd, sizeof cd);
    cd.type = NSCD_CLEARANCE_REVOLUTE;
    cd.inner_body = link[1]; /* the coupler's hole */
    cd.inner_position[0] = 0.5 * s->b;
    cd.outer_body = link[2]; /* the rocker's pin */
    cd.outer_position[0] = 0.5 * s->c;
    return nscd_world_add_clearance_joint(w, &cd, &joint[3]);
}

static double energy_of(const nscd_world *w, const nscd_body_id link[LINKS]) {
    double e = 0.0;
    for (int k = 0; k < LINKS; ++k) {
        double x[3], v[3], om[3], m = 0.0, inertia[3];
        nscd_world_get_body(w, link[k], x, NULL, v, om);
        nscd_world_get_body_mass(w, link[k], &m, inertia);
        e += 0.5 * m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) +
             0.5 * inertia[0] * (om[0] * om[0] + om[1] * om[1] + om[2] * om[2]) + m * G * x[1];
    }
    return e;
}

/* The crank's angle from +x, unwrapped against the previous value. */
static double crank_angle(const nscd_world *w, nscd_body_id crank, double previous) {
    double x[3];
    nscd_world_get_body(w, crank, x, NULL, NULL, NULL);
    double theta = atan2(x[1], x[0]);
    return theta + 2.0 * PI * round((previous - theta) / (2.0 * PI));
}

/* The largest |residual| of the ideal joints, or penetration of the gaps. */
static double joint_residual(const nscd_world *w, const settings *s, const nscd_joint_id joint[4]) {
    double worst = 0.0;
    for (int k = 0; k < 4; ++k) {
        double values[32];
        int32_t count = 0;
        if (nscd_world_joint_residual(w, joint[k], 32, &count, values) != NSCD_OK) {
            return INFINITY;
        }
        int gaps = s->clearance && k == 3;
        for (int32_t r = 0; r < count; ++r) {
            worst = fmax(worst, gaps ? -values[r] : fabs(values[r]));
        }
    }
    return worst;
}

static int run(const settings *s, FILE *csv, result *r) {
    nscd_world_desc wd;
    nscd_world_desc_init(&wd, sizeof wd);
    wd.gravity[1] = -G;
    nscd_world *w = NULL;
    nscd_time_stepping *ts = NULL;
    nscd_body_id link[LINKS] = {0, 0, 0};
    nscd_joint_id joint[4] = {0, 0, 0, 0};
    nscd_status rc = nscd_world_create(&wd, &w);
    if (rc == NSCD_OK) {
        rc = build(s, w, link, joint);
    }
    if (rc == NSCD_OK) {
        nscd_time_stepping_options o;
        nscd_time_stepping_options_init(&o, sizeof o);
        o.scheme = s->scheme;
        o.dt = s->dt;
        rc = nscd_time_stepping_create_world(w, &o, &ts);
    }
    long steps = lround(s->t_end / s->dt), every = lround(0.01 / s->dt);
    every = every > 0 ? every : 1;
    r->samples = calloc(3 * (size_t)(steps / every + 2), sizeof(double));
    if (rc != NSCD_OK || r->samples == NULL) {
        fprintf(stderr, "four_bar: setup failed (%s)\n", nscd_status_string(rc));
        nscd_time_stepping_destroy(ts);
        nscd_world_destroy(w);
        return 1;
    }
    double theta = s->theta0;
    r->samples[0] = 0.0, r->samples[1] = theta, r->samples[2] = energy_of(w, link);
    r->n_samples = 1;
    clock_t start = clock();
    for (long n = 1; rc == NSCD_OK && n <= steps; ++n) {
        rc = nscd_time_stepping_advance(ts, (double)n * s->dt, NULL);
        double t = (double)n * s->dt;
        theta = crank_angle(w, link[0], theta);
        r->max_residual = fmax(r->max_residual, joint_residual(w, s, joint));
        if (n % every == 0) {
            double *sample = r->samples + 3 * (size_t)r->n_samples++;
            sample[0] = t, sample[1] = theta, sample[2] = energy_of(w, link);
        }
        if (csv != NULL) {
            fprintf(csv, "%.9g,%.17g,%.17g\n", t, theta, energy_of(w, link));
        }
        r->steps = n;
    }
    r->cpu = (double)(clock() - start) / CLOCKS_PER_SEC;
    if (rc != NSCD_OK) {
        fprintf(stderr, "four_bar: %s at step %ld: %s\n", nscd_status_string(rc), r->steps + 1,
                nscd_time_stepping_last_error(ts));
    }
    nscd_time_stepping_destroy(ts);
    nscd_world_destroy(w);
    return rc == NSCD_OK ? 0 : 1;
}

static void print_json(const settings *s, const result *r) {
    printf("{\"parameters\":{\"joint_c\":\"%s\",\"scheme\":\"%s\",\"crank\":",
           s->clearance ? "clearance" : "ideal", scheme_name(s->scheme));
    json_number(stdout, s->a);
    json_field(stdout, "coupler", s->b);
    json_field(stdout, "rocker", s->c);
    json_field(stdout, "ground", s->d);
    json_field(stdout, "line_density", LINE_DENSITY);
    json_field(stdout, "g", G);
    json_field(stdout, "theta0", s->theta0);
    json_field(stdout, "dt", s->dt);
    json_field(stdout, "t_end", s->t_end);
    printf("},\"samples\":[");
    for (int k = 0; k < r->n_samples; ++k) {
        const double *sample = r->samples + 3 * (size_t)k;
        printf(k ? ",[" : "[");
        json_number(stdout, sample[0]);
        for (int i = 1; i < 3; ++i) {
            printf(",");
            json_number(stdout, sample[i]);
        }
        printf("]");
    }
    printf("]");
    json_field(stdout, "max_residual", r->max_residual);
    printf(",\"steps\":%ld,\"cpu_seconds\":", r->steps);
    json_number(stdout, r->cpu);
    printf("}\n");
}

static const char usage_text[] =
    "usage: four_bar [--json] [--csv FILE] [--clearance] [--dt H] [--t-end T] [--theta0 DEG] "
    "[--scheme moreau_jean|midpoint|half_explicit|generalized_alpha|bathe|ed_alpha|"
    "semi_implicit]";

int main(int argc, char **argv) {
    cli_check(argc, argv, usage_text);
    settings s = {.a = 0.2, .b = 0.5, .c = 0.4, .d = 0.5};
    s.clearance = cli_has_flag(argc, argv, "--clearance");
    s.dt = cli_double(argc, argv, "--dt", 1e-3);
    s.t_end = cli_double(argc, argv, "--t-end", 10.0);
    s.theta0 = cli_double(argc, argv, "--theta0", 60.0) * PI / 180.0;
    int json = cli_has_flag(argc, argv, "--json");
    if (!(s.dt > 0.0) || !(s.t_end > 0.0) || s.t_end / s.dt > 1e8 || !isfinite(s.theta0)) {
        fprintf(stderr, "four_bar: bad --dt, --t-end or --theta0\n");
        return 2;
    }
    const char *scheme = cli_string(argc, argv, "--scheme", "midpoint");
    s.scheme = scheme_of(scheme);
    if (s.scheme < 0) {
        fprintf(stderr, "four_bar: unknown --scheme %s\n", scheme);
        return 2;
    }
    const char *csv_path = cli_string(argc, argv, "--csv", NULL);
    FILE *csv = NULL;
    if (joint_example_open_csv("four_bar", csv_path, "t,theta,energy", &csv) != 0) {
        return 2;
    }
    result r = {0};
    int code = run(&s, csv, &r);
    if (csv != NULL) {
        fclose(csv);
    }
    if (code == 0 && json) {
        print_json(&s, &r);
    } else if (code == 0) {
        const double *last = r.samples + 3 * (size_t)(r.n_samples - 1);
        printf("four-bar (%s joint C, %s, h = %g): theta(%g) = %.9f rad, energy drift %.3g J, "
               "max joint residual %.3g m\n",
               s.clearance ? "clearance" : "ideal", scheme_name(s.scheme), s.dt, last[0], last[1],
               last[2] - r.samples[2], r.max_residual);
    }
    free(r.samples);
    return code;
}
